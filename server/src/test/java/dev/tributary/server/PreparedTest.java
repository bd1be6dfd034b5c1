package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Prepared statements: bound once, run many times with values. A point lookup on an indexed
 * view is a seek per run and no new plan; the plan is redone once when the catalog changes;
 * writes with parameters; a transaction block sees its own writes; a result shape that would
 * change is refused as PostgreSQL refuses it.
 */
class PreparedTest {
    private final Tributary db = Tributary.inMemory(Clock.manual(0));
    private final Tributary.Connection session = db.session();
    private final Coordinator coordinator = db.coordinator();

    @AfterEach
    void close() {
        db.close();
    }

    private static List<Object> values(Object... v) {
        return new ArrayList<>(Arrays.asList(v));
    }

    private List<String> run(Prepared p, Object... v) {
        List<String> out = new ArrayList<>();
        for (List<String> row : session.execute(p, values(v)).text()) out.add(String.join("|", row.stream().map(String::valueOf).toList()));
        return out;
    }

    @Test
    void pointLookupsSeekTheIndexWithoutReplanning() {
        db.execute("CREATE TABLE kv (k int, v text)");
        db.execute("CREATE MATERIALIZED VIEW mv AS SELECT k, v || '!' AS v FROM kv");
        db.execute("INSERT INTO kv VALUES " + String.join(", ", java.util.stream.IntStream.rangeClosed(1, 200).mapToObj(i -> "(" + i + ", 'v" + i + "')").toList()));
        Prepared p = session.prepare("SELECT v FROM mv WHERE k = $1", List.of());
        assertThat(p.parameterTypes()).containsExactly(SqlType.INTEGER);
        assertThat(p.columns()).containsExactly("v");
        assertThat(p.types()).containsExactly(SqlType.TEXT);
        // no index yet: answered by reading the view's arrangement
        long scans = coordinator.reads().scans;
        assertThat(run(p, 7L)).containsExactly("v7!");
        assertThat(coordinator.reads().scans).isEqualTo(scans + 1);

        db.execute("CREATE INDEX mv_k ON mv (k)");
        long planned = coordinator.reads().planned;
        long seeks = coordinator.reads().seeks + coordinator.reads().publishedSeeks.sum();
        long built = coordinator.reads().dataflowsBuilt;
        for (long k = 1; k <= 100; k++) assertThat(run(p, k)).containsExactly("v" + k + "!");
        assertThat(run(p, 1000L)).isEmpty();
        assertThat(run(p, new Object[] {null})).isEmpty();
        // one new plan for the new catalog, then a seek per run (NULL matches nothing: no seek needed)
        assertThat(coordinator.reads().planned).isEqualTo(planned + 1);
        assertThat(coordinator.reads().seeks + coordinator.reads().publishedSeeks.sum()).isEqualTo(seeks + 101);
        assertThat(coordinator.reads().dataflowsBuilt).isEqualTo(built);

        // a bigint value against the int key (JDBC's setLong) still seeks
        Prepared wide = session.prepare("SELECT v FROM mv WHERE k = $1", List.of(SqlType.BIGINT));
        assertThat(run(wide, 5L)).containsExactly("v5!");
        assertThat(run(wide, 1L << 40)).isEmpty();
        assertThat(coordinator.reads().seeks + coordinator.reads().publishedSeeks.sum()).isEqualTo(seeks + 102);

        // writes show at once: the cached plan reads the live index
        db.execute("UPDATE kv SET v = 'new' WHERE k = 3");
        assertThat(run(p, 3L)).containsExactly("new!");
    }

    @Test
    void writesWithParameters() {
        db.execute("CREATE TABLE t (id int PRIMARY KEY, name varchar(5), amount numeric(10,2), at timestamp)");
        Prepared ins = session.prepare("INSERT INTO t VALUES ($1, $2, $3, $4)", List.of());
        assertThat(ins.parameterTypes()).containsExactly(SqlType.INTEGER, SqlType.VARCHAR, SqlType.NUMERIC, SqlType.TIMESTAMP);
        assertThat(ins.columns()).isNull();
        long built = coordinator.reads().dataflowsBuilt;
        for (long i = 1; i <= 50; i++) {
            Result r = session.execute(ins, values(i, "n" + i, new BigDecimal("1.005").multiply(BigDecimal.valueOf(i)), java.time.LocalDateTime.of(2024, 1, 1, 0, 0).plusHours(i)));
            assertThat(r.tag()).isEqualTo("INSERT 0 1");
        }
        assertThat(coordinator.reads().dataflowsBuilt).isEqualTo(built);
        // constraints and assignment casts apply to parameter values as to literals
        assertThatThrownBy(() -> session.execute(ins, values(1L, "x", null, null)))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("23505"));
        assertThatThrownBy(() -> session.execute(ins, values(99L, "toolong", null, null)))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22001"));
        assertThatThrownBy(() -> session.execute(ins, values(null, "x", null, null)))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("23502"));

        Prepared upd = session.prepare("UPDATE t SET amount = amount + $2 WHERE id <= $1", List.of());
        assertThat(session.execute(upd, values(10L, new BigDecimal("100"))).tag()).isEqualTo("UPDATE 10");
        Prepared del = session.prepare("DELETE FROM t WHERE name = $1 OR id > $2", List.of());
        assertThat(session.execute(del, values("n1", 40L)).tag()).isEqualTo("DELETE 11");
        assertThat(db.query("SELECT count(*), sum(amount) FROM t").text()).containsExactly(List.of("39", "1723.19"));
        assertThat(db.query("SELECT amount, at FROM t WHERE id = 2").text()).containsExactly(List.of("102.01", "2024-01-01 02:00:00"));
    }

    @Test
    void aTransactionBlockSeesItsOwnWritesThroughPreparedStatements() {
        db.execute("CREATE TABLE t (id int, v text)");
        db.execute("CREATE INDEX t_id ON t (id)");
        Prepared ins = session.prepare("INSERT INTO t VALUES ($1, $2)", List.of());
        Prepared get = session.prepare("SELECT v FROM t WHERE id = $1", List.of());
        session.execute("BEGIN");
        session.execute(ins, values(1L, "one"));
        assertThat(run(get, 1L)).containsExactly("one");
        assertThat(db.query("SELECT count(*) FROM t").text()).containsExactly(List.of("0"));
        session.execute("ROLLBACK");
        assertThat(run(get, 1L)).isEmpty();
        // a value of the wrong Java class for its parameter's type is a programming error, named
        assertThatThrownBy(() -> session.execute(get, values(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("parameter $1 is integer, held as Long, not as Integer");
    }

    @Test
    void catalogChangesRebindOrRefuse() {
        db.execute("CREATE TABLE t (id int, v text)");
        db.execute("INSERT INTO t VALUES (1, 'a')");
        Prepared p = session.prepare("SELECT * FROM t WHERE id = $1", List.of());
        assertThat(run(p, 1L)).containsExactly("1|a");
        db.execute("DROP TABLE t");
        assertThatThrownBy(() -> session.execute(p, values(1L)))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P01"));
        db.execute("CREATE TABLE t (id int, v text)");
        db.execute("INSERT INTO t VALUES (1, 'b')");
        assertThat(run(p, 1L)).containsExactly("1|b");
        // inferred types are inferred again, alike
        Prepared echo = session.prepare("SELECT $1, $2 + 1", List.of());
        assertThat(run(echo, "x", 1L)).containsExactly("x|2");
        db.execute("CREATE TABLE other (a int)");
        assertThat(run(echo, "y", 2L)).containsExactly("y|3");
        db.execute("DROP TABLE t");
        db.execute("CREATE TABLE t (id int, v int)");
        assertThatThrownBy(() -> session.execute(p, values(1L)))
                .isInstanceOfSatisfying(SqlException.class, e -> {
                    assertThat(e.sqlState()).isEqualTo("0A000");
                    assertThat(e.getMessage()).isEqualTo("cached plan must not change result type");
                });
    }

    @Test
    void theStatementTimeIsEachRunsOwn() {
        db.execute("CREATE TABLE ev (id int, at timestamptz)");
        db.execute("INSERT INTO ev VALUES (1, '1970-01-01 00:00:01+00'), (2, '1970-01-01 00:00:05+00')");
        Prepared due = session.prepare("SELECT id FROM ev WHERE at <= now() - $1::interval ORDER BY id", List.of());
        Prepared stamp = session.prepare("INSERT INTO ev VALUES ($1, now())", List.of());
        assertThat(run(due, new dev.tributary.sql.types.Interval(0, 0, 0))).isEmpty();
        db.execute("ADVANCE CLOCK TO '1970-01-01 00:00:02+00'");
        assertThat(run(due, new dev.tributary.sql.types.Interval(0, 0, 0))).containsExactly("1");
        session.execute(stamp, values(3L));
        db.execute("ADVANCE CLOCK TO '1970-01-01 00:00:10+00'");
        assertThat(run(due, new dev.tributary.sql.types.Interval(0, 0, 0))).containsExactly("1", "2", "3");
        assertThat(run(due, new dev.tributary.sql.types.Interval(0, 0, 6_000_000))).containsExactly("1", "3");
        assertThat(db.query("SELECT at FROM ev WHERE id = 3").text()).containsExactly(List.of("1970-01-01 00:00:02+00"));
    }

    @Test
    void statementsReadingTheSystemCatalogsSeeTheSessionAsItIsAtEachRun() {
        Prepared app = session.prepare("SELECT current_setting('application_name') || $1", List.of());
        assertThat(run(app, "!")).containsExactly("!");
        session.execute("SET application_name = 'mine'");
        assertThat(run(app, "!")).containsExactly("mine!");
        Prepared tables = session.prepare("SELECT count(*) FROM pg_catalog.pg_class WHERE relname = $1", List.of());
        assertThat(run(tables, "fresh")).containsExactly("0");
        db.execute("CREATE TABLE fresh (a int)");
        assertThat(run(tables, "fresh")).containsExactly("1");
    }

    @Test
    void otherStatementsAndTheEmptyOne() {
        Prepared empty = session.prepare("  ", List.of());
        assertThat(empty.isEmpty()).isTrue();
        Prepared create = session.prepare("CREATE TABLE u (a int)", List.of());
        assertThat(create.columns()).isNull();
        assertThat(session.execute(create, values()).tag()).isEqualTo("CREATE TABLE");
        assertThat(session.prepare("SHOW TABLES", List.of()).shapeKnownWhenRun()).isTrue();
        assertThatThrownBy(() -> session.prepare("SELECT 1; SELECT 2", List.of()))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42601"));
        Prepared view = session.prepare("CREATE VIEW w AS SELECT $1", List.of());
        assertThatThrownBy(() -> session.execute(view, values()))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P02"));
    }
}
