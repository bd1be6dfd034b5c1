package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * now() in the WHERE of a materialized view or subscription, on a manual clock: a row is present
 * exactly while its condition holds, inserted when it starts to hold and retracted when it stops,
 * as the clock moves; shapes that are not a bound on now() are refused with 0A000; a one-off
 * SELECT reads now() as its read time.
 */
class TemporalFilterTest {
    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    @Test
    void rowsComeAndGoWithTheClock() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
                db.execute("CREATE TABLE offers (id int, valid_from timestamptz, valid_to timestamptz)");
                db.execute("CREATE MATERIALIZED VIEW live AS SELECT id FROM offers WHERE now() BETWEEN valid_from AND valid_to AND id > 0");
                db.execute("CREATE MATERIALIZED VIEW recent AS SELECT id FROM offers WHERE valid_from + INTERVAL '10 seconds' > now()");
                db.execute("INSERT INTO offers VALUES (1, '1970-01-01 00:00:05+00', '1970-01-01 00:00:20+00'), "
                        + "(2, '1970-01-01 00:00:00+00', '1970-01-01 00:00:08+00'), (-3, '1970-01-01 00:00:00+00', '1970-01-01 00:01:00+00'), "
                        + "(4, NULL, '1970-01-01 00:00:30+00')");
                db.execute("ADVANCE CLOCK TO 1000");
                assertThat(rows(db, "SELECT * FROM live ORDER BY id")).as("%d workers", workers).containsExactly(List.of("2"));
                db.execute("ADVANCE CLOCK TO 6000");
                assertThat(rows(db, "SELECT * FROM live ORDER BY id")).containsExactly(List.of("1"), List.of("2"));
                db.execute("ADVANCE CLOCK TO 8000");                     // BETWEEN includes its upper end
                assertThat(rows(db, "SELECT * FROM live ORDER BY id")).containsExactly(List.of("1"), List.of("2"));
                db.execute("ADVANCE CLOCK TO 8001");
                assertThat(rows(db, "SELECT * FROM live ORDER BY id")).containsExactly(List.of("1"));
                assertThat(rows(db, "SELECT * FROM recent ORDER BY id")).containsExactly(List.of("-3"), List.of("1"), List.of("2"));
                db.execute("ADVANCE CLOCK TO 10000");                    // valid_from + 10 s > now() for id 1 only
                assertThat(rows(db, "SELECT * FROM recent ORDER BY id")).containsExactly(List.of("1"));
                db.execute("ADVANCE CLOCK TO 25000");
                assertThat(rows(db, "SELECT * FROM live")).isEmpty();
                assertThat(rows(db, "SELECT * FROM recent")).isEmpty();
                // a later write inside its window appears at once; one whose window is over never does
                db.execute("INSERT INTO offers VALUES (5, '1970-01-01 00:00:24+00', '1970-01-01 00:00:26+00'), "
                        + "(6, '1970-01-01 00:00:01+00', '1970-01-01 00:00:02+00')");
                assertThat(rows(db, "SELECT * FROM live")).containsExactly(List.of("5"));
                db.execute("DELETE FROM offers WHERE id = 5");
                assertThat(rows(db, "SELECT * FROM live")).isEmpty();
                assertThat(db.query("EXPLAIN SELECT * FROM live").text().toString()).doesNotContain("TemporalFilter");
            }
        }
    }

    /** An infinite bound holds for ever ('infinity' above) or never ('-infinity' above), whatever the clock. */
    @Test
    void infiniteBoundsHoldForEverOrNever() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (id int, ts timestamptz)");
            db.execute("CREATE MATERIALIZED VIEW before AS SELECT id FROM t WHERE now() < ts + INTERVAL '1 minute'");
            db.execute("CREATE MATERIALIZED VIEW after AS SELECT id FROM t WHERE now() >= ts");
            db.execute("CREATE MATERIALIZED VIEW at AS SELECT id FROM t WHERE now() = ts");
            db.execute("INSERT INTO t VALUES (1, 'infinity'), (2, '-infinity'), (3, '1970-01-01 00:00:05+00')");
            db.execute("ADVANCE CLOCK TO 1000");
            assertThat(rows(db, "SELECT * FROM before ORDER BY id")).containsExactly(List.of("1"), List.of("3"));
            assertThat(rows(db, "SELECT * FROM after ORDER BY id")).containsExactly(List.of("2"));
            db.execute("ADVANCE CLOCK TO 100000");
            assertThat(rows(db, "SELECT * FROM before ORDER BY id")).containsExactly(List.of("1"));
            assertThat(rows(db, "SELECT * FROM after ORDER BY id")).containsExactly(List.of("2"), List.of("3"));
            assertThat(rows(db, "SELECT * FROM at")).isEmpty();
        }
    }

    @Test
    void aSubscriptionSeesTheInsertionAndTheRetractionAtTheirTimes() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (id int, until timestamptz)");
            LinkedBlockingQueue<Result> batches = new LinkedBlockingQueue<>();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT id FROM t WHERE now() < until)", batches::add)) {
                assertThat(batches.poll(10, TimeUnit.SECONDS).rows()).isEmpty();
                db.execute("INSERT INTO t VALUES (1, '1970-01-01 00:00:03+00')");
                assertThat(batches.poll(10, TimeUnit.SECONDS).text()).containsExactly(List.of("1970-01-01 00:00:00.001+00", "1", "1"));
                db.execute("ADVANCE CLOCK TO 5000");
                assertThat(batches.poll(10, TimeUnit.SECONDS).text()).containsExactly(List.of("1970-01-01 00:00:03+00", "-1", "1"));
            }
        }
    }

    @Test
    void otherUsesOfNowAreRefusedAndOneOffReadsUseTheReadTime() {
        try (Tributary db = Tributary.inMemory(Clock.manual(7_000))) {
            db.execute("CREATE TABLE t (id int, ts timestamptz)");
            for (String sql : List.of("CREATE MATERIALIZED VIEW v AS SELECT id, now() FROM t",
                    "CREATE MATERIALIZED VIEW v AS SELECT id FROM t WHERE now() < ts OR id = 1",
                    "CREATE MATERIALIZED VIEW v AS SELECT id FROM t WHERE now() <> ts",
                    "CREATE MATERIALIZED VIEW v AS SELECT id FROM t WHERE ts < now() + INTERVAL '1 hour'")) {
                assertThatThrownBy(() -> db.execute(sql)).as(sql).isInstanceOfSatisfying(SqlException.class, e -> {
                    assertThat(e.sqlState()).isEqualTo("0A000");
                    assertThat(e.getMessage()).contains("now() in a materialized view or subscription can only bound rows in WHERE");
                });
            }
            db.execute("INSERT INTO t VALUES (1, '1970-01-01 00:00:05+00'), (2, '1970-01-01 00:00:09+00')");
            assertThat(rows(db, "SELECT id FROM t WHERE ts > now()")).containsExactly(List.of("2"));
        }
    }
}
