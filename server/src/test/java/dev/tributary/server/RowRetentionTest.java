package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code WITH (APPEND ONLY, RETAIN ROWS FOR interval)}: rows deleted once that old by their commit
 * time, on a manual clock; after a restart too; what the option refuses.
 */
class RowRetentionTest {
    @TempDir
    Path dir;

    /** The table's row counts as they change, from a subscription: a probe to wait on, not a sleep. */
    private static final class Counts implements AutoCloseable {
        private final LinkedBlockingQueue<Long> seen = new LinkedBlockingQueue<>();
        private final Subscription subscription;

        Counts(Tributary db, String table) {
            subscription = db.subscribe("SUBSCRIBE (SELECT count(*) FROM " + table + ")", batch -> {
                for (Object[] r : batch.rows()) if ((Long) r[1] > 0) seen.add((Long) r[2]);
            });
        }

        /** Waits until the count is {@code n} (60 s at most). */
        void await(long n) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                Long c = seen.poll(Math.max(1, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(c).as("the count never became " + n).isNotNull();
                if (c == n) return;
            }
        }

        @Override
        public void close() {
            subscription.close();
        }
    }

    @Test
    void rowsGoWhenTheirTimeComes() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE q (id int, body text) WITH (APPEND ONLY, RETAIN ROWS FOR '1 hour')");
            try (Counts counts = new Counts(db, "q")) {
                db.execute("INSERT INTO q SELECT g, 'a' FROM generate_series(1, 100) g");
                counts.await(100);
                db.execute("ADVANCE CLOCK BY INTERVAL '30 minutes'");
                db.execute("INSERT INTO q SELECT g, 'b' FROM generate_series(101, 150) g");
                counts.await(150);
                db.execute("ADVANCE CLOCK BY INTERVAL '31 minutes'");
                counts.await(50);
                assertThat(rows(db, "SELECT min(id), max(id), min(body) FROM q")).containsExactly("101|150|b");
                db.execute("ADVANCE CLOCK BY INTERVAL '30 minutes'");
                counts.await(0);
            }
            assertThat(rows(db, "SHOW CREATE TABLE q").get(0)).contains("RETAIN ROWS FOR '1 hour'");
        }
    }

    @Test
    void aRestartDeletesWhatCameDueMeanwhile() throws Exception {
        Path data = dir.resolve("data");
        try (Tributary db = Tributary.open(data, Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE q (id int) WITH (APPEND ONLY, RETAIN ROWS FOR INTERVAL '10 minutes')");
            db.execute("INSERT INTO q SELECT g FROM generate_series(1, 10) g");
            db.execute("ADVANCE CLOCK BY INTERVAL '5 minutes'");
            db.execute("INSERT INTO q SELECT g FROM generate_series(11, 20) g");
        }
        // the server was down while the first rows came due
        try (Tributary db = Tributary.open(data, Clock.manual(1_000 + 11 * 60_000), 1); Counts counts = new Counts(db, "q")) {
            counts.await(10);
            assertThat(rows(db, "SELECT min(id) FROM q")).containsExactly("11");
            db.execute("ADVANCE CLOCK BY INTERVAL '5 minutes'");
            counts.await(0);
        }
    }

    @Test
    void whatRetainRowsRefuses() {
        try (Tributary db = Tributary.inMemory()) {
            fails("42P16", () -> db.execute("CREATE TABLE t (id int) WITH (RETAIN ROWS FOR '1 day')"));
            fails("22023", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '1 month')"));
            fails("22023", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '-1 hour')"));
            fails("42601", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '1 hour', RETAIN ROWS FOR '2 hours')"));
            db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '1 hour')");
            fails("55000", () -> db.execute("DELETE FROM t"));
            db.execute("DROP TABLE t");
        }
    }
}
