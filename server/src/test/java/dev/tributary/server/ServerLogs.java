package dev.tributary.server;

import java.io.PrintStream;

/** For tests in other packages: where {@link ServerLog} writes. */
public final class ServerLogs {
    private ServerLogs() {}

    /** The server log goes to {@code to} from now on; {@code System.err} again after the test. */
    public static void redirect(PrintStream to) {
        ServerLog.redirect(to);
    }
}
