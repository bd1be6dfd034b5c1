package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Streams in event time through SQL: {@code STREAM} with a watermark (declared on the table or
 * given in the query), window table functions and the STREAM window clause over it, {@code EMIT
 * ON WINDOW CLOSE} giving each window once when the watermark passes its end, late rows dropped,
 * progress as the watermark, and the errors for what a stream cannot do yet.
 */
class StreamTest {
    /** Waits for each batch of a subscription; data rows as text without change_time, progress as "progress at". */
    private static final class Events implements Subscription.Listener {
        final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();

        @Override
        public void onChanges(Result batch) {
            queue.add(batch);
        }

        @Override
        public void onError(SqlException error) {
            queue.add(error);
        }

        /** The rows of the next batch, every column as text, sorted. */
        List<String> next() throws InterruptedException {
            Object e = queue.poll(20, TimeUnit.SECONDS);
            assertThat(e).as("waiting for a batch").isNotNull().isInstanceOf(Result.class);
            List<String> rows = new ArrayList<>();
            for (List<String> row : ((Result) e).text()) rows.add(String.join("|", row));
            rows.sort(null);
            return rows;
        }

        /**
         * The next {@code n} data rows, as delivered (every column as text; progress rows skipped,
         * told apart by {@code progressColumn}, -1 when the subscription has none).
         */
        List<List<String>> dataRows(int n, int progressColumn) throws InterruptedException {
            List<List<String>> rows = new ArrayList<>();
            while (rows.size() < n) {
                Object e = queue.poll(20, TimeUnit.SECONDS);
                assertThat(e).as("waiting for %d rows after %s", n, rows).isNotNull().isInstanceOf(Result.class);
                for (List<String> row : ((Result) e).text()) if (progressColumn < 0 || !row.get(progressColumn).equals("t")) rows.add(row);
            }
            return rows;
        }

        /** The data rows delivered until the progress row at {@code time} (text of change_time), sorted. */
        List<String> until(String time) throws InterruptedException {
            return until(time, 2);
        }

        /** {@link #until(String)}, each row with its change_time first. */
        List<String> untilTimed(String time) throws InterruptedException {
            List<String> rows = until(time, 0);
            List<String> out = new ArrayList<>();
            for (String r : rows) out.add(r.replaceFirst("\\|f\\|", "|"));
            return out;
        }

        private List<String> until(String time, int from) throws InterruptedException {
            List<String> rows = new ArrayList<>();
            while (true) {
                Object e = queue.poll(20, TimeUnit.SECONDS);
                assertThat(e).as("waiting for progress to %s after %s", time, rows).isNotNull().isInstanceOf(Result.class);
                for (List<String> row : ((Result) e).text()) {
                    if (row.get(1).equals("t")) {
                        if (row.get(0).equals(time)) {
                            rows.sort(null);
                            return rows;
                        }
                        continue;
                    }
                    rows.add(String.join("|", row.subList(from, row.size())));
                }
            }
        }
    }

    private static final String BIDS = "CREATE TABLE bids (auction int, price int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '2 seconds') "
            + "WITH (APPEND ONLY)";
    /** Each closed ten-second window of {@link #BIDS} with its count of bids. */
    private static final String WINDOWS = "CREATE MATERIALIZED VIEW windows AS SELECT window_end, count(*) AS n"
            + " FROM TUMBLE(bids STREAM, ts, INTERVAL '10 seconds') GROUP BY window_end EMIT ON WINDOW CLOSE";

    /** {@link #BIDS}, {@link #WINDOWS} over it, then a bid at each of {@code seconds}, one statement each. */
    private static void windowsOfBids(Tributary db, int... seconds) {
        db.execute(BIDS);
        db.execute(WINDOWS);
        for (int second : seconds) bid(db, 1, 10, second);
    }

    private static void bid(Tributary db, int auction, int price, int second) {
        db.execute("INSERT INTO bids VALUES (" + auction + ", " + price + ", TIMESTAMP '2026-01-01 00:00:00' + INTERVAL '" + second + " seconds')");
    }

    @Test
    void eachWindowComesOnceWhenTheWatermarkPassesItsEnd() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT window_start, window_end, count(*) AS n, sum(price) AS total "
                    + "FROM TUMBLE(bids STREAM, ts, INTERVAL '10 seconds') GROUP BY window_start, window_end EMIT ON WINDOW CLOSE) WITH (PROGRESS)", events)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_progressed", "change_diff", "window_start", "window_end", "n", "total");
                bid(db, 1, 10, 1);
                bid(db, 2, 20, 5);
                // the watermark is 5 s - 2 s: the window [0 s, 10 s) is open
                assertThat(events.until("2026-01-01 00:00:03")).isEmpty();
                bid(db, 1, 30, 9);
                assertThat(events.until("2026-01-01 00:00:07")).isEmpty();
                bid(db, 3, 40, 13);
                assertThat(events.until("2026-01-01 00:00:11")).containsExactly("1|2026-01-01 00:00:00|2026-01-01 00:00:10|3|60");
                // late: below the watermark when it commits, dropped
                bid(db, 9, 1000, 4);
                bid(db, 3, 50, 15);
                assertThat(events.until("2026-01-01 00:00:13")).isEmpty();
                // the late row is counted, and the count and the watermark can be read in SQL
                assertThat(sub.status().lateRows()).isEqualTo(1);
                assertThat(db.query("SELECT late_rows, watermark FROM tributary_internal.subscriptions").text())
                        .containsExactly(List.of("1", "2026-01-01 00:00:13"));
                bid(db, 4, 60, 31);
                assertThat(events.until("2026-01-01 00:00:29")).containsExactly("1|2026-01-01 00:00:10|2026-01-01 00:00:20|2|90");
            }
        }
    }

    /**
     * Session windows over a stream: a session comes once, when the watermark passes its last row
     * plus the gap; a row that arrives while it is open extends it, one between two open sessions
     * merges them (and neither came before).
     */
    @Test
    void eachSessionComesOnceWhenTheWatermarkPassesItsEnd() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, window_start, window_end, count(*) AS n "
                    + "FROM bids STREAM SESSION GAP INTERVAL '5 seconds' PARTITION BY auction GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE)"
                    + " WITH (PROGRESS)", events)) {
                bid(db, 1, 10, 1);
                bid(db, 2, 10, 2);
                bid(db, 1, 10, 4);
                bid(db, 1, 10, 12);
                // watermark 10 s: auction 1's session [1 s, 9 s) and auction 2's [2 s, 7 s) closed; [12 s, 17 s) open
                assertThat(events.until("2026-01-01 00:00:10")).containsExactly(
                        "1|1|2026-01-01 00:00:01|2026-01-01 00:00:09|2", "1|2|2026-01-01 00:00:02|2026-01-01 00:00:07|1");
                bid(db, 1, 10, 18);
                // watermark 16 s: [12 s, 17 s) and [18 s, 23 s) are open
                assertThat(events.until("2026-01-01 00:00:16")).isEmpty();
                bid(db, 1, 10, 16);
                // 16 s (not late: at the watermark) merges them
                bid(db, 2, 10, 40);
                assertThat(events.until("2026-01-01 00:00:38")).containsExactly("1|1|2026-01-01 00:00:12|2026-01-01 00:00:23|3");
                assertThat(sub.status().lateRows()).isZero();
            }
        }
    }

    /**
     * A session that gains many rows in one commit costs its rows, not their square: 1,000
     * auctions' 200-row sessions in one INSERT, under a 16 MB bound on the dataflow's memory
     * (restating each session's rows at each of its rows' event times held far more).
     */
    @Test
    void aSessionThatGainsManyRowsAtOnceCostsItsRowsNotTheirSquare() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            db.execute("SET max_dataflow_memory = '16MB'");
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, window_start, window_end, count(*) AS n FROM SESSION(bids STREAM PARTITION BY auction,"
                    + " ts, INTERVAL '3 seconds') GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE) WITH (PROGRESS)", events)) {
                db.execute("INSERT INTO bids SELECT g % 1000, 1, TIMESTAMP '2026-01-01 00:00:00' + (g / 1000) * INTERVAL '1 second' FROM generate_series(0, 199999) AS g");
                bid(db, 5000, 0, 1000);
                List<String> want = new ArrayList<>();
                for (int a = 0; a < 1000; a++) want.add("1|" + a + "|2026-01-01 00:00:00|2026-01-01 00:03:22|200");
                want.sort(null);
                assertThat(events.until("2026-01-01 00:16:38")).isEqualTo(want);
                assertThat(sub.status().lateRows()).isZero();
            }
        }
    }

    /**
     * LIMIT on an infinite query keeps the stream's first rows, by event time (by commit time
     * without a watermark) when there is no ORDER BY, and never retracts them as more rows come;
     * {@code LIMIT n BY cols} keeps the first n of each group.
     */
    @Test
    void limitsOnAStreamKeepItsFirstRows() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            Events first = new Events();
            Events perAuction = new Events();
            Events ordered = new Events();
            try (Subscription a = db.subscribe("SUBSCRIBE (SELECT auction, price FROM bids STREAM LIMIT 3) WITH (PROGRESS)", first);
                    Subscription b = db.subscribe("SUBSCRIBE (SELECT auction, price FROM bids STREAM LIMIT 2 BY auction) WITH (PROGRESS)", perAuction);
                    Subscription c = db.subscribe("SUBSCRIBE (SELECT auction, price FROM bids STREAM ORDER BY price DESC LIMIT 1 BY auction) WITH (PROGRESS)",
                            ordered)) {
                bid(db, 2, 20, 2);
                bid(db, 1, 10, 1);
                bid(db, 1, 11, 3);
                bid(db, 1, 12, 4);
                bid(db, 2, 21, 5);
                bid(db, 3, 30, 6);
                bid(db, 1, 13, 7);
                bid(db, 9, 0, 100);
                // the watermark is 98 s: every bid but the last is final
                assertThat(first.until("2026-01-01 00:01:38")).containsExactly("1|1|10", "1|1|11", "1|2|20");
                assertThat(perAuction.until("2026-01-01 00:01:38")).containsExactly("1|1|10", "1|1|11", "1|2|20", "1|2|21", "1|3|30");
                // with ORDER BY the top row of each group as it changes: a larger price replaces the one delivered
                assertThat(ordered.until("2026-01-01 00:01:38")).contains("1|1|13", "1|2|21", "1|3|30", "-1|1|10");
            }
            db.execute("CREATE TABLE q (id int)");
            db.execute("INSERT INTO q VALUES (1)");
            Events commits = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT id FROM q STREAM LIMIT 2)", commits)) {
                db.execute("INSERT INTO q VALUES (2)");
                db.execute("INSERT INTO q VALUES (3)");
                assertThat(commits.dataRows(2, -1)).extracting(r -> r.get(1) + "|" + r.get(2)).containsExactly("1|1", "1|2");
            }
            // a stream that may delete keeps the rows it has seen, ordered by time; one that only inserts, a count per group
            assertThat(db.query("EXPLAIN SELECT id FROM q STREAM LIMIT 2 EMIT CHANGES").text()).anySatisfy(r -> assertThat(r.get(0)).contains("TimeColumn"));
            assertThat(db.query("EXPLAIN SELECT auction FROM bids STREAM LIMIT 2 BY auction EMIT CHANGES").text())
                    .anySatisfy(r -> assertThat(r.get(0)).contains("FirstRows group by [#0] limit 2"));
        }
    }

    /**
     * The first rows of an append-only stream cost a count per group, not the rows: a LIMIT BY
     * subscription over a 400,000-row INSERT fits a 8 MB bound on its dataflow's memory.
     */
    @Test
    void theFirstRowsOfAnAppendOnlyStreamKeepACountPerGroup() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            db.execute("SET max_dataflow_memory = '8MB'");
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, price FROM bids STREAM LIMIT 2 BY auction) WITH (PROGRESS)", events)) {
                db.execute("INSERT INTO bids SELECT g % 1000, g / 1000, TIMESTAMP '2026-01-01 00:00:00' + (g / 1000) * INTERVAL '1 second'"
                        + " FROM generate_series(0, 399999) AS g");
                bid(db, 5000, 0, 1000);
                List<String> want = new ArrayList<>();
                for (int a = 0; a < 1000; a++) {
                    want.add("1|" + a + "|0");
                    want.add("1|" + a + "|1");
                }
                want.sort(null);
                assertThat(events.until("2026-01-01 00:16:38")).isEqualTo(want);
            }
        }
    }

    /**
     * A stream over a table that is not append-only carries its deletes: a row deleted before its
     * window closes is not in the window's result, on panes too (count, min, max of the rows left).
     */
    @Test
    void aRowDeletedBeforeItsWindowClosesIsNotInIt() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE quotes (sym int, price int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '2 seconds')");
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT sym, window_end, count(*) AS n, min(price) AS lo, max(price) AS hi"
                    + " FROM HOP(quotes STREAM, ts, INTERVAL '2 seconds', INTERVAL '4 seconds') GROUP BY sym, window_end EMIT ON WINDOW CLOSE) WITH (PROGRESS)",
                    events)) {
                assertThat(db.query("EXPLAIN SELECT sym, window_end, count(*) FROM HOP(quotes STREAM, ts, INTERVAL '2 seconds', INTERVAL '4 seconds')"
                        + " GROUP BY sym, window_end EMIT ON WINDOW CLOSE").text()).anySatisfy(r -> assertThat(r.get(0)).contains("PaneAggregate"));
                db.execute("INSERT INTO quotes VALUES (1, 10, TIMESTAMP '2026-01-01 00:00:01'), (1, 50, TIMESTAMP '2026-01-01 00:00:02'),"
                        + " (1, 5, TIMESTAMP '2026-01-01 00:00:03')");
                db.execute("DELETE FROM quotes WHERE price = 5");
                db.execute("INSERT INTO quotes VALUES (2, 1, TIMESTAMP '2026-01-01 00:00:20')");
                // the watermark is 18 s: windows [-2 s, 2 s), [0 s, 4 s), [2 s, 6 s) closed with the rows left
                assertThat(events.until("2026-01-01 00:00:18")).containsExactly(
                        "1|1|2026-01-01 00:00:02|1|10|10", "1|1|2026-01-01 00:00:04|2|10|50", "1|1|2026-01-01 00:00:06|1|50|50");
            }
        }
    }

    /**
     * Sessions by their partition, grouped by more than it: each session's rows of each group
     * aggregated apart (here by the price's parity), on open sessions.
     */
    @Test
    void sessionsGroupedByMoreThanTheirPartition() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            String query = "SELECT auction, price % 2 AS odd, window_start, window_end, count(*) AS n FROM SESSION(bids STREAM PARTITION BY auction, ts,"
                    + " INTERVAL '5 seconds') GROUP BY auction, price % 2, window_start, window_end EMIT ON WINDOW CLOSE";
            assertThat(db.query("EXPLAIN " + query).text()).anySatisfy(r -> assertThat(r.get(0)).contains("SessionAggregate"));
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (" + query + ") WITH (PROGRESS)", events)) {
                bid(db, 1, 10, 1);
                bid(db, 1, 11, 3);
                bid(db, 2, 5, 2);
                bid(db, 1, 12, 4);
                bid(db, 3, 0, 40);
                assertThat(events.until("2026-01-01 00:00:38")).containsExactly("1|1|0|2026-01-01 00:00:01|2026-01-01 00:00:09|2",
                        "1|1|1|2026-01-01 00:00:01|2026-01-01 00:00:09|1", "1|2|1|2026-01-01 00:00:02|2026-01-01 00:00:07|1");
            }
        }
    }

    @Test
    void withoutEmitOnWindowCloseAWindowsResultChangesAtEachEventTime() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute(BIDS);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT window_start, count(*) AS n FROM bids STREAM TUMBLE INTERVAL '10 seconds' "
                    + "GROUP BY window_start) WITH (PROGRESS)", events)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_progressed", "change_diff", "window_start", "n");
                bid(db, 1, 10, 1);
                bid(db, 1, 10, 3);
                // an event at the watermark is not complete yet: more may come at that time
                assertThat(events.until("2026-01-01 00:00:01")).isEmpty();
                bid(db, 1, 10, 12);
                assertThat(events.until("2026-01-01 00:00:10")).containsExactly(
                        "-1|2026-01-01 00:00:00|1", "1|2026-01-01 00:00:00|1", "1|2026-01-01 00:00:00|2");
            }
            // again from the beginning: what the table holds is replayed, each change at its event time
            Events again = new Events();
            try (Subscription sub = db.subscribe("SELECT window_start, count(*) AS n FROM bids STREAM TUMBLE INTERVAL '10 seconds' "
                    + "GROUP BY window_start EMIT CHANGES", again)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_diff", "window_start", "n");
                assertThat(again.next()).containsExactly("2026-01-01 00:00:01|1|2026-01-01 00:00:00|1");
                assertThat(again.next()).containsExactly("2026-01-01 00:00:03|-1|2026-01-01 00:00:00|1", "2026-01-01 00:00:03|1|2026-01-01 00:00:00|2");
            }
        }
    }

    /**
     * State bounded by the watermark: a windowed aggregation with EMIT ON WINDOW CLOSE keeps only
     * the open windows' rows and results; a closed window's state adds up to nothing and
     * compaction behind the watermark frees it. The records held stay flat (about 200: two open
     * windows of 50 groups, in the aggregation's input and output) while the input grows twentyfold,
     * and every window comes once with its count. Without the expiry they grew by 100 a second.
     */
    @Test
    void aClosedWindowsStateIsFreedBehindTheWatermark() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, window_end, count(*) AS n FROM TUMBLE(bids STREAM, ts, INTERVAL '1 second') "
                    + "GROUP BY auction, window_end EMIT ON WINDOW CLOSE) WITH (PROGRESS)", events)) {
                List<Long> held = new ArrayList<>();
                int delivered = 0;
                for (int second = 0; second < 300; second++) {
                    // 400 bids in this second, 8 per auction
                    db.execute("INSERT INTO bids SELECT g % 50, g, TIMESTAMP '2026-01-01 00:00:00' + " + second + " * INTERVAL '1 second' + g * INTERVAL '1 millisecond' "
                            + "FROM generate_series(0, 399) g");
                    if (second < 3) continue;
                    // the watermark is this second's last bid less 2 s: the window two seconds back has closed
                    List<String> rows = events.until(String.format("2026-01-01 00:%02d:%02d.399", (second - 2) / 60, (second - 2) % 60));
                    for (String row : rows) assertThat(row).endsWith("|8");
                    delivered += rows.size();
                    held.add(sub.status().records());
                }
                assertThat(delivered).as("windows closed: 50 auctions in each of 297 seconds").isEqualTo(50 * 297);
                long early = held.subList(5, 15).stream().mapToLong(Long::longValue).max().orElseThrow();
                long late = held.subList(held.size() - 10, held.size()).stream().mapToLong(Long::longValue).max().orElseThrow();
                assertThat(late).as("records held after 15 and after 297 seconds: %s", held).isLessThanOrEqualTo(Math.max(2 * early, 2_000));
                assertThat(sub.status().lateRows()).isZero();
            }
        }
    }

    @Test
    void explainShowsTheWatermarkAndWhereAClosedWindowsStateIsFreed() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute(BIDS);
            // an aggregate whose panes merge: on panes, no expansion into windows and no delay
            List<String> panes = db.query("EXPLAIN SELECT auction, window_end, count(*), max(price) FROM HOP(bids STREAM, ts, INTERVAL '2 seconds', INTERVAL '6 seconds') "
                    + "GROUP BY auction, window_end EMIT ON WINDOW CLOSE").text().stream().map(r -> r.get(0).strip()).toList();
            assertThat(panes.get(0)).startsWith("AtClose");
            assertThat(panes).as("%s", panes).anySatisfy(l -> assertThat(l).startsWith(
                    "PaneAggregate windows of #2 size '00:00:06' every '00:00:02' on panes of '00:00:02' group by [#0, window_end] aggregates [count(), max(#1)]"));
            assertThat(panes).noneSatisfy(l -> assertThat(l).contains("FlatMap"));
            assertThat(panes).noneSatisfy(l -> assertThat(l).contains("Delay"));
            // a WHERE on the windows' rows that reads none of the window's columns goes below them
            assertThat(db.query("EXPLAIN SELECT window_end, count(*) FROM TUMBLE(bids STREAM, ts, INTERVAL '1 second') WHERE price > 10 GROUP BY window_end"
                    + " EMIT ON WINDOW CLOSE").text()).anySatisfy(r -> assertThat(r.get(0)).contains("PaneAggregate windows of"));
            assertThat(db.query("EXPLAIN SELECT window_end, sum(price) FROM CUMULATE(bids STREAM, ts, INTERVAL '1 second', INTERVAL '4 seconds') GROUP BY window_end"
                    + " EMIT ON WINDOW CLOSE").text()).anySatisfy(r -> assertThat(r.get(0)).contains("PaneAggregate cumulating windows of #1 size '00:00:04' growing by"
                            + " '00:00:01' on panes of '00:00:01'"));
            // sessions by their partition over an append-only stream: each session's aggregate kept as its rows come
            List<String> sessions = db.query("EXPLAIN SELECT auction, window_start, window_end, count(*), sum(price) FROM SESSION(bids STREAM PARTITION BY auction, ts,"
                    + " INTERVAL '5 seconds') GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE").text().stream().map(r -> r.get(0).strip()).toList();
            assertThat(sessions).as("%s", sessions).anySatisfy(l -> assertThat(l).startsWith(
                    "SessionAggregate sessions of #2 gap '00:00:05' partition by [#0] group by [#0, window_start, window_end] aggregates [count(), sum(#1)]"));
            assertThat(sessions).noneSatisfy(l -> assertThat(l).contains("Delay"));
            // one whose panes do not (a distinct count): the rows are delayed to their window's
            // close and expired there below the aggregation, not its results above it
            List<String> plan = db.query("EXPLAIN SELECT auction, window_end, count(DISTINCT price) FROM TUMBLE(bids STREAM, ts, INTERVAL '1 second') "
                    + "GROUP BY auction, window_end EMIT ON WINDOW CLOSE").text().stream().map(r -> r.get(0).strip()).toList();
            assertThat(plan.get(0)).startsWith("AtClose");
            int reduce = plan.indexOf(plan.stream().filter(l -> l.startsWith("Reduce")).findFirst().orElseThrow());
            int delay = plan.indexOf(plan.stream().filter(l -> l.contains("and expire there")).findFirst().orElseThrow());
            assertThat(delay).as("%s", plan).isGreaterThan(reduce);
            int windows = plan.indexOf(plan.stream().filter(l -> l.startsWith("FlatMap tumble")).findFirst().orElseThrow());
            assertThat(delay).as("%s", plan).isLessThan(windows);
            assertThat(plan).anySatisfy(l -> assertThat(l).startsWith("EventTime on #2 watermark"));
        }
    }

    /**
     * An interval join of two append-only streams holds only what the other side's watermark still
     * allows (a view for the 2 s a click may follow it, a click until the views it may follow have
     * passed), while its result is the join of everything: each pair once, never retracted.
     */
    @Test
    void anIntervalJoinKeepsOnlyWhatTheOtherSidesWatermarkStillAllows() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            for (String t : List.of("views", "clicks")) {
                db.execute("CREATE TABLE " + t + " (ad int, ts timestamp, WATERMARK FOR ts AS ts - INTERVAL '1 second') WITH (APPEND ONLY)");
            }
            Events events = new Events();
            String join = "SELECT v.ad, v.ts AS viewed, c.ts AS clicked FROM views STREAM AS v JOIN clicks STREAM AS c"
                    + " ON v.ad = c.ad AND c.ts BETWEEN v.ts AND v.ts + INTERVAL '2 seconds'";
            assertThat(db.query("EXPLAIN " + join + " EMIT CHANGES").text().stream().map(r -> r.get(0).strip()).toList())
                    .anySatisfy(l -> assertThat(l).startsWith("Inserts"))
                    .anySatisfy(l -> assertThat(l).startsWith("Expire at #1 + 1"))
                    .anySatisfy(l -> assertThat(l).startsWith("Expire at #1 + 2000001"));
            try (Subscription sub = db.subscribe("SUBSCRIBE (" + join + ") WITH (PROGRESS)", events)) {
                List<String> delivered = new ArrayList<>();
                List<Long> held = new ArrayList<>();
                String at = "TIMESTAMP '2026-01-01 00:00:00' + %d * INTERVAL '1 second' + g * INTERVAL '1 millisecond'";
                for (int second = 0; second < 120; second++) {
                    db.execute("INSERT INTO views SELECT g % 20, " + String.format(at, second) + " FROM generate_series(0, 49) g");
                    db.execute("INSERT INTO clicks SELECT g % 20, " + String.format(at, second) + " + INTERVAL '500 milliseconds' FROM generate_series(0, 9) g");
                    if (second == 0) continue;
                    // the views' watermark, the lower: this second's last view less 1 s
                    delivered.addAll(events.until(String.format("2026-01-01 00:%02d:%02d.049", (second - 1) / 60, (second - 1) % 60)));
                    held.add(sub.status().records());
                }
                String w = "TIMESTAMP '2026-01-01 00:01:58.049'";
                List<String> expected = new ArrayList<>();
                for (List<String> r : db.query("SELECT 1, v.ad, v.ts, c.ts FROM views v JOIN clicks c ON v.ad = c.ad AND c.ts BETWEEN v.ts AND v.ts + INTERVAL '2 seconds'"
                        + " WHERE v.ts < " + w + " AND c.ts < " + w).text()) {
                    expected.add(String.join("|", r));
                }
                expected.sort(null);
                delivered.sort(null);
                assertThat(delivered).hasSize(expected.size()).isEqualTo(expected);
                long early = held.subList(10, 30).stream().mapToLong(Long::longValue).max().orElseThrow();
                long late = held.subList(held.size() - 20, held.size()).stream().mapToLong(Long::longValue).max().orElseThrow();
                assertThat(late).as("records held after 30 and after 119 seconds: %s", held).isLessThanOrEqualTo(2 * early);
            }
        }
    }

    /**
     * A global (unwindowed) aggregation over a stream emits running results, each change at the
     * largest event time that produced it, once the watermark has passed that time.
     */
    @Test
    void aGlobalAggregationRunsWithEachChangeAtItsEventTime() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, count(*) AS n, max(price) AS top FROM bids STREAM GROUP BY auction) WITH (PROGRESS)",
                    events)) {
                bid(db, 1, 10, 1);
                bid(db, 1, 30, 4);
                bid(db, 2, 5, 3);
                // the watermark (4 s - 2 s) has passed the bid at 1 s only
                assertThat(events.until("2026-01-01 00:00:02")).containsExactly("1|1|1|10");
                bid(db, 1, 20, 9);
                // the changes at 3 s and 4 s, each at the event time it happened at
                assertThat(events.untilTimed("2026-01-01 00:00:07")).containsExactly(
                        "2026-01-01 00:00:03|1|2|1|5", "2026-01-01 00:00:04|-1|1|1|10", "2026-01-01 00:00:04|1|1|2|30");
            }
        }
    }

    /**
     * A stream joined with a table: each row meets the table as it is when the row commits, once;
     * a later change of the table changes no result given (a temporal join on current state), a
     * row whose key the table does not hold yet finds nothing, and the watermark is the stream's
     * own, moved by rows that find nothing too. Either side of the JOIN may be the stream.
     */
    @Test
    void aStreamJoinedWithATableMeetsTheTableAsEachRowCommits() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            db.execute("CREATE TABLE auctions (id int PRIMARY KEY, seller text, category int)");
            db.execute("INSERT INTO auctions VALUES (1, 'ann', 10), (2, 'bob', 20)");
            Events events = new Events();
            Events reversed = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT b.auction, b.price, a.seller FROM bids STREAM AS b JOIN auctions AS a ON b.auction = a.id"
                    + " WHERE b.price > 5) WITH (PROGRESS)", events);
                    Subscription other = db.subscribe("SUBSCRIBE (SELECT a.seller, b.price FROM auctions AS a JOIN bids STREAM AS b ON a.id = b.auction)"
                            + " WITH (PROGRESS)", reversed)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_progressed", "change_diff", "auction", "price", "seller");
                bid(db, 1, 10, 1);
                bid(db, 2, 3, 2);
                bid(db, 3, 30, 3);
                // watermark 1 s: the row at 1 s is final; auction 3 is not in the table: nothing
                assertThat(events.until("2026-01-01 00:00:01")).isEmpty();
                bid(db, 1, 40, 5);
                assertThat(events.until("2026-01-01 00:00:03")).containsExactly("1|1|10|ann");
                // the table changes: rows already joined keep what they met, later rows meet the change
                db.execute("UPDATE auctions SET seller = 'cat' WHERE id = 1");
                db.execute("INSERT INTO auctions VALUES (3, 'dan', 30)");
                bid(db, 1, 50, 6);
                bid(db, 3, 60, 7);
                bid(db, 9, 1, 20);
                assertThat(events.until("2026-01-01 00:00:18")).containsExactly("1|1|40|ann", "1|1|50|cat", "1|3|60|dan");
                assertThat(reversed.until("2026-01-01 00:00:18")).containsExactly(
                        "1|ann|10", "1|ann|40", "1|bob|3", "1|cat|50", "1|dan|60");
                assertThat(sub.status().lateRows()).isZero();
                assertThat(String.join("\n", db.query("EXPLAIN SELECT b.auction, a.seller FROM bids STREAM AS b JOIN auctions AS a ON b.auction = a.id").text().stream()
                        .map(r -> r.get(0)).toList())).contains("Lookup on #0 = #0 as each row's commit finds the table");
            }
        }
    }

    /**
     * LEFT and RIGHT joins of a stream with a table pad a row that finds nothing (a NULL key
     * included) with NULLs, once; a windowed aggregate over a stream-table join closes each window
     * once; a condition on the stream alone in a LEFT JOIN's ON is refused (0A000) rather than
     * taken as a filter.
     */
    @Test
    void outerAndWindowedStreamTableJoins() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            db.execute("CREATE TABLE auctions (id int, seller text, category int)");
            db.execute("INSERT INTO auctions VALUES (1, 'ann', 10), (1, 'ann2', 10), (2, 'bob', 20), (NULL, 'nobody', 0)");
            Events left = new Events();
            Events right = new Events();
            Events windows = new Events();
            try (Subscription a = db.subscribe("SUBSCRIBE (SELECT b.auction, b.price, a.seller FROM bids STREAM AS b LEFT JOIN auctions AS a"
                    + " ON b.auction = a.id AND a.category > 5) WITH (PROGRESS)", left);
                    Subscription b = db.subscribe("SUBSCRIBE (SELECT a.seller, b.price FROM auctions AS a RIGHT JOIN bids STREAM AS b ON a.id = b.auction)"
                            + " WITH (PROGRESS)", right);
                    Subscription c = db.subscribe("SUBSCRIBE (SELECT a.category, window_end, count(*) AS n, sum(w.price) AS total"
                            + " FROM TUMBLE(bids STREAM, ts, INTERVAL '10 seconds') AS w JOIN auctions AS a ON w.auction = a.id"
                            + " GROUP BY a.category, window_end EMIT ON WINDOW CLOSE) WITH (PROGRESS)", windows)) {
                bid(db, 1, 10, 1);
                bid(db, 2, 20, 2);
                bid(db, 3, 30, 3);
                db.execute("INSERT INTO bids VALUES (NULL, 40, TIMESTAMP '2026-01-01 00:00:04')");
                bid(db, 2, 50, 14);
                assertThat(left.until("2026-01-01 00:00:12")).containsExactly(
                        "1|1|10|ann", "1|1|10|ann2", "1|2|20|bob", "1|3|30|null", "1|null|40|null");
                assertThat(right.until("2026-01-01 00:00:12")).containsExactly(
                        "1|ann2|10", "1|ann|10", "1|bob|20", "1|null|30", "1|null|40");
                assertThat(windows.until("2026-01-01 00:00:12")).containsExactly(
                        "1|10|2026-01-01 00:00:10|2|20", "1|20|2026-01-01 00:00:10|1|20");
            }
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM bids STREAM AS b LEFT JOIN auctions AS a ON b.auction = a.id AND b.price > 1)", x -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
        }
    }

    /**
     * The oracle for stream-table joins: random transactions of bids (some out of order, some
     * late) and of inserts, updates and deletes of the table, on 1, 2 and 3 workers; once a final
     * bid has moved the watermark past all of them, the inner and the left join gave exactly what
     * joining each bid that was not late with the table as it was at the bid's commit gives.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void streamTableJoinsAgreeWithEachRowJoinedToTheTableAtItsCommit(int workers) throws Exception {
        java.util.Random random = new java.util.Random(37 + workers);
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), workers)) {
            db.execute(BIDS);
            db.execute("CREATE TABLE auctions (id int PRIMARY KEY, seller int)");
            Events inner = new Events();
            Events left = new Events();
            java.util.Map<Integer, Integer> table = new java.util.HashMap<>();
            List<String> expectedInner = new ArrayList<>();
            List<String> expectedLeft = new ArrayList<>();
            try (Subscription a = db.subscribe("SUBSCRIBE (SELECT b.auction, b.price, a.seller FROM bids STREAM AS b JOIN auctions AS a ON b.auction = a.id)"
                    + " WITH (PROGRESS)", inner);
                    Subscription b = db.subscribe("SUBSCRIBE (SELECT b.auction, b.price, a.seller FROM bids STREAM AS b LEFT JOIN auctions AS a"
                            + " ON b.auction = a.id) WITH (PROGRESS)", left)) {
                long maxSecond = -1;
                int late = 0;
                for (int round = 0; round < 60; round++) {
                    db.execute("BEGIN");
                    long watermark = maxSecond - 2; // in force before this commit
                    List<int[]> bids = new ArrayList<>();
                    for (int c = random.nextInt(4); c >= 0; c--) {
                        if (random.nextInt(3) == 0) {
                            int id = random.nextInt(6);
                            if (table.containsKey(id) && random.nextBoolean()) {
                                db.execute("DELETE FROM auctions WHERE id = " + id);
                                table.remove(id);
                            } else if (table.containsKey(id)) {
                                int seller = random.nextInt(100);
                                db.execute("UPDATE auctions SET seller = " + seller + " WHERE id = " + id);
                                table.put(id, seller);
                            } else {
                                int seller = random.nextInt(100);
                                db.execute("INSERT INTO auctions VALUES (" + id + ", " + seller + ")");
                                table.put(id, seller);
                            }
                        } else {
                            int second = (int) Math.max(0, maxSecond + random.nextInt(6) - 3);
                            int[] bid = {random.nextInt(7), random.nextInt(1000), second};
                            bid(db, bid[0], bid[1], bid[2]);
                            bids.add(bid);
                        }
                    }
                    db.execute("COMMIT");
                    // each bid of the transaction meets the table as the transaction left it
                    for (int[] bid : bids) {
                        if (bid[2] < watermark) {
                            late++;
                            continue;
                        }
                        maxSecond = Math.max(maxSecond, bid[2]);
                        Integer seller = table.get(bid[0]);
                        if (seller != null) expectedInner.add("1|" + bid[0] + "|" + bid[1] + "|" + seller);
                        expectedLeft.add("1|" + bid[0] + "|" + bid[1] + "|" + (seller == null ? "null" : seller));
                    }
                }
                bid(db, 99, 0, 10_000);
                String end = "2026-01-01 02:46:38"; // 10,000 s - 2 s
                expectedInner.sort(null);
                expectedLeft.sort(null);
                assertThat(inner.until(end)).as("inner join on %d workers", workers).isEqualTo(expectedInner);
                assertThat(left.until(end)).as("left join on %d workers", workers).isEqualTo(expectedLeft);
                assertThat(a.status().lateRows()).isEqualTo(late);
                assertThat(expectedInner).as("the run joins rows").hasSizeGreaterThan(20);
            }
        }
    }

    /**
     * Materialized views over streams keep what the watermark has settled, in system time: a
     * windowed EOWC view holds the closed windows (each once), a plain aggregation the rows whose
     * event time the watermark has passed, a view over a stream-table join its rows; late rows
     * are in none of them, a read sees exactly what the watermark had passed at its time, and a
     * subscription to the view gets each window as it closes.
     */
    @Test
    void materializedViewsOverStreamsKeepWhatTheWatermarkSettled() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            db.execute("CREATE TABLE auctions (id int PRIMARY KEY, seller text)");
            db.execute("INSERT INTO auctions VALUES (1, 'ann'), (2, 'bob')");
            bid(db, 1, 10, 1);
            db.execute("CREATE MATERIALIZED VIEW windows AS SELECT auction, window_end, count(*) AS n, sum(price) AS total"
                    + " FROM TUMBLE(bids STREAM, ts, INTERVAL '10 seconds') GROUP BY auction, window_end EMIT ON WINDOW CLOSE");
            db.execute("CREATE MATERIALIZED VIEW totals AS SELECT auction, count(*) AS n FROM bids STREAM GROUP BY auction");
            db.execute("CREATE MATERIALIZED VIEW sellers AS SELECT a.seller, b.price FROM bids STREAM AS b JOIN auctions AS a ON b.auction = a.id");
            Events changes = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE windows", changes)) {
                bid(db, 2, 20, 5);
                bid(db, 1, 30, 9);
                // watermark 7 s: nothing closed; totals counts the rows before 7 s
                assertThat(SqlRows.rows(db, "SELECT * FROM windows")).isEmpty();
                assertThat(SqlRows.rows(db, "SELECT * FROM totals ORDER BY 1")).containsExactly("1|1", "2|1");
                assertThat(SqlRows.rows(db, "SELECT * FROM sellers ORDER BY 1, 2")).containsExactly("ann|10", "bob|20");
                bid(db, 2, 40, 14);
                bid(db, 9, 1000, 3); // late: below the watermark of 12 s
                db.execute("UPDATE auctions SET seller = 'cat' WHERE id = 1");
                bid(db, 1, 50, 25);
                assertThat(SqlRows.rows(db, "SELECT * FROM windows ORDER BY 1, 2")).containsExactly(
                        "1|2026-01-01 00:00:10|2|40", "2|2026-01-01 00:00:10|1|20", "2|2026-01-01 00:00:20|1|40");
                assertThat(SqlRows.rows(db, "SELECT * FROM totals ORDER BY 1")).containsExactly("1|2", "2|2");
                assertThat(SqlRows.rows(db, "SELECT * FROM sellers ORDER BY 1, 2")).containsExactly("ann|10", "ann|30", "bob|20", "bob|40");
                List<String> seen = new ArrayList<>();
                while (seen.size() < 3) for (String r : changes.next()) seen.add(r.substring(r.indexOf('|') + 1));
                seen.sort(null);
                assertThat(seen).containsExactly("1|1|2026-01-01 00:00:10|2|40", "1|2|2026-01-01 00:00:10|1|20", "1|2|2026-01-01 00:00:20|1|40");
            }
            assertThat(String.join("\n", SqlRows.rows(db, "EXPLAIN SELECT * FROM windows"))).isNotEmpty();
            assertThatThrownBy(() -> db.execute("CREATE MATERIALIZED VIEW now_on AS SELECT * FROM bids STREAM FROM NOW"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            // a plain view over a stream: read by subscriptions (and views over it), not one-off
            db.execute("CREATE VIEW late_bids AS SELECT auction, price FROM bids STREAM WHERE price > 20");
            assertThatThrownBy(() -> db.query("SELECT * FROM late_bids")).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("0A000");
                assertThat(e.hint()).contains("SUBSCRIBE");
            });
            Events viewed = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT * FROM late_bids) WITH (PROGRESS)", viewed)) {
                assertThat(viewed.until("2026-01-01 00:00:23")).containsExactly("1|1|30", "1|2|40");
            }
            db.execute("CREATE MATERIALIZED VIEW late_totals AS SELECT auction, sum(price) AS total FROM late_bids GROUP BY auction");
            assertThat(SqlRows.rows(db, "SELECT * FROM late_totals ORDER BY 1")).containsExactly("1|30", "2|40");
            assertThat(String.join("\n", SqlRows.rows(db, "EXPLAIN CREATE MATERIALIZED VIEW x AS SELECT count(*) FROM late_bids"))).contains("SystemTime");
        }
    }

    /** A materialized view over a stream in a durable database is built again at a restart, from the table's rows. */
    @Test
    void aMaterializedViewOverAStreamComesBackAfterARestart(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 2)) {
            windowsOfBids(db, 1, 12, 15);
            assertThat(SqlRows.rows(db, "SELECT * FROM windows")).containsExactly("2026-01-01 00:00:10|1");
        }
        try (Tributary db = Tributary.open(dir, Clock.manual(2_000), 2)) {
            assertThat(SqlRows.rows(db, "SELECT * FROM windows")).containsExactly("2026-01-01 00:00:10|1");
            bid(db, 1, 10, 30);
            assertThat(SqlRows.rows(db, "SELECT * FROM windows ORDER BY 1")).containsExactly("2026-01-01 00:00:10|1", "2026-01-01 00:00:20|2");
        }
    }

    /**
     * A view over a stream cannot be restored from a checkpoint, so a restart builds it again from
     * its table, which is restored: the checkpoint cut the table's batches compacted up to its
     * time, each worker's as far as its merges had got, so an older row may come back moved past
     * a newer one that stayed at its commit time. Taken in that order, the newer row's watermark
     * made the older one late and the view came back without it; the rebuild takes everything
     * before the checkpoint as one commit. The merges are not ours to steer, so rounds: before the
     * fix about one round in ten lost a row (all of 10 runs failed, at rounds 2 to 20).
     */
    @Test
    void aViewOverAStreamBuiltAgainFromARestoredTableLosesNoRowToItsCompaction(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        for (int round = 0; round < 40; round++) {
            java.nio.file.Path data = dir.resolve("round" + round);
            try (Tributary db = Tributary.open(data, Clock.manual(1_000), 2)) {
                // the last bid's watermark, 25 s, closes the first window
                windowsOfBids(db, 1, 2, 27);
                assertThat(SqlRows.rows(db, "SELECT * FROM windows")).as("round " + round).containsExactly("2026-01-01 00:00:10|2");
            }
            try (Tributary db = Tributary.open(data, Clock.manual(2_000), 2)) {
                assertThat(SqlRows.rows(db, "SELECT * FROM windows")).as("round " + round + " after the restart").containsExactly("2026-01-01 00:00:10|2");
            }
        }
    }

    /**
     * A stream joined with a table FOR SYSTEM_TIME AS OF its event time (Flink's temporal join):
     * each row meets the table as it was at the row's own time, read from the table's retained
     * history (bigint event times are milliseconds, the system clock's unit); a row before the
     * history meets nothing; a row from the future waits for the clock (and holds the watermark
     * back until then: the lookup is below the reclocking); a later change of the table changes
     * nothing given; LEFT JOIN pads a row that met nothing.
     */
    @Test
    void aStreamJoinedForSystemTimeAsOfItsEventTimeMeetsTheTableAsItWasThen() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(10_000), 2)) {
            db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT 10000)");
            db.execute("CREATE TABLE orders (id int, sym text, ts bigint, WATERMARK FOR ts AS ts - 1000) WITH (APPEND ONLY)");
            db.execute("INSERT INTO prices VALUES ('x', 1)");
            db.execute("ADVANCE CLOCK TO 20000");
            db.execute("UPDATE prices SET price = 2");
            db.execute("ADVANCE CLOCK TO 30000");
            db.execute("UPDATE prices SET price = 3");
            db.execute("ADVANCE CLOCK TO 40000");
            Events inner = new Events();
            Events left = new Events();
            try (Subscription a = db.subscribe("SUBSCRIBE (SELECT o.id, p.price FROM orders STREAM AS o JOIN prices FOR SYSTEM_TIME AS OF o.ts AS p"
                    + " ON p.sym = o.sym) WITH (PROGRESS)", inner);
                    Subscription b = db.subscribe("SUBSCRIBE (SELECT o.id, p.price FROM orders STREAM AS o LEFT JOIN prices FOR SYSTEM_TIME AS OF o.ts p"
                            + " ON p.sym = o.sym) WITH (PROGRESS)", left)) {
                db.execute("INSERT INTO orders VALUES (1, 'x', 15000), (2, 'x', 25000), (3, 'x', 35000), (4, 'x', 5000), (5, 'y', 36000)");
                // watermark 35,000: the rows before it are final
                assertThat(inner.until("35000")).containsExactly("1|1|1", "1|2|2");
                assertThat(left.until("35000")).containsExactly("1|1|1", "1|2|2", "1|4|null");
                db.execute("UPDATE prices SET price = 100");
                // from the future (the clock is at 40,000): it waits for the clock
                db.execute("INSERT INTO orders VALUES (6, 'x', 60000)");
                db.execute("ADVANCE CLOCK TO 70000");
                db.execute("INSERT INTO orders VALUES (7, 'x', 61000), (8, 'x', 80000)");
                // 8 waits for the clock to pass 80,000, and holds the watermark back meanwhile (6 and 7 gave 60,000)
                assertThat(inner.until("60000")).containsExactly("1|3|3");
                db.execute("ADVANCE CLOCK TO 90000");
                db.execute("INSERT INTO orders VALUES (9, 'x', 85000)");
                assertThat(inner.until("84000")).containsExactly("1|6|100", "1|7|100", "1|8|100");
                assertThat(left.until("84000")).containsExactly("1|3|3", "1|5|null", "1|6|100", "1|7|100", "1|8|100");
                assertThat(String.join("\n", SqlRows.rows(db, "EXPLAIN SELECT o.id, p.price FROM orders STREAM AS o JOIN prices FOR SYSTEM_TIME AS OF o.ts AS p"
                        + " ON p.sym = o.sym"))).contains("AsOfLookup").contains("since its history is readable");
            }
        }
    }

    /**
     * The oracle for windowed aggregates in event time: random transactions of bids, out of order
     * within the watermark's delay and some late, on 1, 2 and 3 workers, through TUMBLE, HOP and
     * SESSION counts and sums, and HOP and CUMULATE counts, mins, maxes and filtered counts on
     * panes (windows apart, overlapping by less than a slide, under a WHERE) EMIT ON WINDOW CLOSE; once a far bid has moved the watermark past
     * them, each window came once, never retracted, and the windows are those computed in batch
     * over the bids that were not late.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3})
    void windowedAggregatesAgreeWithTheirBatchEvaluationOverTheRowsNotLate(int workers) throws Exception {
        java.util.Random random = new java.util.Random(260 + workers);
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), workers)) {
            db.execute(BIDS);
            List<String> queries = List.of(
                    "SELECT auction, window_start, window_end, count(*) AS n, sum(price) AS total FROM TUMBLE(bids STREAM, ts, INTERVAL '10 seconds')"
                            + " GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE",
                    "SELECT auction, window_start, window_end, count(*) AS n, sum(price) AS total FROM HOP(bids STREAM, ts, INTERVAL '4 seconds', INTERVAL '10 seconds')"
                            + " GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE",
                    "SELECT auction, window_start, window_end, count(*) AS n, sum(price) AS total FROM SESSION(bids STREAM PARTITION BY auction, ts, INTERVAL '3 seconds')"
                            + " GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE",
                    // on panes, with windows apart (a row in a gap is in none) and overlapping by less than a slide
                    "SELECT auction, window_start, window_end, count(*) AS n, min(price), max(price), count(*) FILTER (WHERE price >= 50)"
                            + " FROM HOP(bids STREAM, ts, INTERVAL '10 seconds', INTERVAL '4 seconds') GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE",
                    "SELECT auction, window_start, window_end, count(*) AS n, min(price), max(price), count(*) FILTER (WHERE price >= 50)"
                            + " FROM HOP(bids STREAM, ts, INTERVAL '6 seconds', INTERVAL '9 seconds') WHERE price > 20 GROUP BY auction, window_start, window_end"
                            + " EMIT ON WINDOW CLOSE",
                    "SELECT auction, window_start, window_end, count(*) AS n, min(price), max(price), count(*) FILTER (WHERE price >= 50)"
                            + " FROM CUMULATE(bids STREAM, ts, INTERVAL '2 seconds', INTERVAL '6 seconds') GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE");
            List<Events> events = new ArrayList<>();
            List<Subscription> subs = new ArrayList<>();
            for (String q : queries) {
                Events e = new Events();
                events.add(e);
                subs.add(db.subscribe("SUBSCRIBE (" + q + ") WITH (PROGRESS)", e));
            }
            try {
                List<int[]> kept = new ArrayList<>(); // auction, price, second
                long maxSecond = -1;
                for (int round = 0; round < 80; round++) {
                    long watermark = maxSecond - 2;
                    db.execute("BEGIN");
                    List<int[]> tx = new ArrayList<>();
                    for (int c = random.nextInt(3); c >= 0; c--) {
                        int[] bid = {random.nextInt(3), random.nextInt(100), (int) Math.max(0, maxSecond + random.nextInt(8) - 3)};
                        bid(db, bid[0], bid[1], bid[2]);
                        tx.add(bid);
                    }
                    db.execute("COMMIT");
                    for (int[] bid : tx) {
                        if (bid[2] < watermark) continue;
                        kept.add(bid);
                        maxSecond = Math.max(maxSecond, bid[2]);
                    }
                }
                bid(db, 9, 0, 100_000);
                String end = "2026-01-02 03:46:38"; // 100,000 s - 2 s
                long[][] windows = {{10, 10}, {4, 10}, {}, {10, 4}, {6, 9}, {2, 6}};
                for (int q = 0; q < queries.size(); q++) {
                    java.util.TreeMap<String, long[]> expected = new java.util.TreeMap<>();
                    for (int[] bid : kept) {
                        if (q == 4 && bid[1] <= 20) continue; // its WHERE
                        if (q != 2) {
                            long slide = windows[q][0];
                            long size = windows[q][1];
                            List<long[]> bounds = new ArrayList<>();
                            if (q == 5) {
                                // CUMULATE(step 2 s, size 6 s): the prefixes of [start, start + 6 s) that hold the bid
                                long start = Math.floorDiv(bid[2], size) * size;
                                for (long e = start + slide; e <= start + size; e += slide) if (e > bid[2]) bounds.add(new long[] {start, e});
                            } else {
                                for (long start = Math.floorDiv(bid[2], slide) * slide; start > bid[2] - size; start -= slide) bounds.add(new long[] {start, start + size});
                            }
                            for (long[] bound : bounds) {
                                String window = bid[0] + "|" + at(bound[0]) + "|" + at(bound[1]);
                                if (q < 2) {
                                    long[] agg = expected.computeIfAbsent(window, k -> new long[2]);
                                    agg[0]++;
                                    agg[1] += bid[1];
                                } else {
                                    long[] agg = expected.computeIfAbsent(window, k -> new long[] {0, Long.MAX_VALUE, Long.MIN_VALUE, 0});
                                    agg[0]++;
                                    agg[1] = Math.min(agg[1], bid[1]);
                                    agg[2] = Math.max(agg[2], bid[1]);
                                    if (bid[1] >= 50) agg[3]++;
                                }
                            }
                        }
                    }
                    if (q == 2) {
                        for (int auction = 0; auction < 3; auction++) {
                            final int a = auction;
                            List<int[]> mine = new ArrayList<>(kept.stream().filter(b -> b[0] == a).toList());
                            mine.sort(java.util.Comparator.comparingInt(b -> b[2]));
                            for (int i = 0; i < mine.size(); ) {
                                int j = i;
                                long sum = mine.get(i)[1];
                                while (j + 1 < mine.size() && mine.get(j + 1)[2] - mine.get(j)[2] < 3) sum += mine.get(++j)[1];
                                expected.put(a + "|" + at(mine.get(i)[2]) + "|" + at(mine.get(j)[2] + 3), new long[] {j - i + 1, sum});
                                i = j + 1;
                            }
                        }
                    }
                    List<String> want = new ArrayList<>();
                    expected.forEach((k, v) -> want.add("1|" + k + "|" + java.util.Arrays.stream(v).mapToObj(Long::toString).collect(java.util.stream.Collectors.joining("|"))));
                    want.sort(null);
                    assertThat(want).as("windows to check").hasSizeGreaterThan(8);
                    assertThat(events.get(q).until(end)).as("%s on %d workers", queries.get(q), workers).isEqualTo(want);
                }
                assertThat(subs.get(0).status().lateRows()).as("some bids came late").isPositive();
            } finally {
                for (Subscription sub : subs) sub.close();
            }
        }
    }

    /** The text of the time {@code second} seconds into 2026. */
    private static String at(long second) {
        return java.time.LocalDateTime.of(2026, 1, 1, 0, 0).plusSeconds(second).format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss"));
    }

    /**
     * The third output mode, changed rows only: a running aggregation over a stream through the
     * upsert envelope keyed by its GROUP BY columns gives each group's new row when the watermark
     * has passed the event time that changed it, one row per changed key, at that event time.
     */
    @Test
    void changedRowsOnlyThroughTheUpsertEnvelope() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, count(*) AS n, max(price) AS top FROM bids STREAM GROUP BY auction)"
                    + " ENVELOPE UPSERT (KEY (auction)) WITH (PROGRESS)", events)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_progressed", "change_state", "auction", "n", "top");
                bid(db, 1, 10, 1);
                bid(db, 2, 20, 2);
                bid(db, 1, 30, 3);
                bid(db, 3, 5, 10);
                assertThat(events.untilTimed("2026-01-01 00:00:08")).containsExactly(
                        "2026-01-01 00:00:01|upsert|1|1|10", "2026-01-01 00:00:02|upsert|2|1|20", "2026-01-01 00:00:03|upsert|1|2|30");
                bid(db, 2, 1, 11);
                bid(db, 1, 7, 20);
                assertThat(events.untilTimed("2026-01-01 00:00:18")).containsExactly(
                        "2026-01-01 00:00:10|upsert|3|1|5", "2026-01-01 00:00:11|upsert|2|2|20");
            }
        }
    }

    /**
     * A table read as a queue with a cursor: a subscription's progress rows report its position
     * (a system time); a new subscription FROM CURSOR at that position gets exactly the rows
     * committed from there on, those committed while no one was reading included, with no
     * snapshot and no repeat. A cursor before the table's retained history is 72000; FROM NOW
     * without a watermark gives no snapshot.
     */
    @Test
    void aStreamResumesFromTheCursorItsProgressReported() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE q (id int, msg text) WITH (RETAIN HISTORY FOR '1 hour')");
            db.execute("INSERT INTO q VALUES (1, 'a')");
            Events first = new Events();
            String cursor = null;
            List<String> seen = new ArrayList<>();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT * FROM q STREAM) WITH (PROGRESS)", first)) {
                db.execute("INSERT INTO q VALUES (2, 'b')");
                // read until a progress row after row 2
                while (cursor == null) {
                    Object e = first.queue.poll(20, TimeUnit.SECONDS);
                    assertThat(e).as("a batch").isInstanceOf(Result.class);
                    for (List<String> row : ((Result) e).text()) {
                        if (row.get(1).equals("t")) {
                            if (seen.contains("2")) cursor = row.get(0);
                        } else {
                            seen.add(row.get(3));
                        }
                    }
                }
            }
            assertThat(seen).containsExactly("1", "2");
            db.execute("INSERT INTO q VALUES (3, 'c')");
            db.execute("INSERT INTO q VALUES (4, 'd')");
            Events resumed = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT id, msg FROM q STREAM FROM CURSOR '" + cursor + "') WITH (PROGRESS)", resumed)) {
                db.execute("INSERT INTO q VALUES (5, 'e')");
                assertThat(resumed.dataRows(3, 1)).extracting(r -> r.get(3) + "|" + r.get(4)).containsExactly("3|c", "4|d", "5|e");
            }
            Events now = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT id FROM q STREAM FROM NOW)", now)) {
                db.execute("INSERT INTO q VALUES (6, 'f')");
                assertThat(now.dataRows(1, -1)).extracting(r -> r.get(2)).containsExactly("6");
            }
            // a table that keeps no history cannot be read from a cursor in its past
            db.execute("CREATE TABLE plain (id int)");
            db.execute("ADVANCE CLOCK TO 60000");
            db.execute("INSERT INTO plain VALUES (1)");
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM plain STREAM FROM CURSOR 10)", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("72000"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM q STREAM FROM CURSOR 99999999)", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22023"));
            // a materialized view reads its streams from their beginning
            assertThatThrownBy(() -> db.execute("CREATE MATERIALIZED VIEW m AS SELECT * FROM q STREAM FROM CURSOR 1000"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            assertThatThrownBy(() -> db.execute("CREATE MATERIALIZED VIEW m AS SELECT * FROM q STREAM FROM NOW"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
        }
    }

    /**
     * A stream in event time resumes from the watermark a subscription's progress reported: its
     * windows are built again from the table's rows, and exactly the results at event times from
     * the cursor on come, the windows that closed while no one was reading included; nothing
     * delivered before the cursor comes again. The cursor is of the event time's type.
     */
    @Test
    void aStreamInEventTimeResumesFromTheWatermarkItsProgressReported() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            String windows = "SELECT window_start, window_end, count(*) AS n FROM TUMBLE(bids STREAM%s, ts, INTERVAL '10 seconds') "
                    + "GROUP BY window_start, window_end EMIT ON WINDOW CLOSE";
            Events first = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (" + windows.formatted("") + ") WITH (PROGRESS)", first)) {
                bid(db, 1, 10, 1);
                bid(db, 1, 11, 5);
                bid(db, 2, 12, 12);
                bid(db, 2, 13, 23); // the watermark is 21 s: two windows closed
                assertThat(first.until("2026-01-01 00:00:21")).containsExactly(
                        "1|2026-01-01 00:00:00|2026-01-01 00:00:10|2", "1|2026-01-01 00:00:10|2026-01-01 00:00:20|1");
            }
            bid(db, 3, 14, 25);
            bid(db, 3, 15, 34); // the watermark is 32 s: the window from 20 s closed with no one reading
            bid(db, 3, 16, 15); // late, in a window delivered before the cursor
            String cursor = "'2026-01-01 00:00:21'";
            Events resumed = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (" + windows.formatted(" FROM CURSOR " + cursor) + ") WITH (PROGRESS)", resumed)) {
                assertThat(resumed.until("2026-01-01 00:00:32")).containsExactly("1|2026-01-01 00:00:20|2026-01-01 00:00:30|2");
                bid(db, 4, 17, 45);
                assertThat(resumed.until("2026-01-01 00:00:43")).containsExactly("1|2026-01-01 00:00:30|2026-01-01 00:00:40|1");
            }
            // without windows: the rows at event times from the cursor on, in event time order
            Events rows = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, price FROM bids STREAM FROM CURSOR " + cursor + ") WITH (PROGRESS)", rows)) {
                assertThat(rows.untilTimed("2026-01-01 00:00:43")).containsExactly("2026-01-01 00:00:23|1|2|13", "2026-01-01 00:00:25|1|3|14",
                        "2026-01-01 00:00:34|1|3|15");
            }
            // an integer event time takes an integer cursor; a cursor of the wrong type is an error
            db.execute("CREATE TABLE ticks (k int, t bigint, WATERMARK FOR t AS t - 5) WITH (APPEND ONLY)");
            db.execute("INSERT INTO ticks VALUES (1, 3), (2, 10), (3, 20), (4, 31)");
            Events ticks = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT k FROM ticks STREAM FROM CURSOR 10) WITH (PROGRESS)", ticks)) {
                assertThat(ticks.untilTimed("26")).containsExactly("10|1|2", "20|1|3");
            }
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT k FROM ticks STREAM FROM CURSOR 'soon')", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("22P02"));
            assertThatThrownBy(() -> db.execute("CREATE MATERIALIZED VIEW m AS " + windows.formatted(" FROM CURSOR " + cursor)))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
        }
    }

    /**
     * PROCTIME(): a stream's processing time, each row's commit time. A SELECT that reads it reads
     * its streams in processing time (the table's declared watermark does not apply): the rows
     * come at their commit times, with PROCTIME() equal to them; outside a stream it is 0A000.
     */
    @Test
    void procTimeIsEachRowsCommitTime() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, PROCTIME() AS at FROM bids STREAM)", events)) {
                assertThat(sub.columns()).containsExactly("change_time", "change_diff", "auction", "at");
                bid(db, 1, 10, 5);
                db.execute("ADVANCE CLOCK TO 5000");
                bid(db, 2, 10, 1); // below the declared watermark's 3 s: not late in processing time
                List<List<String>> rows = events.dataRows(2, -1);
                assertThat(rows).extracting(r -> r.get(2)).containsExactly("1", "2");
                for (List<String> r : rows) assertThat(r.get(3)).as("PROCTIME() is the commit time").isEqualTo(r.get(0));
                assertThat(rows.get(1).get(3)).startsWith("1970-01-01 00:00:05");
            }
            assertThatThrownBy(() -> db.query("SELECT PROCTIME() FROM bids")).isInstanceOfSatisfying(SqlException.class,
                    e -> assertThat(e.sqlState()).isEqualTo("0A000"));
        }
    }

    @Test
    void fromNowLeavesOutWhatCameBefore() throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute(BIDS);
            bid(db, 1, 10, 1);
            bid(db, 1, 10, 20);
            Events events = new Events();
            try (Subscription sub = db.subscribe("SUBSCRIBE (SELECT auction, price FROM bids STREAM FROM NOW WATERMARK FOR ts AS ts) WITH (PROGRESS)", events)) {
                bid(db, 2, 5, 2);
                assertThat(events.until("2026-01-01 00:00:02")).isEmpty();
                bid(db, 3, 7, 3);
                assertThat(events.until("2026-01-01 00:00:03")).containsExactly("1|2|5");
            }
        }
    }

    @Test
    void whatAStreamCannotDoIsRefusedWithItsCode() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000))) {
            db.execute(BIDS);
            db.execute("CREATE TABLE plain (a int, ts timestamp)");
            assertThatThrownBy(() -> db.execute("INSERT INTO plain SELECT auction, ts FROM bids STREAM")).isInstanceOfSatisfying(SqlException.class,
                    e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            // a one-off statement (psql's simple query) is told how to read a stream instead
            assertThatThrownBy(() -> db.execute("SELECT * FROM bids STREAM")).isInstanceOfSatisfying(SqlException.class, e -> {
                assertThat(e.sqlState()).isEqualTo("0A000");
                assertThat(e.hint()).contains("COPY (query) TO STDOUT");
            });
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM plain STREAM TUMBLE INTERVAL '1 second')", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42601"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM plain STREAM WATERMARK FOR ts AS ts - a * INTERVAL '1 second')", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P17"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT count(*) FROM bids STREAM EMIT ON WINDOW CLOSE)", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P20"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT window_end FROM TUMBLE(plain, ts, INTERVAL '1 second') EMIT ON WINDOW CLOSE)", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            // a stream in event time beside a table or now() in system time: their times do not compare (it hung every window open)
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM (SELECT auction, count(*) AS n FROM bids STREAM GROUP BY auction) AS b"
                    + " JOIN plain AS p ON b.auction = p.a)", b -> {})).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM bids STREAM WHERE ts + INTERVAL '1 day' > now())", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
            assertThatThrownBy(() -> db.subscribe("SUBSCRIBE (SELECT * FROM bids STREAM) AS OF 5", b -> {}))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
        }
    }
}
