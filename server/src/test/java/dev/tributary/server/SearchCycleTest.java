package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * SEARCH DEPTH FIRST and CYCLE of WITH RECURSIVE over random graphs with cycles, against a model
 * that walks the graph as their definition says: from the start node, every walk is extended by
 * every edge out of its last node until the walk repeats a node, which ends it marked as a cycle.
 * The one-off query and a materialized view of it must both give the model's walks, in depth-first
 * order, after each of a series of random inserts and deletes of edges.
 */
class SearchCycleTest {
    private static final String QUERY = "WITH RECURSIVE t(n) AS (SELECT 0 UNION ALL SELECT dst FROM edge JOIN t ON src = n) "
            + "SEARCH DEPTH FIRST BY n SET ord CYCLE n SET is_cycle TO 'Y' DEFAULT 'N' USING path SELECT n, is_cycle, path FROM t";

    @Test
    void depthFirstWalksStopAtTheirFirstRepeatedNodeAsTheInputsChange() {
        Random random = new Random(27);
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE edge (src int, dst int)");
            db.execute("CREATE MATERIALIZED VIEW walks AS " + QUERY);
            List<int[]> edges = new ArrayList<>();
            for (int step = 0; step < 40; step++) {
                if (edges.isEmpty() || random.nextInt(3) > 0) {
                    int[] e = {random.nextInt(5), random.nextInt(5)};
                    if (edges.stream().anyMatch(x -> x[0] == e[0] && x[1] == e[1])) continue; // a set of edges: walks stay distinct
                    edges.add(e);
                    db.execute("INSERT INTO edge VALUES (" + e[0] + ", " + e[1] + ")");
                } else {
                    delete(db, edges.remove(random.nextInt(edges.size())));
                }
                if (walks(edges).size() > 300) delete(db, edges.remove(edges.size() - 1)); // small enough to walk
                List<String> expected = walks(edges);
                assertThat(rows(db, QUERY + " ORDER BY ord")).as("after %s", edgesText(edges)).isEqualTo(expected);
                assertThat(rows(db, "SELECT * FROM walks ORDER BY path")).as("the view after %s", edgesText(edges)).isEqualTo(expected);
            }
        }
    }

    private static void delete(Tributary db, int[] e) {
        db.execute("DELETE FROM edge WHERE src = " + e[0] + " AND dst = " + e[1]);
    }

    private static List<String> rows(Tributary db, String sql) {
        return db.query(sql).text().stream().map(r -> String.join("|", r)).toList();
    }

    /** The model: each walk as {@code n|mark|path}, in depth-first order (paths compared element by element). */
    private static List<String> walks(List<int[]> edges) {
        List<List<Integer>> out = new ArrayList<>();
        List<Boolean> cycles = new ArrayList<>();
        List<List<Integer>> pending = new ArrayList<>(List.of(List.of(0)));
        List<Boolean> pendingCycle = new ArrayList<>(List.of(false));
        while (!pending.isEmpty()) {
            List<Integer> walk = pending.remove(pending.size() - 1);
            boolean cycle = pendingCycle.remove(pendingCycle.size() - 1);
            out.add(walk);
            cycles.add(cycle);
            if (cycle || out.size() > 400) continue;
            int last = walk.get(walk.size() - 1);
            for (int[] e : edges) {
                if (e[0] != last) continue;
                List<Integer> next = new ArrayList<>(walk);
                next.add(e[1]);
                pending.add(next);
                pendingCycle.add(walk.contains(e[1]));
            }
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < out.size(); i++) order.add(i);
        Comparator<List<Integer>> byElements = (a, b) -> {
            for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
                int c = Integer.compare(a.get(i), b.get(i));
                if (c != 0) return c;
            }
            return Integer.compare(a.size(), b.size());
        };
        order.sort((i, j) -> byElements.compare(out.get(i), out.get(j)));
        List<String> rows = new ArrayList<>();
        for (int i : order) {
            List<Integer> w = out.get(i);
            StringBuilder path = new StringBuilder("{");
            for (int k = 0; k < w.size(); k++) path.append(k > 0 ? "," : "").append('(').append(w.get(k)).append(')');
            rows.add(w.get(w.size() - 1) + "|" + (cycles.get(i) ? "Y" : "N") + "|" + path.append('}'));
        }
        return rows;
    }

    private static String edgesText(List<int[]> edges) {
        return edges.stream().map(e -> e[0] + "->" + e[1]).toList().toString();
    }
}
