package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The progress tracker on graphs built by hand: locations, edges and internal summaries, with
 * pointstamps placed directly, and the frontiers they imply checked at each target.
 */
class ProgressTrackerTest {
    private static long[] t(long... c) {
        return c;
    }

    /** Builds the tracker's inputs: add locations, edges and internal summaries, then {@link #build()}. */
    static final class Graph {
        final List<ProgressTracker.Location> locations = new ArrayList<>();
        final List<List<Integer>> edges = new ArrayList<>();
        final List<List<Integer>> internalSources = new ArrayList<>();
        final List<List<PathSummary>> internalSummaries = new ArrayList<>();
        final List<String> names = new ArrayList<>();

        int operator(String name) {
            names.add(name + "#" + names.size());
            return names.size() - 1;
        }

        int target(int operator, int port, int arity) {
            return location(operator, port, false, arity);
        }

        int source(int operator, int port, int arity) {
            return location(operator, port, true, arity);
        }

        private int location(int operator, int port, boolean source, int arity) {
            locations.add(new ProgressTracker.Location(operator, port, source, arity));
            edges.add(new ArrayList<>());
            internalSources.add(new ArrayList<>());
            internalSummaries.add(new ArrayList<>());
            return locations.size() - 1;
        }

        /** An edge from an output to an input. */
        Graph edge(int source, int target) {
            edges.get(source).add(target);
            return this;
        }

        /** Inside an operator: input {@code target} can cause output at {@code source} through {@code summary}. */
        Graph internal(int target, int source, PathSummary summary) {
            internalSources.get(target).add(source);
            internalSummaries.get(target).add(summary);
            return this;
        }

        ProgressTracker build() {
            int n = locations.size();
            int[][] e = new int[n][];
            int[][] is = new int[n][];
            PathSummary[][] ss = new PathSummary[n][];
            for (int l = 0; l < n; l++) {
                e[l] = edges.get(l).stream().mapToInt(Integer::intValue).toArray();
                is[l] = internalSources.get(l).stream().mapToInt(Integer::intValue).toArray();
                ss[l] = internalSummaries.get(l).toArray(new PathSummary[0]);
            }
            return new ProgressTracker(locations, e, is, ss, names);
        }
    }

    /** input -> map -> sink, all at arity 1: returns the graph; locations 0..3 are in, map.in, map.out, sink.in. */
    private static Graph chain(PathSummary mapSummary) {
        Graph g = new Graph();
        int input = g.operator("input");
        int map = g.operator("map");
        int sink = g.operator("sink");
        int inOut = g.source(input, 0, 1);
        int mapIn = g.target(map, 0, 1);
        int mapOut = g.source(map, 0, 1);
        int sinkIn = g.target(sink, 0, 1);
        g.edge(inOut, mapIn).edge(mapOut, sinkIn);
        if (mapSummary != null) g.internal(mapIn, mapOut, mapSummary);
        return g;
    }

    private static final int IN_OUT = 0, MAP_IN = 1, MAP_OUT = 2, SINK_IN = 3;

    @Test
    void aCapabilityUpstreamHoldsEveryFrontierDownstream() {
        ProgressTracker p = chain(PathSummary.identity(1)).build();
        assertThat(p.isComplete()).isTrue();
        assertThat(p.frontier(MAP_IN).isEmpty()).isTrue();

        p.update(IN_OUT, t(5), 1);
        assertThat(p.isComplete()).isFalse();
        assertThat(p.frontier(MAP_IN)).isEqualTo(Antichain.of(5));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(5));

        p.update(MAP_OUT, t(3), 1);
        assertThat(p.frontier(MAP_IN)).as("the map's own capability is not upstream of its input").isEqualTo(Antichain.of(5));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(3));

        p.update(IN_OUT, t(5), -1);
        assertThat(p.frontier(MAP_IN).isEmpty()).isTrue();
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(3));
        assertThat(p.isComplete()).isFalse();

        p.update(MAP_OUT, t(3), -1);
        assertThat(p.frontier(SINK_IN).isEmpty()).isTrue();
        assertThat(p.isComplete()).isTrue();
    }

    @Test
    void targetsReachedUnchangedShareOneFrontierInstanceOnlyWhenItIsTheirs() {
        ProgressTracker p = chain(PathSummary.identity(1)).build();
        Map<Integer, Antichain> seen = new TreeMap<>();
        p.update(IN_OUT, t(5), 1);
        p.drainChanged(seen::put);
        assertThat(seen.get(MAP_IN)).isEqualTo(Antichain.of(5)).isSameAs(seen.get(SINK_IN));

        seen.clear();
        p.update(MAP_OUT, t(3), 1);
        p.drainChanged(seen::put);
        assertThat(seen).containsOnlyKeys(SINK_IN);
        Antichain sink = seen.get(SINK_IN);
        assertThat(sink).isEqualTo(Antichain.of(3));

        seen.clear();
        p.update(IN_OUT, t(6), 1);
        p.update(IN_OUT, t(5), -1);
        p.drainChanged(seen::put);
        assertThat(seen.get(MAP_IN)).isEqualTo(Antichain.of(6));
        assertThat(seen.get(SINK_IN)).as("{6} was offered to sink, whose frontier stays {3}, the same instance").isSameAs(sink);
        assertThat(p.frontier(SINK_IN)).isSameAs(sink);
    }

    @Test
    void equalFrontiersOfUnrelatedLocationsShareTheMostRecentInstance() {
        Graph g = new Graph();
        int a = g.operator("a");
        int b = g.operator("b");
        int sinkA = g.operator("sinkA");
        int sinkB = g.operator("sinkB");
        int aOut = g.source(a, 0, 1);
        int bOut = g.source(b, 0, 1);
        int aIn = g.target(sinkA, 0, 1);
        int bIn = g.target(sinkB, 0, 1);
        g.edge(aOut, aIn).edge(bOut, bIn);
        ProgressTracker p = g.build();
        Map<Integer, Antichain> seen = new TreeMap<>();
        p.update(aOut, t(5), 1);
        p.drainChanged(seen::put);
        p.update(bOut, t(5), 1);
        p.drainChanged(seen::put);
        assertThat(seen.get(bIn)).as("b's own time array, an equal value").isSameAs(seen.get(aIn)).isEqualTo(Antichain.of(5));
        p.update(bOut, t(6), 1);
        p.update(bOut, t(5), -1);
        p.drainChanged(seen::put);
        assertThat(seen.get(bIn)).isEqualTo(Antichain.of(6));
        assertThat(seen.get(aIn)).isEqualTo(Antichain.of(5));
        assertThat(p.frontier(aIn)).isEqualTo(Antichain.of(5));
    }

    @Test
    void aMessageWaitingAtATargetHoldsThatTargetAndWhatItReaches() {
        ProgressTracker p = chain(PathSummary.identity(1)).build();
        p.update(MAP_IN, t(4), 1);
        assertThat(p.frontier(MAP_IN)).isEqualTo(Antichain.of(4));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(4));
        p.update(SINK_IN, t(2), 1);
        assertThat(p.frontier(MAP_IN)).isEqualTo(Antichain.of(4));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(2));
    }

    @Test
    void internalSummariesShiftOrCutTheFrontier() {
        ProgressTracker delayed = chain(PathSummary.increment(2)).build();
        delayed.update(IN_OUT, t(5), 1);
        assertThat(delayed.frontier(MAP_IN)).isEqualTo(Antichain.of(5));
        assertThat(delayed.frontier(SINK_IN)).as("map can only produce 2 later than its input").isEqualTo(Antichain.of(7));

        ProgressTracker cut = chain(null).build();
        cut.update(IN_OUT, t(5), 1);
        assertThat(cut.frontier(MAP_IN)).isEqualTo(Antichain.of(5));
        assertThat(cut.frontier(SINK_IN).isEmpty()).as("map's input never causes output").isTrue();
    }

    @Test
    void incomparablePointstampsOnTwoInputsGiveAnAntichainDownstream() {
        Graph g = new Graph();
        int a = g.operator("a");
        int b = g.operator("b");
        int join = g.operator("join");
        int sink = g.operator("sink");
        int aOut = g.source(a, 0, 2);
        int bOut = g.source(b, 0, 2);
        int jIn0 = g.target(join, 0, 2);
        int jIn1 = g.target(join, 1, 2);
        int jOut = g.source(join, 0, 2);
        int sIn = g.target(sink, 0, 2);
        g.edge(aOut, jIn0).edge(bOut, jIn1).edge(jOut, sIn);
        g.internal(jIn0, jOut, PathSummary.identity(2)).internal(jIn1, jOut, PathSummary.identity(2));
        ProgressTracker p = g.build();
        p.update(aOut, t(0, 5), 1);
        p.update(bOut, t(3, 0), 1);
        p.update(bOut, t(4, 7), 1);
        assertThat(p.frontier(jIn0)).isEqualTo(Antichain.of(t(0, 5)));
        assertThat(p.frontier(jIn1)).isEqualTo(Antichain.of(t(3, 0)));
        assertThat(p.frontier(sIn)).isEqualTo(Antichain.fromTimes(2, List.of(t(0, 5), t(3, 0))));
        p.update(aOut, t(0, 5), -1);
        assertThat(p.frontier(sIn)).isEqualTo(Antichain.of(t(3, 0)));
    }

    /** input -> enter -> concat(in0) -> [feedback -> concat(in1)], concat -> leave -> probe. */
    private static final class Loop {
        final Graph g = new Graph();
        final int inputOut, enterIn, enterOut, concatIn0, concatIn1, concatOut, fbIn, fbOut, leaveIn, leaveOut, probeIn;

        Loop(PathSummary feedbackSummary) {
            int input = g.operator("input");
            int enter = g.operator("enter");
            int concat = g.operator("concat");
            int fb = g.operator("feedback");
            int leave = g.operator("leave");
            int probe = g.operator("probe");
            inputOut = g.source(input, 0, 1);
            enterIn = g.target(enter, 0, 1);
            enterOut = g.source(enter, 0, 2);
            concatIn0 = g.target(concat, 0, 2);
            concatIn1 = g.target(concat, 1, 2);
            concatOut = g.source(concat, 0, 2);
            fbIn = g.target(fb, 0, 2);
            fbOut = g.source(fb, 0, 2);
            leaveIn = g.target(leave, 0, 2);
            leaveOut = g.source(leave, 0, 1);
            probeIn = g.target(probe, 0, 1);
            g.edge(inputOut, enterIn).edge(enterOut, concatIn0).edge(concatOut, fbIn).edge(concatOut, leaveIn)
                    .edge(fbOut, concatIn1).edge(leaveOut, probeIn);
            g.internal(enterIn, enterOut, PathSummary.enter(1))
                    .internal(concatIn0, concatOut, PathSummary.identity(2))
                    .internal(concatIn1, concatOut, PathSummary.identity(2))
                    .internal(fbIn, fbOut, feedbackSummary)
                    .internal(leaveIn, leaveOut, PathSummary.leave(2));
        }
    }

    @Test
    void aCycleWithAFeedbackSummaryAdvancesTheLoopCoordinate() {
        Loop l = new Loop(PathSummary.feedback(2, 1));
        ProgressTracker p = l.g.build();
        p.update(l.inputOut, t(0), 1);
        assertThat(p.frontier(l.enterIn)).isEqualTo(Antichain.of(0));
        assertThat(p.frontier(l.concatIn0)).isEqualTo(Antichain.of(t(0, 0)));
        assertThat(p.frontier(l.fbIn)).isEqualTo(Antichain.of(t(0, 0)));
        assertThat(p.frontier(l.concatIn1)).as("one trip around the loop").isEqualTo(Antichain.of(t(0, 1)));
        assertThat(p.frontier(l.probeIn)).isEqualTo(Antichain.of(0));

        // the input moves on to 1 while a message at round 3 of time 0 waits at the loop's back edge
        p.update(l.fbIn, t(0, 3), 1);
        p.update(l.inputOut, t(1), 1);
        p.update(l.inputOut, t(0), -1);
        assertThat(p.frontier(l.concatIn0)).isEqualTo(Antichain.of(t(1, 0)));
        assertThat(p.frontier(l.concatIn1)).isEqualTo(Antichain.fromTimes(2, List.of(t(0, 4), t(1, 1))));
        assertThat(p.frontier(l.leaveIn)).isEqualTo(Antichain.fromTimes(2, List.of(t(0, 4), t(1, 0))));
        assertThat(p.frontier(l.probeIn)).as("time 0 is still in the loop").isEqualTo(Antichain.of(0));

        p.update(l.fbIn, t(0, 3), -1);
        assertThat(p.frontier(l.probeIn)).isEqualTo(Antichain.of(1));
        p.update(l.inputOut, t(1), -1);
        assertThat(p.frontier(l.probeIn).isEmpty()).isTrue();
        assertThat(p.isComplete()).isTrue();
    }

    @Test
    void aCycleWithoutAFeedbackIncrementIsRejected() {
        Loop l = new Loop(PathSummary.identity(2));
        assertThatThrownBy(l.g::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cycle")
                .hasMessageMatching("(?s).*'(concat#2|feedback#3)'.*")
                .hasMessageContaining("feedback edge with a positive increment");
    }

    @Test
    void aSelfLoopWithTheIdentitySummaryIsRejected() {
        Graph g = new Graph();
        int op = g.operator("spin");
        int in = g.target(op, 0, 1);
        int out = g.source(op, 0, 1);
        g.edge(out, in).internal(in, out, PathSummary.identity(1));
        assertThatThrownBy(g::build).isInstanceOf(IllegalStateException.class).hasMessageContaining("'spin#0'");

        Graph ok = new Graph();
        int op2 = ok.operator("tick");
        int in2 = ok.target(op2, 0, 1);
        int out2 = ok.source(op2, 0, 1);
        ok.edge(out2, in2).internal(in2, out2, PathSummary.increment(1));
        ProgressTracker p = ok.build();
        p.update(out2, t(3), 1);
        assertThat(p.frontier(in2)).isEqualTo(Antichain.of(3));
    }

    @Test
    void aConsumptionHeardBeforeItsProductionDoesNotHideAPeersCapability() {
        ProgressTracker p = chain(PathSummary.identity(1)).build();
        p.update(IN_OUT, t(1), 1); // a peer's input still holds 1
        p.update(IN_OUT, t(2), 1); // this worker's input is at 2
        p.update(MAP_IN, t(1), -1); // some worker read a message at 1 whose production we have not heard of
        assertThat(p.frontier(MAP_IN)).as("the peer's capability at 1 is still held").isEqualTo(Antichain.of(1));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(1));
        p.update(MAP_IN, t(1), 1); // the production arrives with the peer's downgrade
        p.update(IN_OUT, t(1), -1);
        assertThat(p.frontier(MAP_IN)).isEqualTo(Antichain.of(2));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(2));
    }

    @Test
    void isCompleteCountsNegativeCountsAsOutstanding() {
        ProgressTracker p = chain(PathSummary.identity(1)).build();
        p.update(MAP_IN, t(2), -1);
        assertThat(p.isComplete()).as("a consumption heard before its production").isFalse();
        assertThat(p.frontier(MAP_IN).isEmpty()).isTrue();
        p.update(MAP_IN, t(2), 1);
        assertThat(p.isComplete()).isTrue();
    }

    @Test
    void drainChangedReportsOnlyTouchedTargetsOnce() {
        ProgressTracker p = chain(PathSummary.identity(1)).build();
        assertThat(p.drainChanged((target, frontier) -> {})).isFalse();
        p.update(MAP_OUT, t(1), 1);
        p.update(MAP_OUT, t(2), 1);
        Map<Integer, Antichain> seen = new TreeMap<>();
        List<Integer> order = new ArrayList<>();
        assertThat(p.drainChanged((target, frontier) -> {
            order.add(target);
            seen.put(target, frontier);
        })).isTrue();
        assertThat(order).containsExactly(SINK_IN);
        assertThat(seen).containsEntry(SINK_IN, Antichain.of(1));
        assertThat(p.drainChanged((target, frontier) -> {})).isFalse();
    }

    @Test
    void appliesChangeBatchesAndProgressBatches() {
        ProgressTracker p = chain(PathSummary.identity(1)).build();
        ChangeBatch local = new ChangeBatch();
        local.update(IN_OUT, t(0), 2);
        p.apply(local);
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(0));
        p.apply(new ProgressBatch(0, 1, new int[] {IN_OUT, IN_OUT}, new long[][] {t(4), t(0)}, new long[] {1, -1}));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(0));
        p.apply(new ProgressBatch(0, 0, new int[] {IN_OUT}, new long[][] {t(0)}, new long[] {-1}));
        assertThat(p.frontier(SINK_IN)).isEqualTo(Antichain.of(4));
        assertThat(p.location(SINK_IN)).isEqualTo(new ProgressTracker.Location(2, 0, false, 1));
    }

    @Test
    void changeBatchCompactionCancelsAndMergesEqualPointstamps() {
        ChangeBatch b = new ChangeBatch();
        // more distinct entries than the batch searches on insert, so compact() has to sort and merge
        for (int i = 0; i < 20; i++) b.update(i % 3, t(i), 1);
        for (int i = 0; i < 20; i++) b.update(i % 3, t(i), i % 2 == 0 ? -1 : 1);
        b.update(7, t(1, 1), 1);
        b.update(7, new long[] {1, 1}, -1);
        b.compact();
        Map<String, Long> net = new TreeMap<>();
        for (int i = 0; i < b.size; i++) net.merge(b.locations[i] + "@" + Timestamps.toString(b.times[i]), b.deltas[i], Long::sum);
        assertThat(b.size).as("one entry per surviving pointstamp").isEqualTo(net.size());
        Map<String, Long> expected = new TreeMap<>();
        for (int i = 1; i < 20; i += 2) expected.put((i % 3) + "@" + i, 2L);
        assertThat(net).isEqualTo(expected);

        ProgressBatch snap = b.snapshot(3, 1);
        b.clear();
        assertThat(b.isEmpty()).isTrue();
        assertThat(snap.dataflow()).isEqualTo(3);
        assertThat(snap.fromWorker()).isEqualTo(1);
        assertThat(snap.locations()).hasSize(expected.size());
        assertThat(snap.deltas()).containsOnly(2L);
    }
}
