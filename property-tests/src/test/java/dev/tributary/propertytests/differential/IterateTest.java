package dev.tributary.propertytests.differential;

import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * {@code iterate} on random graphs whose edges come and go over several outer times, against
 * the answer recomputed from scratch at every time: breadth-first search for reachability, the
 * naive closure for transitive closure. Input 0 holds edges {@code src * N + dst}; an edge is in
 * the graph while its count is positive (the dataflow takes {@code distinct} of the input first).
 */
class IterateTest {
    static final DataType<Long> LONGS = DataType.longs();

    /** Nodes for reachability: 25 possible edges, so a script of a few dozen updates makes and breaks paths. */
    static final long REACH_NODES = 5;

    /** Nodes for transitive closure. */
    static final long CLOSURE_NODES = 4;

    @Provide
    Arbitrary<Script> graphsAndRoots() {
        return Generators.scripts(2, (int) (REACH_NODES * REACH_NODES), 10, 50);
    }

    @Provide
    Arbitrary<Script> graphs() {
        return Generators.scripts(1, (int) (CLOSURE_NODES * CLOSURE_NODES), 10, 40);
    }

    /** The edges present: those with a positive count. */
    static Set<Long> present(Map<Long, Long> edges) {
        return Multisets.distinct(edges).keySet();
    }

    /**
     * Input 1 names the roots ({@code d mod N}); the output is every node reachable from a root,
     * once: {@code roots.iterate(r -> distinct(roots + r join edges))}.
     */
    @Property(seed = "301")
    void reachabilityIsBreadthFirstSearch(@ForAll("graphsAndRoots") Script script) {
        collectStatistics(script);
        Generators.collectStatistics(script);
        reachability(script);
    }

    static void reachability(Script script) {
        long n = REACH_NODES;
        Harness.verify(script, "edges = distinct(in0); roots = distinct(in1 mod " + n + "); roots.iterate(r -> distinct(r join edges on src + roots))",
                inputs -> {
                    Collection<Long> edges = inputs.get(0).distinct();
                    Collection<Long> roots = inputs.get(1).map(d -> d % n, LONGS).distinct();
                    return Harness.output(roots.iterate(r -> {
                        Arrangement<Long, Long> e = edges.enter(r.scope()).arrangeByKey(x -> x / n, LONGS, x -> x % n, LONGS);
                        return r.arrangeBySelf().join(e, (src, u, dst) -> dst, LONGS).concat(roots.enter(r.scope())).distinct();
                    }));
                },
                in -> {
                    Set<Long> edges = present(in.get(0));
                    Set<Long> seen = new HashSet<>(Multisets.distinct(Multisets.map(in.get(1), d -> d % n)).keySet());
                    ArrayDeque<Long> queue = new ArrayDeque<>(seen);
                    while (!queue.isEmpty()) {
                        long v = queue.poll();
                        for (long e : edges) {
                            if (e / n == v && seen.add(e % n)) queue.add(e % n);
                        }
                    }
                    Map<Long, Long> out = new HashMap<>();
                    for (long v : seen) out.put(v, 1L);
                    return out;
                });
    }

    /**
     * The pairs {@code (a, b)} with a path from {@code a} to {@code b}, encoded {@code a * N + b}:
     * {@code edges.iterate(p -> distinct(p join edges on p's dst = edge's src + edges))}.
     */
    @Property(seed = "302")
    void transitiveClosureIsTheNaiveClosure(@ForAll("graphs") Script script) {
        collectStatistics(script);
        Generators.collectStatistics(script);
        transitiveClosure(script);
    }

    static void transitiveClosure(Script script) {
        long n = CLOSURE_NODES;
        Harness.verify(script, "edges = distinct(in0); edges.iterate(p -> distinct(p join edges on p.dst = e.src + edges))",
                inputs -> {
                    Collection<Long> edges = inputs.get(0).distinct();
                    return Harness.output(edges.iterate(p -> {
                        Collection<Long> e = edges.enter(p.scope());
                        Arrangement<Long, Long> bySrc = e.arrangeByKey(x -> x / n, LONGS, x -> x % n, LONGS);
                        Arrangement<Long, Long> byDst = p.arrangeByKey(x -> x % n, LONGS, x -> x / n, LONGS);
                        return byDst.join(bySrc, (mid, a, b) -> a * n + b, LONGS).concat(e).distinct();
                    }));
                },
                in -> {
                    Set<Long> closure = new HashSet<>(present(in.get(0)));
                    boolean grew = true;
                    while (grew) {
                        grew = false;
                        for (long p : Set.copyOf(closure)) {
                            for (long q : Set.copyOf(closure)) {
                                if (p % n == q / n) grew |= closure.add(p / n * n + q % n);
                            }
                        }
                    }
                    Map<Long, Long> out = new HashMap<>();
                    for (long p : closure) out.put(p, 1L);
                    return out;
                });
    }

    /** How many edges are deleted while present, and how many outer times change the graph. */
    static void collectStatistics(Script script) {
        int deletions = 0;
        int changes = 0;
        Set<Long> before = Set.of();
        for (long t = 0; t <= script.horizon(); t++) {
            Set<Long> now = present(script.accumulated(t).get(0));
            for (long e : before) {
                if (!now.contains(e)) deletions++;
            }
            if (!now.equals(before)) changes++;
            before = now;
        }
        Statistics.label("edges deleted").collect(deletions == 0 ? "0" : deletions < 3 ? "1-2" : "3+");
        Statistics.label("times the graph changes").collect(changes < 2 ? "0-1" : changes < 4 ? "2-3" : "4+");
        Statistics.label("edges deleted").coverage(c -> c.check("0").percentage(p -> p <= 60));
        Statistics.label("times the graph changes").coverage(c -> c.check("4+").percentage(p -> p >= 20));
    }
}
