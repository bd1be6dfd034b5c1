package dev.tributary.server.shell;

/**
 * How the shell prints query results, psql's output options.
 *
 * @param aligned psql's default aligned table; false is {@code -A} (unaligned)
 * @param tuplesOnly {@code -t}: rows only, no header and no row-count footer
 * @param fieldSeparator {@code -F}: the separator of unaligned output, {@code |} by default
 * @param quiet {@code -q}: the caller prints no command tags; results and notices are still printed, as psql's
 * @param nullString {@code \pset null}: how SQL NULL is shown, empty by default
 * @param expanded {@code \x} / {@code -x}: each row as a record of name and value lines
 */
public record ShellOutput(boolean aligned, boolean tuplesOnly, String fieldSeparator, boolean quiet, String nullString, boolean expanded) {
    /** psql's defaults: aligned, with header and footer, {@code |}, not quiet, NULL as empty, not expanded. */
    public static final ShellOutput DEFAULT = new ShellOutput(true, false, "|", false, "", false);

    public ShellOutput(boolean aligned, boolean tuplesOnly, String fieldSeparator, boolean quiet, String nullString) {
        this(aligned, tuplesOnly, fieldSeparator, quiet, nullString, false);
    }

    public ShellOutput {
        if (fieldSeparator == null) throw new IllegalArgumentException("fieldSeparator must not be null; psql's default is \"|\"");
        if (nullString == null) throw new IllegalArgumentException("nullString must not be null; psql's default is \"\"");
    }

    public ShellOutput withAligned(boolean aligned) {
        return new ShellOutput(aligned, tuplesOnly, fieldSeparator, quiet, nullString, expanded);
    }

    public ShellOutput withTuplesOnly(boolean tuplesOnly) {
        return new ShellOutput(aligned, tuplesOnly, fieldSeparator, quiet, nullString, expanded);
    }

    public ShellOutput withFieldSeparator(String fieldSeparator) {
        return new ShellOutput(aligned, tuplesOnly, fieldSeparator, quiet, nullString, expanded);
    }

    public ShellOutput withQuiet(boolean quiet) {
        return new ShellOutput(aligned, tuplesOnly, fieldSeparator, quiet, nullString, expanded);
    }

    public ShellOutput withNullString(String nullString) {
        return new ShellOutput(aligned, tuplesOnly, fieldSeparator, quiet, nullString, expanded);
    }

    public ShellOutput withExpanded(boolean expanded) {
        return new ShellOutput(aligned, tuplesOnly, fieldSeparator, quiet, nullString, expanded);
    }
}
