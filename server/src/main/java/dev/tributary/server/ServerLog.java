package dev.tributary.server;

import java.io.PrintStream;
import java.time.Instant;

/**
 * The server's log: lines on standard error, each with its time and level, PostgreSQL's
 * {@code LOG:}/{@code ERROR:} style; what the engine hit that no client asked about (a dataflow
 * that failed, with its stack trace) goes here, so an administrator can find it later.
 */
public final class ServerLog {
    private ServerLog() {}

    private static volatile PrintStream out = System.err;

    /** An error that stopped something, with the stack trace of its cause. */
    public static void error(String message, Throwable cause) {
        PrintStream p = out;
        synchronized (p) {
            p.println(Instant.now() + " ERROR:  " + message);
            if (cause != null) cause.printStackTrace(p);
        }
    }

    /** Something an administrator should know of that the server carries on through (a store that is down, being retried). */
    public static void warn(String message) {
        PrintStream p = out;
        synchronized (p) {
            p.println(Instant.now() + " WARNING:  " + message);
        }
    }

    /** Something an administrator may want to know (where the data is kept). */
    public static void log(String message) {
        PrintStream p = out;
        synchronized (p) {
            p.println(Instant.now() + " LOG:  " + message);
        }
    }

    /** Where the log goes from now on (tests read it). */
    static void redirect(PrintStream to) {
        out = to;
    }
}
