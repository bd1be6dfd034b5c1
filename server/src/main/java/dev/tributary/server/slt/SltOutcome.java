package dev.tributary.server.slt;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What running one or more files gave: how many records passed, failed (by kind) and were
 * skipped, each failure with where it was and what differed, and why records were skipped.
 */
public final class SltOutcome {
    /** Why a record failed. */
    public enum Kind {
        PARSE("parse errors"),
        UNSUPPORTED("unsupported"),
        WRONG("wrong results"),
        ERROR("unexpected errors"),
        CRASH("crashes");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /**
     * One failed record.
     *
     * @param location {@code file:line}
     * @param what a one-line description, e.g. {@code wrong result} or {@code view slt_v3 differs}
     */
    public record Failure(String location, Kind kind, String what, String sql, String expected, String actual) {
        /** The failure as the runner prints it: a header line, then the SQL, expected and actual, indented. */
        public String render() {
            StringBuilder b = new StringBuilder(location).append(": ").append(what).append(" [").append(kind.label).append("]\n");
            b.append(indent("sql:      ", sql));
            if (expected != null) b.append(indent("expected: ", expected));
            if (actual != null) b.append(indent("actual:   ", actual));
            return b.toString();
        }

        private static String indent(String head, String text) {
            StringBuilder b = new StringBuilder();
            String pad = " ".repeat(head.length() + 2);
            String[] ls = text.split("\n", -1);
            for (int k = 0; k < ls.length; k++) {
                if (k == 30) {
                    b.append(pad).append("... (").append(ls.length - 30).append(" more lines)\n");
                    break;
                }
                b.append(k == 0 ? "  " + head : pad).append(ls[k]).append('\n');
            }
            return b.toString();
        }
    }

    int passed;
    int skipped;
    final Map<Kind, Integer> failedByKind = new EnumMap<>(Kind.class);
    final List<Failure> failures = new ArrayList<>();
    /** Skip reasons (for records skipped with a reason, e.g. not maintainable as a view) and how often. */
    final Map<String, Integer> skipReasons = new TreeMap<>();

    public int passed() {
        return passed;
    }

    public int skipped() {
        return skipped;
    }

    public int failed() {
        return failures.size();
    }

    public List<Failure> failures() {
        return List.copyOf(failures);
    }

    public Map<String, Integer> skipReasons() {
        return Map.copyOf(skipReasons);
    }

    void fail(Failure f) {
        failures.add(f);
        failedByKind.merge(f.kind(), 1, Integer::sum);
    }

    void skip(String reason) {
        skipped++;
        if (reason != null) skipReasons.merge(reason, 1, Integer::sum);
    }

    void addAll(SltOutcome o) {
        passed += o.passed;
        skipped += o.skipped;
        for (Failure f : o.failures) fail(f);
        o.skipReasons.forEach((r, n) -> skipReasons.merge(r, n, Integer::sum));
    }

    /** {@code N passed, N failed, N skipped}, then the failures by kind when there are any. */
    public String summary() {
        StringBuilder b = new StringBuilder();
        b.append(passed).append(" passed, ").append(failed()).append(" failed, ").append(skipped).append(" skipped");
        if (!failures.isEmpty()) {
            b.append(" (");
            String sep = "";
            for (Kind k : Kind.values()) {
                b.append(sep).append(k.label).append(' ').append(failedByKind.getOrDefault(k, 0));
                sep = ", ";
            }
            b.append(')');
        }
        return b.toString();
    }
}
