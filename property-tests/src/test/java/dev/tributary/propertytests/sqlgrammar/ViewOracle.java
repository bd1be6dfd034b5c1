package dev.tributary.propertytests.sqlgrammar;

import dev.tributary.server.Result;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one {@link Case}: creates its tables and, before any data arrives, its views as
 * materialized views; then, before the first transaction and after every one (rolled back ones
 * included), checks that each view equals its query run from scratch as a one-off SELECT, as
 * multisets of PostgreSQL text rows. A data error (SQLSTATE class 21 or 22) must be the same
 * SQLSTATE on both sides; any other error, and a view that cannot be created, is a failure of its
 * own (a generator bug or an engine gap), never a discarded case.
 *
 * <p>A failure is an {@link AssertionError} holding a script that replays the case up to the
 * failing transaction, the failing view, and both answers.
 */
final class ViewOracle {
    private ViewOracle() {}

    /** How long a case may run before it counts as a hang; cases take well under a second. */
    static final Duration LIMIT = Duration.ofSeconds(60);

    /**
     * Runs {@code c} on {@code workers} workers, on its own thread so that a hang fails the case
     * instead of the build; returns how each view ended (with rows, empty, or a data error), for
     * the run's statistics.
     */
    static List<String> check(Case c, int workers) {
        List<String> outcomes = java.util.Collections.synchronizedList(new ArrayList<>());
        dev.tributary.propertytests.Guard.within(LIMIT, () -> run(c, workers, outcomes),
                () -> "the case did not finish within " + LIMIT + "; replay it:\n" + c.script(-1));
        return outcomes;
    }

    private static void run(Case c, int workers, List<String> outcomes) {
        try (Tributary db = Engines.open(workers)) {
            for (Schema.Table t : c.schema().tables()) db.execute(t.ddl());
            for (String ddl : c.indexes()) db.execute(ddl);
            for (int i = 0; i < c.views().size(); i++) {
                String sql = c.views().get(i).query().sql();
                try {
                    db.execute("CREATE MATERIALIZED VIEW mv" + (i + 1) + " AS " + sql);
                } catch (SqlException e) {
                    throw new AssertionError("the view mv" + (i + 1) + " cannot be created: " + e.sqlState() + ": "
                            + e.getMessage() + "\n" + sql + "\nreplay:\n" + c.script(-1), e);
                }
            }
            checkAll(db, c, -1, outcomes, false);
            List<String> units = c.units();
            boolean late = false;
            for (int u = 0; u < units.size(); u++) {
                try {
                    db.execute(units.get(u));
                } catch (SqlException e) {
                    throw new AssertionError("Tributary refused " + units.get(u) + ": " + e.sqlState() + ": " + e.getMessage()
                            + "\nreplay:\n" + c.script(u), e);
                }
                if (u + 1 == c.lateAfter()) {
                    for (String ddl : c.lateViews()) {
                        try {
                            db.execute(ddl);
                        } catch (SqlException e) {
                            throw new AssertionError("a view cannot be created over existing rows: " + e.sqlState() + ": " + e.getMessage()
                                    + "\n" + ddl + "\nreplay:\n" + c.script(u), e);
                        }
                    }
                    late = true;
                }
                checkAll(db, c, u, outcomes, late);
            }
        }
    }

    /** What a query returned: its rows as sorted text, or the SQLSTATE and message of its error. */
    record Answer(List<String> rows, String state, String message) {
        static Answer of(Tributary db, String sql) {
            try {
                Result r = db.query(sql);
                List<String> rows = new ArrayList<>();
                for (List<String> row : r.text()) rows.add(String.join(" | ", row.stream().map(v -> v == null ? "NULL" : "'" + v + "'").toList()));
                rows.sort(null);
                return new Answer(rows, null, null);
            } catch (SqlException e) {
                return new Answer(null, e.sqlState(), e.getMessage());
            }
        }

        boolean dataError() {
            return state != null && (state.startsWith("22") || state.startsWith("21"));
        }

        String show() {
            if (state != null) return "    ERROR " + state + ": " + message;
            if (rows.isEmpty()) return "    (no rows)";
            return "    " + String.join("\n    ", rows);
        }
    }

    private static void checkAll(Tributary db, Case c, int unit, List<String> outcomes, boolean late) {
        for (int i = 0; i < c.views().size(); i++) {
            String sql = c.views().get(i).query().sql();
            Answer recomputed = Answer.of(db, sql);
            check(db, c, unit, outcomes, "mv" + (i + 1), sql, recomputed);
            if (late) check(db, c, unit, null, "lv" + (i + 1), sql, recomputed);
        }
    }

    /** Checks view {@code view} of query {@code sql} against {@code recomputed}; adds how it ended to {@code outcomes} (if not null). */
    private static void check(Tributary db, Case c, int unit, List<String> outcomes, String view, String sql, Answer recomputed) {
        Answer maintained = Answer.of(db, "SELECT * FROM " + view);
        String problem = null;
        if (recomputed.state() != null && !recomputed.dataError()) problem = "the one-off SELECT fails (not a data error)";
        else if (maintained.state() != null && !maintained.dataError()) problem = "reading the view fails (not a data error)";
        else if (maintained.state() != null || recomputed.state() != null) {
            if (!java.util.Objects.equals(maintained.state(), recomputed.state())) problem = "the view and the one-off SELECT report different errors";
        } else if (!maintained.rows().equals(recomputed.rows())) problem = "the maintained view differs from the recomputation";
        if (outcomes != null && unit == c.units().size() - 1) {
            outcomes.add(maintained.state() != null ? "data error " + maintained.state() : maintained.rows().isEmpty() ? "empty" : "rows");
        }
        if (problem != null) {
            String when = unit < 0 ? "before any transaction" : "after transaction " + (unit + 1) + ": " + c.units().get(unit);
            throw new AssertionError(problem + " for " + view + ", " + when
                    + "\nview " + view + ": " + sql
                    + "\nmaintained (SELECT * FROM " + view + "):\n" + maintained.show()
                    + "\nrecomputed (one-off SELECT):\n" + recomputed.show()
                    + "\nreplay (bin/tributary sql --clock manual -f FILE):\n" + c.script(unit));
        }
    }
}
