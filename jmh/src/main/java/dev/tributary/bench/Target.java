package dev.tributary.bench;

/**
 * A server under test in the side-by-side harnesses: a name for the report and the JDBC URL to
 * reach it (with the user), given on their command lines as {@code --target NAME=JDBC_URL}.
 */
record Target(String name, String url) {
    /** The target of a {@code --target} argument, {@code NAME=JDBC_URL}. */
    static Target parse(String arg) {
        int eq = arg.indexOf('=');
        if (eq <= 0) throw new IllegalArgumentException("--target takes NAME=JDBC_URL, not '" + arg + "'");
        return new Target(arg.substring(0, eq), arg.substring(eq + 1));
    }
}
