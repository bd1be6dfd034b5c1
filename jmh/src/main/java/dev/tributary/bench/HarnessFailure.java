package dev.tributary.bench;

/**
 * Why a side-by-side harness's measurement of one target stopped: a wrong answer, a phase past
 * its time, a failed statement or command. It fails the measurement as a server's error does.
 */
final class HarnessFailure extends Exception {
    HarnessFailure(String message) {
        super(message);
    }

    HarnessFailure(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * The options {@code parse} makes of a harness's command line, after printing {@code usage}
     * and returning null for {@code --help}; on a bad command line, the error and the usage, and
     * the process exits with status 2.
     */
    static <O> O optionsOrExit(String harness, String usage, String[] args, java.util.function.Function<String[], O> parse) {
        if (java.util.List.of(args).contains("--help") || java.util.List.of(args).contains("-h")) {
            System.out.print(usage);
            return null;
        }
        try {
            return parse.apply(args);
        } catch (IllegalArgumentException e) {
            System.err.println(harness + ": " + e.getMessage());
            System.err.print(usage);
            System.exit(2);
            return null;
        }
    }
}
