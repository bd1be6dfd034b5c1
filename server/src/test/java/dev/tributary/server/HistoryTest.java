package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Retained history on a manual clock: {@code SELECT ... AS OF} reads the exact contents of tables
 * and materialized views at past times their policy keeps (FOR an interval, PIN AT a time),
 * ALTER changes the policy, and times outside the retained range fail with an error naming it.
 */
class HistoryTest {
    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    private static void assertFails(Tributary db, String sql, String state, String message) {
        assertThatThrownBy(() -> db.execute(sql)).as(sql).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo(state);
            assertThat(e.getMessage()).contains(message);
        });
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} workers")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 2})
    void asOfReadsTheContentsAtEachRetainedTime(int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), workers)) {
            db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY FOR '1 hour')");
            db.execute("CREATE MATERIALIZED VIEW total WITH (RETAIN HISTORY FOR '1 hour') AS SELECT sum(price) AS s FROM prices");
            // each write commits just after the read that moved the clock: at 1000, 2001, 3001 and 4001
            db.execute("INSERT INTO prices VALUES ('a', 1)");
            db.execute("ADVANCE CLOCK TO 2000");
            db.execute("UPDATE prices SET price = 2");
            db.execute("ADVANCE CLOCK TO 3000");
            db.execute("INSERT INTO prices VALUES ('b', 10)");
            db.execute("ADVANCE CLOCK TO 4000");
            db.execute("DELETE FROM prices WHERE sym = 'a'");
            db.execute("ADVANCE CLOCK TO 5000");
            assertThat(rows(db, "SELECT * FROM prices AS OF 1500")).containsExactly(List.of("a", "1"));
            assertThat(rows(db, "SELECT * FROM prices ORDER BY sym AS OF 3001")).containsExactly(List.of("a", "2"), List.of("b", "10"));
            assertThat(rows(db, "SELECT * FROM prices AS OF 3000")).containsExactly(List.of("a", "2"));
            assertThat(rows(db, "SELECT * FROM prices AS OF '1970-01-01 00:00:04.5+00'")).containsExactly(List.of("b", "10"));
            assertThat(rows(db, "SELECT * FROM prices AS OF 999")).isEmpty();
            assertThat(rows(db, "SELECT s FROM total AS OF 2500")).containsExactly(List.of("2"));
            assertThat(rows(db, "SELECT s FROM total AS OF 3500")).containsExactly(List.of("12"));
            // a query over several inputs, and now() in it is the AS OF time
            assertThat(rows(db, "SELECT p.sym, t.s, now() FROM prices p, total t ORDER BY p.sym AS OF 3500"))
                    .containsExactly(List.of("a", "12", "1970-01-01 00:00:03.5+00"), List.of("b", "12", "1970-01-01 00:00:03.5+00"));
            assertFails(db, "SELECT * FROM prices AS OF 6000", "22023", "AS OF 6000 is in the future: the latest complete time is 5000");
        }
    }

    @Test
    void historyOutsideThePolicyIsGoneAndTheErrorNamesTheRange() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE plain (a int)");
            db.execute("CREATE TABLE kept (a int) WITH (RETAIN HISTORY FOR '2 seconds')");
            db.execute("INSERT INTO plain VALUES (1); INSERT INTO kept VALUES (1)");
            db.execute("ADVANCE CLOCK TO 10000");
            assertFails(db, "SELECT * FROM plain AS OF 1500", "72000", "AS OF 1500 is before the history table \"plain\" retains: [10000, 10000]");
            assertFails(db, "SELECT * FROM kept AS OF 1500", "72000", "table \"kept\" retains: [8000, 10000]");
            assertThat(rows(db, "SELECT * FROM kept AS OF 8000")).containsExactly(List.of("1"));
            assertFails(db, "SELECT * FROM kept, plain AS OF 9000", "72000", "table \"plain\"");
        }
    }

    @Test
    void pinnedHistoryStaysAndAlterChangesThePolicy() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (a int) WITH (RETAIN HISTORY PIN AT 1500)");
            db.execute("INSERT INTO t VALUES (1)");                             // at 1000, folded into 1500
            db.execute("ADVANCE CLOCK TO 2000");
            db.execute("INSERT INTO t VALUES (2)");                             // at 2001
            db.execute("ADVANCE CLOCK BY INTERVAL '7 days'");
            assertThat(rows(db, "SELECT * FROM t AS OF 1500")).containsExactly(List.of("1"));
            assertThat(rows(db, "SELECT count(*) FROM t AS OF 2500")).containsExactly(List.of("2"));
            assertFails(db, "SELECT * FROM t AS OF 1400", "72000", "retains: [1500,");
            assertFails(db, "ALTER TABLE t SET (RETAIN HISTORY PIN AT 1000)", "72000", "it is retained only from 1500 on");
            // a shorter policy lets the pinned history go at the next compaction
            db.execute("ALTER TABLE t SET (RETAIN HISTORY FOR '1 second')");
            db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertFails(db, "SELECT * FROM t AS OF 2500", "72000", "table \"t\" retains");
            db.execute("ALTER TABLE t RESET (RETAIN HISTORY)");
            db.execute("CREATE VIEW v AS SELECT * FROM t");
            assertFails(db, "ALTER MATERIALIZED VIEW v SET (RETAIN HISTORY FOR '1 hour')", "42809", "\"v\" is not a materialized view");
            assertFails(db, "ALTER TABLE nope SET (RETAIN HISTORY FOR '1 hour')", "42P01", "relation \"nope\" does not exist");
            assertFails(db, "CREATE TABLE u (a int) WITH (RETAIN HISTORY FOR '1 month')", "22023", "not months");
            assertFails(db, "CREATE TABLE u (a int) WITH (RETAIN HISTORY FOR 'soon')", "22007", "");
            assertThat(rows(db, "SELECT count(*) FROM t")).containsExactly(List.of("2"));
        }
    }

    @Test
    void aSubscriptionCanStartInThePastAndMissesNothingSince() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (a int) WITH (RETAIN HISTORY FOR '1 hour')");
            db.execute("INSERT INTO t VALUES (1)");
            db.execute("ADVANCE CLOCK TO 2000");
            db.execute("INSERT INTO t VALUES (2)");
            db.execute("ADVANCE CLOCK TO 3000");
            LinkedBlockingQueue<Result> batches = new LinkedBlockingQueue<>();
            try (Subscription sub = db.subscribe("SUBSCRIBE t AS OF 1500", batches::add)) {
                assertThat(batches.poll(10, TimeUnit.SECONDS).text()).containsExactly(List.of("1970-01-01 00:00:01.5+00", "1", "1"));
                assertThat(batches.poll(10, TimeUnit.SECONDS).text()).containsExactly(List.of("1970-01-01 00:00:02.001+00", "1", "2"));
                db.execute("INSERT INTO t VALUES (3)");
                assertThat(batches.poll(10, TimeUnit.SECONDS).text()).containsExactly(List.of("1970-01-01 00:00:03.001+00", "1", "3"));
            }
        }
    }
}
