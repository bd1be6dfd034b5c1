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
        write("ERROR", message, cause);
    }

    /** Something an administrator should know of that the server carries on through (a store that is down, being retried). */
    public static void warn(String message) {
        write("WARNING", message, null);
    }

    /** Something an administrator may want to know (where the data is kept). */
    public static void log(String message) {
        write("LOG", message, null);
    }

    /**
     * Writes one entry. Logging never throws: its callers are often in the middle of surviving
     * an error, and an OutOfMemoryError while the line was made (the heap still full) had gone
     * on from a worker's catch and ended the worker thread, and with it the computation.
     */
    private static void write(String level, String message, Throwable cause) {
        try {
            PrintStream p = out;
            synchronized (p) {
                p.println(Instant.now() + " " + level + ":  " + message);
                if (cause != null) cause.printStackTrace(p);
            }
        } catch (Throwable ignored) {
            // the entry is lost; what was being done goes on
        }
    }

    /** Where the log goes from now on (tests read it). */
    static void redirect(PrintStream to) {
        out = to;
    }
}
