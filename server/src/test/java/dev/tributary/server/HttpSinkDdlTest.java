package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import dev.tributary.sql.SqlException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code CREATE SINK name FROM relation INTO HTTP (URL '...')}: a relation's changes delivered to
 * a receiver that fails its first attempts, what the receiver accumulated (recomputed with SQL
 * over the bodies it kept) equal to the relation, the acknowledged time kept in the sink's table,
 * and a restart resuming after it without sending anything acknowledged again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpSinkDdlTest {
    private static final long WAIT_MS = HttpReceiver.WAIT_MS;

    @TempDir
    Path dir;

    /** What the changes in {@code bodies} add up to, as {@code k|n|1}. */
    private static List<String> accumulated(List<String> bodies) {
        return HttpReceiver.accumulated(bodies, "k", "n");
    }

    private static List<String> view(Tributary db) {
        return rows(db, "SELECT k::text, n::text, 1 FROM v ORDER BY 1, 2");
    }

    private static long snapshots(List<String> bodies) {
        return bodies.stream().filter(b -> b.contains("\"snapshot\":true")).count();
    }

    @Test
    void changesArriveThroughFailuresAndARestartResumesAfterTheAcknowledgedTime() throws Exception {
        Path data = dir.resolve("data");
        try (HttpReceiver receiver = new HttpReceiver(2)) {
            try (Tributary db = Tributary.open(data)) {
                db.execute("CREATE TABLE t (k int, v text)");
                db.execute("CREATE MATERIALIZED VIEW v WITH (RETAIN HISTORY FOR '1 hour') AS SELECT k, count(*) AS n FROM t GROUP BY k");
                db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
                db.execute("CREATE SINK out FROM v INTO HTTP (URL '" + receiver.url() + "')");
                // the snapshot acknowledged before the next write (see awaitFirstBatch)
                awaitFirstBatch(db);
                db.execute("INSERT INTO t VALUES (1, 'c'), (3, 'd')");
                db.execute("DELETE FROM t WHERE k = 2");
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                assertThat(receiver.refused()).isEqualTo(2);
                // the acknowledged time reaches the sink's table once the last batch is acknowledged
                long last = lastTime(receiver.bodies());
                awaitAcknowledged(db, last);
                fails("42809", () -> db.execute("INSERT INTO out VALUES ('acknowledged', '0')"));
                fails("2BP01", () -> db.execute("DROP MATERIALIZED VIEW v"));
            }
            int before = receiver.bodies().size();
            try (Tributary db = Tributary.open(data)) {
                db.execute("INSERT INTO t VALUES (4, 'e'), (1, 'f')");
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                List<String> all = receiver.bodies();
                // resumed after the acknowledged time: no snapshot again, and the one new change's batch only
                assertThat(snapshots(all)).isEqualTo(1);
                assertThat(all.subList(before, all.size())).allSatisfy(b -> assertThat(b).contains("\"snapshot\":false"));
                awaitAcknowledged(db, lastTime(all));
                String shown = rows(db, "SHOW SINKS").get(0);
                assertThat(shown).startsWith("out|http|v|" + receiver.url() + "|running|");
                // no failure, nothing queued, never behind
                List<String> fields = List.of(shown.split("\\|"));
                assertThat(fields.subList(10, 15)).containsExactly("0", "NULL", "0", fields.get(13), "0");
                db.execute("DROP SINK out");
                assertThat(rows(db, "SELECT count(*) FROM pg_class WHERE relname = 'out'")).containsExactly("0");
            }
        }
    }

    @Test
    void aSinkHoldsTheHistoryItResumesFromWithoutRetainHistory() throws Exception {
        Path data = dir.resolve("held");
        try (HttpReceiver receiver = new HttpReceiver(0)) {
            for (int run = 0; run < 3; run++) {
                try (Tributary db = Tributary.open(data)) {
                    if (run == 0) {
                        // no RETAIN HISTORY: the sink holds what it reads from its acknowledged time on
                        db.execute("CREATE TABLE t (k int, v text)");
                        db.execute("CREATE VIEW v AS SELECT k, count(*) AS n FROM t GROUP BY k");
                        db.execute("INSERT INTO t VALUES (100, 'x')");
                        db.execute("CREATE SINK out FROM v INTO HTTP (URL '" + receiver.url() + "')");
                        awaitFirstBatch(db);
                    }
                    db.execute("INSERT INTO t VALUES (" + run + ", 'a'), (10, 'b')");
                    if (run == 2) db.execute("DELETE FROM t WHERE k = 0");
                    List<String> expected = view(db);
                    receiver.await(bodies -> accumulated(bodies).equals(expected));
                    awaitAcknowledged(db, lastTime(receiver.bodies()));
                }
            }
            // one snapshot (the first batch), and no batch sent twice across the restarts
            List<String> all = receiver.bodies();
            assertThat(snapshots(all)).isEqualTo(1);
            assertThat(new java.util.HashSet<>(all)).hasSameSizeAs(all);
        }
    }

    @Test
    void aReceiverThatIsDownIsRetriedUntilItIsUp() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT k, count(*) AS n FROM t GROUP BY k");
            db.execute("INSERT INTO t VALUES (1, 'a')");
            db.execute("CREATE SINK out FROM v INTO HTTP (URL 'http://127.0.0.1:" + port + "/in')");
            db.execute("INSERT INTO t VALUES (2, 'b')");
            // nothing listens: refused connections, retried with growing pauses, shown by SHOW SINKS
            long until = System.nanoTime() + WAIT_MS * 1_000_000;
            List<String> shown = rows(db, "SHOW SINKS");
            while (!(shown.get(0).contains("|retrying in ") && shown.get(0).contains("no answer from http://127.0.0.1:" + port))) {
                assertThat(System.nanoTime()).as("SHOW SINKS: " + shown).isLessThan(until);
                Thread.onSpinWait();
                shown = rows(db, "SHOW SINKS");
            }
            // the receiver comes up on that port: everything arrives, the first batch the snapshot
            try (HttpReceiver receiver = new HttpReceiver(0, port)) {
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                assertThat(receiver.bodies().get(0)).contains("\"snapshot\":true");
                assertThat(snapshots(receiver.bodies())).isEqualTo(1);
            }
        }
    }

    /**
     * ALTER SINK PAUSE is durable: a paused sink delivers nothing, stays paused over a restart, and
     * holds what it reads from its last acknowledged time (no RETAIN HISTORY here), so RESUME
     * delivers everything it missed without a second snapshot.
     */
    @Test
    void aPausedSinkStaysPausedOverARestartAndResumeDeliversWhatItMissed() throws Exception {
        Path data = dir.resolve("paused");
        try (HttpReceiver receiver = new HttpReceiver(0)) {
            int atPause;
            try (Tributary db = Tributary.open(data)) {
                db.execute("CREATE TABLE t (k int, v text)");
                db.execute("CREATE VIEW v AS SELECT k, count(*) AS n FROM t GROUP BY k");
                db.execute("INSERT INTO t VALUES (1, 'a')");
                db.execute("CREATE SINK out FROM v INTO HTTP (URL '" + receiver.url() + "')");
                awaitFirstBatch(db);
                db.execute("INSERT INTO t VALUES (2, 'b')");
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                awaitAcknowledged(db, lastTime(receiver.bodies()));
                db.execute("ALTER SINK out PAUSE");
                atPause = receiver.requests().size();
                assertThat(state(db)).isEqualTo("paused");
                db.execute("INSERT INTO t VALUES (3, 'c'), (1, 'd')");
                db.execute("DELETE FROM t WHERE k = 2");
            }
            try (Tributary db = Tributary.open(data)) {
                assertThat(state(db)).isEqualTo("paused");
                db.execute("INSERT INTO t VALUES (4, 'e')");
                assertThat(receiver.requests()).hasSize(atPause);
                db.execute("ALTER SINK out PAUSE"); // already paused: nothing to do
                db.execute("ALTER SINK out RESUME");
                List<String> expected = view(db);
                receiver.await(bodies -> accumulated(bodies).equals(expected));
                assertThat(snapshots(receiver.bodies())).isEqualTo(1);
                assertThat(state(db)).isEqualTo("running");
            }
        }
    }

    /** The state of the first sink SHOW SINKS lists. */
    static String state(Tributary db) {
        return rows(db, "SHOW SINKS").get(0).split("\\|")[4];
    }

    /**
     * FROM (query), as a Kafka sink takes it, and CREATE JOB ... AS INSERT INTO FUNCTION url, which
     * is such a sink: the query's changes arrive; what it reads is dropped only with CASCADE; it
     * is shown, paused and dropped as a sink, and the job spelling of DROP says so.
     */
    @Test
    void aSinkOfAQueryAndItsJobSpelling() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(0); HttpReceiver other = new HttpReceiver(0); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (2, 'c')");
            db.execute("CREATE SINK counts FROM (SELECT k, count(*) AS n FROM t WHERE k > 0 GROUP BY k) INTO HTTP (URL '" + receiver.url() + "')");
            db.execute("CREATE JOB posted AS INSERT INTO FUNCTION url('" + other.url() + "') SELECT k, v AS n FROM t WHERE v <> 'c'");
            receiver.await(b -> !b.isEmpty());
            other.await(b -> !b.isEmpty());
            db.execute("INSERT INTO t VALUES (3, 'd'), (-1, 'e')");
            db.execute("DELETE FROM t WHERE v = 'b'");
            receiver.await(b -> accumulated(b).equals(rows(db, "SELECT k::text, count(*)::text, 1 FROM t WHERE k > 0 GROUP BY k ORDER BY 1, 2")));
            other.await(b -> accumulated(b).equals(rows(db, "SELECT k::text, v, 1 FROM t WHERE v <> 'c' ORDER BY 1, 2")));
            assertThat(rows(db, "SHOW SINKS").stream().map(r -> String.join("|", java.util.Arrays.asList(r.split("\\|")).subList(0, 3))).toList()).containsExactly(
                    "counts|http|SELECT k, count(*) AS n FROM t WHERE k > 0 GROUP BY k", "posted|http|SELECT k, v AS n FROM t WHERE v <> 'c'");
            assertThat(rows(db, "SHOW JOBS")).isEmpty();
            SqlException e = SqlRows.error(db.session(), "DROP JOB posted");
            assertThat(e.sqlState()).isEqualTo("42809");
            assertThat(e.hint()).contains("DROP SINK posted");
            fails("2BP01", () -> db.execute("DROP TABLE t"));
            db.execute("DROP SINK posted");
            db.execute("DROP TABLE t CASCADE");
            assertThat(rows(db, "SHOW SINKS")).isEmpty();
        }
    }

    @Test
    void whatCreateSinkRefuses() {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int)");
            fails("42704", () -> db.execute("CREATE SINK s FROM t INTO S3 (URL 'http://x')"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO KAFKA (URL 'http://x') FORMAT JSON ENVELOPE UPSERT"));
            // what only INTO KAFKA takes
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://x') FORMAT JSON ENVELOPE UPSERT"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://x') KEY (k)"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP"));
            fails("42601", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://x', TOPIC 'y')"));
            fails("22023", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://x', MAX QUEUE SIZE 0)"));
            fails("42P01", () -> db.execute("CREATE SINK s FROM (SELECT k FROM nothing) INTO HTTP (URL 'http://x')"));
            fails("0A000", () -> db.execute("CREATE SINK s FROM (SELECT k FROM t STREAM WATERMARK FOR k AS k) INTO HTTP (URL 'http://x')"));
            fails("22023", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'ftp://x/y')"));
            fails("22023", () -> db.execute("CREATE SINK s FROM t INTO HTTP (URL 'not a url')"));
            fails("42P01", () -> db.execute("CREATE SINK s FROM nothing INTO HTTP (URL 'http://x')"));
            fails("25001", () -> db.execute("BEGIN; CREATE SINK s FROM t INTO HTTP (URL 'http://x')"));
            db.execute("ROLLBACK");
            db.execute("CREATE SINK s FROM t INTO HTTP (URL 'http://127.0.0.1:1/nothing')");
            fails("42809", () -> db.execute("DROP TABLE s"));
            fails("42809", () -> db.execute("INSERT INTO s VALUES ('paused', 'true')"));
            fails("42809", () -> db.execute("ALTER JOB s PAUSE"));
            fails("42704", () -> db.execute("ALTER SINK nothing PAUSE"));
            db.execute("DROP TABLE t CASCADE");
            assertThat(rows(db, "SELECT count(*) FROM pg_class WHERE relname = 's'")).containsExactly("0");
        }
    }

    /**
     * Waits (with a deadline) until the sink has its first batch, the snapshot, acknowledged.
     * Once, under heavy load, a write committed right after CREATE SINK came both inside the
     * snapshot (labelled with the time before it) and again as its own batch (ARCHITECTURE,
     * "Sinks", open question); the tests write after the snapshot until that is understood.
     */
    private static void awaitFirstBatch(Tributary db) {
        long until = System.nanoTime() + WAIT_MS * 1_000_000;
        while (rows(db, "SELECT count(*) FROM out WHERE part = 'acknowledged'").equals(List.of("0"))) {
            assertThat(System.nanoTime()).as("the sink's snapshot acknowledged").isLessThan(until);
            Thread.onSpinWait();
        }
    }

    /** The time of the last of {@code bodies}. */
    static long lastTime(List<String> bodies) {
        return HttpReceiver.time(bodies.get(bodies.size() - 1));
    }

    /** Waits (with a deadline) until the sink's table says {@code time} was acknowledged. */
    static void awaitAcknowledged(Tributary db, long time) throws InterruptedException {
        long until = System.nanoTime() + WAIT_MS * 1_000_000;
        String expected = String.valueOf(time);
        while (!rows(db, "SELECT position FROM out WHERE part = 'acknowledged'").equals(List.of(expected))) {
            assertThat(System.nanoTime()).as("sink table shows " + time + ": " + rows(db, "SELECT * FROM out")).isLessThan(until);
            Thread.onSpinWait();
        }
    }
}
