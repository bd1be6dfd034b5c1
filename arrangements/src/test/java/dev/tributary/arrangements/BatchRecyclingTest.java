package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.Model.KeyVal;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * A (long, long) trace gives the arrays of the merge results it retires back to its thread's
 * pool, where its next merges take them; batches handed outside it (its batch list, a snapshot)
 * are never recycled and read the same however much the trace merges after; a cursor kept past
 * the trace's next change fails loudly instead of reading reused arrays.
 */
class BatchRecyclingTest {
    private static final int PER_STEP = 300;

    /** A sliding window over a (long, long) trace: each step inserts PER_STEP records and retracts those of WINDOW steps before. */
    private static final class Window {
        static final int WINDOW = 8;
        final TraceHandle trace = Trace.create("recycling", new LongColumn(), new LongColumn(), 1);
        final Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        final SplittableRandom random = new SplittableRandom(11);
        final long[][] keys = new long[WINDOW][PER_STEP];
        final long[][] vals = new long[WINDOW][PER_STEP];
        final SortedMap<KeyVal, Long> live = new TreeMap<>();
        int t;

        Window() {
            trace.setPhysicalCompaction(Antichain.empty(1));
        }

        void step() {
            Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
            int slot = t % WINDOW;
            for (int i = 0; i < PER_STEP; i++) {
                if (t >= WINDOW) push(u, keys[slot][i], vals[slot][i], -1);
                keys[slot][i] = random.nextInt(20_000);
                vals[slot][i] = random.nextInt(4);
                push(u, keys[slot][i], vals[slot][i], 1);
            }
            batcher.push(u);
            trace.trace().insert(batcher.seal(Antichain.of(t + 1)));
            trace.setLogicalCompaction(Antichain.of(t + 1));
            t++;
        }

        private void push(Updates u, long k, long v, long d) {
            ((LongColumn) u.keys()).add(k);
            ((LongColumn) u.vals()).add(v);
            u.push(t, d);
            live.merge(new KeyVal(k, v), d, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    private static SortedMap<KeyVal, Long> contents(Cursor c) {
        SortedMap<KeyVal, Long> out = new TreeMap<>();
        while (c.keyValid()) {
            long k = ((LongColumn) c.keyColumn()).getLong(c.keyIndex());
            while (c.valValid()) {
                KeyVal kv = new KeyVal(k, ((LongColumn) c.valColumn()).getLong(c.valIndex()));
                c.forEachTime((time, off, d) -> out.merge(kv, d, (a, b) -> a + b == 0 ? null : a + b));
                c.stepVal();
            }
            c.stepKey();
        }
        return out;
    }

    @Test
    void retiredMergeResultsGiveTheirArraysToLaterMerges() {
        Window w = new Window();
        Map<long[], Batch> seen = new IdentityHashMap<>();
        int reused = 0;
        int recycled = 0;
        List<Batch> earlier = new ArrayList<>();
        for (int s = 0; s < 200; s++) {
            w.step();
            for (Batch b : w.trace.trace().batches()) {
                Batch before = seen.get(b.diffs);
                if (before != null && before != b && before.recycled()) reused++;
                seen.put(b.diffs, b);
                earlier.add(b);
            }
            if (s % 23 == 0) assertThat(contents(w.trace.cursor())).as("step %d", s).isEqualTo(w.live);
        }
        for (Batch b : earlier) {
            if (b.recycled()) recycled++;
        }
        assertThat(contents(w.trace.cursor())).isEqualTo(w.live);
        assertThat(recycled).as("batches recycled by merges").isPositive();
        assertThat(reused).as("later batches written into the diffs of recycled ones").isPositive();
        for (Batch b : w.trace.trace().batches()) assertThat(b.recycled()).as("%s is in the trace", b).isFalse();
    }

    @Test
    void batchesHandedOutAreNeverRecycled() {
        Window w = new Window();
        for (int s = 0; s < 40; s++) w.step();
        List<Batch> listed = w.trace.batches();
        SortedMap<KeyVal, Long> listedThen = new TreeMap<>(w.live);
        for (int s = 0; s < 3; s++) w.step();
        TraceSnapshot snapshot = w.trace.snapshot();
        SortedMap<KeyVal, Long> snapshotThen = new TreeMap<>(w.live);
        for (int s = 0; s < 200; s++) w.step();
        for (Batch b : listed) assertThat(b.recycled()).as("%s was listed", b).isFalse();
        for (Batch b : snapshot.batches()) assertThat(b.recycled()).as("%s is in a snapshot", b).isFalse();
        assertThat(contents(Batch.cursor(listed))).as("the listed batches read as before").isEqualTo(listedThen);
        assertThat(contents(snapshot.cursor())).as("the snapshot reads as before").isEqualTo(snapshotThen);
        assertThat(contents(w.trace.cursor())).isEqualTo(w.live);
    }

    @Test
    void theReusedCursorIsOneObjectReadingWhatAFreshCursorReads() {
        Window w = new Window();
        Cursor first = null;
        for (int s = 0; s < 120; s++) {
            w.step();
            Cursor reused = w.trace.reusedCursor();
            if (first == null) first = reused;
            assertThat(reused).isSameAs(first);
            if (s % 7 == 0) {
                assertThat(contents(reused)).as("step %d", s).isEqualTo(contents(w.trace.cursor())).isEqualTo(w.live);
                Antichain through = w.trace.trace().upper();
                assertThat(contents(w.trace.reusedCursorThrough(through))).isEqualTo(contents(w.trace.cursorThrough(through)));
            }
        }
        assertThat(w.trace.reusedCursorThrough(w.trace.trace().upper())).isSameAs(first);
    }

    @Test
    void aCursorKeptPastTheTracesNextChangeFailsLoudly() {
        assertThat(Batch.class.desiredAssertionStatus()).as("tests run with assertions on").isTrue();
        Window w = new Window();
        for (int s = 0; s < 40; s++) w.step();
        Cursor stale = w.trace.cursor();
        List<Batch> under = new ArrayList<>(w.trace.trace().batches());
        int s = 0;
        while (under.stream().noneMatch(Batch::recycled) && s++ < 200) w.step();
        assertThat(under).as("a merge retired a batch the cursor reads").anyMatch(Batch::recycled);
        assertThatThrownBy(() -> contents(stale)).isInstanceOf(AssertionError.class).hasMessageContaining("valid only until the trace next changes");
    }

    @Test
    void aKeyFilterTakesItsWordsFromThePoolClearedAndGivesThemBackWithTheBatch() {
        int n = 20_000;
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        for (int i = 0; i < n; i++) {
            ((LongColumn) u.keys()).add(2L * i);
            ((LongColumn) u.vals()).add(0);
            u.push(0, 1);
        }
        batcher.push(u);
        MergeScratch pool = new MergeScratch(1L << 30);
        // a used array, every bit set: a filter that kept it uncleared would let every probe through
        long[] dirty = new long[4096];
        java.util.Arrays.fill(dirty, -1L);
        pool.recycle(dirty);
        Batch b = batcher.seal(Antichain.of(1)).pooled(pool);
        b.buildFilter();
        assertThat(b.filter.words()).as("the filter's words come from the pool").isSameAs(dirty);
        LongColumn probe = new LongColumn();
        for (int i = 0; i < n; i++) probe.add(2L * i);
        for (int i = 0; i < n; i++) assertThat(b.filter.mayContain(probe.hash(i))).as("key %d is in the batch", 2L * i).isTrue();
        LongColumn absent = new LongColumn();
        for (int i = 0; i < n; i++) absent.add(2L * i + 1);
        int passed = 0;
        for (int i = 0; i < n; i++) if (b.filter.mayContain(absent.hash(i))) passed++;
        assertThat(passed).as("absent keys the filter lets through").isLessThan(n / 10);
        b.recycle();
        assertThat(b.recycled()).isTrue();
        assertThat(pool.longs(4096)).as("the filter's words went back with the batch's arrays").isSameAs(dirty);
    }
}
