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
 * time, on a manual clock; {@code RETAIN ROWS n}: the oldest rows deleted beyond n; both after a
 * restart too; what the option refuses.
 */
class RowRetentionTest {
    @TempDir
    Path dir;

    /** A one-row query's value as it changes (the table's row count by default), from a subscription: a probe to wait on, not a sleep. */
    private static final class Counts implements AutoCloseable {
        private final LinkedBlockingQueue<String> seen = new LinkedBlockingQueue<>();
        private final Subscription subscription;

        Counts(Tributary db, String table) {
            this(db, table, "count(*)");
        }

        Counts(Tributary db, String table, String value) {
            subscription = db.subscribe("SUBSCRIBE (SELECT " + value + " FROM " + table + ")", batch -> {
                for (Object[] r : batch.rows()) if ((Long) r[1] > 0) seen.add(String.valueOf(r[2]));
            });
        }

        /** Waits until the value is {@code n} (60 s at most). */
        void await(long n) throws InterruptedException {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                String c = seen.poll(Math.max(1, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertThat(c).as("the value never became " + n).isNotNull();
                if (c.equals(Long.toString(n))) return;
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
            // a minimum over the table: its rows are deleted, so it is not kept as over an append-only table's
            try (Counts counts = new Counts(db, "q"); Counts least = new Counts(db, "q", "min(id)")) {
                db.execute("INSERT INTO q SELECT g, 'a' FROM generate_series(1, 100) g");
                counts.await(100);
                db.execute("ADVANCE CLOCK BY INTERVAL '30 minutes'");
                db.execute("INSERT INTO q SELECT g, 'b' FROM generate_series(101, 150) g");
                counts.await(150);
                db.execute("ADVANCE CLOCK BY INTERVAL '31 minutes'");
                counts.await(50);
                least.await(101);
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
    void theNewestRowsStayAndTheOldestGo() throws Exception {
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE q (id int) WITH (APPEND ONLY, RETAIN ROWS 100)");
            try (Counts counts = new Counts(db, "q"); Counts older = new Counts(db, "q", "count(*) FILTER (WHERE id <= 120)")) {
                db.execute("INSERT INTO q SELECT g FROM generate_series(1, 60) g");
                db.execute("INSERT INTO q SELECT g FROM generate_series(61, 120) g");
                counts.await(100);
                // 20 of the first commit's rows go; which of them is not said (one commit's rows have no order)
                assertThat(rows(db, "SELECT count(*) FROM q WHERE id <= 60")).containsExactly("40");
                // a commit bigger than the cap: every older row goes, and enough of its own
                db.execute("INSERT INTO q SELECT g FROM generate_series(121, 370) g");
                older.await(0);
                counts.await(100);
                for (int i = 1001; i <= 1050; i++) db.execute("INSERT INTO q VALUES (" + i + ")");
                try (Counts newest = new Counts(db, "q", "count(*) FILTER (WHERE id > 1000)")) {
                    newest.await(50);
                }
                counts.await(100);
                assertThat(rows(db, "SELECT count(*) FROM q WHERE id BETWEEN 121 AND 370")).containsExactly("50");
            }
            assertThat(rows(db, "SHOW CREATE TABLE q").get(0)).contains("RETAIN ROWS 100");
        }
    }

    @Test
    void aRestartKeepsTheNewestRowsInTheirOrder() throws Exception {
        Path data = dir.resolve("data");
        try (Tributary db = Tributary.open(data, Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE q (id int) WITH (APPEND ONLY, RETAIN ROWS 10)");
            try (Counts least = new Counts(db, "q", "min(id)")) {
                for (int i = 1; i <= 15; i++) {
                    db.execute("INSERT INTO q VALUES (" + i + ")");
                    db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
                }
                least.await(6);
            }
        }
        // the rows' commit order is history the table kept: the next deletions still take the oldest
        try (Tributary db = Tributary.open(data, Clock.manual(60_000), 1); Counts least = new Counts(db, "q", "min(id)")) {
            least.await(6);
            for (int i = 16; i <= 20; i++) db.execute("INSERT INTO q VALUES (" + i + ")");
            least.await(11);
            assertThat(rows(db, "SELECT count(*), max(id) FROM q")).containsExactly("10|20");
        }
    }

    @Test
    void whatRetainRowsRefuses() {
        try (Tributary db = Tributary.inMemory()) {
            fails("42P16", () -> db.execute("CREATE TABLE t (id int) WITH (RETAIN ROWS FOR '1 day')"));
            fails("22023", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '1 month')"));
            fails("22023", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '-1 hour')"));
            fails("42601", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '1 hour', RETAIN ROWS FOR '2 hours')"));
            fails("42601", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '1 hour', RETAIN ROWS 10)"));
            fails("22023", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS 0)"));
            fails("42601", () -> db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS 'many')"));
            fails("42P16", () -> db.execute("CREATE TABLE t (id int) WITH (RETAIN ROWS 10)"));
            db.execute("CREATE TABLE t (id int) WITH (APPEND ONLY, RETAIN ROWS FOR '1 hour')");
            fails("55000", () -> db.execute("DELETE FROM t"));
            db.execute("DROP TABLE t");
        }
    }
}
