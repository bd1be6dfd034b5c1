package dev.tributary.timely;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One worker's view of a dataflow's progress: pointstamp counts at every location, and the
 * frontier they imply at every operator input.
 *
 * <p>Locations are operator outputs (sources, where capabilities are held) and operator inputs
 * (targets, where messages wait). A pointstamp {@code (location, t)} with a positive count means
 * something at that location may still produce data at {@code t}; through a path with summary
 * {@code s} it may reach a target at {@code s(t)}. The frontier of a target is the antichain of
 * minimal {@code s(t)} over all pointstamps and all minimal path summaries to it.
 *
 * <p>Reachability is computed once, when the dataflow is built: for every location, the minimal
 * summaries to every target it reaches (correct for cycles, since every cycle must strictly
 * advance time through a feedback edge). At run time count changes are first summed per
 * location; then each location whose frontier of positive counts changed pushes that change
 * (not the raw counts) into the counted frontiers of the targets it reaches. Counts at one
 * location can be negative for a moment (a worker may read a peer's message before the peer's
 * progress announces it); propagating frontiers keeps such a count from cancelling a capability
 * held elsewhere. Only targets whose frontier changed are reported.
 */
final class ProgressTracker {
    /** A location: an operator's input (target) or output (source). */
    record Location(int operator, int port, boolean source, int arity) {}

    private final List<Location> locations;
    private final int[][] reachTargets;
    private final PathSummary[][] reachSummaries;
    private final MutableAntichain[] pointstamps;
    private final MutableAntichain[] implications;
    private final boolean[] dirty;
    private final int[] dirtyList;
    private final boolean[] touched;
    private final int[] touchedList;
    private final Antichain[] before;
    /**
     * Per target, a frontier pushed into it unchanged (through a path that keeps times) since the
     * last drain: most likely the target's new frontier, which then shares that instance rather
     * than making an equal one. Only a hint; {@link MutableAntichain#frontier(Antichain)} checks it.
     */
    private final Antichain[] candidates;
    /**
     * The last non-empty frontier this tracker computed at any location: the candidate where a
     * path offers none. In one scope most frontiers move to the same time together, so it usually
     * matches, and a round makes one new frontier instead of one per location.
     */
    private Antichain recent;
    private int touchedCount;
    private int dirtyCount;
    private int nonEmpty;

    /**
     * @param edges {@code edges[source]} lists the targets each source location feeds (identity)
     * @param internal {@code internal[target]} lists, per input location, the (source, summary) pairs
     *     of its operator, as parallel arrays {@code internalSources} / {@code internalSummaries}
     */
    ProgressTracker(List<Location> locations, int[][] edges, int[][] internalSources, PathSummary[][] internalSummaries, List<String> names) {
        this.locations = locations;
        int n = locations.size();
        reachTargets = new int[n][];
        reachSummaries = new PathSummary[n][];
        for (int l = 0; l < n; l++) computeReach(l, edges, internalSources, internalSummaries, names);
        pointstamps = new MutableAntichain[n];
        implications = new MutableAntichain[n];
        for (int l = 0; l < n; l++) {
            pointstamps[l] = new MutableAntichain(locations.get(l).arity());
            if (!locations.get(l).source()) implications[l] = new MutableAntichain(locations.get(l).arity());
        }
        dirty = new boolean[n];
        dirtyList = new int[n];
        touched = new boolean[n];
        touchedList = new int[n];
        before = new Antichain[n];
        candidates = new Antichain[n];
    }

    private void computeReach(int from, int[][] edges, int[][] internalSources, PathSummary[][] internalSummaries, List<String> names) {
        int n = locations.size();
        @SuppressWarnings("unchecked")
        List<PathSummary>[] best = new List[n];
        ArrayDeque<Object[]> work = new ArrayDeque<>();
        work.add(new Object[] {from, PathSummary.identity(locations.get(from).arity())});
        boolean first = true;
        while (!work.isEmpty()) {
            Object[] item = work.poll();
            int loc = (Integer) item[0];
            PathSummary s = (PathSummary) item[1];
            if (!first && loc == from && s.isIdentity()) {
                Location l = locations.get(from);
                throw new IllegalStateException("dataflow has a cycle through operator '" + names.get(l.operator())
                        + "' whose path summary does not advance time; every loop needs a feedback edge with a positive increment");
            }
            first = false;
            if (best[loc] == null) best[loc] = new ArrayList<>();
            if (!insertMinimal(best[loc], s)) continue;
            if (locations.get(loc).source()) {
                for (int t : edges[loc]) work.add(new Object[] {t, s});
            } else {
                int[] srcs = internalSources[loc];
                for (int i = 0; i < srcs.length; i++) {
                    PathSummary next = s.followedBy(internalSummaries[loc][i]);
                    if (next != null) work.add(new Object[] {srcs[i], next});
                }
            }
        }
        int count = 0;
        for (int l = 0; l < n; l++) {
            if (best[l] != null && !locations.get(l).source()) count += best[l].size();
        }
        int[] targets = new int[count];
        PathSummary[] summaries = new PathSummary[count];
        int w = 0;
        for (int l = 0; l < n; l++) {
            if (best[l] == null || locations.get(l).source()) continue;
            for (PathSummary s : best[l]) {
                targets[w] = l;
                summaries[w++] = s;
            }
        }
        reachTargets[from] = targets;
        reachSummaries[from] = summaries;
    }

    private static boolean insertMinimal(List<PathSummary> set, PathSummary s) {
        for (PathSummary e : set) {
            if (e.lessEqual(s)) return false;
        }
        set.removeIf(s::lessEqual);
        set.add(s);
        return true;
    }

    Location location(int l) {
        return locations.get(l);
    }

    /**
     * Applies a count change at a pointstamp. What it implies downstream is propagated by
     * {@link #drainChanged}, from the change of the location's frontier: counts are summed per
     * location first, so a transiently negative count at one location (a consumption seen before
     * its production) never cancels a positive count at another.
     */
    void update(int location, long[] time, long delta) {
        MutableAntichain p = pointstamps[location];
        if (!touched[location]) {
            touched[location] = true;
            touchedList[touchedCount++] = location;
            before[location] = p.frontier();
        }
        boolean wasEmpty = p.isEmpty();
        p.update(time, delta);
        boolean isEmpty = p.isEmpty();
        if (wasEmpty != isEmpty) nonEmpty += isEmpty ? -1 : 1;
    }

    /** Pushes the frontier changes of touched locations to the targets they reach. */
    private void propagateTouched() {
        for (int i = 0; i < touchedCount; i++) {
            int l = touchedList[i];
            touched[l] = false;
            Antichain old = before[l];
            before[l] = null;
            Antichain now = remember(pointstamps[l].frontier(recent));
            if (old == now || old.equals(now)) continue;
            for (int e = 0; e < old.size(); e++) {
                if (!contains(now, old.get(e))) imply(l, old.get(e), -1, null);
            }
            for (int e = 0; e < now.size(); e++) {
                if (!contains(old, now.get(e))) imply(l, now.get(e), 1, now);
            }
        }
        touchedCount = 0;
    }

    private static boolean contains(Antichain a, long[] t) {
        for (int i = 0; i < a.size(); i++) {
            if (java.util.Arrays.equals(a.get(i), t)) return true;
        }
        return false;
    }

    /** {@code from}: the frontier {@code time} belongs to, offered to targets it reaches unchanged. */
    private void imply(int location, long[] time, long delta, Antichain from) {
        int[] targets = reachTargets[location];
        PathSummary[] summaries = reachSummaries[location];
        for (int i = 0; i < targets.length; i++) {
            long[] t = summaries[i].apply(time);
            if (t == null) continue;
            int target = targets[i];
            implications[target].update(t, delta);
            if (from != null && t == time) candidates[target] = from;
            if (!dirty[target]) {
                dirty[target] = true;
                dirtyList[dirtyCount++] = target;
            }
        }
    }

    void apply(ChangeBatch batch) {
        for (int i = 0; i < batch.size; i++) update(batch.locations[i], batch.times[i], batch.deltas[i]);
    }

    void apply(ProgressBatch batch) {
        for (int i = 0; i < batch.locations().length; i++) update(batch.locations()[i], batch.times()[i], batch.deltas()[i]);
    }

    /** Receives each target whose frontier may have changed since the last call. */
    interface FrontierSink {
        void frontier(int target, Antichain frontier);
    }

    /** Reports the frontiers of targets touched since the last call, and forgets them. */
    boolean drainChanged(FrontierSink sink) {
        propagateTouched();
        if (dirtyCount == 0) return false;
        for (int i = 0; i < dirtyCount; i++) {
            int t = dirtyList[i];
            dirty[t] = false;
            Antichain candidate = candidates[t];
            candidates[t] = null;
            sink.frontier(t, remember(implications[t].frontier(candidate != null ? candidate : recent)));
        }
        dirtyCount = 0;
        return true;
    }

    Antichain frontier(int target) {
        propagateTouched();
        return implications[target].frontier();
    }

    private Antichain remember(Antichain frontier) {
        if (!frontier.isEmpty()) recent = frontier;
        return frontier;
    }

    /** No pointstamp anywhere has a non-zero count: nothing can ever happen in this dataflow again. */
    boolean isComplete() {
        return nonEmpty == 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int l = 0; l < locations.size(); l++) {
            if (!pointstamps[l].isEmpty()) sb.append(locations.get(l)).append(pointstamps[l]).append(' ');
        }
        return sb.toString();
    }
}
