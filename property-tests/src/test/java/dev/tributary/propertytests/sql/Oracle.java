package dev.tributary.propertytests.sql;

import dev.tributary.propertytests.sql.History.End;
import dev.tributary.propertytests.sql.History.Stmt;
import dev.tributary.propertytests.sql.History.Tx;
import dev.tributary.server.Clock;
import dev.tributary.server.Result;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Runs one view shape through one history and checks, before the first transaction and after
 * every one (rolled back ones included), that
 * <ol>
 *   <li>the materialized view, created before any data arrived and maintained since, equals the
 *       same query run from scratch as a one-off SELECT, exactly (PostgreSQL text, as
 *       multisets; a data error must be the same error);</li>
 *   <li>so does the same view created halfway through the history, over the rows that exist
 *       then (a view built from existing data goes another way than one that saw every row
 *       arrive: a delta join over indexes gave each existing row twice); and</li>
 *   <li>it equals DuckDB's answer to the query on the same data (committed transactions only),
 *       as multisets of normalised values ({@link Rows}).</li>
 * </ol>
 * With {@code indexed}, every column of every table has an index first, so that joins and
 * lookups are planned through indexes (index joins and delta joins), not only by arranging their
 * inputs.
 * A failure throws an {@link AssertionError} whose message holds the view, the transaction log
 * up to the failure, the tables' contents and every answer.
 */
final class Oracle implements AutoCloseable {
    private final Shape shape;
    private final Tributary db = Tributary.inMemory(Clock.manual(0));
    private final Connection duck;
    private final List<Tx> log = new ArrayList<>();
    private final boolean indexed;
    /** Whether the view made halfway through the history ({@code late}) exists yet. */
    private boolean late;

    Oracle(Shape shape, boolean indexed) {
        this.shape = shape;
        this.indexed = indexed;
        try {
            duck = DriverManager.getConnection("jdbc:duckdb:");
            try (Statement st = duck.createStatement()) {
                // PostgreSQL's NULL order: last when ascending, first when descending.
                st.execute("SET default_null_order = 'nulls_last_on_asc_first_on_desc'");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot open DuckDB in memory", e);
        }
        for (Schema.Table t : Schema.TABLES) {
            db.execute(t.ddl());
            duck(t.ddl());
            if (indexed) for (String ddl : indexes(t)) db.execute(ddl);
        }
        try {
            db.execute("CREATE MATERIALIZED VIEW mv AS " + shape.sql());
        } catch (SqlException e) {
            throw new AssertionError("view " + shape + "\ncannot be created: " + e.render(shape.sql()), e);
        }
    }

    /** How long one run may take before it counts as a hang: runs take well under a second. */
    static final Duration LIMIT = Duration.ofSeconds(60);

    /**
     * Checks the view, then runs and checks each transaction of {@code history}; on its own
     * thread, so that an engine that hangs fails the property (naming the shape and history)
     * instead of the build.
     */
    static void check(Shape shape, History history, boolean indexed) {
        dev.tributary.propertytests.Guard.within(LIMIT, () -> {
            try (Oracle o = new Oracle(shape, indexed)) {
                o.checkNow();
                int half = (history.txs().size() + 1) / 2;
                for (int i = 0; i < history.txs().size(); i++) {
                    o.apply(history.txs().get(i));
                    if (i + 1 == half) o.createLate();
                    o.checkNow();
                }
            }
        }, () -> "view " + shape + (indexed ? " (every column indexed)" : "") + "\ndid not finish within " + LIMIT + " on the history" + history);
    }

    /** One index per column of {@code t}: every single-column join key and filter can be planned through an index. */
    static List<String> indexes(Schema.Table t) {
        return t.columns().stream().map(c -> "CREATE INDEX " + t.name() + "_" + c.name() + " ON " + t.name() + " (" + c.name() + ")").toList();
    }

    /** Creates the view again, as {@code late}, over the rows there are now. */
    void createLate() {
        try {
            db.execute("CREATE MATERIALIZED VIEW late AS " + shape.sql());
        } catch (SqlException e) {
            throw new AssertionError(context() + "\nthe view cannot be created over existing rows: " + e.render(shape.sql()), e);
        }
        late = true;
    }

    void apply(Tx tx) {
        log.add(tx);
        try {
            db.execute(tx.sql());
        } catch (SqlException e) {
            throw new AssertionError(context() + "\nTributary refused the transaction: " + e.render(null), e);
        }
        if (tx.end() != End.ROLLBACK) for (Stmt s : tx.stmts()) duck(s.sql());
    }

    /** What a query returned: rows (exact text and normalised values) or an error. */
    record Answer(List<List<String>> text, List<List<Object>> values, String error) {
        static Answer of(Result r) {
            List<List<String>> text = new ArrayList<>(r.text());
            text.sort((x, y) -> x.toString().compareTo(y.toString()));
            return new Answer(text, Rows.normalise(r.rows()), null);
        }

        static Answer failed(String error) {
            return new Answer(null, null, error);
        }

        String show() {
            return error != null ? "    ERROR " + error : Rows.show(values);
        }
    }

    void checkNow() {
        Answer maintained = tributary("SELECT * FROM mv");
        Answer recomputed = tributary(shape.sql());
        sameAsRecomputed("mv", "the maintained view", maintained, recomputed);
        if (late) sameAsRecomputed("late", "the view created over existing rows", tributary("SELECT * FROM late"), recomputed);
        if (shape.duckSql() == null) return;
        Answer duckdb = duckQuery(shape.duckSql());
        boolean agree = maintained.error() != null || duckdb.error() != null
                ? maintained.error() != null && duckdb.error() != null
                : Rows.sameMultiset(maintained.values(), duckdb.values());
        if (!agree) {
            throw new AssertionError(context() + "\nthe maintained view differs from DuckDB"
                    + "\nmaintained (SELECT * FROM mv):\n" + maintained.show()
                    + "\nDuckDB:\n" + duckdb.show());
        }
    }

    private void sameAsRecomputed(String view, String what, Answer maintained, Answer recomputed) {
        boolean same = maintained.error() != null || recomputed.error() != null
                ? java.util.Objects.equals(maintained.error(), recomputed.error())
                : maintained.text().equals(recomputed.text());
        if (!same) {
            throw new AssertionError(context() + "\n" + what + " differs from the recomputation"
                    + "\nmaintained (SELECT * FROM " + view + "):\n" + maintained.show()
                    + "\nrecomputed (one-off SELECT):\n" + recomputed.show());
        }
    }

    private Answer tributary(String sql) {
        try {
            return Answer.of(db.query(sql));
        } catch (SqlException e) {
            return Answer.failed(e.sqlState() + ": " + e.getMessage());
        }
    }

    private Answer duckQuery(String sql) {
        try (Statement st = duck.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            List<Object[]> rows = new ArrayList<>();
            while (rs.next()) {
                Object[] r = new Object[n];
                for (int i = 0; i < n; i++) r[i] = rs.getObject(i + 1);
                rows.add(r);
            }
            return new Answer(null, Rows.normalise(rows), null);
        } catch (SQLException e) {
            return Answer.failed(e.getMessage());
        }
    }

    private void duck(String sql) {
        try (Statement st = duck.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("DuckDB refused " + sql + ": " + e.getMessage(), e);
        }
    }

    /** The view, the transactions so far and the tables now, for a failure message. */
    private String context() {
        StringBuilder b = new StringBuilder("\nview mv: ").append(shape);
        if (indexed) b.append("\nindexes: one per column, before any data: ").append(Schema.TABLES.stream().flatMap(t -> indexes(t).stream()).collect(Collectors.joining("; ")));
        if (late) b.append("\nview late: the same query, created after the first ").append((log.size() + 1) / 2).append(" transactions (or so)");
        b.append("\ntransactions (").append(log.size()).append("):");
        for (int i = 0; i < log.size(); i++) b.append("\n  tx").append(i + 1).append(": ").append(log.get(i).sql());
        b.append("\ntables now (DuckDB's copy):");
        for (Schema.Table t : Schema.TABLES) {
            Answer a = duckQuery("SELECT * FROM " + t.name());
            b.append("\n  ").append(t.name()).append(t.columns().stream().map(Schema.Column::name).collect(Collectors.joining(", ", "(", ")")))
                    .append(":\n").append(a.show());
        }
        return b.toString();
    }

    @Override
    public void close() {
        db.close();
        try {
            duck.close();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
