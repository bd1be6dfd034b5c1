package dev.tributary.server.slt;

import java.util.List;

/**
 * One record of a sqllogictest file, as written: what to run, what to expect, and the line it
 * starts on (the line of its {@code statement}/{@code query} keyword, 1-based).
 *
 * <p>{@code conditions} are the record's {@code skipif}/{@code onlyif} lines; the runner decides
 * from them whether the record applies to this engine.
 */
public sealed interface SltRecord {
    int line();

    List<Condition> conditions();

    /** {@code skipif engine} ({@code only == false}) or {@code onlyif engine}. */
    record Condition(boolean only, String engine) {}

    /**
     * {@code statement ok} or {@code statement error [pattern]}.
     *
     * @param expectError whether the statement must fail
     * @param errorPattern a SQLSTATE or a regular expression the error must match; null for any error
     */
    record Statement(int line, List<Condition> conditions, boolean expectError, String errorPattern, String sql)
            implements SltRecord {}

    /**
     * {@code query <types> [sortmode] [label]} with its expected result lines, or
     * {@code query error [pattern]}.
     *
     * @param types one character per column: I, R or T (other letters render as T)
     * @param expected the lines after {@code ----}, as written; empty when there are none
     */
    record Query(int line, List<Condition> conditions, String types, SortMode sort, String label,
                 boolean expectError, String errorPattern, String sql, List<String> expected)
            implements SltRecord {}

    /** {@code hash-threshold N}: results of more than N values are compared by hash. */
    record HashThreshold(int line, List<Condition> conditions, int threshold) implements SltRecord {}

    /** {@code halt}: the rest of the file is not run. */
    record Halt(int line, List<Condition> conditions) implements SltRecord {}

    /** A record the runner does not know (e.g. {@code control}, {@code mode}); it is skipped. */
    record Unknown(int line, List<Condition> conditions, String text) implements SltRecord {}

    /** How a query's values are ordered before they are compared. */
    enum SortMode { NOSORT, ROWSORT, VALUESORT }
}
