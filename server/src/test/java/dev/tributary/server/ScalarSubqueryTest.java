package dev.tributary.server;

import static dev.tributary.server.SqlRows.error;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * An uncorrelated scalar subquery of exactly one row (a global aggregate) is crossed with the
 * outer rows as it is: no count of its rows to catch a second one, no left join for a missing
 * one, no cross join with the one empty row it is planned against. Maintained as a view through
 * random changes (the table emptied too), it holds the rows the query recomputed from scratch
 * holds; a subquery that may return several rows still fails with 21000.
 */
class ScalarSubqueryTest {
    @Test
    void aGlobalAggregateSubqueryIsCrossedAsItIsAndStaysRight() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k int PRIMARY KEY, x int)");
            s.execute("CREATE TABLE u (y int)");
            String top = "SELECT k, x FROM t WHERE x = (SELECT max(x) FROM t)";
            String counted = "SELECT k, (SELECT count(*) FROM u) AS n, x + (SELECT sum(y) FROM u) AS shifted FROM t";
            List<String> plan = s.execute("EXPLAIN " + top).get(0).text().stream().map(r -> r.get(0)).toList();
            assertThat(plan).as("EXPLAIN %s", top).noneMatch(l -> l.contains("more than one row") || l.contains("Constant 1 row") || l.contains("Negate"));
            s.execute("CREATE MATERIALIZED VIEW top AS " + top);
            s.execute("CREATE MATERIALIZED VIEW counted AS " + counted);
            Random r = new Random(11);
            TreeMap<Integer, Integer> rows = new TreeMap<>();
            List<Integer> us = new ArrayList<>();
            for (int step = 0; step < 60; step++) {
                int k = r.nextInt(12);
                if (step == 40) {
                    s.execute("DELETE FROM t");
                    rows.clear();
                } else if (rows.containsKey(k) && r.nextBoolean()) {
                    s.execute("DELETE FROM t WHERE k = " + k);
                    rows.remove(k);
                } else {
                    Integer x = r.nextInt(8) == 0 ? null : r.nextInt(20);
                    s.execute(rows.containsKey(k) ? "UPDATE t SET x = " + x + " WHERE k = " + k : "INSERT INTO t VALUES (" + k + ", " + x + ")");
                    rows.put(k, x);
                }
                if (r.nextInt(3) == 0) {
                    int y = r.nextInt(5);
                    s.execute("INSERT INTO u VALUES (" + y + ")");
                    us.add(y);
                }
                Integer max = rows.values().stream().filter(v -> v != null).max(Integer::compare).orElse(null);
                List<List<String>> expectTop = new ArrayList<>();
                List<List<String>> expectCounted = new ArrayList<>();
                Integer sum = us.isEmpty() ? null : us.stream().mapToInt(Integer::intValue).sum();
                rows.forEach((key, x) -> {
                    if (x != null && x.equals(max)) expectTop.add(List.of(String.valueOf(key), String.valueOf(x)));
                    List<String> c = new ArrayList<>();
                    c.add(String.valueOf(key));
                    c.add(String.valueOf(us.size()));
                    c.add(x == null || sum == null ? null : String.valueOf(x + sum));
                    expectCounted.add(c);
                });
                assertThat(s.execute("SELECT * FROM top ORDER BY k").get(0).text()).as("step %d: top", step).isEqualTo(expectTop);
                assertThat(s.execute(top + " ORDER BY k").get(0).text()).as("step %d: the query", step).isEqualTo(expectTop);
                assertThat(s.execute("SELECT * FROM counted ORDER BY k").get(0).text()).as("step %d: counted", step).isEqualTo(expectCounted);
            }
            s.execute("INSERT INTO t VALUES (100, 1)");
            s.execute("INSERT INTO u VALUES (1), (2)");
            assertThat(error(s, "SELECT k FROM t WHERE x = (SELECT y FROM u)").sqlState()).isEqualTo("21000");
            assertThat(error(s, "SELECT k FROM t WHERE x = (SELECT max(y) FROM u GROUP BY y)").sqlState()).isEqualTo("21000");
        }
    }
}
