package dev.tributary.propertytests.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Recursive materialized views stay equal to their recomputation from scratch (here, in Java)
 * through random edge insertions and deletions on 1 to 3 workers: transitive closure
 * ({@code WITH RECURSIVE ... UNION}, iterated to its fixed point), walks counted by length
 * ({@code UNION ALL}), BFS layers with DISTINCT in the step (PostgreSQL's working table),
 * shortest paths and connected components (min over a {@code WITH MUTUALLY RECURSIVE} binding),
 * and a mutually recursive pair (the nodes an even or an odd walk from node 0 reaches). After
 * the last transaction the same queries run once more as one-off SELECTs, and a closure view
 * created then (built over the existing edges) is checked too.
 */
class RecursiveViewOracleTest {
    static final int NODES = 8;

    record Edge(int src, int dst, int w) {}

    /** Inserts {@code edge}, or deletes every copy of the {@code pick}-th edge there is (nothing when there is none). */
    record Change(boolean insert, Edge edge, int pick) {}

    static final Map<String, String> VIEWS = new java.util.LinkedHashMap<>();

    static {
        VIEWS.put("closure", "WITH RECURSIVE r(src, dst) AS (SELECT src, dst FROM edge UNION SELECT r.src, e.dst FROM r JOIN edge e ON r.dst = e.src) SELECT src, dst FROM r");
        VIEWS.put("walks", "WITH RECURSIVE walk(node, len) AS (SELECT 0, 0 UNION ALL SELECT e.dst, w.len + 1 FROM walk w JOIN edge e ON w.node = e.src WHERE w.len < 3) "
                + "SELECT node, len, count(*) FROM walk GROUP BY node, len");
        VIEWS.put("layers", "WITH RECURSIVE layer(node, depth) AS (SELECT 0, 0 UNION ALL SELECT DISTINCT e.dst, l.depth + 1 FROM layer l JOIN edge e ON l.node = e.src "
                + "WHERE l.depth < 4) SELECT node, depth, count(*) FROM layer GROUP BY node, depth");
        VIEWS.put("shortest", "WITH MUTUALLY RECURSIVE dist(node int, d int) AS (SELECT node, min(d) FROM (SELECT 0 AS node, 0 AS d UNION ALL "
                + "SELECT e.dst, dist.d + e.w FROM dist JOIN edge e ON dist.node = e.src) s GROUP BY node) SELECT node, d FROM dist");
        VIEWS.put("components", "WITH MUTUALLY RECURSIVE label(node int, comp int) AS (SELECT node, min(comp) FROM (SELECT src AS node, src AS comp FROM edge "
                + "UNION ALL SELECT dst, dst FROM edge UNION ALL SELECT e.dst, l.comp FROM label l JOIN edge e ON l.node = e.src "
                + "UNION ALL SELECT e.src, l.comp FROM label l JOIN edge e ON l.node = e.dst) s GROUP BY node) SELECT node, comp FROM label");
        VIEWS.put("parity", "WITH MUTUALLY RECURSIVE even(node int) AS (SELECT 0 UNION SELECT e.dst FROM odd JOIN edge e ON odd.node = e.src), "
                + "odd(node int) AS (SELECT DISTINCT e.dst FROM even JOIN edge e ON even.node = e.src) SELECT 'even', node FROM even UNION ALL SELECT 'odd', node FROM odd");
    }

    @Provide
    Arbitrary<List<List<Change>>> histories() {
        Arbitrary<Edge> edges = Combinators.combine(Arbitraries.integers().between(0, NODES - 1), Arbitraries.integers().between(0, NODES - 1),
                Arbitraries.integers().between(1, 3)).as(Edge::new);
        Arbitrary<Change> changes = Combinators.combine(Arbitraries.integers().between(0, 9).map(k -> k < 6), edges, Arbitraries.integers().between(0, 1000))
                .as(Change::new);
        return changes.list().ofMinSize(1).ofMaxSize(10).list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(seed = "2701", edgeCases = EdgeCasesMode.NONE)
    void recursiveViewsEqualTheirRecomputation(@ForAll("histories") List<List<Change>> history, @ForAll @IntRange(min = 1, max = 3) int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE edge (src int, dst int, w int)");
            for (Map.Entry<String, String> v : VIEWS.entrySet()) db.execute("CREATE MATERIALIZED VIEW " + v.getKey() + " AS " + v.getValue());
            List<Edge> current = new ArrayList<>();
            for (List<Change> tx : history) {
                db.execute("BEGIN");
                for (Change c : tx) {
                    if (c.insert()) {
                        current.add(c.edge());
                        db.execute("INSERT INTO edge VALUES (" + c.edge().src() + ", " + c.edge().dst() + ", " + c.edge().w() + ")");
                    } else if (!current.isEmpty()) {
                        Edge e = current.get(c.pick() % current.size());
                        current.removeIf(e::equals);
                        db.execute("DELETE FROM edge WHERE src = " + e.src() + " AND dst = " + e.dst() + " AND w = " + e.w());
                    }
                }
                db.execute("COMMIT");
                for (String view : VIEWS.keySet()) {
                    assertThat(rows(db, "SELECT * FROM " + view)).as("%s after %s (edges %s)", view, tx, current).isEqualTo(expected(view, current));
                }
            }
            for (Map.Entry<String, String> v : VIEWS.entrySet()) {
                assertThat(rows(db, v.getValue())).as("one-off %s over %s", v.getKey(), current).isEqualTo(expected(v.getKey(), current));
            }
            db.execute("CREATE MATERIALIZED VIEW closure_late AS " + VIEWS.get("closure"));
            assertThat(rows(db, "SELECT * FROM closure_late")).isEqualTo(expected("closure", current));
        }
    }

    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r));
        out.sort(null);
        return out;
    }

    /** The view recomputed from {@code edges} by the definition of what it computes. */
    static List<String> expected(String view, List<Edge> edges) {
        List<String> out = new ArrayList<>();
        switch (view) {
            case "closure" -> {
                Set<List<Integer>> reach = new HashSet<>();
                for (Edge e : edges) reach.add(List.of(e.src(), e.dst()));
                boolean grew = true;
                while (grew) {
                    grew = false;
                    for (List<Integer> p : List.copyOf(reach)) {
                        for (Edge e : edges) if (e.src() == p.get(1) && reach.add(List.of(p.get(0), e.dst()))) grew = true;
                    }
                }
                for (List<Integer> p : reach) out.add(p.get(0) + "|" + p.get(1));
            }
            case "walks" -> {
                // walks from 0 of each length up to 3, counted with the edges' multiplicities
                long[] counts = new long[NODES];
                counts[0] = 1;
                for (int len = 0; len <= 3; len++) {
                    for (int n = 0; n < NODES; n++) if (counts[n] > 0) out.add(n + "|" + len + "|" + counts[n]);
                    long[] next = new long[NODES];
                    for (Edge e : edges) next[e.dst()] += counts[e.src()];
                    counts = next;
                }
            }
            case "layers" -> {
                // PostgreSQL's working table: each round's rows made distinct, all rounds kept
                Set<Integer> layer = Set.of(0);
                Map<String, Integer> count = new TreeMap<>();
                for (int depth = 0; depth <= 4 && !layer.isEmpty(); depth++) {
                    for (int n : layer) count.merge(n + "|" + depth, 1, Integer::sum);
                    if (depth == 4) break;
                    Set<Integer> next = new HashSet<>();
                    for (Edge e : edges) if (layer.contains(e.src())) next.add(e.dst());
                    layer = next;
                }
                count.forEach((k, c) -> out.add(k + "|" + c));
            }
            case "shortest" -> {
                Map<Integer, Integer> dist = new HashMap<>();
                dist.put(0, 0);
                boolean changed = true;
                while (changed) {
                    changed = false;
                    for (Edge e : edges) {
                        Integer d = dist.get(e.src());
                        if (d != null && (!dist.containsKey(e.dst()) || dist.get(e.dst()) > d + e.w())) {
                            dist.put(e.dst(), d + e.w());
                            changed = true;
                        }
                    }
                }
                dist.forEach((n, d) -> out.add(n + "|" + d));
            }
            case "components" -> {
                Map<Integer, Integer> label = new HashMap<>();
                for (Edge e : edges) {
                    label.put(e.src(), e.src());
                    label.put(e.dst(), e.dst());
                }
                boolean changed = true;
                while (changed) {
                    changed = false;
                    for (Edge e : edges) {
                        int m = Math.min(label.get(e.src()), label.get(e.dst()));
                        if (label.get(e.src()) != m || label.get(e.dst()) != m) {
                            label.put(e.src(), m);
                            label.put(e.dst(), m);
                            changed = true;
                        }
                    }
                }
                label.forEach((n, c) -> out.add(n + "|" + c));
            }
            case "parity" -> {
                Set<Integer> even = new HashSet<>(Set.of(0));
                Set<Integer> odd = new HashSet<>();
                boolean changed = true;
                while (changed) {
                    changed = false;
                    for (Edge e : edges) {
                        if (even.contains(e.src()) && odd.add(e.dst())) changed = true;
                        if (odd.contains(e.src()) && even.add(e.dst())) changed = true;
                    }
                }
                for (int n : even) out.add("even|" + n);
                for (int n : odd) out.add("odd|" + n);
            }
            default -> throw new IllegalArgumentException(view);
        }
        out.sort(null);
        return out;
    }
}
