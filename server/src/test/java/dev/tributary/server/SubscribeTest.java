package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * SUBSCRIBE delivers the snapshot, then each committed transaction's net changes as one batch at
 * its commit time, each exactly once; a transaction's writes arrive together.
 */
class SubscribeTest {
    private static List<String> lines(Result batch) {
        List<String> out = new ArrayList<>();
        for (List<String> row : batch.text()) out.add(String.join("|", row.subList(1, row.size())));
        out.sort(null);
        return out;
    }

    @Test
    void snapshotThenEveryTransactionAsOneBatch() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute("CREATE TABLE t (k text, v int); INSERT INTO t VALUES ('a', 1), ('b', 2)");
            LinkedBlockingQueue<Result> batches = new LinkedBlockingQueue<>();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT k, sum(v) FROM t GROUP BY k)", batches::add)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_diff", "k", "sum");
                Result snapshot = batches.poll(10, TimeUnit.SECONDS);
                assertThat(lines(snapshot)).containsExactly("1|a|1", "1|b|2");

                db.execute("BEGIN; INSERT INTO t VALUES ('a', 10); DELETE FROM t WHERE k = 'b'; COMMIT");
                Result tx = batches.poll(10, TimeUnit.SECONDS);
                assertThat(lines(tx)).containsExactly("-1|a|1", "-1|b|2", "1|a|11");
                // every row of a batch carries the one commit time
                assertThat(tx.rows().stream().map(r -> r[0]).distinct()).hasSize(1);

                db.execute("INSERT INTO t VALUES ('c', 5)");
                assertThat(lines(batches.poll(10, TimeUnit.SECONDS))).containsExactly("1|c|5");
                db.execute("ROLLBACK");
                assertThat(batches).isEmpty();
            }
        }
    }

    @Test
    void emitChangesIsTheSameAsSubscribe() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int)");
            LinkedBlockingQueue<Result> batches = new LinkedBlockingQueue<>();
            try (Subscription sub = db.subscribe("SELECT a * 2 AS d FROM t WHERE a > 1 EMIT CHANGES", batches::add)) {
                assertThat(batches.poll(10, TimeUnit.SECONDS).rows()).isEmpty();
                db.execute("INSERT INTO t VALUES (1), (2), (3)");
                assertThat(lines(batches.poll(10, TimeUnit.SECONDS))).containsExactly("1|4", "1|6");
            }
            // after close, writes reach nobody and nothing breaks
            db.execute("INSERT INTO t VALUES (4)");
            assertThat(db.query("SELECT count(*) FROM t").text()).containsExactly(List.of("4"));
        }
    }

    @Test
    void anErrorInTheQueryStopsTheSubscriptionWithItsCode() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int)");
            LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT 10 / a FROM t)", new Subscription.Listener() {
                @Override
                public void onChanges(Result batch) {
                    events.add(batch);
                }

                @Override
                public void onError(SqlException error) {
                    events.add(error);
                }
            })) {
                assertThat(events.poll(10, TimeUnit.SECONDS)).isInstanceOf(Result.class);
                db.execute("INSERT INTO t VALUES (0)");
                Object e = events.poll(10, TimeUnit.SECONDS);
                assertThat(e).isInstanceOf(SqlException.class);
                assertThat(((SqlException) e).sqlState()).isEqualTo("22012");
            }
        }
    }

    @Test
    void subscribeRejectsWhatItCannotServe() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (a int)");
            assertThatThrownBy(() -> db.subscribe("SELECT * FROM t", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42601"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE nope", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P01"));
        }
    }

    @Test
    void aSubscriptionStartedWhileWritesHappenMissesAndRepeatsNothing() throws Exception {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(1_000), workers)) {
                db.execute("CREATE TABLE t (id int)");
                int n = 400;
                java.util.concurrent.CountDownLatch halfway = new java.util.concurrent.CountDownLatch(1);
                Thread writer = new Thread(() -> {
                    Tributary.Connection c = db.session();
                    for (int i = 1; i <= n; i++) {
                        c.execute("INSERT INTO t VALUES (" + i + ")");
                        if (i == n / 2) halfway.countDown();
                    }
                }, "writer");
                writer.start();
                assertThat(halfway.await(30, TimeUnit.SECONDS)).isTrue();
                LinkedBlockingQueue<Result> batches = new LinkedBlockingQueue<>();
                try (Subscription sub = db.subscribe("SUBSCRIBE t", batches::add)) {
                    writer.join(30_000);
                    java.util.Map<Long, Long> seen = new java.util.TreeMap<>();
                    long total = 0;
                    java.time.Instant last = java.time.Instant.EPOCH;
                    boolean first = true;
                    while (total < n) {
                        Result batch = batches.poll(10, TimeUnit.SECONDS);
                        assertThat(batch).as("a batch within 10 s, %d of %d rows so far (%d workers)", total, n, workers).isNotNull();
                        for (Object[] row : batch.rows()) {
                            java.time.Instant time = (java.time.Instant) row[0];
                            assertThat(time).as("times never decrease").isAfterOrEqualTo(last);
                            last = time;
                            assertThat((Long) row[1]).as("only insertions").isEqualTo(1L);
                            seen.merge((Long) row[2], 1L, Long::sum);
                            total++;
                        }
                        // the snapshot came first and held the rows written before the start, at one time
                        if (first) assertThat(batch.rows().stream().map(r -> r[0]).distinct().count()).isLessThanOrEqualTo(1);
                        first = false;
                    }
                    assertThat(seen).as("every row exactly once (%d workers)", workers).hasSize(n);
                    assertThat(seen.values()).containsOnly(1L);
                }
            }
        }
    }
}
