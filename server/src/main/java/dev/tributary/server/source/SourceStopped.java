package dev.tributary.server.source;

/**
 * Thrown out of a {@link SourceContext} call when the source must stop: it was dropped, the
 * server is shutting down, or a decode error stops it ({@code ON DECODE ERROR STOP}). A
 * connector lets it propagate; nothing of the call it came from was committed.
 */
public final class SourceStopped extends RuntimeException {
    public SourceStopped(String reason) {
        super(reason, null, false, false);
    }
}
