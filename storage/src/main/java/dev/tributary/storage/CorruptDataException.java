package dev.tributary.storage;

/**
 * Stored bytes are not what was written: a checksum that does not match, a truncated object or
 * log record, an unknown format. Never answered around: the message names the store, the key
 * (a blob part, a consensus key) and what was found, so that an operator can restore it.
 */
public final class CorruptDataException extends StorageException {
    public CorruptDataException(String message) {
        super(message);
    }
}
