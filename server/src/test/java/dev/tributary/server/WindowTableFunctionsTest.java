package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The window table functions TUMBLE, HOP, CUMULATE and SESSION in FROM, in RisingWave's and Flink's
 * spellings: each row once per window that holds its time, with window_start and window_end; a
 * windowed aggregate kept as a materialized view agrees with one recomputed from the table after
 * every change.
 */
class WindowTableFunctionsTest {
    @Test
    void tumbleHopAndCumulateOverTimestamps() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE bid (id int, price int, ts timestamp)");
            db.execute("INSERT INTO bid VALUES (1, 10, '2026-01-01 10:00:03'), (2, 20, '2026-01-01 10:00:07'), (3, 30, '2026-01-01 10:00:10'), (4, 40, NULL)");
            assertThat(rows(db, "SELECT id, window_start, window_end FROM TUMBLE(bid, ts, INTERVAL '5 seconds') ORDER BY id")).containsExactly(
                    "1|2026-01-01 10:00:00|2026-01-01 10:00:05",
                    "2|2026-01-01 10:00:05|2026-01-01 10:00:10",
                    "3|2026-01-01 10:00:10|2026-01-01 10:00:15");
            // Flink's spelling, the same windows; the alias qualifies every column
            assertThat(rows(db, "SELECT b.id, b.price, b.window_end FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '5' SECOND)) AS b ORDER BY b.id"))
                    .containsExactly("1|10|2026-01-01 10:00:05", "2|20|2026-01-01 10:00:10", "3|30|2026-01-01 10:00:15");
            // an offset moves every window's start
            assertThat(rows(db, "SELECT id, window_start FROM tumble(bid, ts, INTERVAL '5 seconds', INTERVAL '2 seconds') ORDER BY id"))
                    .containsExactly("1|2026-01-01 10:00:02", "2|2026-01-01 10:00:07", "3|2026-01-01 10:00:07");
            // every 2 s a window of 5 s: each row in the two or three that hold it
            assertThat(rows(db, "SELECT id, window_start, window_end FROM HOP(bid, ts, INTERVAL '2 seconds', INTERVAL '5 seconds') WHERE id = 3 ORDER BY 2"))
                    .containsExactly("3|2026-01-01 10:00:06|2026-01-01 10:00:11", "3|2026-01-01 10:00:08|2026-01-01 10:00:13", "3|2026-01-01 10:00:10|2026-01-01 10:00:15");
            assertThat(rows(db, "SELECT window_start, count(*), sum(price) FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '5' SECOND)) "
                    + "GROUP BY window_start, window_end ORDER BY 1")).containsExactly(
                    "2026-01-01 10:00:00|1|10", "2026-01-01 10:00:02|1|10", "2026-01-01 10:00:04|1|20",
                    "2026-01-01 10:00:06|2|50", "2026-01-01 10:00:08|1|30", "2026-01-01 10:00:10|1|30");
            // a slide longer than the window leaves gaps: a row in one falls into no window
            assertThat(rows(db, "SELECT id FROM HOP(bid, ts, INTERVAL '5 seconds', INTERVAL '3 seconds') ORDER BY id")).containsExactly("2", "3");
            // cumulating windows of 10 s in steps of 5 s: the prefixes that hold the row
            assertThat(rows(db, "SELECT id, window_start, window_end FROM CUMULATE(bid, ts, INTERVAL '5 seconds', INTERVAL '10 seconds') ORDER BY id, 3")).containsExactly(
                    "1|2026-01-01 10:00:00|2026-01-01 10:00:05", "1|2026-01-01 10:00:00|2026-01-01 10:00:10",
                    "2|2026-01-01 10:00:00|2026-01-01 10:00:10",
                    "3|2026-01-01 10:00:10|2026-01-01 10:00:15", "3|2026-01-01 10:00:10|2026-01-01 10:00:20");
            // SELECT * gives the relation's columns, then the window's
            assertThat(rows(db, "SELECT * FROM TUMBLE(bid, ts, INTERVAL '1 day') WHERE id = 2"))
                    .containsExactly("2|20|2026-01-01 10:00:07|2026-01-01 00:00:00|2026-01-02 00:00:00");
        }
    }

    /** An infinite time is in no window, as a NULL time: by itself, in an aggregation over the windows (panes), in a session. */
    @Test
    void anInfiniteTimeIsInNoWindow() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE bid (id int, ts timestamptz)");
            db.execute("INSERT INTO bid VALUES (1, '-infinity'), (2, 'infinity'), (3, '1970-01-01 00:00:07+00')");
            assertThat(rows(db, "SELECT id, window_start FROM tumble(bid, ts, INTERVAL '5 seconds') ORDER BY id"))
                    .containsExactly("3|1970-01-01 00:00:05+00");
            db.execute("CREATE MATERIALIZED VIEW counts AS SELECT window_start, count(*) FROM tumble(bid, ts, INTERVAL '5 seconds') GROUP BY window_start");
            assertThat(rows(db, "SELECT * FROM counts")).containsExactly("1970-01-01 00:00:05+00|1");
            assertThat(rows(db, "SELECT id, window_start FROM session(bid, ts, INTERVAL '5 seconds') ORDER BY id")).containsExactly("3|1970-01-01 00:00:07+00");
        }
    }

    @Test
    void timestampsWithTimeZoneAlignToUtcAndIntegersToZero() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE e (ts timestamptz, n bigint, s smallint)");
            db.execute("INSERT INTO e VALUES ('2026-01-01 20:30:00+00', -7, 32760)");
            assertThat(rows(db, "SELECT window_start, window_end FROM TUMBLE(e, ts, INTERVAL '1 day')"))
                    .containsExactly("2026-01-01 00:00:00+00|2026-01-02 00:00:00+00");
            assertThat(rows(db, "SELECT window_start, window_end FROM TUMBLE(e, n, 5)")).containsExactly("-10|-5");
            assertThat(rows(db, "SELECT window_start, window_end FROM HOP(e, n, 2, 4, 1) ORDER BY 1")).containsExactly("-9|-5", "-7|-3");
            // the windows of a smallint time are smallints: one past its range is an error
            fails("22003", () -> db.query("SELECT * FROM TUMBLE(e, s, 10)"));
        }
    }

    @Test
    void sessionWindowsGroupRowsLessThanTheGapApart() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE bid (id int, who text, ts timestamp)");
            db.execute("INSERT INTO bid VALUES (1, 'a', '2026-01-01 10:00:00'), (2, 'b', '2026-01-01 10:00:03'), (3, 'a', '2026-01-01 10:00:04'),"
                    + " (4, 'a', '2026-01-01 10:00:09'), (5, 'b', '2026-01-01 10:00:20'), (6, 'a', NULL)");
            // one stream of sessions: 0, 3, 4 are less than 5 s apart (and 9 is 5 s after 4: a new one)
            assertThat(rows(db, "SELECT id, window_start, window_end FROM SESSION(bid, ts, INTERVAL '5 seconds') ORDER BY id")).containsExactly(
                    "1|2026-01-01 10:00:00|2026-01-01 10:00:09",
                    "2|2026-01-01 10:00:00|2026-01-01 10:00:09",
                    "3|2026-01-01 10:00:00|2026-01-01 10:00:09",
                    "4|2026-01-01 10:00:09|2026-01-01 10:00:14",
                    "5|2026-01-01 10:00:20|2026-01-01 10:00:25");
            // per who: a's 0 and 4 are one session, 9 another; b's rows are 17 s apart
            assertThat(rows(db, "SELECT who, window_start, window_end, count(*) FROM SESSION(bid PARTITION BY who, ts, INTERVAL '5 seconds')"
                    + " GROUP BY who, window_start, window_end ORDER BY 1, 2")).containsExactly(
                    "a|2026-01-01 10:00:00|2026-01-01 10:00:09|2",
                    "a|2026-01-01 10:00:09|2026-01-01 10:00:14|1",
                    "b|2026-01-01 10:00:03|2026-01-01 10:00:08|1",
                    "b|2026-01-01 10:00:20|2026-01-01 10:00:25|1");
            // Flink's spelling, the partition in parentheses
            assertThat(rows(db, "SELECT s.id, s.window_end FROM TABLE(SESSION(TABLE bid PARTITION BY (who), DESCRIPTOR(ts), INTERVAL '5' SECOND)) AS s"
                    + " WHERE s.who = 'a' ORDER BY 1")).containsExactly("1|2026-01-01 10:00:09", "3|2026-01-01 10:00:09", "4|2026-01-01 10:00:14");
            // equal rows are each in the session (a count of two)
            db.execute("INSERT INTO bid VALUES (4, 'a', '2026-01-01 10:00:09')");
            assertThat(rows(db, "SELECT id, window_start, count(*) FROM SESSION(bid PARTITION BY who, ts, INTERVAL '5 seconds') WHERE id = 4 GROUP BY 1, 2"))
                    .containsExactly("4|2026-01-01 10:00:09|2");
            // a row between two sessions merges them
            db.execute("INSERT INTO bid VALUES (7, 'b', '2026-01-01 10:00:12'), (8, 'b', '2026-01-01 10:00:16')");
            assertThat(rows(db, "SELECT DISTINCT window_start, window_end FROM SESSION(bid PARTITION BY who, ts, INTERVAL '5 seconds') WHERE who = 'b' ORDER BY 1"))
                    .containsExactly("2026-01-01 10:00:03|2026-01-01 10:00:08", "2026-01-01 10:00:12|2026-01-01 10:00:25");
            assertThat(rows(db, "SELECT * FROM SESSION(bid, ts, INTERVAL '1 hour') WHERE id = 2"))
                    .containsExactly("2|b|2026-01-01 10:00:03|2026-01-01 10:00:00|2026-01-01 11:00:20");
            assertThat(String.join("\n", rows(db, "EXPLAIN SELECT * FROM SESSION(bid PARTITION BY who, ts, INTERVAL '5 seconds')")))
                    .contains("Sessions partition #1 time #2 gap '00:00:05'");
            db.execute("CREATE VIEW sessions AS SELECT * FROM SESSION(bid PARTITION BY who, ts, INTERVAL '5 seconds')");
            assertThat(rows(db, "SELECT definition FROM pg_views WHERE viewname = 'sessions'").get(0)).contains("SESSION(bid PARTITION BY (who), ts, interval '5 seconds')");
            // a session's end past the time type's range
            db.execute("CREATE TABLE small (s smallint)");
            db.execute("INSERT INTO small VALUES (32760)");
            fails("22003", () -> db.query("SELECT * FROM SESSION(small, s, 10)"));
            assertThat(rows(db, "SELECT window_start, window_end FROM SESSION(small, s, 7)")).containsExactly("32760|32767");
        }
    }

    /**
     * Session counts kept as materialized views (partitioned and not) through random inserts,
     * updates and deletes, which merge and split sessions, equal after every round to sessions
     * computed here from the table's rows.
     */
    @Test
    void maintainedSessionsAgreeWithARecomputation() {
        Random random = new Random(11);
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, k int, ts bigint, v int)");
            db.execute("CREATE MATERIALIZED VIEW per_k AS SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s FROM SESSION(t PARTITION BY k, ts, 6)"
                    + " GROUP BY k, window_start, window_end");
            db.execute("CREATE MATERIALIZED VIEW overall AS SELECT 0 AS k, window_start, window_end, count(*) AS n, sum(v) AS s FROM SESSION(t, ts, 3)"
                    + " GROUP BY window_start, window_end");
            Map<Integer, long[]> table = new HashMap<>();
            for (int round = 0; round < 40; round++) {
                db.execute("BEGIN");
                for (int c = 0; c < 6; c++) {
                    int id = random.nextInt(50);
                    long[] row = {random.nextInt(3), random.nextInt(150), random.nextInt(100)};
                    if (!table.containsKey(id)) {
                        db.execute("INSERT INTO t VALUES (" + id + ", " + row[0] + ", " + row[1] + ", " + row[2] + ")");
                        table.put(id, row);
                    } else if (random.nextBoolean()) {
                        db.execute("DELETE FROM t WHERE id = " + id);
                        table.remove(id);
                    } else {
                        db.execute("UPDATE t SET ts = " + row[1] + ", v = " + row[2] + " WHERE id = " + id);
                        table.get(id)[1] = row[1];
                        table.get(id)[2] = row[2];
                    }
                }
                db.execute("COMMIT");
                assertThat(rows(db, "SELECT * FROM per_k ORDER BY 1, 2")).as("per k, round %d", round).containsExactlyElementsOf(sessions(table, 6, true));
                assertThat(rows(db, "SELECT * FROM overall ORDER BY 1, 2")).as("overall, round %d", round).containsExactlyElementsOf(sessions(table, 3, false));
            }
        }
    }

    /** The oracle: each partition's times sorted, a session ending where the next time is {@code gap} or more later. */
    private static List<String> sessions(Map<Integer, long[]> table, long gap, boolean partitioned) {
        TreeMap<Long, List<long[]>> parts = new TreeMap<>();
        for (long[] row : table.values()) parts.computeIfAbsent(partitioned ? row[0] : 0L, x -> new ArrayList<>()).add(row);
        List<String> out = new ArrayList<>();
        parts.forEach((k, rows) -> {
            rows.sort((a, b) -> Long.compare(a[1], b[1]));
            int first = 0;
            while (first < rows.size()) {
                int last = first;
                long sum = rows.get(first)[2];
                while (last + 1 < rows.size() && rows.get(last + 1)[1] - rows.get(last)[1] < gap) sum += rows.get(++last)[2];
                out.add(k + "|" + rows.get(first)[1] + "|" + (rows.get(last)[1] + gap) + "|" + (last - first + 1) + "|" + sum);
                first = last + 1;
            }
        });
        return out;
    }

    @Test
    void badArgumentsAreClearErrors() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE bid (id int, ts timestamp, note text)");
            fails("22023", () -> db.query("SELECT * FROM TUMBLE(bid, ts, INTERVAL '1 month')"));
            fails("22023", () -> db.query("SELECT * FROM TUMBLE(bid, ts, INTERVAL '0 seconds')"));
            fails("22023", () -> db.query("SELECT * FROM HOP(bid, ts, INTERVAL '-1 second', INTERVAL '5 seconds')"));
            fails("22023", () -> db.query("SELECT * FROM CUMULATE(bid, ts, INTERVAL '3 seconds', INTERVAL '10 seconds')"));
            fails("22004", () -> db.query("SELECT * FROM TUMBLE(bid, ts, NULL)"));
            fails("42804", () -> db.query("SELECT * FROM TUMBLE(bid, note, INTERVAL '1 second')"));
            fails("42804", () -> db.query("SELECT * FROM TUMBLE(bid, ts, 5)"));
            fails("42703", () -> db.query("SELECT * FROM TUMBLE(bid, nope, INTERVAL '1 second')"));
            fails("42P01", () -> db.query("SELECT * FROM TUMBLE(nope, ts, INTERVAL '1 second')"));
            fails("42883", () -> db.query("SELECT * FROM TUMBLE(bid, ts)"));
            fails("42883", () -> db.query("SELECT * FROM HOP(bid, ts, INTERVAL '1 second')"));
            fails("0A000", () -> db.query("SELECT * FROM TUMBLE(bid, ts, INTERVAL '1 second' * id)".replace("* id", "* (SELECT 1)")));
            fails("42883", () -> db.query("SELECT * FROM SESSION(bid, ts, INTERVAL '1 second', INTERVAL '1 second')"));
            fails("22023", () -> db.query("SELECT * FROM SESSION(bid, ts, INTERVAL '0 seconds')"));
            fails("42601", () -> db.query("SELECT * FROM TUMBLE(bid PARTITION BY id, ts, INTERVAL '1 second')"));
            fails("42703", () -> db.query("SELECT * FROM SESSION(bid PARTITION BY nope, ts, INTERVAL '1 second')"));
            fails("42601", () -> db.query("SELECT * FROM SESSION(bid PARTITION BY (id, ts, INTERVAL '1 second')"));
            fails("0A000", () -> db.query("SELECT * FROM TABLE(generate_series(1, 2))"));
            fails("42601", () -> db.query("SELECT * FROM TABLE(TUMBLE(bid, DESCRIPTOR(ts), INTERVAL '1' SECOND))"));
        }
    }

    @Test
    void aWindowOverASubqueryAndAViewKeepsItsDefinition() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE bid (id int, ts bigint)");
            db.execute("INSERT INTO bid VALUES (1, 3), (2, 12), (3, 13)");
            assertThat(rows(db, "SELECT w.id, w.window_start FROM TUMBLE((SELECT id, ts + 10 AS t FROM bid WHERE id > 1), t, 10) AS w ORDER BY 1"))
                    .containsExactly("2|20", "3|20");
            db.execute("CREATE VIEW per_window AS SELECT window_start, count(*) AS n FROM TUMBLE(bid, ts, 10) GROUP BY window_start");
            assertThat(rows(db, "SELECT * FROM per_window ORDER BY 1")).containsExactly("0|1", "10|2");
            assertThat(rows(db, "SELECT definition FROM pg_views WHERE viewname = 'per_window'").get(0)).contains("TUMBLE(bid, ts, 10)");
            assertThat(String.join("\n", rows(db, "EXPLAIN SELECT * FROM TUMBLE(bid, ts, 10)"))).contains("FlatMap tumble(#1, '10'::bigint)");
        }
    }

    /**
     * A windowed count and sum over random inserts, updates and deletes, kept as materialized
     * views for each function, equal after every round to the windows computed here from the
     * table's rows.
     */
    @Test
    void maintainedWindowedAggregatesAgreeWithARecomputation() {
        Random random = new Random(26);
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, k int, ts bigint, v int)");
            db.execute("CREATE MATERIALIZED VIEW tumbled AS SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s FROM TUMBLE(t, ts, 10) GROUP BY k, window_start, window_end");
            db.execute("CREATE MATERIALIZED VIEW hopped AS SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s FROM HOP(t, ts, 4, 10, 1) GROUP BY k, window_start, window_end");
            db.execute("CREATE MATERIALIZED VIEW cumulated AS SELECT k, window_start, window_end, count(*) AS n, sum(v) AS s FROM CUMULATE(t, ts, 5, 15) GROUP BY k, window_start, window_end");
            Map<Integer, long[]> table = new HashMap<>();
            for (int round = 0; round < 30; round++) {
                StringBuilder sql = new StringBuilder();
                for (int c = 0; c < 8; c++) {
                    int id = random.nextInt(40);
                    long[] row = {random.nextInt(3), random.nextInt(120) - 20, random.nextInt(100)};
                    if (!table.containsKey(id)) {
                        sql.append("INSERT INTO t VALUES (").append(id).append(", ").append(row[0]).append(", ").append(row[1]).append(", ").append(row[2]).append(");");
                        table.put(id, row);
                    } else if (random.nextBoolean()) {
                        sql.append("DELETE FROM t WHERE id = ").append(id).append(';');
                        table.remove(id);
                    } else {
                        sql.append("UPDATE t SET ts = ").append(row[1]).append(", v = ").append(row[2]).append(" WHERE id = ").append(id).append(';');
                        table.get(id)[1] = row[1];
                        table.get(id)[2] = row[2];
                    }
                }
                db.execute("BEGIN");
                for (String s : sql.toString().split(";")) db.execute(s);
                db.execute("COMMIT");
                assertThat(rows(db, "SELECT * FROM tumbled ORDER BY 1, 2, 3")).as("tumble, round %d", round).containsExactlyElementsOf(expected(table, 10, 10, 0, false));
                assertThat(rows(db, "SELECT * FROM hopped ORDER BY 1, 2, 3")).as("hop, round %d", round).containsExactlyElementsOf(expected(table, 4, 10, 1, false));
                assertThat(rows(db, "SELECT * FROM cumulated ORDER BY 1, 2, 3")).as("cumulate, round %d", round).containsExactlyElementsOf(expected(table, 15, 5, 0, true));
            }
        }
    }

    /**
     * The oracle: every window that holds each row's time, found by trying every start near it
     * (windows start at multiples of {@code every} plus {@code offset}; a hop's last
     * {@code size}, a cumulating window's prefixes grow by {@code size} up to {@code every}).
     */
    private static List<String> expected(Map<Integer, long[]> table, long every, long size, long offset, boolean cumulate) {
        TreeMap<List<Long>, long[]> groups = new TreeMap<>((a, b) -> {
            for (int i = 0; i < a.size(); i++) if (!a.get(i).equals(b.get(i))) return Long.compare(a.get(i), b.get(i));
            return 0;
        });
        for (long[] row : table.values()) {
            long ts = row[1];
            for (long start = ts - 40 - Math.floorMod(ts - 40 - offset, every); start <= ts; start += every) {
                List<long[]> windows = new ArrayList<>();
                if (cumulate) {
                    for (long end = start + size; end <= start + every; end += size) windows.add(new long[] {start, end});
                } else {
                    windows.add(new long[] {start, start + size});
                }
                for (long[] w : windows) {
                    if (w[0] <= ts && ts < w[1]) {
                        long[] agg = groups.computeIfAbsent(List.of(row[0], w[0], w[1]), x -> new long[2]);
                        agg[0]++;
                        agg[1] += row[2];
                    }
                }
            }
        }
        List<String> out = new ArrayList<>();
        groups.forEach((key, agg) -> out.add(key.get(0) + "|" + key.get(1) + "|" + key.get(2) + "|" + agg[0] + "|" + agg[1]));
        return out;
    }
}
