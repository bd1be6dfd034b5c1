package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.storage.StorageController;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE JOB: a query's changes inserted into a table in the background, with defaults and
 * constraints as INSERT, each once across a restart and a crash (its cursor committed with its
 * rows); EMIT ON WINDOW CLOSE windows; PAUSE and RESUME, durably; what a job refuses.
 */
class JobTest {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    private static Jobs.Job await(Tributary db, String job, Predicate<Jobs.Job> condition) throws InterruptedException {
        Jobs.Job j = db.job(job);
        assertThat(j).as("job " + job).isNotNull();
        assertThat(j.await(condition, WAIT_MS)).as("job " + job + ": " + j.state + ", " + j.rows + " rows").isTrue();
        return j;
    }

    /** The target of {@code INSERT INTO out (id, v) SELECT id, v * 2 FROM ev STREAM WHERE v > 0} over ev's rows 1 .. n (v = id). */
    private static void checkOut(Tributary db, long n) {
        assertThat(rows(db, "SELECT count(*), count(DISTINCT id), sum(v), min(note), max(note) FROM out"))
                .containsExactly(n + "|" + n + "|" + n * (n + 1) + "|" + (n == 0 ? "NULL|NULL" : "x|x"));
    }

    private static final String SCHEMA = "CREATE TABLE ev (id bigint, v bigint); CREATE TABLE out (id bigint PRIMARY KEY, v bigint NOT NULL, note text DEFAULT 'x')";
    private static final String JOB = "CREATE JOB j AS INSERT INTO out (id, v) SELECT id, v * 2 FROM ev STREAM WHERE v > 0";

    @Test
    void aJobInsertsItsQuerysRowsAsTheyCome() throws Exception {
        try (Tributary db = Tributary.inMemory()) {
            db.execute(SCHEMA);
            db.execute("INSERT INTO ev SELECT g, g FROM generate_series(1, 100) g; INSERT INTO ev VALUES (-1, -1)");
            db.execute(JOB);
            await(db, "j", j -> j.rows == 100);
            for (int k = 0; k < 20; k++) db.execute("INSERT INTO ev SELECT g, g FROM generate_series(" + (101 + 10 * k) + ", " + (110 + 10 * k) + ") g");
            await(db, "j", j -> j.rows == 300);
            checkOut(db, 300);
            List<String> shown = rows(db, "SHOW JOBS");
            assertThat(shown).singleElement().asString().startsWith("j|running|out|300|");
            assertThat(rows(db, "SELECT part FROM j")).containsExactly("cursor");
        }
    }

    @Test
    void windowsClosedByTheWatermarkAreAppendedOnce() throws Exception {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE bids (auction int, price int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '2 seconds') WITH (APPEND ONLY)");
            db.execute("CREATE TABLE per_window (window_end timestamp, n bigint, total bigint)");
            db.execute("CREATE JOB w AS INSERT INTO per_window SELECT window_end, count(*), sum(price) "
                    + "FROM TUMBLE(bids STREAM, ts, INTERVAL '10 seconds') GROUP BY window_start, window_end EMIT ON WINDOW CLOSE");
            for (int s = 0; s < 35; s++) db.execute("INSERT INTO bids VALUES (1, " + s + ", TIMESTAMP '2026-01-01 00:00:00' + INTERVAL '" + s + " seconds')");
            // the watermark is 34 - 2 s: [0, 10), [10, 20), [20, 30) are closed
            await(db, "w", j -> j.rows == 3);
            assertThat(rows(db, "SELECT * FROM per_window ORDER BY 1"))
                    .containsExactly("2026-01-01 00:00:10|10|45", "2026-01-01 00:00:20|10|145", "2026-01-01 00:00:30|10|245");
        }
    }

    @Test
    void aRestartResumesAfterTheCursorAndPauseIsDurable() throws Exception {
        Path data = dir.resolve("data");
        try (Tributary db = Tributary.open(data)) {
            db.execute(SCHEMA);
            db.execute("INSERT INTO ev SELECT g, g FROM generate_series(1, 50) g");
            db.execute(JOB);
            await(db, "j", j -> j.rows == 50);
            db.execute("INSERT INTO ev SELECT g, g FROM generate_series(51, 60) g");
            await(db, "j", j -> j.rows == 60);
            db.execute("ALTER JOB j PAUSE");
            db.execute("INSERT INTO ev SELECT g, g FROM generate_series(61, 70) g");
        }
        try (Tributary db = Tributary.open(data)) {
            assertThat(db.job("j").state).isEqualTo("paused");
            checkOut(db, 60);
            db.execute("ALTER JOB j RESUME");
            await(db, "j", j -> j.rows == 10);
            db.execute("INSERT INTO ev SELECT g, g FROM generate_series(71, 80) g");
            await(db, "j", j -> j.rows == 20);
            checkOut(db, 80);
        }
        try (Tributary db = Tributary.open(data)) {
            db.execute("INSERT INTO ev SELECT g, g FROM generate_series(81, 90) g");
            await(db, "j", j -> j.rows == 10);
            checkOut(db, 90);
        }
    }

    @Test
    void aCrashLosesNothingAndRepeatsNothing() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        List<Tributary> servers = new ArrayList<>();
        try {
            Tributary first = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.wall(), 2);
            servers.add(first);
            first.execute(SCHEMA);
            first.execute(JOB);
            long n = 0;
            for (int crash = 0; crash < 3; crash++) {
                Tributary db = servers.get(servers.size() - 1);
                // rows the job may or may not have committed when the crash comes
                for (int k = 0; k < 30; k++) {
                    db.execute("INSERT INTO ev SELECT g, g FROM generate_series(" + (n + 1) + ", " + (n + 100) + ") g");
                    n += 100;
                }
                long some = n - 1000;
                await(db, "j", j -> j.rows >= some / (servers.size()));
                // never closed before the next opens its stores (which fences it): a crash
                Tributary next = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.wall(), 2);
                Jobs.stop(db.job("j"));
                servers.add(next);
            }
            Tributary db = servers.get(servers.size() - 1);
            long total = n;
            await(db, "j", j -> Long.parseLong(rows(db, "SELECT count(*) FROM out").get(0)) == total || j.state.startsWith("failed"));
            checkOut(db, n);
        } finally {
            for (int k = servers.size() - 1; k >= 0; k--) {
                try {
                    servers.get(k).close();
                } catch (IllegalStateException storesClosed) {
                    // the older ones' stores were taken over and closed with the last server: nothing more to do
                }
            }
        }
    }

    @Test
    void whatAJobRefuses() throws Exception {
        try (Tributary db = Tributary.inMemory()) {
            db.execute(SCHEMA);
            fails("25001", () -> db.execute("BEGIN; " + JOB));
            db.execute("ROLLBACK");
            fails("42P17", () -> db.execute("CREATE JOB k AS INSERT INTO ev SELECT * FROM ev STREAM"));
            fails("0A000", () -> db.execute("CREATE JOB k AS INSERT INTO out (id, v) SELECT id, v FROM ev STREAM ON CONFLICT DO NOTHING"));
            fails("42601", () -> db.execute("CREATE JOB k AS INSERT INTO out (id) SELECT id, v FROM ev STREAM"));
            fails("42P01", () -> db.execute("CREATE JOB k AS INSERT INTO nowhere SELECT id, v FROM ev STREAM"));
            db.execute(JOB);
            fails("42P07", () -> db.execute(JOB));
            fails("42809", () -> db.execute("INSERT INTO j VALUES ('cursor', '1')"));
            fails("42809", () -> db.execute("DELETE FROM j"));
            fails("2BP01", () -> db.execute("DROP TABLE out"));
            fails("2BP01", () -> db.execute("DROP TABLE ev"));
            fails("42809", () -> db.execute("ALTER JOB ev PAUSE"));
            fails("42704", () -> db.execute("ALTER JOB nothing PAUSE"));
            fails("25001", () -> db.execute("BEGIN; DROP JOB j"));
            db.execute("ROLLBACK");
            // a row the target refuses (a repeated key) stops the job with the error
            db.execute("INSERT INTO ev VALUES (1, 1), (1, 1)");
            Jobs.Job failed = await(db, "j", j -> j.state.startsWith("failed"));
            assertThat(failed.state).contains("23505");
            // a retraction too
            db.execute("DROP JOB j; TRUNCATE out; DELETE FROM ev");
            db.execute(JOB);
            db.execute("INSERT INTO ev VALUES (7, 7)");
            await(db, "j", j -> j.rows == 1);
            db.execute("DELETE FROM ev");
            assertThat(await(db, "j", j -> j.state.startsWith("failed")).state).contains("retracted a row");
            db.execute("DROP TABLE ev CASCADE");
            assertThat(db.job("j")).isNull();
            assertThat(rows(db, "SHOW JOBS")).isEmpty();
        }
    }
}
