package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.storage.StorageController;
import dev.tributary.sql.SqlException;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import dev.tributary.storage.StorageException;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database in a data directory (or in memory stores standing for S3 and PostgreSQL) is the
 * same after it is closed and opened again, or after it crashed (never closed) and was opened
 * again: tables and their rows, views, materialized views, indexes, roles, history policies and
 * the history they keep, and times that never go backwards.
 */
class DurabilityTest {
    private static final String SCHEMA = """
            CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, region text DEFAULT 'north');
            CREATE TABLE orders (id bigint PRIMARY KEY, customer int, amount numeric(10,2), note text);
            CREATE TABLE events (kind text, n int);
            CREATE VIEW big AS SELECT * FROM orders WHERE amount > 100;
            CREATE MATERIALIZED VIEW per_customer AS
              SELECT c.name, count(*) AS n, sum(o.amount) AS total FROM customers c JOIN orders o ON o.customer = c.id GROUP BY c.name;
            CREATE INDEX orders_by_customer ON orders (customer);
            CREATE MATERIALIZED VIEW kinds AS SELECT kind, sum(n) AS n FROM events GROUP BY kind;
            CREATE INDEX kinds_by_n ON kinds (n);
            """;

    private static final List<String> QUERIES = List.of(
            "SELECT * FROM customers ORDER BY id",
            "SELECT * FROM orders ORDER BY id",
            "SELECT kind, n FROM events ORDER BY kind, n",
            "SELECT * FROM big ORDER BY id",
            "SELECT * FROM per_customer ORDER BY name",
            "SELECT * FROM orders WHERE customer = 3 ORDER BY id",
            "SELECT * FROM kinds ORDER BY kind",
            "SELECT kind FROM kinds WHERE n = 7");

    private static TreeMap<String, List<String>> answers(Tributary db) {
        TreeMap<String, List<String>> out = new TreeMap<>();
        for (String q : QUERIES) out.put(q, rows(db, q));
        return out;
    }

    /** Random writes of every kind: inserts, updates, deletes, a transaction block, a failed statement. */
    private static void churn(Tributary db, Random random, int rounds) {
        int base = random.nextInt(1_000_000) * 1000;
        for (int i = 0; i < rounds; i++) {
            int c = random.nextInt(10);
            switch (random.nextInt(6)) {
                case 0 -> db.execute("INSERT INTO customers VALUES (" + (base + 100 + i) + ", 'c" + i + "')");
                case 1 -> db.execute("INSERT INTO orders VALUES (" + (base + i) + ", " + c + ", " + random.nextInt(300) + ".5, 'it''s; " + i + "')");
                case 2 -> db.execute("UPDATE orders SET amount = amount + 1 WHERE customer = " + c);
                case 3 -> db.execute("DELETE FROM orders WHERE id % 7 = " + random.nextInt(7));
                case 4 -> db.execute("BEGIN; INSERT INTO events VALUES ('k" + c + "', " + i + "); INSERT INTO events VALUES ('k" + c + "', " + i + "); COMMIT");
                default -> {
                    try {
                        db.execute("INSERT INTO customers VALUES (" + c + ", 'dup')");
                    } catch (SqlException e) {
                        assertThat(e.sqlState()).isEqualTo("23505");
                    }
                }
            }
        }
    }

    private static void populate(Tributary db) {
        db.execute(SCHEMA);
        for (int c = 0; c < 10; c++) db.execute("INSERT INTO customers VALUES (" + c + ", 'name " + c + "', 'r" + c % 3 + "')");
        db.execute("INSERT INTO events SELECT 'k' || (g % 4), g FROM generate_series(1, 5000) g");
    }

    @Test
    void everythingSurvivesCloseAndOpen(@TempDir Path dir) {
        TreeMap<String, List<String>> before;
        long lastTime;
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            populate(db);
            churn(db, new Random(7), 200);
            before = answers(db);
            lastTime = Long.parseLong(rows(db, "SELECT (extract(epoch FROM now()) * 1000)::bigint").get(0));
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(0), 2)) {
            assertThat(answers(db)).isEqualTo(before);
            // the clock was set back to 0: times still go on from where they were
            db.execute("INSERT INTO events VALUES ('later', 1)");
            assertThat(Long.parseLong(rows(db, "SELECT (extract(epoch FROM now()) * 1000)::bigint").get(0))).isGreaterThan(lastTime);
            // the database goes on: constraints, writes, DDL
            SqlRows.fails("23505", () -> db.execute("INSERT INTO customers VALUES (1, 'again')"));
            db.execute("CREATE TABLE more (x int)");
            db.execute("DROP MATERIALIZED VIEW kinds CASCADE");
            churn(db, new Random(8), 50);
            before = answers2(db);
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(0), 1)) {
            assertThat(answers2(db)).isEqualTo(before);
            assertThat(rows(db, "SELECT count(*) FROM more")).containsExactly("0");
            SqlRows.fails("42P01", () -> db.execute("SELECT * FROM kinds"));
        }
    }

    private static TreeMap<String, List<String>> answers2(Tributary db) {
        TreeMap<String, List<String>> out = new TreeMap<>();
        for (String q : QUERIES) if (!q.contains("kinds")) out.put(q, rows(db, q));
        return out;
    }

    @Test
    void aCrashLosesNoReturnedWrite() {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TreeMap<String, List<String>> before;
        // never closed: a crash, as far as the stores know
        Tributary crashed = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(1_000), 2);
        populate(crashed);
        churn(crashed, new Random(9), 300);
        before = answers(crashed);
        try (Tributary db = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(0), 2)) {
            assertThat(answers(db)).isEqualTo(before);
            // the old server is fenced: nothing it writes is acknowledged
            assertThatThrownBy(() -> crashed.execute("INSERT INTO events VALUES ('zombie', 1)")).isInstanceOfSatisfying(SqlException.class,
                    e -> assertThat(e.sqlState()).isEqualTo("58030"));
            assertThat(rows(db, "SELECT count(*) FROM events WHERE kind = 'zombie'")).containsExactly("0");
        } finally {
            crashed.close(); // its threads: its stores were taken over, so it writes nothing more
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void rolesAndHistoryPoliciesSurvive(@TempDir Path dir) throws Exception {
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 1)) {
            db.execute("CREATE ROLE alice LOGIN PASSWORD 'secret'");
            db.execute("CREATE ROLE bob");
            db.execute("CREATE ROLE carol");
            db.execute("DROP ROLE carol");
            db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY FOR '1 hour')");
            db.execute("CREATE TABLE pinned (x int) WITH (RETAIN HISTORY PIN AT 1000)");
            db.execute("INSERT INTO prices VALUES ('a', 1)");
            db.execute("INSERT INTO pinned VALUES (1)");
            db.execute("ADVANCE CLOCK TO 2000");
            db.execute("ALTER TABLE pinned SET (RETAIN HISTORY PIN AT 1500)");
            db.execute("UPDATE prices SET price = 2");
            db.execute("UPDATE pinned SET x = 2");
            db.execute("ADVANCE CLOCK TO 3000");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(0), 1)) {
            assertThat(db.roles().find("alice")).hasValueSatisfying(r -> {
                assertThat(r.login()).isTrue();
                assertThat(r.verifier().verifies("secret")).isTrue();
            });
            assertThat(db.roles().find("bob")).hasValueSatisfying(r -> assertThat(r.login()).isFalse());
            assertThat(db.roles().find("carol")).isEmpty();
            assertThat(rows(db, "SELECT * FROM prices AS OF 1500")).containsExactly("a|1");
            assertThat(rows(db, "SELECT * FROM prices")).containsExactly("a|2");
            assertThat(rows(db, "SELECT * FROM pinned AS OF 1500")).containsExactly("1");
            assertThat(rows(db, "SELECT * FROM pinned")).containsExactly("2");
            // a subscription resumed as of a time before the restart repeats nothing and misses nothing
            SubscribeOptionsTest.Events e = new SubscribeOptionsTest.Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE prices AS OF 1500 UP TO 2500", e)) {
                assertThat(e.next()).isEqualTo(List.of("1970-01-01 00:00:01.5+00|1|a|1"));
                Object update = e.next();
                assertThat(update).asList().hasSize(2);
                assertThat(String.join(",", (List<String>) update)).contains("|-1|a|1").contains("|1|a|2");
                assertThat(e.next()).isEqualTo("done");
            }
        }
    }

    /** A consensus store that can be taken down: every call fails while it is. */
    private static final class Outage implements dev.tributary.storage.Consensus {
        final MemoryConsensus inner = new MemoryConsensus();
        volatile boolean down;
        /** A permit per write refused while down: what the test waits on instead of the clock. */
        final java.util.concurrent.Semaphore refused = new java.util.concurrent.Semaphore(0);

        private void check() {
            if (down) throw new StorageException("consensus store unreachable (injected)");
        }

        @Override
        public java.util.Optional<dev.tributary.storage.VersionedData> head(String key) {
            check();
            return inner.head(key);
        }

        @Override
        public dev.tributary.storage.CasResult compareAndSet(String key, long expected, byte[] data) {
            if (down) refused.release();
            check();
            return inner.compareAndSet(key, expected, data);
        }

        @Override
        public List<dev.tributary.storage.VersionedData> scan(String key, long from, int limit) {
            check();
            return inner.scan(key, from, limit);
        }

        @Override
        public List<String> keys(String prefix) {
            check();
            return inner.keys(prefix);
        }

        @Override
        public int truncate(String key, long seqNo) {
            check();
            return inner.truncate(key, seqNo);
        }

        @Override
        public void close() {}
    }

    @Test
    void aStoreThatIsDownHoldsBackAcknowledgementsAndAnswersUntilItIsBack() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        Outage consensus = new Outage();
        List<String> warnings = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Tributary db = Tributary.open(StorageController.open(blob, consensus, warnings::add), Clock.manual(1_000), 1);
        db.execute("CREATE TABLE t (x int)");
        db.execute("INSERT INTO t VALUES (1)");
        consensus.down = true;
        java.util.concurrent.CompletableFuture<Object> insert = java.util.concurrent.CompletableFuture.supplyAsync(() -> db.session().execute("INSERT INTO t VALUES (2)"));
        consensus.refused.acquire(); // the insert is committed, and its durable write refused
        java.util.concurrent.CompletableFuture<Object> select = java.util.concurrent.CompletableFuture.supplyAsync(() -> rows(db, "SELECT count(*) FROM t"));
        consensus.refused.acquire(2); // refused twice more, retried with backoff while the select runs
        assertThat(insert.isDone()).as("not acknowledged while the store is down").isFalse();
        assertThat(select.isDone()).as("no answer shows the write before it is durable").isFalse();
        assertThat(warnings).as("the outage is reported").anySatisfy(w -> assertThat(w).contains("unreachable"));
        consensus.down = false;
        insert.get(30, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(select.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(List.of("2"));
        // and it was durable: a server started on the stores has it (and fences this one)
        try (Tributary again = Tributary.open(StorageController.open(blob, consensus.inner, m -> {}), Clock.manual(0), 1)) {
            assertThat(rows(again, "SELECT x FROM t ORDER BY x")).containsExactly("1", "2");
        }
        // db is left to the garbage collector: its stores are the new server's now
    }

    /**
     * A reservation of the timestamp oracle's times (needed before a time past the last one is
     * handed out) waits while the consensus store is down, retrying with the outage logged, and
     * is recorded once the store is back, rather than failing the statement that needed it.
     */
    @Test
    void aTimeReservationWaitsForTheStore() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        Outage consensus = new Outage();
        List<String> warnings = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        try (StorageController storage = StorageController.open(blob, consensus, warnings::add)) {
            storage.reserveTimes(5_000);
            consensus.down = true;
            try {
                java.util.concurrent.CompletableFuture<Long> reserved = java.util.concurrent.CompletableFuture.supplyAsync(() -> storage.reserveTimes(9_000));
                // refused, and retried (a reservation that gave up would be refused once)
                assertThat(consensus.refused.tryAcquire(2, 30, java.util.concurrent.TimeUnit.SECONDS)).as("refused twice").isTrue();
                assertThat(reserved.isDone()).as("the reservation waits for the store").isFalse();
                assertThat(warnings).anySatisfy(w -> assertThat(w).contains("timestamp oracle's reservation").contains("unreachable"));
                consensus.down = false;
                assertThat(reserved.get(30, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(9_000L);
            } finally {
                consensus.down = false;
            }
        }
        try (StorageController again = StorageController.open(blob, consensus.inner, m -> {})) {
            assertThat(again.recoveredUpper()).as("a restart's times start after the reservation").isGreaterThan(9_000L);
        }
    }

    /**
     * A prepared INSERT of given values in an implicit block (Parse, Bind, Execute, Sync) answers
     * its Execute without waiting for the writes in flight, which its answer shows nothing of; the
     * Sync that commits it returns only once it is durable.
     */
    @Test
    void aPreparedInsertAnswersAtOnceAndItsCommitWaitsUntilDurable() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        Outage consensus = new Outage();
        Tributary db = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(1_000), 1);
        db.execute("CREATE TABLE t (x int)");
        Tributary.Connection c = db.session();
        Prepared insert = c.prepare("INSERT INTO t VALUES ($1)", List.of(dev.tributary.sql.types.SqlType.INTEGER));
        // once while the store is up: the oracle's reservation of times then covers what follows
        c.beginImplicitTransaction();
        c.execute(insert, List.of(0L));
        c.endImplicitTransaction();
        db.execute("DELETE FROM t");
        consensus.down = true;
        // another session's write, committed and waiting for the store
        java.util.concurrent.CompletableFuture<Object> other = java.util.concurrent.CompletableFuture.supplyAsync(() -> db.session().execute("INSERT INTO t VALUES (1)"));
        consensus.refused.acquire();
        c.beginImplicitTransaction();
        java.util.concurrent.CompletableFuture<Result> execute = java.util.concurrent.CompletableFuture.supplyAsync(() -> c.execute(insert, List.of(2L)));
        assertThat(execute.get(30, java.util.concurrent.TimeUnit.SECONDS).tag()).as("Execute answers without waiting for the other write").isEqualTo("INSERT 0 1");
        java.util.concurrent.CompletableFuture<Void> sync = java.util.concurrent.CompletableFuture.runAsync(c::endImplicitTransaction);
        consensus.refused.acquire(2); // the store still refuses: the commit is not durable
        assertThat(sync.isDone()).as("Sync acknowledges the commit only once it is durable").isFalse();
        assertThat(other.isDone()).isFalse();
        consensus.down = false;
        sync.get(30, java.util.concurrent.TimeUnit.SECONDS);
        other.get(30, java.util.concurrent.TimeUnit.SECONDS);
        try (Tributary again = Tributary.open(StorageController.open(blob, consensus.inner, m -> {}), Clock.manual(0), 1)) {
            assertThat(rows(again, "SELECT x FROM t ORDER BY x")).containsExactly("1", "2");
        }
    }

    @Test
    void aSecondOpenOfTheSameDirectoryIsRefused(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir)) {
            db.execute("CREATE TABLE t (x int)");
            assertThatThrownBy(() -> Tributary.open(dir)).isInstanceOf(StorageException.class).hasMessageContaining("in use");
            db.execute("INSERT INTO t VALUES (1)");
        }
        try (Tributary db = Tributary.open(dir)) {
            assertThat(rows(db, "SELECT * FROM t")).containsExactly("1");
        }
    }

    /** The bytes of the files under {@code dir}; a file deleted meanwhile (a merge's inputs) counts nothing. */
    private static long bytesUnder(Path dir) throws java.io.IOException {
        long[] sum = {0};
        java.nio.file.Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) sum[0] += attrs.size();
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, java.io.IOException e) {
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        return sum[0];
    }

    @Test
    void droppingATableFreesItsDiskSpace(@TempDir Path dir) throws Exception {
        long full;
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE big (id int PRIMARY KEY, v text)");
            db.execute("CREATE TABLE small (x int)");
            db.execute("INSERT INTO big SELECT g, repeat('x', 100) || g FROM generate_series(1, 50000) g");
            db.execute("INSERT INTO small VALUES (1)");
            full = bytesUnder(dir.resolve("blob"));
            db.execute("DROP TABLE big");
        }
        assertThat(bytesUnder(dir.resolve("blob"))).as("blob bytes after the drop, of %d", full).isLessThan(full / 10);
        try (Tributary db = Tributary.open(dir, Clock.manual(0), 1)) {
            assertThat(rows(db, "SELECT * FROM small")).containsExactly("1");
            SqlRows.fails("42P01", () -> db.execute("SELECT * FROM big"));
        }
    }

    @Test
    void copyIsOneDurableWrite(@TempDir Path dir) {
        // COPY FROM STDIN goes through a client; here through the API's COPY handler
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, v text)");
            Tributary.Connection s = db.session();
            CopyIn copy = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parseStatement("COPY t FROM STDIN"));
            StringBuilder data = new StringBuilder();
            for (int i = 0; i < 50_000; i++) data.append(i).append('\t').append("v").append(i).append('\n');
            copy.data(data.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertThat(copy.finish().tag()).isEqualTo("COPY 50000");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(0), 2)) {
            assertThat(rows(db, "SELECT count(*), sum(id) FROM t")).containsExactly("50000|1249975000");
        }
    }

    /**
     * A COPY larger than a piece is written to the log as its rows arrive (here 4 kB at a time)
     * and committed at its own time: after a crash (no checkpoint since: the restart replays the
     * table from its log and shard) its rows are there, AS OF before it they are not (the pieces
     * were written before the COPY had a time); a COPY that then fails (a repeated key on its last
     * line) commits nothing and leaves no part behind.
     */
    @Test
    void aLargeCopyIsWrittenAsItArrivesAndCommittedAtItsTime() {
        long piece = CopyIn.prewriteBytes;
        CopyIn.prewriteBytes = 4096;
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Tributary crashed = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(1_000), 2);
        try {
            crashed.execute("CREATE TABLE t (id int PRIMARY KEY, v text) WITH (RETAIN HISTORY FOR '1 hour')");
            crashed.execute("INSERT INTO t VALUES (-1, 'before')");
            crashed.execute("ADVANCE CLOCK TO 2000");
            Tributary.Connection s = crashed.session();
            CopyIn copy = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parseStatement("COPY t FROM STDIN"));
            for (int chunk = 0; chunk < 20; chunk++) {
                StringBuilder data = new StringBuilder();
                for (int i = chunk * 1000; i < (chunk + 1) * 1000; i++) data.append(i).append('\t').append("row ").append(i).append('\n');
                copy.data(data.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            assertThat(copy.prewrittenRows()).as("rows written before the COPY ended").isGreaterThan(10_000);
            assertThat(copy.finish().tag()).isEqualTo("COPY 20000");
            crashed.execute("ADVANCE CLOCK TO 3000");
            crashed.execute("INSERT INTO t VALUES (-2, 'after')"); // the log's writes before it are done
            java.util.Set<String> parts = new java.util.HashSet<>(blob.list("shards/"));
            CopyIn failing = s.copyIn((dev.tributary.sql.ast.Statement.Copy) dev.tributary.sql.parser.Parser.parseStatement("COPY t FROM STDIN"));
            StringBuilder data = new StringBuilder();
            for (int i = 100_000; i < 120_000; i++) data.append(i).append('\t').append("again ").append(i).append('\n');
            data.append(100_000).append("\tthe repeat\n");
            failing.data(data.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertThat(failing.prewrittenRows()).isGreaterThan(10_000);
            assertThatThrownBy(failing::finish).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("23505"));
            failing.discarded().join();
            assertThat(blob.list("shards/")).as("parts after the failed COPY").allMatch(parts::contains);
            assertThat(rows(crashed, "SELECT count(*) FROM t")).containsExactly("20002");
            try (Tributary db = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(0), 2)) {
                assertThat(rows(db, "SELECT count(*), sum(id) FROM t")).containsExactly("20002|199989997");
                assertThat(rows(db, "SELECT count(*) FROM t AS OF 1500")).containsExactly("1");
                assertThat(rows(db, "SELECT count(*) FROM t AS OF 2999")).containsExactly("20001");
                assertThat(rows(db, "SELECT v FROM t WHERE id = 19999")).containsExactly("row 19999");
                // the old server is fenced (its close then writes nothing)
                assertThatThrownBy(() -> crashed.execute("INSERT INTO t VALUES (-3, 'zombie')")).isInstanceOfSatisfying(SqlException.class,
                        e -> assertThat(e.sqlState()).isEqualTo("58030"));
                crashed.close(); // while the stores are open: what it tries to write is refused
            }
        } finally {
            CopyIn.prewriteBytes = piece;
        }
    }
}
