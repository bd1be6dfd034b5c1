package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An HTTP sink reads with its owner's privileges, checked at use as PostgreSQL checks a view
 * owner's: a REVOKE that takes away what it reads (directly, or from the owner of a view it
 * reads) stops it, shown in SHOW SINKS; a GRANT that gives it back resumes it after its last
 * acknowledged time, so the receiver misses nothing. And DROP SINK, as CREATE SINK, refuses a
 * transaction block, for HTTP sinks as for Kafka's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpSinkAccessTest {
    @Test
    void aRevokeStopsASinkAndAGrantResumesItWhereItWas() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(0); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE ROLE alice");
            db.execute("CREATE ROLE bob");
            db.execute("GRANT CREATE ON SCHEMA public TO alice, bob");
            db.execute("GRANT tributary_connect TO alice");
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("GRANT SELECT ON t TO bob");
            // alice's sink reads bob's view of t
            Tributary.Connection bob = db.session();
            bob.execute("SET ROLE bob");
            bob.execute("CREATE VIEW v AS SELECT k, v AS n FROM t");
            bob.execute("GRANT SELECT ON v TO alice");
            Tributary.Connection alice = db.session();
            alice.execute("SET ROLE alice");
            db.execute("INSERT INTO t VALUES (1, 'a')");
            alice.execute("CREATE SINK out FROM v INTO HTTP (URL '" + receiver.url() + "')");
            receiver.await(bodies -> bodies.size() == 1);
            // acknowledged before the REVOKE: a batch stopped before its acknowledgement is sent again
            HttpSinkDdlTest.awaitAcknowledged(db, HttpSinkDdlTest.lastTime(receiver.bodies()));

            db.execute("REVOKE SELECT ON t FROM bob");
            assertThat(HttpSinkDdlTest.state(db)).isEqualTo("stopped: its owner alice may not read what it reads: permission denied for table t [42501]");
            db.execute("INSERT INTO t VALUES (2, 'b')");
            db.execute("GRANT SELECT ON t TO bob");
            assertThat(HttpSinkDdlTest.state(db)).isNotEqualTo("paused").doesNotStartWith("stopped");
            receiver.await(bodies -> HttpReceiver.accumulated(bodies, "k", "n").equals(List.of("1|a|1", "2|b|1")));
            HttpSinkDdlTest.awaitAcknowledged(db, HttpSinkDdlTest.lastTime(receiver.bodies()));

            db.execute("REVOKE SELECT ON v FROM alice");
            assertThat(HttpSinkDdlTest.state(db)).startsWith("stopped: its owner alice may not read what it reads: permission denied for view v");
            db.execute("INSERT INTO t VALUES (3, 'c')");
            // a GRANT of something else leaves it stopped
            db.execute("GRANT SELECT ON t TO alice");
            assertThat(HttpSinkDdlTest.state(db)).startsWith("stopped: ");
            db.execute("GRANT SELECT ON v TO alice");
            receiver.await(bodies -> HttpReceiver.accumulated(bodies, "k", "n").equals(List.of("1|a|1", "2|b|1", "3|c|1")));
            // resumed after its last acknowledged time: one snapshot only
            assertThat(receiver.bodies().stream().filter(b -> b.contains("\"snapshot\":true"))).hasSize(1);
            awaitState(db, "running");
        }
    }

    @Test
    void dropSinkRefusesATransactionBlock() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int)");
            db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://127.0.0.1:1/nothing')");
            fails("25001", () -> db.execute("BEGIN; DROP SINK s"));
            db.execute("ROLLBACK");
            // nor as what a DROP ... CASCADE reaches
            fails("25001", () -> db.execute("BEGIN; DROP TABLE t CASCADE"));
            db.execute("ROLLBACK");
            assertThat(rows(db, "SHOW SINKS")).hasSize(1);
            db.execute("DROP SINK s");
            assertThat(rows(db, "SHOW SINKS")).isEmpty();
        }
    }

    private static void awaitState(Tributary db, String state) {
        long until = System.nanoTime() + HttpReceiver.WAIT_MS * 1_000_000;
        while (!HttpSinkDdlTest.state(db).equals(state)) {
            assertThat(System.nanoTime()).as("SHOW SINKS: " + rows(db, "SHOW SINKS")).isLessThan(until);
            Thread.onSpinWait();
        }
    }
}
