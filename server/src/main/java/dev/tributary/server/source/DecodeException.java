package dev.tributary.server.source;

/** A message or record that the source's format cannot read: its message says what was wrong (and where in the record, when known). */
public final class DecodeException extends Exception {
    public DecodeException(String message) {
        super(message, null, false, false);
    }
}
