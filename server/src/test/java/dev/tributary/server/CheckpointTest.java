package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.storage.StorageController;
import dev.tributary.sql.SqlException;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A restart restores tables, materialized views and indexes from the latest checkpoint (their
 * traces as they were, per worker) and replays only the writes after it: the answers are those
 * before the restart, every maintained view stays equal to its query computed from scratch as
 * writes go on, and what cannot be restored (another number of workers, no checkpoint) is built
 * again instead, with the same answers.
 */
class CheckpointTest {
    private static final String SCHEMA = """
            CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, region text DEFAULT 'north');
            CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount numeric(10,2), note text);
            CREATE TABLE events (kind text, n int);
            CREATE MATERIALIZED VIEW per_customer AS
              SELECT c.name, count(*) AS n, sum(o.amount) AS total FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.name;
            CREATE INDEX orders_by_customer ON orders (customer);
            CREATE MATERIALIZED VIEW kinds AS SELECT kind, sum(n) AS n, max(n) AS top FROM events GROUP BY kind;
            CREATE INDEX kinds_by_n ON kinds (n);
            CREATE MATERIALIZED VIEW regions AS SELECT region, count(DISTINCT name) AS names FROM customers GROUP BY region;
            CREATE MATERIALIZED VIEW top_orders AS SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 5;
            CREATE MATERIALIZED VIEW with_constant AS SELECT kind FROM events UNION SELECT 'always';
            """;

    /** Each maintained object's rows, and the same query computed from scratch: they must agree. */
    private static final List<String[]> VIEWS = List.of(
            new String[] {"SELECT * FROM per_customer ORDER BY name",
                    "SELECT c.name, count(*) AS n, sum(o.amount) AS total FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.name ORDER BY name"},
            new String[] {"SELECT * FROM kinds ORDER BY kind", "SELECT kind, sum(n) AS n, max(n) AS top FROM events GROUP BY kind ORDER BY kind"},
            new String[] {"SELECT * FROM regions ORDER BY region", "SELECT region, count(DISTINCT name) AS names FROM customers GROUP BY region ORDER BY region"},
            new String[] {"SELECT * FROM top_orders ORDER BY amount DESC, id", "SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 5"},
            new String[] {"SELECT * FROM with_constant ORDER BY kind", "SELECT kind FROM events UNION SELECT 'always' ORDER BY kind"},
            new String[] {"SELECT * FROM orders WHERE customer = 3 ORDER BY id", "SELECT * FROM (SELECT * FROM orders) o WHERE customer + 0 = 3 ORDER BY id"},
            new String[] {"SELECT kind FROM kinds WHERE n = 7", "SELECT kind FROM (SELECT kind, sum(n) AS n FROM events GROUP BY kind) k WHERE n + 0 = 7"},
            new String[] {"SELECT * FROM customers ORDER BY id", "SELECT * FROM customers ORDER BY id"},
            new String[] {"SELECT count(*), sum(n) FROM events", "SELECT count(*), sum(n) FROM events"});

    private static TreeMap<String, List<String>> answers(Tributary db) {
        TreeMap<String, List<String>> out = new TreeMap<>();
        for (String[] v : VIEWS) out.put(v[0], rows(db, v[0]));
        return out;
    }

    /** Every maintained object agrees with its query computed from scratch. */
    private static void consistent(Tributary db) {
        for (String[] v : VIEWS) assertThat(rows(db, v[0])).as(v[0]).isEqualTo(rows(db, v[1]));
    }

    static void churn(Tributary db, Random random, int rounds) {
        int base = random.nextInt(1_000_000) * 1000;
        for (int i = 0; i < rounds; i++) {
            int c = random.nextInt(12);
            switch (random.nextInt(6)) {
                case 0 -> db.execute("INSERT INTO customers VALUES (" + (base + 100 + i) + ", 'c" + random.nextInt(20) + "', 'r" + c % 4 + "')");
                case 1 -> db.execute("INSERT INTO orders VALUES (" + (base + i) + ", " + c + ", " + random.nextInt(300) + ".5, 'n" + i + "')");
                case 2 -> db.execute("UPDATE orders SET amount = amount + 1 WHERE customer = " + c);
                case 3 -> db.execute("DELETE FROM orders WHERE id % 7 = " + random.nextInt(7));
                case 4 -> db.execute("INSERT INTO events VALUES ('k" + c + "', " + i + ")");
                default -> db.execute("DELETE FROM events WHERE n % 11 = " + random.nextInt(11));
            }
        }
    }

    static void populate(Tributary db) {
        db.execute(SCHEMA);
        for (int c = 0; c < 10; c++) db.execute("INSERT INTO customers VALUES (" + c + ", 'name " + c + "', 'r" + c % 3 + "')");
        db.execute("INSERT INTO orders SELECT g, g % 10, g % 500, 'bulk' FROM generate_series(1, 3000) g");
        db.execute("INSERT INTO events SELECT 'k' || (g % 4), g FROM generate_series(1, 5000) g");
    }

    private static final List<String> MAINTAINED = List.of("customers", "orders", "events", "per_customer", "orders_by_customer", "kinds", "kinds_by_n",
            "regions", "top_orders", "with_constant");

    /** The memory stores as a server sees them, except that closing the server leaves them open for the next. */
    static StorageController stores(MemoryBlob blob, MemoryConsensus consensus) {
        dev.tributary.storage.Blob b = new dev.tributary.storage.Blob() {
            public java.util.Optional<byte[]> get(String key) { return blob.get(key); }
            public void put(String key, byte[] value) { blob.put(key, value); }
            public void delete(String key) { blob.delete(key); }
            public List<String> list(String prefix) { return blob.list(prefix); }
            public void close() {}
        };
        dev.tributary.storage.Consensus c = new dev.tributary.storage.Consensus() {
            public java.util.Optional<dev.tributary.storage.VersionedData> head(String key) { return consensus.head(key); }
            public dev.tributary.storage.CasResult compareAndSet(String key, long expected, byte[] data) { return consensus.compareAndSet(key, expected, data); }
            public List<dev.tributary.storage.VersionedData> scan(String key, long from, int limit) { return consensus.scan(key, from, limit); }
            public List<String> keys(String prefix) { return consensus.keys(prefix); }
            public int truncate(String key, long seqNo) { return consensus.truncate(key, seqNo); }
            public void close() {}
        };
        return StorageController.open(b, c, m -> {});
    }

    @Test
    void aRestartAfterACrashRestoresFromTheCheckpointAndReplaysOnlyLaterWrites() {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TreeMap<String, List<String>> before;
        Tributary crashed = Tributary.open(stores(blob, consensus), Clock.manual(1_000), 2);
        populate(crashed);
        churn(crashed, new Random(1), 150);
        crashed.execute("CHECKPOINT");
        // after the checkpoint: what the restart replays
        churn(crashed, new Random(2), 150);
        before = answers(crashed);
        // never closed: a crash, as far as the stores know
        try (Tributary db = Tributary.open(stores(blob, consensus), Clock.manual(0), 2)) {
            assertThat(db.restoredFromCheckpoint()).containsExactlyInAnyOrderElementsOf(MAINTAINED);
            assertThat(answers(db)).isEqualTo(before);
            consistent(db);
            churn(db, new Random(3), 150);
            consistent(db);
            db.execute("CHECKPOINT");
            churn(db, new Random(4), 50);
            before = answers(db);
        }
        try (Tributary db = Tributary.open(stores(blob, consensus), Clock.manual(0), 2)) {
            assertThat(db.restoredFromCheckpoint()).containsExactlyInAnyOrderElementsOf(MAINTAINED);
            assertThat(answers(db)).isEqualTo(before);
            churn(db, new Random(5), 100);
            consistent(db);
            before = answers(db);
        }
        // another number of workers: the checkpoint's traces do not fit, so everything is built again
        try (Tributary db = Tributary.open(stores(blob, consensus), Clock.manual(0), 1)) {
            assertThat(db.restoredFromCheckpoint()).isEmpty();
            assertThat(answers(db)).isEqualTo(before);
            churn(db, new Random(6), 50);
            consistent(db);
        }
        crashed.close(); // its threads (fenced since the first reopen)
    }

    /**
     * jsonb columns round-trip through the checkpoint's traces and the log: documents of every
     * kind, numbers whose scale shows (2.50) and equal ones of other scales (1, 1.0) that group
     * together, a jsonb index, and views that group by, aggregate and take apart jsonb.
     */
    @Test
    void jsonbRoundTripsThroughTheCheckpointAndTheLog() {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Tributary crashed = Tributary.open(stores(blob, consensus), Clock.manual(1_000), 2);
        crashed.execute("""
                CREATE TABLE docs (id int PRIMARY KEY, grp text, j jsonb);
                CREATE INDEX docs_j ON docs (j);
                CREATE MATERIALIZED VIEW by_doc AS SELECT j, count(*) AS n FROM docs GROUP BY j;
                CREATE MATERIALIZED VIEW agg AS SELECT grp, jsonb_agg(j ORDER BY id) AS a, jsonb_object_agg(id::text, j) AS o FROM docs GROUP BY grp;
                CREATE MATERIALIZED VIEW keys AS SELECT d.id, k FROM docs d, jsonb_object_keys(CASE WHEN jsonb_typeof(d.j) = 'object' THEN d.j END) AS k;
                INSERT INTO docs VALUES (1, 'a', '{"b": [1, 2.50], "a": "é\\n"}'), (2, 'a', '1'), (3, 'b', '1.0'), (4, 'b', '[]'),
                  (5, 'b', 'null'), (6, 'c', '{"x": {"y": [true, false, null, "\\u00e9"]}}'), (7, 'c', NULL), (8, 'a', '-0.00');
                """);
        List<String> queries = List.of("SELECT id, j::text FROM docs ORDER BY j, id", "SELECT j::text, n FROM by_doc ORDER BY j",
                "SELECT grp, a::text, o::text FROM agg ORDER BY grp", "SELECT id, k FROM keys ORDER BY id, k", "SELECT id FROM docs WHERE j = '1.00' ORDER BY id");
        crashed.execute("CHECKPOINT");
        // after the checkpoint: what the restart replays from the log
        crashed.execute("UPDATE docs SET j = j || '{\"z\": 1}' WHERE jsonb_typeof(j) = 'object'");
        crashed.execute("DELETE FROM docs WHERE id = 4");
        crashed.execute("INSERT INTO docs VALUES (9, 'c', '[1, {\"q\": 12345678901234567890.123}]')");
        List<List<String>> before = queries.stream().map(q -> rows(crashed, q)).toList();
        assertThat(before.get(4)).containsExactly("2", "3");
        try (Tributary db = Tributary.open(stores(blob, consensus), Clock.manual(0), 2)) {
            assertThat(db.restoredFromCheckpoint()).contains("docs", "docs_j", "by_doc", "agg", "keys");
            assertThat(queries.stream().map(q -> rows(db, q)).toList()).isEqualTo(before);
        }
        crashed.close();
    }

    @Test
    void objectsMadeAfterTheCheckpointAreBuiltAndTheRestRestored() {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TreeMap<String, List<String>> before;
        // never closed: a crash, so no shutdown checkpoint
        Tributary crashed = Tributary.open(stores(blob, consensus), Clock.manual(1_000), 2);
        populate(crashed);
        crashed.execute("CREATE MATERIALIZED VIEW gone AS SELECT DISTINCT region FROM customers");
        crashed.execute("CHECKPOINT");
        churn(crashed, new Random(11), 100);
        crashed.execute("CREATE MATERIALIZED VIEW later AS SELECT customer, count(*) AS n FROM orders GROUP BY customer");
        crashed.execute("DROP MATERIALIZED VIEW gone");
        churn(crashed, new Random(12), 100);
        before = answers(crashed);
        before.put("later", rows(crashed, "SELECT * FROM later ORDER BY customer"));
        try (Tributary db = Tributary.open(stores(blob, consensus), Clock.manual(0), 2)) {
            assertThat(db.restoredFromCheckpoint()).contains("orders", "per_customer", "kinds").doesNotContain("later", "gone");
            TreeMap<String, List<String>> after = answers(db);
            after.put("later", rows(db, "SELECT * FROM later ORDER BY customer"));
            assertThat(after).isEqualTo(before);
            churn(db, new Random(13), 100);
            consistent(db);
            assertThat(rows(db, "SELECT * FROM later ORDER BY customer")).isEqualTo(rows(db, "SELECT customer, count(*) AS n FROM orders GROUP BY customer ORDER BY customer"));
        }
        crashed.close();
    }

    @Test
    void aCleanShutdownCheckpointsSoTheNextStartRestoresEverything(@TempDir Path dir) {
        TreeMap<String, List<String>> before;
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 2)) {
            populate(db);
            churn(db, new Random(21), 100);
            db.execute("CREATE MATERIALIZED VIEW later AS SELECT customer, count(*) AS n FROM orders GROUP BY customer");
            before = answers(db);
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(0), 2)) {
            List<String> all = new java.util.ArrayList<>(MAINTAINED);
            all.add("later");
            assertThat(db.restoredFromCheckpoint()).containsExactlyInAnyOrderElementsOf(all);
            assertThat(answers(db)).isEqualTo(before);
            churn(db, new Random(22), 50);
            consistent(db);
        }
    }

    @Test
    void aCheckpointInsideATransactionBlockHoldsNoneOfTheBlocksWrites() {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Tributary crashed = Tributary.open(stores(blob, consensus), Clock.manual(1_000), 2);
        crashed.execute("CREATE TABLE t (id int PRIMARY KEY, v int); CREATE MATERIALIZED VIEW c AS SELECT count(*) AS n, sum(v) AS s FROM t");
        crashed.execute("INSERT INTO t SELECT g, g FROM generate_series(1, 100) g");
        Tributary.Connection session = crashed.session();
        session.execute("BEGIN");
        session.execute("INSERT INTO t VALUES (1000, 1000)");
        session.execute("CHECKPOINT");
        session.execute("ROLLBACK");
        try (Tributary db = Tributary.open(stores(blob, consensus), Clock.manual(0), 2)) {
            assertThat(db.restoredFromCheckpoint()).contains("t", "c");
            assertThat(rows(db, "SELECT * FROM c")).containsExactly("100|5050");
            assertThat(rows(db, "SELECT count(*) FROM t WHERE id = 1000")).containsExactly("0");
        }
        crashed.close();
    }

    /**
     * A materialized view's retained history across a restart: restored from a checkpoint it keeps
     * the history it had; built again after a crash, it has what the tables' log still held; built
     * again over tables whose history was folded (another number of workers, so the checkpoint does
     * not fit), it cannot know its past and refuses AS OF before its table's stored history (it
     * answered with nothing, a wrong answer).
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"restored", "replayed", "rebuilt"})
    void aViewsHistoryIsRestoredReplayedOrRefused(String how) {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Tributary before = Tributary.open(stores(blob, consensus), Clock.manual(1_000), 2);
        before.execute("CREATE TABLE t (k int, v int)");
        before.execute("CREATE MATERIALIZED VIEW s WITH (RETAIN HISTORY FOR '1 hour') AS SELECT k, sum(v) AS total FROM t GROUP BY k");
        before.execute("INSERT INTO t VALUES (1, 10)");
        before.execute("ADVANCE CLOCK TO 2000");
        before.execute("INSERT INTO t VALUES (1, 5)");
        before.execute("ADVANCE CLOCK TO 3000");
        if (how.equals("restored")) before.execute("CHECKPOINT");
        before.execute("INSERT INTO t VALUES (1, 1)");
        before.execute("ADVANCE CLOCK TO 4000");
        assertThat(rows(before, "SELECT * FROM s AS OF 1500")).containsExactly("1|10");
        // a crash (never closed), or for "rebuilt" a clean stop (the log flushed, t's history folded)
        if (how.equals("rebuilt")) before.close();
        try (Tributary db = Tributary.open(stores(blob, consensus), Clock.manual(0), how.equals("rebuilt") ? 1 : 2)) {
            assertThat(rows(db, "SELECT * FROM s")).containsExactly("1|16");
            assertThat(rows(db, "SELECT * FROM s AS OF 3500")).containsExactly("1|16");
            switch (how) {
                case "restored" -> {
                    assertThat(db.restoredFromCheckpoint()).containsExactlyInAnyOrder("t", "s");
                    assertThat(rows(db, "SELECT * FROM s AS OF 1500")).containsExactly("1|10");
                    assertThat(rows(db, "SELECT * FROM s AS OF 2500")).containsExactly("1|15");
                }
                case "replayed" -> {
                    assertThat(db.restoredFromCheckpoint()).isEmpty();
                    assertThat(rows(db, "SELECT * FROM s AS OF 1500")).containsExactly("1|10");
                    assertThat(rows(db, "SELECT * FROM s AS OF 2500")).containsExactly("1|15");
                }
                default -> {
                    assertThat(db.restoredFromCheckpoint()).isEmpty();
                    assertThatThrownBy(() -> rows(db, "SELECT * FROM s AS OF 1500")).isInstanceOfSatisfying(SqlException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("72000");
                        assertThat(e.getMessage()).contains("materialized view \"s\"");
                    });
                    assertThatThrownBy(() -> rows(db, "SELECT * FROM t AS OF 1500")).isInstanceOfSatisfying(SqlException.class,
                            e -> assertThat(e.sqlState()).isEqualTo("72000"));
                }
            }
        }
        before.close();
    }
}
