package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An HTTP sink whose receiver is away queues at most its MAX QUEUE SIZE: past it, it stops
 * taking batches from its subscription and, once the receiver is back and has taken what was
 * queued, reads again from its last acknowledged time, so every change arrives (at least once,
 * a key sent again with the same body) while the queue stays bounded.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HttpSinkBacklogTest {
    private static final long BOUND = 20_000;

    @Test
    void aReceiverThatIsAwayIsCaughtUpFromTheAcknowledgedTimeWithABoundedQueue() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(0); Tributary db = Tributary.inMemory()) {
            db.execute("CREATE TABLE t (k int, v text)");
            db.execute("INSERT INTO t VALUES (0, 'first')");
            db.execute("CREATE SINK out FROM t INTO HTTP (URL '" + receiver.url() + "', MAX QUEUE SIZE " + BOUND + ")");
            receiver.await(bodies -> bodies.size() == 1);
            receiver.down(true);
            // about 8 KB a write, 150 writes: some sixty times the bound
            String pad = "x".repeat(200);
            for (int w = 1; w <= 150; w++) {
                db.execute("INSERT INTO t SELECT " + w + " * 100 + i, '" + pad + "' || i FROM generate_series(1, 20) AS s(i)");
            }
            long until = System.nanoTime() + HttpReceiver.WAIT_MS * 1_000_000;
            while (field(db, 14) == 0) {
                assertThat(System.nanoTime()).as("the sink fell behind: " + rows(db, "SHOW SINKS")).isLessThan(until);
                Thread.onSpinWait();
            }
            receiver.down(false);
            List<String> expected = rows(db, "SELECT k::text, v, 1 FROM t ORDER BY 1, 2");
            receiver.await(bodies -> HttpReceiver.accumulated(bodies, "k", "v").equals(expected));
            receiver.assertRetriesIdentical();
            // the queue never held more than the bound, though far more waited for the receiver
            assertThat(field(db, 13)).isPositive().isLessThanOrEqualTo(BOUND);
            assertThat(field(db, 14)).isPositive();
            assertThat(rows(db, "SELECT sum(length(v)) FROM t").get(0)).satisfies(total -> assertThat(Long.parseLong(total)).isGreaterThan(20 * BOUND));
        }
    }

    /** Column {@code i} of the sink's row in SHOW SINKS, a number. */
    private static long field(Tributary db, int i) {
        return Long.parseLong(rows(db, "SHOW SINKS").get(0).split("\\|")[i]);
    }
}
