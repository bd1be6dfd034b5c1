package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A subplan that a query reads twice (a CTE used twice) is computed once: the plan binds it in
 * one {@code Let} and the dataflow has its operators once; the answers, maintained in a view as
 * rows come and go, are the ones the query gives.
 */
class CommonSubplansTest {
    private static List<String> rows(Tributary db, String sql) {
        return db.query(sql).text().stream().map(r -> String.join("|", r)).toList();
    }

    private static String explain(Tributary db, String sql) {
        return String.join("\n", db.query("EXPLAIN " + sql).text().stream().map(r -> r.get(0)).toList());
    }

    private static int occurrences(String text, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
        int n = 0;
        while (m.find()) n++;
        return n;
    }

    /** Per group its count, kept where it is the largest: the counts are read twice. */
    private static final String HOT = "WITH c AS (SELECT g, count(*) AS n FROM t GROUP BY g)"
            + " SELECT c.g, c.n FROM c JOIN (SELECT max(n) AS m FROM c) AS x ON c.n = x.m";

    @Test
    void aCteReadTwiceIsCountedOnce() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (g int, v int)");
            String plan = explain(db, HOT);
            assertThat(occurrences(plan, "aggregates [count()]")).as(plan).isEqualTo(1);
            assertThat(occurrences(plan, "Let l")).as(plan).isEqualTo(1);
            db.execute("CREATE MATERIALIZED VIEW hot AS " + HOT);
            db.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 1)");
            assertThat(rows(db, "SELECT * FROM hot")).containsExactly("1|2");
            db.execute("INSERT INTO t VALUES (2, 5), (3, 1)");
            assertThat(rows(db, "SELECT * FROM hot ORDER BY g")).containsExactly("1|2", "2|2");
            db.execute("DELETE FROM t WHERE g = 1 AND v = 2");
            assertThat(rows(db, "SELECT * FROM hot")).containsExactly("2|2");
            assertThat(rows(db, "SELECT * FROM hot")).isEqualTo(rows(db, HOT));
        }
    }

    /** A shared subplan may hold lets of its own (an outer join's); a duplicate of stateless steps only is left as two. */
    @Test
    void sharesClosedSubplansWithLetsAndLeavesStatelessCopies() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (g int, v int)");
            db.execute("CREATE TABLE u (g int, w int)");
            db.execute("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)");
            db.execute("INSERT INTO u VALUES (1, 10), (1, 11), (3, 30)");
            String outer = "WITH c AS (SELECT t.g, count(u.w) AS n FROM t LEFT JOIN u ON t.g = u.g GROUP BY t.g)"
                    + " SELECT a.g, a.n, b.n FROM c AS a JOIN c AS b ON a.g = b.g - 1";
            String plan = explain(db, outer);
            assertThat(occurrences(plan, "aggregates [count(")).as(plan).isEqualTo(1);
            assertThat(rows(db, outer + " ORDER BY 1")).containsExactly("1|2|0", "2|0|1");
            String stateless = "WITH c AS (SELECT g + 1 AS h FROM t WHERE v > 1) SELECT * FROM c UNION ALL SELECT * FROM c";
            assertThat(explain(db, stateless)).doesNotContain("Let l");
            assertThat(rows(db, stateless + " ORDER BY 1")).containsExactly("3", "3", "4", "4");
        }
    }
}
