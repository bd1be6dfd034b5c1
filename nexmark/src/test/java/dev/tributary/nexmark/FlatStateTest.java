package dev.tributary.nexmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.nexmark.NexmarkGenerator.Kind;
import dev.tributary.server.Clock;
import dev.tributary.server.Result;
import dev.tributary.server.Subscription;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * State bounded by the watermark: q7 as a stream (each window's highest bids, a windowed
 * aggregation joined back on its window, EMIT ON WINDOW CLOSE) and an interval join of bids with
 * their auction's first ten seconds, subscribed in event time while Nexmark's events arrive in
 * chunks; after each chunk (once the watermark has caught up with it and the arrangements have
 * merged what they may) the records the two dataflows hold in arrangements are sampled. After a warm-up of a quarter of the events they stay
 * flat: over the last third of the samples the median is at most 1.5 times the first third's
 * peak, and the peak at most four times it. A dataflow that kept closed windows or expired rows would grow
 * with the input and fail it. {@code -Dtributary.flat.events=10000000} runs the size (the default, 400,000
 * events, is 40 s of event time: 40 windows); the samples are printed.
 */
class FlatStateTest {
    private static final long EVENTS = Long.getLong("tributary.flat.events", 400_000);
    private static final int CHUNKS = 40;

    static final String INTERVAL_JOIN = "SELECT b.auction, b.price, a.seller FROM bid STREAM AS b JOIN auction STREAM AS a ON b.auction = a.id"
            + " AND b.dateTime BETWEEN a.dateTime AND a.dateTime + INTERVAL '10' SECOND";

    /** A subscription's progress (its watermark as a time) and how many rows it delivered. */
    private static final class Progress implements Subscription.Listener {
        LocalDateTime at = LocalDateTime.MIN;
        long rows;
        SqlException error;

        @Override
        public synchronized void onChanges(Result batch) {
            for (Object[] r : batch.rows()) {
                if (Boolean.TRUE.equals(r[1])) at = (LocalDateTime) r[0];
                else rows += (Long) r[2];
            }
            notifyAll();
        }

        @Override
        public synchronized void onError(SqlException e) {
            error = e;
            notifyAll();
        }

        synchronized void await(LocalDateTime w) throws InterruptedException {
            long deadline = System.nanoTime() + 600_000_000_000L;
            while (at.isBefore(w) && error == null && System.nanoTime() < deadline) wait(1_000);
            assertThat(error).isNull();
            assertThat(at).as("watermark caught up").isAfterOrEqualTo(w);
        }
    }

    /**
     * {@code s}'s status once its arrangements have merged what their frontiers allow. Sampled
     * before, a merge still in progress counts both its inputs, expired rows and their
     * retractions included (one sample once held 184,002 records where the others held 2).
     */
    private static Subscription.Status settled(Subscription s) {
        long deadline = System.nanoTime() + 120_000_000_000L;
        Subscription.Status status = s.status();
        while (!status.settled() && System.nanoTime() < deadline) {
            // the merges run when the workers are otherwise idle: look again after a moment
            LockSupport.parkNanos(1_000_000);
            status = s.status();
        }
        assertThat(status.settled()).as("the arrangements finished merging within two minutes: %s", status).isTrue();
        return status;
    }

    @Test
    void aWindowedQueryAndAnIntervalJoinHoldFlatStateAsEventsFlow() throws Exception {
        NexmarkGenerator generator = new NexmarkGenerator();
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            NexmarkLoader.createTables(db);
            Progress windows = new Progress();
            Progress joined = new Progress();
            List<long[]> samples = new ArrayList<>();
            try (Subscription q7 = db.subscribe("SUBSCRIBE (" + NexmarkQueries.STREAMING.get("q7s").sql() + ") WITH (PROGRESS)", windows);
                    Subscription join = db.subscribe("SUBSCRIBE (" + INTERVAL_JOIN + ") WITH (PROGRESS)", joined)) {
                Tributary.Connection session = db.session();
                long chunk = (EVENTS + CHUNKS - 1) / CHUNKS;
                for (long from = 0; from < EVENTS; from += chunk) {
                    long to = Math.min(EVENTS, from + chunk);
                    NexmarkLoader.load(session, generator.lines(from, to), EnumSet.allOf(Kind.class));
                    // the watermark a second behind the chunk's last event (the declared delay is 4 s)
                    LocalDateTime caught = LocalDateTime.ofEpochSecond(generator.timeMillis(to - 1) / 1000 - 5, 0, ZoneOffset.UTC);
                    windows.await(caught);
                    joined.await(caught);
                    long windowed = settled(q7).records();
                    long interval = settled(join).records();
                    samples.add(new long[] {to, windowed, interval});
                    System.out.println("after " + to + " events: " + windowed + " records held by q7s, " + interval + " by the interval join");
                }
                assertThat(q7.status().lateRows()).isZero();
            }
            StringBuilder report = new StringBuilder("events, records held by q7s, by the interval join:\n");
            for (long[] s : samples) report.append(s[0]).append('\t').append(s[1]).append('\t').append(s[2]).append('\n');
            System.out.print(report);
            assertThat(windows.rows).as("q7s delivered rows").isPositive();
            assertThat(joined.rows).as("the interval join delivered rows").isPositive();
            for (int q = 1; q <= 2; q++) {
                // what is held rises and falls as windows fill and close (merges drop the expired
                // rows in steps: an expired row and its retraction cancel only once a merge takes
                // both, and a level waits for four batches before it merges, so one sample can be
                // three times another): flat means the last third's median within 1.5 times the
                // first third's peak (a state growing with the input fails that), and its peak
                // within four times it
                List<long[]> after = samples.subList(samples.size() / 4, samples.size());
                int n = after.size();
                final int column = q;
                long[] first = after.subList(0, n / 3).stream().mapToLong(s -> s[column]).sorted().toArray();
                long[] last = after.subList(n - n / 3, n).stream().mapToLong(s -> s[column]).sorted().toArray();
                String what = q == 1 ? "q7s" : "the interval join";
                System.out.println(what + ": records held after warm-up, first third median " + first[first.length / 2] + " peak " + first[first.length - 1]
                        + ", last third median " + last[last.length / 2] + " peak " + last[last.length - 1]);
                assertThat(last[last.length / 2]).as("%s: the median of records held over the last third, against the first third's peak\n%s", what, report)
                        .isLessThanOrEqualTo(first[first.length - 1] * 3 / 2 + 1_000);
                assertThat(last[last.length - 1]).as("%s: the most records held over the last third, against the first third's\n%s", what, report)
                        .isLessThanOrEqualTo(first[first.length - 1] * 4 + 1_000);
            }
        }
    }
}
