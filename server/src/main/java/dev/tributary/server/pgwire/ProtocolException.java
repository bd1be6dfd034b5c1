package dev.tributary.server.pgwire;

import java.io.IOException;

/** A message that breaks protocol 3.0 (bad length, missing terminator, unknown type): the peer's fault, which ends the connection. */
final class ProtocolException extends IOException {
    ProtocolException(String message) {
        super(message);
    }
}
