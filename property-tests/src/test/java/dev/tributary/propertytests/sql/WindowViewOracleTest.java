package dev.tributary.propertytests.sql;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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
 * Materialized views of window functions stay equal to their recomputation from scratch (here,
 * in Java, by the functions' definitions) through random inserts, updates and deletes in
 * transactions on 1 to 3 workers: row_number and rank, lag and lead, running sums and counts
 * (peers by the default RANGE frame), ROWS frames with an exclusion, a RANGE frame with offsets
 * a GROUPS frame, dense_rank and a running min. Orders are made total by the row's id where a value would depend on the
 * order of peers. After the last transaction the views' queries run once more as one-off SELECTs.
 */
class WindowViewOracleTest {
    /** A row of {@code ev}: id is its primary key; v may be NULL. */
    record Ev(int id, int g, int t, Integer v) {}

    /** Sets row {@code id} to (g, t, v), or deletes it ({@code delete}). */
    record Change(int id, int g, int t, Integer v, boolean delete) {}

    static final Map<String, String> VIEWS = new java.util.LinkedHashMap<>();

    static {
        VIEWS.put("numbered", "SELECT id, row_number() OVER (PARTITION BY g ORDER BY t, id), rank() OVER (PARTITION BY g ORDER BY t) FROM ev");
        VIEWS.put("shifted", "SELECT id, lag(v) OVER w, lead(v, 2, -1) OVER w FROM ev WINDOW w AS (PARTITION BY g ORDER BY t, id)");
        VIEWS.put("running", "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY t, id), count(*) OVER (PARTITION BY g ORDER BY t) FROM ev");
        VIEWS.put("sliding", "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY t, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), "
                + "max(v) OVER (PARTITION BY g ORDER BY t, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW) FROM ev");
        VIEWS.put("ranged", "SELECT id, sum(v) OVER (PARTITION BY g ORDER BY t RANGE BETWEEN 2 PRECEDING AND 1 FOLLOWING), "
                + "min(v) OVER (PARTITION BY g ORDER BY t GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ev");
        VIEWS.put("dense", "SELECT id, dense_rank() OVER (PARTITION BY g ORDER BY t), min(v) OVER (PARTITION BY g ORDER BY t, id ROWS UNBOUNDED PRECEDING) FROM ev");
    }

    @Provide
    Arbitrary<List<List<Change>>> histories() {
        Arbitrary<Change> changes = Combinators.combine(Arbitraries.integers().between(0, 11), Arbitraries.integers().between(0, 2),
                Arbitraries.integers().between(0, 6), Arbitraries.integers().between(-5, 20).injectNull(0.15), Arbitraries.integers().between(0, 9).map(k -> k < 2))
                .as(Change::new);
        return changes.list().ofMinSize(1).ofMaxSize(8).list().ofMinSize(1).ofMaxSize(8);
    }

    @Property(seed = "2702", edgeCases = EdgeCasesMode.NONE)
    void windowViewsEqualTheirRecomputation(@ForAll("histories") List<List<Change>> history, @ForAll @IntRange(min = 1, max = 3) int workers) {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
            db.execute("CREATE TABLE ev (id int PRIMARY KEY, g int, t int, v int)");
            for (Map.Entry<String, String> v : VIEWS.entrySet()) db.execute("CREATE MATERIALIZED VIEW " + v.getKey() + " AS " + v.getValue());
            Map<Integer, Ev> current = new TreeMap<>();
            for (List<Change> tx : history) {
                db.execute("BEGIN");
                for (Change c : tx) {
                    db.execute("DELETE FROM ev WHERE id = " + c.id());
                    current.remove(c.id());
                    if (c.delete()) continue;
                    db.execute("INSERT INTO ev VALUES (" + c.id() + ", " + c.g() + ", " + c.t() + ", " + c.v() + ")");
                    current.put(c.id(), new Ev(c.id(), c.g(), c.t(), c.v()));
                }
                db.execute("COMMIT");
                for (String view : VIEWS.keySet()) {
                    assertThat(rows(db, "SELECT * FROM " + view)).as("%s after %s (rows %s)", view, tx, current.values()).isEqualTo(expected(view, current.values()));
                }
            }
            for (Map.Entry<String, String> v : VIEWS.entrySet()) {
                assertThat(rows(db, v.getValue())).as("one-off %s over %s", v.getKey(), current.values()).isEqualTo(expected(v.getKey(), current.values()));
            }
        }
    }

    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r.stream().map(x -> x == null ? "NULL" : x).toList()));
        out.sort(null);
        return out;
    }

    private static String text(Object v) {
        return v == null ? "NULL" : v.toString();
    }

    /** The view recomputed from {@code rows}, partition by partition, by the functions' definitions. */
    static List<String> expected(String view, java.util.Collection<Ev> rows) {
        Map<Integer, List<Ev>> partitions = new TreeMap<>();
        for (Ev e : rows) partitions.computeIfAbsent(e.g(), k -> new ArrayList<>()).add(e);
        List<String> out = new ArrayList<>();
        for (List<Ev> p : partitions.values()) {
            p.sort(Comparator.comparingInt(Ev::t).thenComparingInt(Ev::id));
            int n = p.size();
            for (int i = 0; i < n; i++) {
                Ev e = p.get(i);
                int t = e.t();
                String line = switch (view) {
                    case "numbered" -> {
                        long before = p.stream().filter(o -> o.t() < t).count();
                        yield (i + 1) + "|" + (before + 1);
                    }
                    case "shifted" -> text(i > 0 ? p.get(i - 1).v() : null) + "|" + (i + 2 < n ? text(p.get(i + 2).v()) : "-1");
                    case "running" -> {
                        Long sum = sum(p.subList(0, i + 1));
                        long peersAndBefore = p.stream().filter(o -> o.t() <= t).count();
                        yield text(sum) + "|" + peersAndBefore;
                    }
                    case "sliding" -> {
                        Long sum = sum(p.subList(Math.max(0, i - 1), Math.min(n, i + 2)));
                        Integer max = null;
                        for (int j = Math.max(0, i - 2); j < i; j++) {
                            Integer v = p.get(j).v();
                            if (v != null && (max == null || v > max)) max = v;
                        }
                        yield text(sum) + "|" + text(max);
                    }
                    case "ranged" -> {
                        Long sum = sum(p.stream().filter(o -> o.t() >= t - 2 && o.t() <= t + 1).toList());
                        // GROUPS 1 PRECEDING .. CURRENT ROW: this t's peers and the peer group of the next smaller t
                        Integer previous = p.stream().map(Ev::t).filter(x -> x < t).max(Integer::compare).orElse(null);
                        Integer min = null;
                        for (Ev o : p) {
                            if ((o.t() == t || (previous != null && o.t() == previous)) && o.v() != null && (min == null || o.v() < min)) min = o.v();
                        }
                        yield text(sum) + "|" + text(min);
                    }
                    case "dense" -> {
                        long smaller = p.stream().map(Ev::t).filter(x -> x < t).distinct().count();
                        Integer min = null;
                        for (Ev o : p.subList(0, i + 1)) if (o.v() != null && (min == null || o.v() < min)) min = o.v();
                        yield (smaller + 1) + "|" + text(min);
                    }
                    default -> throw new IllegalArgumentException(view);
                };
                out.add(e.id() + "|" + line);
            }
        }
        out.sort(null);
        return out;
    }

    /** SQL's sum: NULL when no value is non-NULL. */
    private static Long sum(List<Ev> rows) {
        Long s = null;
        for (Ev o : rows) if (o.v() != null) s = (s == null ? 0 : s) + o.v();
        return s;
    }
}
