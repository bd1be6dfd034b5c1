package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Point reads: a prepared seek in an index answered on the client's thread from the shards the
 * workers publish, without the coordinator. They must answer exactly what the ordinary path
 * answers: every committed write (the writer's own and other sessions'), never an older state
 * after a newer one, the errors of the collection read, a transaction block's own writes, and
 * the clock's effect on temporal views (which therefore never take the point-read path).
 */
class PointReadTest {
    private Tributary db;

    @AfterEach
    void close() {
        if (db != null) db.close();
    }

    private Coordinator open(int workers) {
        db = Tributary.inMemory(Clock.manual(0), workers);
        return db.coordinator();
    }

    private static List<String> run(Tributary.Connection session, Prepared p, Object... v) {
        List<String> out = new ArrayList<>();
        for (List<String> row : session.execute(p, new ArrayList<>(Arrays.asList(v))).text()) out.add(String.join("|", row));
        return out;
    }

    private void load(String table, int rows) {
        db.execute("INSERT INTO " + table + " VALUES "
                + String.join(", ", java.util.stream.IntStream.rangeClosed(1, rows).mapToObj(i -> "(" + i + ", " + i * 10 + ")").toList()));
    }

    /** A table kv (k, v = 10 k) of {@code rows} rows indexed by k, and {@code session}'s prepared lookup of v by k. */
    private Prepared indexedKv(Tributary.Connection session, int rows) {
        db.execute("CREATE TABLE kv (k int PRIMARY KEY, v int)");
        db.execute("CREATE INDEX kv_k ON kv (k)");
        load("kv", rows);
        return session.prepare("SELECT v FROM kv WHERE k = $1", List.of());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void seeksAreServedFromPublishedShardsAndSeeEveryCommittedWrite(int workers) {
        Coordinator c = open(workers);
        Tributary.Connection reader = db.session();
        Tributary.Connection writer = db.session();
        Prepared get = indexedKv(reader, 100);
        assertThat(run(reader, get, 5L)).containsExactly("50");
        long before = c.reads().publishedSeeks.sum();
        for (long k = 1; k <= 100; k++) assertThat(run(reader, get, k)).containsExactly(String.valueOf(k * 10));
        assertThat(run(reader, get, 1000L)).isEmpty();
        assertThat(c.reads().publishedSeeks.sum() - before).as("runs answered without the coordinator").isGreaterThanOrEqualTo(100);

        // another session's write is seen by the very next read, and so is the reader's own
        writer.execute("UPDATE kv SET v = -1 WHERE k = 7");
        assertThat(run(reader, get, 7L)).containsExactly("-1");
        reader.execute("DELETE FROM kv WHERE k = 8");
        assertThat(run(reader, get, 8L)).isEmpty();
        writer.execute("INSERT INTO kv VALUES (1000, 1)");
        assertThat(run(reader, get, 1000L)).containsExactly("1");
        // and, once the index has caught up, reads go back to the published shards
        long again = c.reads().publishedSeeks.sum();
        for (int i = 0; i < 10; i++) assertThat(run(reader, get, 1000L)).containsExactly("1");
        assertThat(c.reads().publishedSeeks.sum()).isGreaterThan(again);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void aSeekSentAsTextIsAnsweredFromThePublishedShardsWhenTheyHaveItsTime(int workers) {
        Coordinator c = open(workers);
        Tributary.Connection session = db.session();
        Prepared get = indexedKv(session, 100);
        // a prepared read waits until the shards hold the load: from then on they are exact at the read time
        assertThat(run(session, get, 5L)).containsExactly("50");
        long before = c.reads().shardSeeks;
        for (long k = 1; k <= 20; k++) assertThat(text(session, "SELECT v FROM kv WHERE k = " + k)).containsExactly(String.valueOf(k * 10));
        assertThat(text(session, "SELECT v FROM kv WHERE k = 1000")).isEmpty();
        assertThat(c.reads().shardSeeks - before).as("seeks sent as text answered from the shards").isGreaterThanOrEqualTo(1);
        // a write is seen by the next read sent as text, whichever way it goes
        session.execute("UPDATE kv SET v = -7 WHERE k = 7");
        assertThat(text(session, "SELECT v FROM kv WHERE k = 7")).containsExactly("-7");
        // a tick moves every table's input, and the read time with it, before the workers have
        // published the index there: the read takes the shards at their own time (no write since)
        for (int i = 0; i < 5; i++) {
            session.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
            assertThat(text(session, "SELECT v FROM kv WHERE k = 7")).containsExactly("-7");
            assertThat(text(session, "SELECT v FROM kv WHERE k = 9")).containsExactly("90");
        }
        // and inside a block, with the block's own writes added
        session.execute("BEGIN");
        session.execute("UPDATE kv SET v = -8 WHERE k = 8");
        assertThat(text(session, "SELECT v FROM kv WHERE k = 8")).containsExactly("-8");
        session.execute("ROLLBACK");
        assertThat(text(session, "SELECT v FROM kv WHERE k = 8")).containsExactly("80");
    }

    /** The rows of {@code sql} run as text by {@code session}, columns joined by '|'. */
    private static List<String> text(Tributary.Connection session, String sql) {
        List<String> out = new ArrayList<>();
        List<Result> results = session.execute(sql);
        for (List<String> row : results.get(results.size() - 1).text()) out.add(String.join("|", row));
        return out;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aReadRightAfterAWriteWaitsForThePublishedShardsNotForTheCoordinator(int workers) {
        Coordinator c = open(workers);
        db.execute("CREATE TABLE orders (id int PRIMARY KEY, customer int)");
        db.execute("CREATE MATERIALIZED VIEW per_customer AS SELECT customer, count(*) AS n FROM orders GROUP BY customer");
        db.execute("CREATE INDEX per_customer_c ON per_customer (customer)");
        Tributary.Connection session = db.session();
        Prepared insert = session.prepare("INSERT INTO orders VALUES ($1, $2)", List.of());
        Prepared get = session.prepare("SELECT n FROM per_customer WHERE customer = $1", List.of());
        run(session, insert, 0L, 0L);
        assertThat(run(session, get, 0L)).containsExactly("1");
        long before = c.reads().publishedSeeks.sum();
        int rounds = 40;
        for (long i = 1; i <= rounds; i++) {
            // the write has to pass the view and its index before the read can show it
            run(session, insert, i, 0L);
            assertThat(run(session, get, 0L)).as("the view read right after write %d", i).containsExactly(String.valueOf(i + 1));
        }
        // each read found the index behind its write and waited for the workers to publish it,
        // on its own thread (a read that took the coordinator's path instead is not counted;
        // half leaves room for a machine that stalls a read past the wait)
        assertThat(c.reads().publishedSeeks.sum() - before).as("reads after a write answered from published shards").isGreaterThanOrEqualTo(rounds / 2);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void concurrentReadersNeverSeeAnOlderValueAfterANewerOne(int workers) throws Exception {
        open(workers);
        db.execute("CREATE TABLE counter (k int PRIMARY KEY, v int)");
        db.execute("CREATE MATERIALIZED VIEW doubled AS SELECT k, v * 2 AS v FROM counter");
        db.execute("CREATE INDEX doubled_k ON doubled (k)");
        db.execute("INSERT INTO counter VALUES (1, 0)");
        int writes = 300;
        int readers = 3;
        ExecutorService pool = Executors.newFixedThreadPool(readers);
        AtomicBoolean done = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(readers);
        List<Future<Integer>> results = new ArrayList<>();
        for (int r = 0; r < readers; r++) {
            results.add(pool.submit(() -> {
                Tributary.Connection s = db.session();
                Prepared get = s.prepare("SELECT v FROM doubled WHERE k = $1", List.of());
                int last = -1;
                started.countDown();
                int reads = 0;
                while (!done.get() || reads == 0) {
                    int v = Integer.parseInt(run(s, get, 1L).get(0));
                    assertThat(v % 2).isZero();
                    assertThat(v).as("a read after one that saw %d", last).isGreaterThanOrEqualTo(last);
                    last = v;
                    reads++;
                }
                return last;
            }));
        }
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
        Tributary.Connection writer = db.session();
        Tributary.Connection check = db.session();
        Prepared get = check.prepare("SELECT v FROM doubled WHERE k = $1", List.of());
        for (int i = 1; i <= writes; i++) {
            writer.execute("UPDATE counter SET v = " + i + " WHERE k = 1");
            // what has committed is what any read started afterwards sees
            assertThat(run(check, get, 1L)).containsExactly(String.valueOf(2 * i));
        }
        done.set(true);
        for (Future<Integer> f : results) assertThat(f.get(60, TimeUnit.SECONDS)).isLessThanOrEqualTo(2 * writes);
        pool.shutdown();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void errorsOfTheCollectionReadAreReported(int workers) {
        open(workers);
        db.execute("CREATE TABLE t (k int, v int)");
        db.execute("CREATE MATERIALIZED VIEW q AS SELECT k, 100 / v AS q FROM t");
        db.execute("CREATE INDEX q_k ON q (k)");
        db.execute("INSERT INTO t VALUES (1, 5), (2, 10)");
        Tributary.Connection s = db.session();
        Prepared get = s.prepare("SELECT q FROM q WHERE k = $1", List.of());
        assertThat(run(s, get, 1L)).containsExactly("20");
        assertThat(run(s, get, 2L)).containsExactly("10");
        db.execute("INSERT INTO t VALUES (3, 0)");
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> run(s, get, 1L)).isInstanceOf(SqlException.class)
                    .satisfies(e -> assertThat(((SqlException) e).sqlState()).isEqualTo("22012"));
        }
        db.execute("DELETE FROM t WHERE k = 3");
        assertThat(run(s, get, 1L)).containsExactly("20");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aTemporalViewFollowsTheClock(int workers) {
        Coordinator c = open(workers);
        db.execute("CREATE TABLE offers (k int, expires timestamptz)");
        db.execute("CREATE MATERIALIZED VIEW live AS SELECT k FROM offers WHERE now() < expires");
        db.execute("CREATE INDEX live_k ON live (k)");
        db.execute("INSERT INTO offers VALUES (1, '1970-01-01 00:00:01+00'), (2, '1970-01-01 00:00:05+00')");
        Tributary.Connection s = db.session();
        Prepared get = s.prepare("SELECT k FROM live WHERE k = $1", List.of());
        assertThat(run(s, get, 1L)).containsExactly("1");
        long before = c.reads().publishedSeeks.sum();
        assertThat(run(s, get, 1L)).containsExactly("1");
        db.execute("ADVANCE CLOCK TO 2000");
        assertThat(run(s, get, 1L)).isEmpty();
        assertThat(run(s, get, 2L)).containsExactly("2");
        assertThat(c.reads().publishedSeeks.sum()).as("a view that changes with time is read through the workers").isEqualTo(before);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aBlockReadsItsOwnWritesAndADroppedIndexIsNotRead(int workers) {
        open(workers);
        Tributary.Connection s = db.session();
        Prepared get = indexedKv(s, 10);
        for (int i = 0; i < 3; i++) assertThat(run(s, get, 3L)).containsExactly("30");
        s.execute("BEGIN");
        s.execute("UPDATE kv SET v = 33 WHERE k = 3");
        assertThat(run(s, get, 3L)).containsExactly("33");
        assertThat(run(db.session(), db.session().prepare("SELECT v FROM kv WHERE k = $1", List.of()), 3L)).containsExactly("30");
        s.execute("ROLLBACK");
        assertThat(run(s, get, 3L)).containsExactly("30");

        db.execute("DROP INDEX kv_k");
        db.execute("UPDATE kv SET v = 31 WHERE k = 3");
        assertThat(run(s, get, 3L)).containsExactly("31");
        db.execute("CREATE INDEX kv_k2 ON kv (k)");
        for (int i = 0; i < 3; i++) assertThat(run(s, get, 3L)).containsExactly("31");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void compiledAndPerRunSeeksAnswerAlike(int workers) {
        Coordinator c = open(workers);
        db.execute("CREATE TABLE kv (k int PRIMARY KEY, v int, n numeric(6,2))");
        db.execute("CREATE INDEX kv_k ON kv (k)");
        db.execute("CREATE INDEX kv_n ON kv (n)");
        db.execute("INSERT INTO kv VALUES (1, 10, 1.50), (2, 20, 2.00), (3, 30, 3.25)");
        Tributary.Connection s = db.session();
        // compiled once: the key from $1, nothing else reads a parameter
        Prepared byKey = s.prepare("SELECT v, v * 2 AS twice FROM kv WHERE k = $1 AND v > 0", List.of());
        // the other filter reads $2: each run binds its values and finds the seek again
        Prepared byKeyAndMin = s.prepare("SELECT v FROM kv WHERE k = $1 AND v >= $2", List.of());
        Prepared wide = s.prepare("SELECT v FROM kv WHERE k = $1", List.of(dev.tributary.sql.types.SqlType.BIGINT));
        Prepared byNumeric = s.prepare("SELECT k FROM kv WHERE n = $1", List.of());
        for (int round = 0; round < 3; round++) {
            long before = c.reads().publishedSeeks.sum();
            assertThat(run(s, byKey, 2L)).containsExactly("20|40");
            assertThat(run(s, byKey, 9L)).isEmpty();
            assertThat(run(s, byKeyAndMin, 3L, 30L)).containsExactly("30");
            assertThat(run(s, byKeyAndMin, 3L, 31L)).isEmpty();
            assertThat(run(s, wide, 1L)).containsExactly("10");
            assertThat(run(s, wide, 1L << 40)).as("outside int: no row has it").isEmpty();
            assertThat(run(s, wide, new Object[] {null})).isEmpty();
            assertThat(run(s, byNumeric, new java.math.BigDecimal("2"))).as("2 = 2.00").containsExactly("2");
            assertThat(run(s, byNumeric, new java.math.BigDecimal("1.500"))).containsExactly("1");
            if (round > 0) assertThat(c.reads().publishedSeeks.sum() - before).as("runs served from the published shards").isGreaterThanOrEqualTo(7);
        }
        // a one-off query that leaves a column unread (the optimizer projects it away under the
        // filter) still seeks the index rather than reading the table
        long seeks = c.reads().seeks;
        assertThat(db.execute("SELECT v FROM kv WHERE k = 3").get(0).text()).containsExactly(List.of("30"));
        assertThat(c.reads().seeks).isEqualTo(seeks + 1);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void aTickOfTheClockDoesNotSendReadsToTheWorkers(int workers) {
        Coordinator c = open(workers);
        Tributary.Connection s = db.session();
        Prepared get = indexedKv(s, 10);
        for (int i = 0; i < 3; i++) assertThat(run(s, get, 4L)).containsExactly("40");
        for (int tick = 0; tick < 5; tick++) {
            long before = c.reads().publishedSeeks.sum();
            ((Clock.Manual) db.clock()).advanceTo(1_000L * (tick + 1));
            synchronized (c) {
                c.tick(); // the inputs and compaction move on with the clock; no read is promised at the new time
            }
            assertThat(run(s, get, 4L)).containsExactly(String.valueOf(40 + tick));
            assertThat(c.reads().publishedSeeks.sum()).as("tick %d", tick).isEqualTo(before + 1);
            // and a write after the tick is seen by the next read, as ever
            db.execute("UPDATE kv SET v = " + (41 + tick) + " WHERE k = 4");
            assertThat(run(s, get, 4L)).containsExactly(String.valueOf(41 + tick));
        }
    }
}
