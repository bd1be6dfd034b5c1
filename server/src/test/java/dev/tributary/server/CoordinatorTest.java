package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert;
import org.junit.jupiter.api.Test;

/** The coordinator's promises: catalog rules, transactions, the clock, errors as data, and the pull-query paths. */
class CoordinatorTest {
    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    private static void fails(String state, ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo(state));
    }

    @Test
    void aMaterializedViewReportsADataErrorUntilTheRowCausingItIsGone() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int, b int)");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT a / b AS q FROM t");
            db.execute("INSERT INTO t VALUES (6, 3), (1, 0)");
            fails("22012", () -> db.query("SELECT * FROM v"));
            fails("22012", () -> db.query("SELECT count(*) FROM v"));
            db.execute("DELETE FROM t WHERE b = 0");
            assertThat(rows(db, "SELECT * FROM v")).containsExactly("2");
            // the engine went on working throughout
            db.execute("INSERT INTO t VALUES (10, 5)");
            assertThat(rows(db, "SELECT q FROM v ORDER BY q")).containsExactly("2", "2");
        }
    }

    /**
     * A COPY that is the first thing written after CREATE TABLE, on a clock at 0 (no read or write
     * before it to move the oracle): it commits at a time the new table's input has not passed, so
     * the next read sees it. (It was written at a later time than its readers were given.)
     */
    @Test
    void aFirstWriteByCopyIsSeenByTheNextRead() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (id int PRIMARY KEY, name text)");
            CopyIn copy = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parse("COPY t FROM STDIN").get(0));
            copy.data("1\ta\n2\tb\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertThat(copy.finish().tag()).isEqualTo("COPY 2");
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly("2");
        }
    }

    /**
     * COPY writes a NUMERIC from its text straight into the row (no BigDecimal) when it needs no
     * rounding: the same bytes as INSERT of the same literal, so the rows are equal as rows (EXCEPT
     * finds nothing), and text that rounds, overflows or is no plain number takes the general path
     * (rounded as INSERT rounds, or the same error).
     */
    @Test
    void copyWritesNumericsAsInsertDoes() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE a (i int, v numeric(10,2), w numeric, z numeric(5))");
            s.execute("CREATE TABLE b (i int, v numeric(10,2), w numeric, z numeric(5))");
            String[][] values = {{"0", "0", "0"}, {"-0.00", "-0.000", "-0"}, {"12.5", "12.50", "12"}, {"-7.05", "0.0700", "-99999"},
                    {"99999999.99", "123456789012345678", "007"}, {"0.01", "-1.5e3", "12.4"}, {"1.005", " 3.25 ", "+4"},
                    {".5", "5.", "1234567"}, {"100", "1234567890123456789.5", "0.5"}};
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < values.length; i++) {
                if (values[i][2].equals("1234567")) continue; // overflows numeric(5): checked below
                text.append(i).append('\t').append(values[i][0]).append('\t').append(values[i][1]).append('\t').append(values[i][2]).append('\n');
                s.execute("INSERT INTO b VALUES (" + i + ", '" + values[i][0] + "', '" + values[i][1] + "', '" + values[i][2] + "')");
            }
            CopyIn copy = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parse("COPY a FROM STDIN").get(0));
            copy.data(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            copy.finish();
            assertThat(rows(db, "SELECT count(*) FROM a")).containsExactly(String.valueOf(values.length - 1));
            assertThat(rows(db, "SELECT count(*) FROM (SELECT * FROM a EXCEPT SELECT * FROM b) d")).containsExactly("0");
            assertThat(rows(db, "SELECT count(*) FROM (SELECT * FROM b EXCEPT SELECT * FROM a) d")).containsExactly("0");
            assertThat(rows(db, "SELECT v::text || ' ' || w::text || ' ' || z::text FROM a WHERE i = 2")).containsExactly("12.50 12.50 12");
            CopyIn over = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parse("COPY a FROM STDIN").get(0));
            over.data("9\t1\t1\t1234567\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertThatThrownBy(over::finish).isInstanceOf(dev.tributary.sql.SqlException.class).hasMessageContaining("numeric field overflow");
        }
    }

    @Test
    void anIndexAnswersKeyLookupsWithoutADataflowAndAgreesWithTheGeneralPath() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int, b text)");
            db.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y'), (2, 'yy'), (NULL, 'n')");
            db.execute("CREATE INDEX t_a ON t (a)");
            assertThat(rows(db, "EXPLAIN SELECT b FROM t WHERE a = 2")).last().asString().contains("lookup in index t_a");
            assertThat(rows(db, "SELECT b FROM t WHERE a = 2 ORDER BY b")).containsExactly("y", "yy");
            assertThat(rows(db, "SELECT b FROM t WHERE a = 3")).isEmpty();
            db.execute("UPDATE t SET a = 3 WHERE b = 'yy'");
            assertThat(rows(db, "SELECT b FROM t WHERE a = 3")).containsExactly("yy");
            // the same answer through a dataflow (a join forces one)
            assertThat(rows(db, "SELECT t.b FROM t JOIN (VALUES (2)) v(k) ON t.a = v.k")).containsExactly("y");
            assertThat(rows(db, "EXPLAIN SELECT t.b FROM t JOIN (VALUES (2)) v(k) ON t.a = v.k")).last().asString().contains("transient dataflow");
        }
    }

    @Test
    void transactionsCommitTogetherAndAFailedOneIsAborted() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (a int PRIMARY KEY)");
            s.execute("BEGIN; INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)");
            assertThat(s.transactionStatus()).isEqualTo('T');
            assertThat(rows(db, "SELECT count(*) FROM t")).as("uncommitted writes are invisible to others").containsExactly("0");
            s.execute("COMMIT");
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly("2");
            s.execute("BEGIN");
            assertThatThrownBy(() -> s.execute("INSERT INTO t VALUES (1)")).isInstanceOf(SqlException.class);
            assertThat(s.transactionStatus()).isEqualTo('E');
            fails("25P02", () -> s.execute("SELECT 1"));
            assertThat(s.execute("COMMIT").get(0).tag()).isEqualTo("ROLLBACK");
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly("2");
        }
    }

    @Test
    void catalogRulesFollowPostgres() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int NOT NULL, b text DEFAULT 'd')");
            fails("42P07", () -> db.execute("CREATE TABLE t (x int)"));
            db.execute("CREATE TABLE IF NOT EXISTS t (x int)");
            db.execute("CREATE VIEW v AS SELECT a FROM t");
            db.execute("CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n FROM v");
            fails("2BP01", () -> db.execute("DROP TABLE t"));
            fails("2BP01", () -> db.execute("DROP VIEW v"));
            fails("42809", () -> db.execute("DROP VIEW m"));
            fails("23502", () -> db.execute("INSERT INTO t (b) VALUES ('x')"));
            db.execute("INSERT INTO t (a) VALUES (1)");
            assertThat(rows(db, "SELECT a, b FROM t")).containsExactly("1|d");
            assertThat(rows(db, "SELECT n FROM m")).containsExactly("1");
            db.execute("DROP TABLE t CASCADE");
            fails("42P01", () -> db.query("SELECT * FROM m"));
            fails("42P01", () -> db.query("SELECT * FROM v"));
            db.execute("DROP TABLE IF EXISTS t");
            fails("42P01", () -> db.execute("DROP TABLE t"));
        }
    }

    @Test
    void theManualClockMovesOnlyWhenToldAndTheWallClockRefusesToBeMoved() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            assertThat(rows(db, "SELECT now()")).containsExactly("1970-01-01 00:00:00+00");
            db.execute("ADVANCE CLOCK BY INTERVAL '1 day'");
            assertThat(rows(db, "SELECT now()")).containsExactly("1970-01-02 00:00:00+00");
            db.execute("ADVANCE CLOCK TO TIMESTAMPTZ '2024-05-01 12:00:00+00'");
            assertThat(rows(db, "SELECT now()")).containsExactly("2024-05-01 12:00:00+00");
            fails("22023", () -> db.execute("ADVANCE CLOCK TO TIMESTAMPTZ '2000-01-01 00:00:00+00'"));
        }
        try (Tributary db = Tributary.inMemory()) {
            fails("55000", () -> db.execute("ADVANCE CLOCK BY INTERVAL '1 day'"));
        }
    }

    @Test
    void readsSeeTheSessionsOwnWritesImmediately() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (a int); CREATE MATERIALIZED VIEW s AS SELECT sum(a) FROM t");
            for (int i = 1; i <= 50; i++) {
                db.execute("INSERT INTO t VALUES (" + i + ")");
                assertThat(rows(db, "SELECT * FROM s")).containsExactly(String.valueOf(i * (i + 1) / 2));
            }
        }
    }

    @Test
    void numericsShowTheirScaleAndEqualValuesOfDifferentScalesStillMeet() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE o (id int, amount numeric(10,2)); CREATE TABLE p (amount numeric)");
            db.execute("INSERT INTO o VALUES (1, 3), (2, 7.25); INSERT INTO p VALUES (3.0), (7.250)");
            assertThat(rows(db, "SELECT amount FROM o ORDER BY id")).containsExactly("3.00", "7.25");
            assertThat(rows(db, "SELECT sum(amount), avg(id) FROM o")).containsExactly("10.25|1.5000000000000000");
            assertThat(rows(db, "SELECT o.id, p.amount FROM o JOIN p ON o.amount = p.amount ORDER BY o.id")).containsExactly("1|3.0", "2|7.250");
            // 3.00 and 3.0 are one group (PostgreSQL shows either spelling; the key form is 3)
            assertThat(rows(db, "SELECT amount = 3, count(*) FROM (SELECT amount FROM o UNION ALL SELECT amount FROM p) u GROUP BY amount ORDER BY 1"))
                    .containsExactly("f|2", "t|2");
        }
    }

    @Test
    void aJoinOnAnIndexedKeyUsesTheIndexAndAViewThatDoesDependsOnIt() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int, b text); CREATE TABLE u (a int, c text)");
            db.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y'), (NULL, 'z'); INSERT INTO u VALUES (1, 'p'), (1, 'q'), (NULL, 'n')");
            String q = "SELECT b, c FROM t JOIN u ON t.a = u.a ORDER BY 1, 2";
            List<String> without = rows(db, q);
            db.execute("CREATE INDEX u_a ON u (a)");
            assertThat(String.join("\n", rows(db, "EXPLAIN " + q))).contains("through index u_a").contains("arranges the left input by key");
            assertThat(rows(db, q)).isEqualTo(without).containsExactly("x|p", "x|q");
            db.execute("CREATE MATERIALIZED VIEW j AS " + q);
            db.execute("INSERT INTO u VALUES (2, 'r'), (NULL, 'm')");
            assertThat(rows(db, "SELECT * FROM j ORDER BY 1, 2")).containsExactly("x|p", "x|q", "y|r");
            fails("2BP01", () -> db.execute("DROP INDEX u_a"));
            db.execute("DROP INDEX u_a CASCADE");
            fails("42P01", () -> db.query("SELECT * FROM j"));
        }
    }

    @Test
    void rowsThatFailDifferentlyReportTheSameErrorAsAQueryAndAsAView() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (b bigint)");
            String query = "SELECT b * b AS square, b % b AS rest FROM t";
            db.execute("CREATE MATERIALIZED VIEW v AS " + query);
            // the first row fails with 22012, the second with 22003: both report the least error, 22003
            db.execute("INSERT INTO t VALUES (0), (4000000000)");
            fails("22003", () -> db.query("SELECT * FROM v"));
            fails("22003", () -> db.query(query));
            db.execute("DELETE FROM t WHERE b = 4000000000");
            fails("22012", () -> db.query("SELECT * FROM v"));
            fails("22012", () -> db.query(query));
        }
    }

    @Test
    void constantFiltersAreFoldedAwayButErrorsStillHappenPerRow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int)");
            assertThat(String.join("\n", rows(db, "EXPLAIN SELECT * FROM t WHERE 1 = 2"))).contains("Constant 0 rows").doesNotContain("Get table t");
            assertThat(rows(db, "SELECT a / 0 FROM t")).isEmpty();
            db.execute("INSERT INTO t VALUES (1)");
            fails("22012", () -> db.query("SELECT a / 0 FROM t"));
            fails("22012", () -> db.query("SELECT 1 / 0"));
        }
    }
}
