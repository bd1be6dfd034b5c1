package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ShardTest {
    @TempDir
    Path dir;
    private Blob blob;
    private Consensus consensus;

    private static final java.util.concurrent.atomic.AtomicInteger TABLES = new java.util.concurrent.atomic.AtomicInteger();
    private String table;

    private void stores(String kind) {
        if (kind.equals("postgres")) {
            // files for the parts, a PostgreSQL server for the state: the at-scale arrangement
            if (table == null) table = "shard_consensus_" + TABLES.incrementAndGet();
            blob = new FileBlob(dir.resolve("blob"));
            try {
                consensus = new PostgresConsensus(TestPostgres.url(), table);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        } else if (kind.equals("files")) {
            blob = new FileBlob(dir.resolve("blob"));
            consensus = new FileConsensus(dir.resolve("consensus"));
        } else {
            blob = new MemoryBlob();
            consensus = new MemoryConsensus();
        }
    }

    /** Closes and reopens file stores, as a restart does (in-memory ones are kept: they are the process). */
    private void restart(String kind) {
        if (kind.equals("memory")) return;
        blob.close();
        consensus.close();
        stores(kind);
    }

    @AfterEach
    void close() {
        if (blob != null) blob.close();
        if (consensus != null) consensus.close();
    }

    static Updates rows(long time, Object... rowsAndDiffs) {
        Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
        for (int i = 0; i < rowsAndDiffs.length; i += 2) {
            ((BytesColumn) u.keys()).add(((String) rowsAndDiffs[i]).getBytes(StandardCharsets.UTF_8));
            ((UnitColumn) u.vals()).add();
            u.push(time, ((Number) rowsAndDiffs[i + 1]).longValue());
        }
        return u;
    }

    static Map<String, Long> contents(Updates u) {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < u.size(); i++) m.put(new String(((BytesColumn) u.keys()).getBytes(i), StandardCharsets.UTF_8), u.diff(i));
        return m;
    }

    /**
     * The oracle: random appends (and restarts, and since moving forward), and at every time a
     * read is allowed, the snapshot equals the updates up to that time added up from scratch.
     */
    @ParameterizedTest
    @CsvSource({"memory,1", "memory,2", "files,3", "files,4", "files,5", "postgres,6"})
    void snapshotsEqualTheUpdatesAddedUpFromScratch(String kind, int seed) {
        stores(kind);
        Random r = new Random(seed);
        Shard shard = Shard.open(blob, consensus, "orders", 1);
        Shard.Writer writer = shard.openWriter();
        List<long[]> history = new ArrayList<>(); // (time, key, diff)
        long upper = 0;
        for (int step = 0; step < 40; step++) {
            long next = upper + 1 + r.nextInt(4);
            Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
            for (int n = r.nextInt(6); n > 0; n--) {
                long key = r.nextInt(8);
                long time = upper + r.nextInt((int) (next - upper));
                long diff = r.nextInt(5) - 2;
                ((BytesColumn) u.keys()).add(("k" + key).getBytes(StandardCharsets.UTF_8));
                ((UnitColumn) u.vals()).add();
                u.push(time, diff);
                history.add(new long[] {time, key, diff});
            }
            assertThat(writer.compareAndAppend(u, Antichain.of(upper), Antichain.of(next))).isInstanceOf(Shard.AppendResult.Appended.class);
            upper = next;
            if (r.nextInt(8) == 0) {
                restart(kind);
                shard = Shard.open(blob, consensus, "orders", 1);
                writer = shard.openWriter();
            }
            long since = shard.state().since().get(0)[0];
            if (r.nextInt(5) == 0) since = shard.advanceSince(Antichain.of(since + r.nextInt((int) (upper - since)))).since().get(0)[0];
            // merges written in parts of a few updates each, or one part
            if (r.nextInt(3) == 0) shard.compact(r.nextBoolean() ? 64 : Shard.PART_MAX_BYTES);
            for (long asOf = since; asOf < upper; asOf++) {
                Map<String, Long> expected = new TreeMap<>();
                for (long[] h : history) if (h[0] <= asOf) expected.merge("k" + h[1], h[2], Long::sum);
                expected.values().removeIf(v -> v == 0);
                Updates snap = shard.snapshot(new long[] {asOf});
                assertThat(contents(snap)).as("as of %d", asOf).isEqualTo(expected);
                for (int i = 0; i < snap.size(); i++) assertThat(snap.time(i)).isEqualTo(asOf);
            }
        }
        assertThat(shard.state().upper()).isEqualTo(Antichain.of(upper));
    }

    /**
     * A merge larger than a part is written as several: each of bounded size, in key order (a
     * part's keys all after the one's before it), the shard reading the same as before; with
     * paging on, the updates being merged go to spill files on the way rather than all into
     * the heap. (A table shard of gigabytes merged into one array would run a small heap out of
     * memory, or pass the 2 GB an array can hold.)
     */
    @Test
    void aMergeIsWrittenInBoundedOrderedPartsAndSpillsWhenPaged(@TempDir Path spill) {
        stores("files");
        Shard shard = Shard.open(blob, consensus, "big", 1);
        Shard.Writer w = shard.openWriter();
        Map<String, Long> expected = new TreeMap<>();
        for (int t = 0; t < 2; t++) {
            Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
            for (int i = 0; i < 20_000; i++) {
                String row = "row-" + ((i * 7919L + t * 13) % 30_000) + "-" + "x".repeat(40);
                ((BytesColumn) u.keys()).add(row.getBytes(StandardCharsets.UTF_8));
                ((UnitColumn) u.vals()).add();
                u.push(t, 1);
                expected.merge(row, 1L, Long::sum);
            }
            assertThat(w.compareAndAppend(u, Antichain.of(t), Antichain.of(t + 1))).isInstanceOf(Shard.AppendResult.Appended.class);
        }
        shard.advanceSince(Antichain.of(1));
        long partMax = 64 << 10;
        dev.tributary.arrangements.Paging.enable(spill, 32 << 10, 16 << 10);
        long spilledBefore = dev.tributary.arrangements.Paging.stats().spilledBytes();
        try {
            assertThat(shard.compact(partMax)).isEqualTo(1);
            assertThat(dev.tributary.arrangements.Paging.stats().spilledBytes()).as("bytes the merge spilled").isGreaterThan(spilledBefore + 1_000_000);
        } finally {
            dev.tributary.arrangements.Paging.disable(spill);
        }
        ShardState st = shard.state();
        assertThat(st.batches()).hasSize(1);
        List<PartMeta> parts = st.batches().get(0).parts();
        assertThat(parts.size()).as("parts of a merge of %d updates", 40_000).isGreaterThan(10);
        String lastKey = null;
        for (PartMeta p : parts) {
            Updates u = PartCodec.decode(blob.get(p.key()).orElseThrow(), p.key());
            assertThat(p.bytes()).as("bytes of part %s", p.key()).isLessThan(2 * partMax);
            String first = new String(((BytesColumn) u.keys()).getBytes(0), StandardCharsets.UTF_8);
            if (lastKey != null) assertThat(first).as("first key of %s after the part before's last", p.key()).isGreaterThan(lastKey);
            lastKey = new String(((BytesColumn) u.keys()).getBytes(u.size() - 1), StandardCharsets.UTF_8);
        }
        assertThat(contents(shard.snapshot(new long[] {1}))).isEqualTo(expected);
        assertThat(blob.list("shards/big/")).hasSize(parts.size());
    }

    /**
     * Steady churn: 1,000 keys whose values change 40,000 times, since one behind upper, compacted
     * after every append. What the shard keeps stays within a small factor of the live rows, in
     * a logarithmic number of batches, and it still reads right.
     */
    @ParameterizedTest
    @ValueSource(strings = {"memory", "files"})
    void underChurnTheBytesKeptStayNearTheLiveData(String kind) {
        stores(kind);
        Shard shard = Shard.open(blob, consensus, "churn", 1);
        Shard.Writer w = shard.openWriter();
        Random r = new Random(3);
        int keys = 1000;
        int[] value = new int[keys];
        for (int k = 0; k < keys; k++) value[k] = -1;
        for (long t = 0; t < 200; t++) {
            Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
            for (int i = 0; i < (t == 0 ? keys : 200); i++) {
                int k = t == 0 ? i : r.nextInt(keys);
                if (value[k] >= 0) {
                    ((BytesColumn) u.keys()).add(("key-" + k + "=" + value[k]).getBytes(StandardCharsets.UTF_8));
                    ((UnitColumn) u.vals()).add();
                    u.push(t, -1);
                }
                value[k] = r.nextInt(1_000_000);
                ((BytesColumn) u.keys()).add(("key-" + k + "=" + value[k]).getBytes(StandardCharsets.UTF_8));
                ((UnitColumn) u.vals()).add();
                u.push(t, 1);
            }
            assertThat(w.compareAndAppend(u, Antichain.of(t), Antichain.of(t + 1))).isInstanceOf(Shard.AppendResult.Appended.class);
            shard.advanceSince(Antichain.of(t));
            shard.compact();
        }
        ShardState st = shard.state();
        Updates live = shard.snapshot(new long[] {199});
        Map<String, Long> expected = new TreeMap<>();
        for (int k = 0; k < keys; k++) expected.put("key-" + k + "=" + value[k], 1L);
        assertThat(contents(live)).isEqualTo(expected);
        long kept = 0;
        for (BatchMeta b : st.batches()) for (PartMeta p : b.parts()) kept += p.bytes();
        long liveBytes = PartCodec.encode(live).length;
        assertThat(kept).as("bytes kept against %d live", liveBytes).isLessThan(4 * liveBytes);
        assertThat(st.records()).isLessThan(4L * keys);
        assertThat(st.batches().size()).isLessThanOrEqualTo(2 * 8 + 2);
        // and nothing but what the state names is left in the store
        long stored = blob.list("shards/churn/").size();
        long named = st.batches().stream().mapToLong(b -> b.parts().size()).sum();
        assertThat(stored).isEqualTo(named);
    }

    /** Reads racing compaction: a read whose parts were merged away starts again from the new state and answers right. */
    @ParameterizedTest
    @ValueSource(strings = {"memory", "files", "postgres"})
    void readsRacingCompactionAnswerRight(String kind) throws Exception {
        stores(kind);
        Random r = new Random(9);
        int steps = 60;
        List<long[]> history = new ArrayList<>();
        List<Updates> appends = new ArrayList<>();
        for (int t = 0; t < steps; t++) {
            Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
            for (int n = 1 + r.nextInt(20); n > 0; n--) {
                long key = r.nextInt(30);
                long diff = r.nextInt(3) - 1;
                ((BytesColumn) u.keys()).add(("k" + key).getBytes(StandardCharsets.UTF_8));
                ((UnitColumn) u.vals()).add();
                u.push(t, diff);
                history.add(new long[] {t, key, diff});
            }
            appends.add(u);
        }
        Shard.open(blob, consensus, "raced", 1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> writer = pool.submit(() -> {
                Shard s = Shard.open(blob, consensus, "raced", 1);
                Shard.Writer w = s.openWriter();
                for (int t = 0; t < steps; t++) {
                    assertThat(w.compareAndAppend(appends.get(t), Antichain.of(t), Antichain.of(t + 1))).isInstanceOf(Shard.AppendResult.Appended.class);
                    s.compact();
                }
            });
            Future<Integer> reader = pool.submit(() -> {
                Shard s = Shard.open(blob, consensus, "raced", 1);
                Random rr = new Random(1);
                int reads = 0;
                while (true) {
                    long upper = s.state().upper().get(0)[0];
                    if (upper > 0) {
                        long asOf = rr.nextInt((int) upper);
                        Map<String, Long> expected = new TreeMap<>();
                        for (long[] h : history) if (h[0] <= asOf) expected.merge("k" + h[1], h[2], Long::sum);
                        expected.values().removeIf(v -> v == 0);
                        assertThat(contents(s.snapshot(new long[] {asOf}))).as("as of %d", asOf).isEqualTo(expected);
                        reads++;
                    }
                    if (upper == steps) return reads;
                }
            });
            writer.get();
            assertThat(reader.get()).isPositive();
        } finally {
            pool.shutdown();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "files"})
    void aNewerWriterFencesTheOlderOne(String kind) {
        stores(kind);
        Shard a = Shard.open(blob, consensus, "t", 1);
        Shard.Writer first = a.openWriter();
        assertThat(first.compareAndAppend(rows(0, "x", 1), Antichain.of(0), Antichain.of(1))).isInstanceOf(Shard.AppendResult.Appended.class);
        // another process opens the shard and its writer
        Shard b = Shard.open(blob, consensus, "t", 1);
        Shard.Writer second = b.openWriter();
        assertThat(first.compareAndAppend(rows(1, "y", 1), Antichain.of(1), Antichain.of(2))).isEqualTo(new Shard.AppendResult.Fenced(second.epoch()));
        assertThat(second.compareAndAppend(rows(1, "z", 1), Antichain.of(1), Antichain.of(2))).isInstanceOf(Shard.AppendResult.Appended.class);
        assertThat(contents(a.snapshot(new long[] {1}))).containsOnlyKeys("x", "z");
        // the fenced append's part was removed: every part left is referenced
        assertThat(blob.list("shards/t/")).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "files"})
    void anAppendFromAStaleUpperIsRefusedWithTheCurrentOne(String kind) {
        stores(kind);
        Shard s = Shard.open(blob, consensus, "t", 1);
        Shard.Writer w = s.openWriter();
        w.compareAndAppend(rows(0, "x", 1), Antichain.of(0), Antichain.of(5));
        assertThat(w.compareAndAppend(rows(2, "y", 1), Antichain.of(2), Antichain.of(6))).isEqualTo(new Shard.AppendResult.UpperMismatch(Antichain.of(5)));
        assertThat(blob.list("shards/t/")).hasSize(1);
    }

    @Test
    void appendsThatBreakTheShardsOrderAreRefusedWithAReason() {
        stores("memory");
        Shard.Writer w = Shard.open(blob, consensus, "t", 1).openWriter();
        assertThatThrownBy(() -> w.compareAndAppend(rows(3, "x", 1), Antichain.of(0), Antichain.of(3)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside the append's [{0}, {3})");
        assertThatThrownBy(() -> w.compareAndAppend(rows(0, "x", 1), Antichain.of(0), Antichain.of(0)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("forward");
        assertThatThrownBy(() -> Shard.open(blob, consensus, "t", 2)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("arity 1");
        assertThatThrownBy(() -> Shard.open(blob, consensus, "a/b", 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readsOutsideTheRetainedAndWrittenTimesAreRefusedWithAReason() {
        stores("memory");
        Shard s = Shard.open(blob, consensus, "t", 1);
        s.openWriter().compareAndAppend(rows(0, "x", 1), Antichain.of(0), Antichain.of(10));
        s.holdSince("subscriber", Antichain.of(4));
        assertThatThrownBy(() -> s.advanceSince(Antichain.of(6))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reader 'subscriber'");
        s.advanceSince(Antichain.of(4));
        assertThatThrownBy(() -> s.snapshot(new long[] {3})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("compacted up to {4}");
        assertThatThrownBy(() -> s.snapshot(new long[] {10})).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("written up to {10}");
        assertThatThrownBy(() -> s.holdSince("late", Antichain.of(2))).isInstanceOf(IllegalArgumentException.class);
        s.releaseHold("subscriber");
        assertThat(s.advanceSince(Antichain.of(9)).since()).isEqualTo(Antichain.of(9));
        assertThat(contents(s.snapshot(new long[] {9}))).containsEntry("x", 1L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"memory", "files"})
    void aMissingOrDamagedPartIsAnErrorNamingTheShardAndThePart(String kind) {
        stores(kind);
        Shard s = Shard.open(blob, consensus, "t", 1);
        s.openWriter().compareAndAppend(rows(0, "x", 1), Antichain.of(0), Antichain.of(1));
        String part = blob.list("shards/t/").get(0);
        blob.put(part, PartCodec.encode(rows(0, "forged", 1)));
        assertThatThrownBy(() -> s.snapshot(new long[] {0})).isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("shard 't'").hasMessageContaining(part).hasMessageContaining("not the part");
        blob.delete(part);
        assertThatThrownBy(() -> s.snapshot(new long[] {0})).isInstanceOf(CorruptDataException.class).hasMessageContaining("missing");
    }

    /** Handles racing on one shard: a writer appending and a reader moving its hold; every change lands once. */
    @ParameterizedTest
    @ValueSource(strings = {"memory", "files", "postgres"})
    void concurrentHandlesRetryTheirChangesOnWhatTheOthersDid(String kind) throws Exception {
        stores(kind);
        Shard.open(blob, consensus, "t", 1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> appends = pool.submit(() -> {
                Shard s = Shard.open(blob, consensus, "t", 1);
                Shard.Writer w = s.openWriter();
                for (int i = 0; i < 60; i++) {
                    assertThat(w.compareAndAppend(rows(i, "r" + i, 1), Antichain.of(i), Antichain.of(i + 1))).isInstanceOf(Shard.AppendResult.Appended.class);
                }
            });
            Future<?> holds = pool.submit(() -> {
                Shard s = Shard.open(blob, consensus, "t", 1);
                for (int i = 0; i < 60; i++) {
                    s.holdSince("reader", Antichain.of(0));
                    s.releaseHold("reader");
                }
            });
            appends.get();
            holds.get();
        } finally {
            pool.shutdown();
        }
        Shard s = Shard.open(blob, consensus, "t", 1);
        assertThat(s.state().batches()).hasSize(60);
        assertThat(s.state().readers()).isEmpty();
        assertThat(contents(s.snapshot(new long[] {59}))).hasSize(60);
    }

    @Test
    void aShardKeepsFewVersionsOfItsStateInConsensus() {
        stores("memory");
        Shard s = Shard.open(blob, consensus, "t", 1);
        Shard.Writer w = s.openWriter();
        for (int i = 0; i < 100; i++) w.compareAndAppend(rows(i, "r" + i, 1), Antichain.of(i), Antichain.of(i + 1));
        assertThat(consensus.scan("shard/t", 0, 1000)).hasSizeLessThanOrEqualTo(Shard.TRUNCATE_EVERY);
        assertThat(contents(s.snapshot(new long[] {99}))).hasSize(100);
    }

    @Test
    void garbageIsOnlyWhatNoWriterCanStillReferTo() {
        stores("memory");
        Shard s = Shard.open(blob, consensus, "t", 1);
        Shard.Writer w = s.openWriter();
        w.compareAndAppend(rows(0, "x", 1), Antichain.of(0), Antichain.of(1));
        // a part written by a writer that crashed before its compare-and-set, and one of the current writer in flight
        blob.put("shards/t/e" + w.epoch() + "-crashed", new byte[] {1});
        blob.put("shards/t/e" + w.epoch() + "-c-compaction-that-crashed", new byte[] {1});
        s.openWriter();
        blob.put("shards/t/e" + (w.epoch() + 1) + "-in-flight", new byte[] {1});
        assertThat(s.collectGarbage()).isEqualTo(2);
        assertThat(blob.list("shards/t/")).hasSize(2).contains("shards/t/e" + (w.epoch() + 1) + "-in-flight");
        assertThat(contents(s.snapshot(new long[] {0}))).containsOnlyKeys("x");
    }

    @Test
    void stateRoundTripsAndDamagedStateIsAnError() {
        Antichain two = Antichain.fromTimes(2, List.of(new long[] {1, 5}, new long[] {3, 2}));
        ShardState st = new ShardState("s", 2, 7, Antichain.of(new long[] {0, 0}), two,
                List.of(new BatchMeta(new dev.tributary.arrangements.Description(Antichain.of(new long[] {0, 0}), two, Antichain.of(new long[] {0, 0})),
                        List.of(new PartMeta("shards/s/e7-a", 10, 123, 2, Long.MAX_VALUE)))),
                Map.of("r", Antichain.of(new long[] {1, 1})));
        assertThat(ShardState.decode(st.encode(), "state")).isEqualTo(st);
        assertThatThrownBy(() -> ShardState.decode(new byte[] {1, 2, 3}, "state of s")).isInstanceOf(CorruptDataException.class).hasMessageContaining("state of s");
        byte[] wrongUpper;
        try {
            wrongUpper = dev.tributary.storage.proto.ProtoShardState.parseFrom(st.encode()).toBuilder().clearBatches().build().toByteArray();
        } catch (com.google.protobuf.InvalidProtocolBufferException e) {
            throw new AssertionError(e);
        }
        assertThatThrownBy(() -> ShardState.decode(wrongUpper, "state of s")).isInstanceOf(CorruptDataException.class).hasMessageContaining("batches end at");
    }
}
