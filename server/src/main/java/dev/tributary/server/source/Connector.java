package dev.tributary.server.source;

/**
 * Reads one outside system into a source. {@link #run} is called on the source's own thread,
 * once per start (at CREATE SOURCE and after every restart of the server): it resumes after
 * {@link SourceContext#positions()}, hands rows and the positions they reach to
 * {@link SourceContext#commit}, and returns when {@link SourceContext#stopping()} (or throws
 * {@link SourceStopped} out of a call to the context). Any other exception stops the source and
 * is reported as its state; it never stops the server.
 *
 * <p>A connector keeps no position of its own between runs: what it has read is what the
 * context says was committed.
 */
public interface Connector {
    /** Reads until stopped; see the class comment. */
    void run(SourceContext context) throws Exception;

    /** Asks a {@link #run} blocked in the outside system's client to return soon (called from another thread). */
    default void wakeUp() {}
}
