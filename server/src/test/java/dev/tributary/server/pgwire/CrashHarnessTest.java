package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash harness: a child {@code serve --data} process under concurrent transactions from
 * several clients, killed with SIGKILL at a random moment, then started again on the same data
 * directory, round after round. After each restart: every commit a client saw acknowledged is
 * there exactly once, no transaction is there in part (each client's commits are sequential, so
 * what survives of them is a prefix: the acknowledged ones and at most the one in flight), and
 * the materialized view equals its query over the recovered tables, whether it was restored from a
 * checkpoint (the child takes one every second while writes come) or built again. A subscriber
 * follows acct ({@code COPY (SUBSCRIBE ...) TO STDOUT}) while the clients write; after each restart
 * it resumes AS OF the last time it saw whole, and the resumed stream repeats nothing and misses
 * nothing: its snapshot is what the subscriber had added up through that time, and the snapshot
 * plus the changes after it are acct's rows. Five rounds by default;
 * {@code -Dtributary.crash.runs=N} (100 in {@code -Plong}).
 */
class CrashHarnessTest {
    private static final int CLIENTS = 4;
    private static final int RUNS = Integer.getInteger("tributary.crash.runs", Integer.getInteger("jqwik.tries.default", 100) >= 1000 ? 100 : 5);

    private static ChildServer.Server start(Path data) throws Exception {
        // a checkpoint every second while writes come: kills land before, during and after them
        return ChildServer.start(data, List.of("-Xmx512m", "-Dtributary.checkpoint.interval.ms=100"));
    }

    private static Connection connect(ChildServer.Server s) throws SQLException {
        return s.connect();
    }

    /** What client {@code c}'s first {@code k} transactions leave in acct: id to v. */
    private static Map<Integer, Integer> expected(int c, int k) {
        Map<Integer, Integer> rows = new TreeMap<>();
        for (int i = 0; i < k; i++) {
            rows.put(c * 1_000_000 + i, i);
            if (i % 3 == 2) rows.computeIfPresent(c * 1_000_000 + i / 2, (id, v) -> v + 1);
            if (i % 5 == 4) rows.remove(c * 1_000_000 + i - 3);
        }
        return rows;
    }

    /** Client {@code c}'s transaction {@code k}: a row in log and in acct, sometimes an update and a delete. */
    private static void transaction(Statement st, int c, int k) throws SQLException {
        st.execute("BEGIN");
        st.execute("INSERT INTO log VALUES (" + c + ", " + k + ")");
        st.execute("INSERT INTO acct VALUES (" + (c * 1_000_000 + k) + ", " + c + ", " + k + ")");
        if (k % 3 == 2) st.execute("UPDATE acct SET v = v + 1 WHERE id = " + (c * 1_000_000 + k / 2));
        if (k % 5 == 4) st.execute("DELETE FROM acct WHERE id = " + (c * 1_000_000 + k - 3));
        st.execute("COMMIT");
    }

    private static List<String> rows(Statement st, String sql) throws SQLException {
        return JdbcRows.rows(st, sql);
    }

    @Test
    void acknowledgedCommitsSurviveSigkill(@TempDir Path dir) throws Exception {
        Path data = dir.resolve("data");
        Random random = new Random(24);
        AtomicIntegerArray acked = new AtomicIntegerArray(CLIENTS);
        ChildServer.Server server = start(data);
        int restored = 0;
        Follower follower = new Follower();
        try (Connection conn = connect(server); Statement st = conn.createStatement()) {
            // history kept, so that a subscriber can resume as of a time before a crash
            st.execute("CREATE TABLE acct (id int PRIMARY KEY, client int NOT NULL, v int) WITH (RETAIN HISTORY FOR '1 hour')");
            st.execute("CREATE TABLE log (client int, seq int)");
            st.execute("CREATE MATERIALIZED VIEW totals AS SELECT client, count(*) AS n, sum(v) AS s FROM acct GROUP BY client");
            follower.start(Follower.millis(rows(st, "SELECT now()").get(0)));
        }
        try {
            for (int run = 0; run < RUNS; run++) {
                // clients write until the server dies under them
                AtomicInteger failures = new AtomicInteger();
                // the kill comes after a random number of acknowledged commits, with the others in flight
                CountDownLatch killAt = new CountDownLatch(20 + random.nextInt(300));
                List<Thread> clients = new ArrayList<>();
                ChildServer.Server current = server;
                for (int c = 0; c < CLIENTS; c++) {
                    int client = c;
                    clients.add(Thread.ofPlatform().start(() -> {
                        try (Connection conn = connect(current); Statement st = conn.createStatement()) {
                            for (int k = acked.get(client); ; k++) {
                                transaction(st, client, k);
                                acked.set(client, k + 1); // acknowledged
                                killAt.countDown();
                            }
                        } catch (SQLException e) {
                            failures.incrementAndGet(); // the kill, seen by the client
                        }
                    }));
                }
                Thread following = Thread.ofPlatform().start(() -> follower.follow(current));
                if (!killAt.await(120, TimeUnit.SECONDS)) throw new AssertionError("run " + run + ": the clients made no progress; failures " + failures + "\n" + server.log());
                server.process().destroyForcibly(); // SIGKILL
                server.process().waitFor(30, TimeUnit.SECONDS);
                for (Thread t : clients) t.join(30_000);
                following.join(30_000);
                int[] ackedBefore = new int[CLIENTS];
                for (int c = 0; c < CLIENTS; c++) ackedBefore[c] = acked.get(c);

                server = start(data);
                if (server.log().toString().contains("restored from the checkpoint")) restored++;
                try (Connection conn = connect(server); Statement st = conn.createStatement()) {
                    check(st, run, ackedBefore, acked);
                    follower.resume(conn, st, run);
                } catch (AssertionError | SQLException e) {
                    throw new AssertionError("run " + run + " after the restart: " + e.getMessage() + "\nserver log:\n" + server.log(), e);
                }
            }
            int total = 0;
            for (int c = 0; c < CLIENTS; c++) total += acked.get(c);
            System.out.println("crash harness: " + RUNS + " kills, " + total + " commits recovered, " + restored + " restarts from a checkpoint, "
                    + follower.changes + " changes followed, " + follower.resumedChanges + " after resuming");
            assertThat(follower.changes).as("changes the subscriber saw while the clients wrote").isGreaterThan(RUNS);
            // (a subscriber once kept the periodic checkpoints from being taken at all)
            assertThat(restored).as("restarts that restored the view from a checkpoint (a checkpoint every second)").isGreaterThan(0);
            assertThat(total).as("commits made over all runs").isGreaterThan(RUNS * CLIENTS);
        } finally {
            // also when a check failed: no server is left running
            server.process().destroyForcibly();
            server.process().waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(Files.exists(data.resolve("FORMAT"))).isTrue();
    }

    /** After a restart: each client's acknowledged commits there once and whole, and the view equal to its query. */
    private static void check(Statement st, int run, int[] ackedBefore, AtomicIntegerArray acked) throws SQLException {
        for (int c = 0; c < CLIENTS; c++) {
            List<String> seqs = rows(st, "SELECT seq FROM log WHERE client = " + c + " ORDER BY seq");
            int k = seqs.size();
            assertThat(k).as("run %d: client %d's commits recovered, of %d acknowledged", run, c, ackedBefore[c])
                    .isBetween(ackedBefore[c], ackedBefore[c] + 1);
            for (int i = 0; i < k; i++) assertThat(seqs.get(i)).as("run %d: client %d's commits, each once", run, c).isEqualTo(String.valueOf(i));
            List<String> want = new ArrayList<>();
            expected(c, k).forEach((id, v) -> want.add(id + "|" + v));
            assertThat(rows(st, "SELECT id, v FROM acct WHERE client = " + c + " ORDER BY id"))
                    .as("run %d: client %d's rows after %d whole transactions", run, c, k).isEqualTo(want);
            acked.set(c, k); // the one in flight landed: the next run goes on after it
        }
        assertThat(rows(st, "SELECT * FROM totals ORDER BY client"))
                .as("run %d: the materialized view over the recovered tables", run)
                .isEqualTo(rows(st, "SELECT client, count(*), sum(v) FROM acct GROUP BY client ORDER BY client"));
    }

    /**
     * A subscriber to acct across crashes: it adds up the changes it sees (row to count) and
     * remembers the last time it saw whole (a later time's change came after it), and after a
     * restart resumes AS OF that time.
     */
    private static final class Follower {
        /** acct as the changes seen so far add up through {@link #through}. */
        private final Map<String, Long> state = new TreeMap<>();
        /** Changes seen at times after {@link #through}: complete except maybe those of the latest time. */
        private final List<Object[]> pending = new ArrayList<>();
        /** The time (ms) the state is whole through. */
        private long through;
        volatile long changes;
        long resumedChanges;
        private volatile AssertionError failure;

        /** acct is empty at {@code now} (ms): the subscriber starts there. */
        void start(long now) {
            through = now;
        }

        /** Follows acct on {@code server} from {@link #through} until the stream breaks (the kill). */
        void follow(ChildServer.Server server) {
            try (Connection conn = connect(server)) {
                org.postgresql.copy.CopyOut out = conn.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
                        .copyOut("COPY (SUBSCRIBE acct AS OF " + through + ") TO STDOUT");
                long snapshotAt = through;
                Map<String, Long> snapshot = new TreeMap<>();
                boolean inSnapshot = true;
                for (byte[] line; (line = out.readFromCopy()) != null; ) {
                    String[] f = new String(line, StandardCharsets.UTF_8).stripTrailing().split("\\t", 3);
                    long t = millis(f[0]);
                    if (inSnapshot && t == snapshotAt) {
                        add(snapshot, f[2], Long.parseLong(f[1]));
                        continue;
                    }
                    if (inSnapshot) {
                        // a later time: the snapshot is whole
                        inSnapshot = false;
                        if (!snapshot.equals(state) && failure == null) {
                            failure = new AssertionError("the subscription AS OF " + snapshotAt + " began with " + snapshot + ", not what was seen through it: " + state);
                        }
                    }
                    if (t <= snapshotAt && failure == null) failure = new AssertionError("a change at " + t + " after the snapshot at " + snapshotAt);
                    settle(t);
                    pending.add(new Object[] {t, f[2], Long.parseLong(f[1])});
                    changes++;
                }
            } catch (SQLException e) {
                // the kill
            }
        }

        /** A change at {@code t} came: every pending change at an earlier time is whole, and added up. */
        private void settle(long t) {
            for (var it = pending.iterator(); it.hasNext(); ) {
                Object[] c = it.next();
                if ((long) c[0] < t) {
                    add(state, (String) c[1], (long) c[2]);
                    through = Math.max(through, (long) c[0]);
                    it.remove();
                }
            }
        }

        /**
         * After a restart (nothing written since): the subscription resumed AS OF the last time
         * seen whole, up to now, starts with the state added up so far and ends at acct's rows.
         */
        void resume(Connection conn, Statement st, int run) throws SQLException {
            if (failure != null) throw failure;
            pending.clear(); // the latest time may have been cut short: it comes again
            long now = millis(rows(st, "SELECT now()").get(0));
            org.postgresql.copy.CopyOut out = conn.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
                    .copyOut("COPY (SUBSCRIBE acct AS OF " + through + " UP TO " + now + ") TO STDOUT");
            Map<String, Long> snapshot = new TreeMap<>();
            Map<String, Long> after = new TreeMap<>();
            for (byte[] line; (line = out.readFromCopy()) != null; ) {
                String[] f = new String(line, StandardCharsets.UTF_8).stripTrailing().split("\t", 3);
                long t = millis(f[0]);
                assertThat(t).as("run %d: a change of the resumed subscription at or after its UP TO", run).isLessThan(now);
                if (t == through) {
                    add(snapshot, f[2], Long.parseLong(f[1]));
                } else {
                    assertThat(t).as("run %d: a change of the subscription resumed AS OF %d", run, through).isGreaterThan(through);
                    add(after, f[2], Long.parseLong(f[1]));
                    resumedChanges++;
                }
            }
            assertThat(snapshot).as("run %d: the snapshot of the subscription resumed AS OF %d, against the changes seen through it", run, through)
                    .isEqualTo(state);
            after.forEach((row, n) -> add(state, row, n));
            Map<String, Long> table = new TreeMap<>();
            for (String r : rows(st, "SELECT * FROM acct")) add(table, r.replace('|', '\t'), 1);
            assertThat(state).as("run %d: the resumed subscription added up, against acct", run).isEqualTo(table);
            through = now; // nothing was written since: the state holds there
        }

        private static void add(Map<String, Long> rows, String row, long diff) {
            if (rows.merge(row, diff, Long::sum) == 0) rows.remove(row);
        }

        /** A change time as the server writes it ({@code 2026-12-04 10:33:12.345+00}), in ms. */
        private static long millis(String text) {
            String iso = text.replace(' ', 'T');
            if (iso.matches(".*[+-]\\d\\d$")) iso += ":00";
            return java.time.OffsetDateTime.parse(iso).toInstant().toEpochMilli();
        }
    }
}
