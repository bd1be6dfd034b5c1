package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code tributary_internal.streams}: per running subscription, the rows its streams dropped as
 * late, their watermark, and its cursor, the position a {@code FROM CURSOR} resumes from: the
 * change_time of its latest progress (in event time, the watermark).
 */
class IntrospectionStreamsTest {
    /** The change_time of each progress a subscription WITH (PROGRESS) reports, as text. */
    private static final class Progress implements Subscription.Listener {
        final LinkedBlockingQueue<String> times = new LinkedBlockingQueue<>();

        @Override
        public void onChanges(Result batch) {
            for (List<String> r : batch.text()) if (r.get(1).equals("t")) times.add(r.get(0));
        }

        /** Waits for the progress to {@code time}. */
        void until(String time) throws InterruptedException {
            while (true) {
                String t = times.poll(20, TimeUnit.SECONDS);
                assertThat(t).as("waiting for progress to %s", time).isNotNull();
                if (t.equals(time)) return;
            }
        }
    }

    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    @Test
    void eventTimeLateRowsWatermarkAndCursor() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE bids (auction int, price int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '2 seconds') WITH (APPEND ONLY)");
            Progress progress = new Progress();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, price FROM bids STREAM) WITH (PROGRESS)", progress)) {
                db.execute("INSERT INTO bids VALUES (1, 10, TIMESTAMP '2026-01-01 00:00:10')");
                progress.until("2026-01-01 00:00:08");
                db.execute("INSERT INTO bids VALUES (2, 20, TIMESTAMP '2026-01-01 00:00:01')"); // late
                db.execute("INSERT INTO bids VALUES (3, 30, TIMESTAMP '2026-01-01 00:00:20')");
                progress.until("2026-01-01 00:00:18");
                db.coordinator().sampleIntrospection();
                assertThat(rows(db, "SELECT late_rows, watermark, cursor FROM tributary_internal.streams"))
                        .containsExactly(List.of("1", "2026-01-01 00:00:18", "2026-01-01 00:00:18"));
                assertThat(rows(db, "SELECT s.query = o.name, o.kind FROM tributary_internal.streams s JOIN tributary_internal.objects o USING (id)"))
                        .containsExactly(List.of("t", "subscription"));
            }
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT count(*) FROM tributary_internal.streams")).containsExactly(List.of("0"));
        }
    }

    @Test
    void aQueueInCommitOrderHasItsSystemTimeProgressAsItsCursor() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE q (x int) WITH (APPEND ONLY)");
            Progress progress = new Progress();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT x FROM q STREAM) WITH (PROGRESS)", progress)) {
                db.execute("ADVANCE CLOCK TO 5000");
                progress.until("1970-01-01 00:00:05.001+00");
                db.coordinator().sampleIntrospection();
                assertThat(rows(db, "SELECT late_rows, watermark, cursor FROM tributary_internal.streams"))
                        .containsExactly(java.util.Arrays.asList("0", null, "1970-01-01 00:00:05.001+00"));
            }
        }
    }
}
