package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Views' output shards against an oracle: a view's updates on two workers, cut at random
 * checkpoints as the arrangement would have them (merged, with times up to the output's hold
 * folded onto it, or built again from scratch at one time), appended; after every append the
 * shard read at every time it promises equals the updates up to that time added up from scratch.
 */
class OutputShardsTest {
    private record Update(String row, long time, long diff) {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void theShardAtEveryTimeItKeepsIsTheViewAtThatTime(int seed) {
        Random r = new Random(seed);
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        OutputShards outputs = new OutputShards(blob, consensus, s -> {});
        List<Update> all = new ArrayList<>();
        long hold = -1; // where the workers' output hold stands: times after it are exact
        long time = 0;
        long retainFrom = 0;
        for (int checkpoint = 0; checkpoint < 12; checkpoint++) {
            int n = r.nextInt(40);
            time = hold + 1; // nothing comes at a time a checkpoint has passed
            for (int i = 0; i < n; i++) {
                time += r.nextInt(3);
                String row = "row" + r.nextInt(8);
                all.add(new Update(row, time, r.nextBoolean() || count(all, row, time) <= 0 ? 1 : -1));
            }
            long at = time + r.nextInt(2);
            boolean rebuilt = r.nextInt(5) == 0;
            // a view built again holds its history folded onto the time it was built from, and is read from there on
            long builtFrom = Math.max(0, at - r.nextInt(4));
            if (rebuilt) retainFrom = Math.max(retainFrom, builtFrom);
            List<List<Batch>> cut = new ArrayList<>();
            for (int w = 0; w < 2; w++) {
                // worker w holds the rows hashing to it; its trace as it stands, times up to the hold folded onto it
                List<Update> mine = new ArrayList<>();
                for (Update u : all) if (Math.floorMod(u.row().hashCode(), 2) == w) mine.add(u);
                cut.add(batches(mine, rebuilt ? builtFrom : hold, at, r));
            }
            if (r.nextInt(3) == 0) retainFrom = Math.max(retainFrom, at - r.nextInt(10));
            boolean wasEmpty = checkpoint == 0;
            assertThat(outputs.append(7, at, cut, rebuilt ? -1 : hold, retainFrom)).isTrue();
            hold = at;
            ShardState s = outputs.state(7);
            assertThat(s.upper()).isEqualTo(Antichain.of(at + 1));
            long since = s.since().get(0)[0];
            if (rebuilt && !wasEmpty) assertThat(since).as("a rebased shard's history").isEqualTo(at);
            for (long t = since; t <= at; t++) {
                assertThat(contents(outputs.snapshot(7, t))).as("seed %d, as of %d (since %d)", seed, t, since).isEqualTo(oracle(all, t));
            }
            // a later cut of the same time is already there
            assertThat(outputs.append(7, at, cut, hold, retainFrom)).isFalse();
        }
        assertThat(outputs.outputs()).containsExactly(7L);
        outputs.drop(7);
        assertThat(outputs.outputs()).isEmpty();
        assertThat(blob.list("shards/output-7/")).isEmpty();
        assertThat(outputs.append(7, time + 5, List.of(), -1, 0)).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {1})
    void aReadOutsideTheShardsRangeIsRefused(int seed) {
        OutputShards outputs = new OutputShards(new MemoryBlob(), new MemoryConsensus(), s -> {});
        outputs.append(3, 10, List.of(batches(List.of(new Update("a", 4, 1)), -1, 10, new Random(seed))), -1, 8);
        assertThat(contents(outputs.snapshot(3, 8))).isEqualTo(Map.of("a", 1L));
        assertThatThrownBy(() -> outputs.snapshot(3, 11)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> outputs.snapshot(3, 7)).isInstanceOf(IllegalArgumentException.class);
    }

    private static long count(List<Update> all, String row, long time) {
        long c = 0;
        for (Update u : all) if (u.row().equals(row) && u.time() <= time) c += u.diff();
        return c;
    }

    /**
     * The updates as a trace would hold them: times up to {@code foldTo} moved onto it (its
     * logical compaction), cut into one to three contiguous batches ending at {@code at + 1}.
     */
    private static List<Batch> batches(List<Update> updates, long foldTo, long at, Random r) {
        Batcher b = new Batcher(new BytesColumn(), new UnitColumn(), 1);
        List<Batch> out = new ArrayList<>();
        int pieces = 1 + r.nextInt(3);
        long[] bounds = new long[pieces];
        for (int i = 0; i < pieces - 1; i++) bounds[i] = 1 + r.nextLong(at + 1);
        bounds[pieces - 1] = at + 1;
        java.util.Arrays.sort(bounds);
        Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
        for (Update x : updates) {
            ((BytesColumn) u.keys()).add(x.row().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            ((UnitColumn) u.vals()).add();
            u.push(Math.max(x.time(), foldTo), x.diff());
        }
        b.push(u);
        long last = -1;
        for (long bound : bounds) {
            if (bound <= last) continue;
            out.add(b.seal(Antichain.of(bound)));
            last = bound;
        }
        return out;
    }

    private static Map<String, Long> oracle(List<Update> all, long asOf) {
        Map<String, Long> m = new TreeMap<>();
        for (Update u : all) if (u.time() <= asOf) m.merge(u.row(), u.diff(), Long::sum);
        m.values().removeIf(v -> v == 0);
        return m;
    }

    private static Map<String, Long> contents(Updates u) {
        return ShardTest.contents(u);
    }
}
