package dev.tributary.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tables' log against an oracle: what a reopened log (after a close, or after a crash that
 * left it unflushed) gives for each table equals the transactions appended, added up; group
 * commit, large writes, flushing and truncation, retained history, faults and fencing.
 */
class TxnLogTest {
    private static final List<String> LOG = new ArrayList<>();

    static Updates rows(long time, Object... rowAndDiff) {
        Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
        for (int i = 0; i < rowAndDiff.length; i += 2) {
            ((BytesColumn) u.keys()).add(((String) rowAndDiff[i]).getBytes(StandardCharsets.UTF_8));
            ((UnitColumn) u.vals()).add();
            u.push(time, (Long) rowAndDiff[i + 1]);
        }
        return u;
    }

    /** {@code n} distinct rows inserted at {@code time}: a write large enough to go to blob storage. */
    static Updates manyRows(int n, long time) {
        Updates big = new Updates(new BytesColumn(), new UnitColumn(), 1);
        for (int i = 0; i < n; i++) {
            ((BytesColumn) big.keys()).add(("row " + i).getBytes(StandardCharsets.UTF_8));
            ((UnitColumn) big.vals()).add();
            big.push(time, 1);
        }
        return big;
    }

    /** Row text to count, for the updates at or before {@code asOf}. */
    static Map<String, Long> contents(Updates u) {
        Map<String, Long> out = new TreeMap<>();
        for (int i = 0; i < u.size(); i++) {
            String row = new String(((BytesColumn) u.keys()).getBytes(i), StandardCharsets.UTF_8);
            if (out.merge(row, u.diff(i), Long::sum) == 0) out.remove(row);
        }
        return out;
    }

    private static TxnLog open(Blob blob, Consensus consensus) {
        return TxnLog.open(blob, consensus, LOG::add);
    }

    /** Random transactions over three tables; returns the expected contents per table. */
    private static Map<Long, Map<String, Long>> churn(TxnLog log, Random random, long firstTime, int txns) throws Exception {
        Map<Long, Map<String, Long>> expected = new HashMap<>();
        CompletableFuture<Void> last = null;
        for (int t = 0; t < txns; t++) {
            long time = firstTime + t;
            Map<Long, Updates> writes = new HashMap<>();
            for (long table = 1; table <= 3; table++) {
                if (random.nextInt(3) == 0) continue;
                Map<String, Long> e = expected.computeIfAbsent(table, k -> new TreeMap<>());
                List<Object> changes = new ArrayList<>();
                for (int k = 0; k < 1 + random.nextInt(4); k++) {
                    String row = "r" + random.nextInt(20);
                    long diff = e.containsKey(row) && random.nextBoolean() ? -1 : 1;
                    changes.add(row);
                    changes.add(diff);
                    if (e.merge(row, diff, Long::sum) == 0) e.remove(row);
                }
                writes.put(table, rows(time, changes.toArray()));
            }
            last = log.append(time, writes);
        }
        if (last != null) last.get(30, TimeUnit.SECONDS);
        return expected;
    }

    private static void assertTables(TxnLog log, Map<Long, Map<String, Long>> expected) {
        for (Map.Entry<Long, Map<String, Long>> e : expected.entrySet()) {
            assertEquals(e.getValue(), contents(log.table(e.getKey(), Long.MAX_VALUE)), "table " + e.getKey());
        }
    }

    @Test
    void aCrashedLogIsRecoveredFromItsUnflushedVersions() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog first = open(blob, consensus);
        long flushedAtOpen = first.flushes();
        Map<Long, Map<String, Long>> expected = churn(first, new Random(1), 10, 300);
        assertEquals(flushedAtOpen, first.flushes(), "300 small transactions stay in the log");
        // no close: a crash. The reopened log flushes it all into the shards
        TxnLog second = open(blob, consensus);
        assertTables(second, expected);
        assertEquals(310, second.upper());
        assertEquals(1, consensus.scan(TxnLog.KEY, 0, 1000).size(), "flushed at recovery, the log keeps only its head");
        second.close();
        assertTables(open(blob, consensus), expected);
    }

    @Test
    void filesSurviveCloseAndReopen(@TempDir Path dir) throws Exception {
        Map<Long, Map<String, Long>> expected;
        try (FileBlob blob = new FileBlob(dir.resolve("blob")); FileConsensus consensus = new FileConsensus(dir.resolve("consensus"))) {
            TxnLog log = open(blob, consensus);
            expected = churn(log, new Random(2), 1, 200);
            log.close();
        }
        try (FileBlob blob = new FileBlob(dir.resolve("blob")); FileConsensus consensus = new FileConsensus(dir.resolve("consensus"))) {
            TxnLog log = open(blob, consensus);
            assertTables(log, expected);
            Map<Long, Map<String, Long>> more = churn(log, new Random(3), log.upper(), 50);
            log.close();
            // the second round's changes are on top of the first's
            assertEquals(201, log.upper() - 50);
            TxnLog again = open(blob, consensus);
            for (long t = 1; t <= 3; t++) {
                Map<String, Long> both = new TreeMap<>(expected.getOrDefault(t, Map.of()));
                more.getOrDefault(t, Map.of()).forEach((r, d) -> {
                    if (both.merge(r, d, Long::sum) == 0) both.remove(r);
                });
                assertEquals(both, contents(again.table(t, Long.MAX_VALUE)));
            }
            again.close();
        }
    }

    @Test
    void concurrentCommitsShareDurableWrites() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus inner = new MemoryConsensus();
        // the log's writes wait for the test's permit, as for a slow fsync: commits queue behind them
        java.util.concurrent.Semaphore permits = new java.util.concurrent.Semaphore(0);
        boolean[] gating = {false};
        Consensus gated = new FaultyStores.Consensus(inner) {
            @Override
            public CasResult compareAndSet(String key, long expected, byte[] data) {
                if (gating[0] && key.equals(TxnLog.KEY)) permits.acquireUninterruptibly();
                return super.compareAndSet(key, expected, data);
            }
        };
        TxnLog log = open(blob, gated);
        gating[0] = true;
        Object clock = new Object();
        long[] next = {1};
        int threads = 8, rounds = 20;
        long groupsBefore = log.groups();
        for (int round = 0; round < rounds; round++) {
            java.util.concurrent.CountDownLatch queued = new java.util.concurrent.CountDownLatch(threads);
            List<CompletableFuture<Void>> acks = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Thread> ts = new ArrayList<>();
            for (int k = 0; k < threads; k++) {
                int me = k, r = round;
                ts.add(Thread.ofPlatform().start(() -> {
                    synchronized (clock) { // as the coordinator gives times: in order, under its lock
                        long time = next[0]++;
                        acks.add(log.append(time, Map.of(1L, rows(time, "t" + me + "-" + r, 1L))));
                    }
                    queued.countDown();
                }));
            }
            queued.await(); // every commit queued while the first write waits for its permit
            permits.release(2); // that write, and one more for all the others
            for (Thread t : ts) t.join();
            for (CompletableFuture<Void> f : acks) f.get(30, TimeUnit.SECONDS);
        }
        long groups = log.groups() - groupsBefore;
        assertTrue(groups <= 2L * rounds, threads * rounds + " commits from " + threads + " threads took " + groups + " durable writes");
        assertEquals(threads * rounds, contents(open(blob, inner).table(1, Long.MAX_VALUE)).size());
    }

    @Test
    void aLargeWriteIsOnePartNamedByTheLog() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog log = open(blob, consensus);
        Updates big = manyRows(100_000, 5);
        log.append(5, Map.of(7L, big)).get(30, TimeUnit.SECONDS);
        byte[] head = consensus.head(TxnLog.KEY).orElseThrow().data();
        assertTrue(head.length < 1000, "the log names the part rather than holding 100,000 rows: " + head.length + " bytes");
        assertEquals(1, blob.list("shards/table-7/").size());
        TxnLog again = open(blob, consensus);
        assertEquals(100_000, contents(again.table(7, Long.MAX_VALUE)).size());
        assertEquals(1, blob.list("shards/table-7/").size(), "the flush adopted the part; nothing was copied");
    }

    @Test
    void aVeryLargeWriteIsCutIntoParts() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog log = TxnLog.open(blob, consensus, LOG::add, 1 << 20);
        log.append(4, Map.of(7L, manyRows(200_000, 4))).get(30, TimeUnit.SECONDS);
        assertTrue(blob.list("shards/table-7/").size() >= 4, "parts: " + blob.list("shards/table-7/").size());
        Map<String, Long> got = contents(open(blob, consensus).table(7, Long.MAX_VALUE));
        assertEquals(200_000, got.size());
        assertTrue(got.values().stream().allMatch(d -> d == 1));
    }

    @Test
    void manySmallCommitsAreFlushedAndTruncatedAsTheyGo() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog log = open(blob, consensus);
        Map<Long, Map<String, Long>> expected = churn(log, new Random(4), 1, TxnLog.FLUSH_TXNS * 2 + 100);
        log.close(); // its flusher works beside it: let it end before another log opens the stores
        assertTrue(log.flushes() >= 2, "flushed " + log.flushes() + " times");
        assertTrue(consensus.scan(TxnLog.KEY, 0, 100_000).size() < TxnLog.FLUSH_TXNS, "the flushed versions are truncated");
        assertTables(open(blob, consensus), expected);
    }

    @Test
    void aHeldTableKeepsItsHistoryAcrossRestarts() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog log = open(blob, consensus);
        log.holdSince(1, 0);
        log.append(10, Map.of(1L, rows(10, "a", 1L), 2L, rows(10, "a", 1L))).join();
        log.append(20, Map.of(1L, rows(20, "a", -1L, "b", 1L), 2L, rows(20, "a", -1L, "b", 1L))).join();
        log.close();
        TxnLog again = open(blob, consensus);
        assertEquals(Map.of("a", 1L), contents(again.table(1, 15)), "table 1 as of 15");
        assertEquals(Map.of("b", 1L), contents(again.table(1, 20)));
        // table 2 keeps only its present: its history folds into the latest time
        Updates t2 = again.table(2, Long.MAX_VALUE);
        for (int i = 0; i < t2.size(); i++) assertEquals(20, t2.time(i));
        assertEquals(Map.of("b", 1L), contents(t2));
    }

    /** Regression (crash harness, session 28): the recovery's flush folded a held table's history, as the holds were not set again yet. */
    @Test
    void aHeldTableKeepsItsHistoryAcrossACrash() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog log = open(blob, consensus);
        log.holdSince(1, 0);
        log.append(10, Map.of(1L, rows(10, "a", 1L))).join();
        log.append(20, Map.of(1L, rows(20, "a", -1L, "b", 1L))).join();
        // no close: a crash, with both writes still in the log only
        TxnLog again = open(blob, consensus);
        assertEquals(Map.of("a", 1L), contents(again.table(1, 15)), "table 1 as of 15, after the recovery's flush");
        assertEquals(Map.of("b", 1L), contents(again.table(1, 20)));
        assertEquals(true, again.since(1) < 10, "since " + again.since(1) + ": both writes' times kept apart");
    }

    @Test
    void aStoreThatIsDownDelaysCommitsWithoutLosingThem() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus inner = new MemoryConsensus();
        FaultyStores.Consensus consensus = new FaultyStores.Consensus(inner);
        TxnLog log = open(blob, consensus);
        log.append(1, Map.of(1L, rows(1, "a", 1L))).join();
        consensus.down = true;
        CompletableFuture<Void> during = log.append(2, Map.of(1L, rows(2, "b", 1L)));
        assertThrows(java.util.concurrent.TimeoutException.class, () -> during.get(200, TimeUnit.MILLISECONDS), "not acknowledged while the store is down");
        consensus.down = false;
        during.get(30, TimeUnit.SECONDS);
        // a compare-and-set that landed and then failed is seen as landed when retried
        consensus.failAfter = 1;
        log.append(3, Map.of(1L, rows(3, "c", 1L))).get(30, TimeUnit.SECONDS);
        consensus.failBefore = 2;
        log.append(4, Map.of(1L, rows(4, "d", 1L))).get(30, TimeUnit.SECONDS);
        assertFalse(LOG.isEmpty(), "the faults were reported");
        assertEquals(Map.of("a", 1L, "b", 1L, "c", 1L, "d", 1L), contents(open(blob, inner).table(1, Long.MAX_VALUE)));
    }

    @Test
    void aFullDiskUnderALargeWriteDelaysItWithoutLosingIt() throws Exception {
        FaultyStores.Blob blob = new FaultyStores.Blob(new MemoryBlob());
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog log = open(blob, consensus);
        Updates big = manyRows(50_000, 2);
        blob.failPuts = 3; // no space left, three times over
        log.append(2, Map.of(1L, big)).get(30, TimeUnit.SECONDS);
        assertEquals(0, blob.failPuts);
        assertEquals(50_000, contents(open(blob.inner, consensus).table(1, Long.MAX_VALUE)).size());
    }

    @Test
    void aDroppedTablesDataIsDeletedAndStaysGone() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog log = open(blob, consensus);
        Updates big = manyRows(50_000, 1);
        log.append(1, Map.of(5L, big, 6L, rows(1, "kept", 1L))).join();
        log.append(2, Map.of(5L, rows(2, "more", 1L))).join();
        assertFalse(blob.list("shards/table-5/").isEmpty());
        log.dropTable(5);
        log.close();
        assertEquals(List.of(), blob.list("shards/table-5/"), "the dropped table's parts are deleted");
        TxnLog again = open(blob, consensus);
        assertEquals(Map.of(), contents(again.table(5, Long.MAX_VALUE)));
        assertEquals(Map.of("kept", 1L), contents(again.table(6, Long.MAX_VALUE)));
        assertEquals(java.util.Set.of(6L), again.tables());
        assertEquals(List.of(), blob.list("shards/table-5/"));
    }

    @Test
    void aSecondWriterFencesTheFirst() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        TxnLog first = open(blob, consensus);
        first.append(1, Map.of(1L, rows(1, "a", 1L))).join();
        TxnLog second = open(blob, consensus);
        second.append(2, Map.of(1L, rows(2, "b", 1L))).join();
        ExecutionException e = assertThrows(ExecutionException.class, () -> first.append(3, Map.of(1L, rows(3, "c", 1L))).get(30, TimeUnit.SECONDS));
        assertInstanceOf(DurableCatalog.FencedException.class, e.getCause());
        assertTrue(e.getCause().getMessage().contains("another server"), e.getCause().getMessage());
        assertEquals(Map.of("a", 1L, "b", 1L), contents(open(blob, consensus).table(1, Long.MAX_VALUE)));
    }

    @Test
    void appendsOutOfTimeOrderAreRefused() {
        TxnLog log = open(new MemoryBlob(), new MemoryConsensus());
        log.append(5, Map.of());
        assertThrows(IllegalArgumentException.class, () -> log.append(5, Map.of()));
    }
}
