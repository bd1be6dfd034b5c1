package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;

import org.junit.jupiter.api.Test;

/** One-dimensional arrays: constructors, literals, subscripts, comparisons, ANY/ALL, ARRAY(subquery), array functions, storage. */
class ArraysTest {
    @Test
    void constructorsLiteralsAndSubscripts() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            assertThat(rows(db, "SELECT ARRAY[1, 2, NULL], ARRAY['a b', '', 'x'], '{1,2}'::int[], '{}'::text[], ARRAY[1.5, 2]")).containsExactly(
                    "{1,2,NULL}|{\"a b\",\"\",x}|{1,2}|{}|{1.5,2}");
            assertThat(rows(db, "SELECT (ARRAY[10, 20, 30])[2], (ARRAY[10])[5], ('{a,b}'::text[])[0], (ARRAY[1])[NULL]")).containsExactly("20|NULL|NULL|NULL");
            assertThat(rows(db, "SELECT array_to_string(ARRAY['a', NULL, 'c'], ','), array_to_string(ARRAY['a', NULL], ',', '*'),"
                    + " array_upper(ARRAY[1, 2, 3], 1), array_upper('{}'::int[], 1), array_length(ARRAY[4, 5], 1), cardinality(ARRAY[1])"))
                    .containsExactly("a,c|a,*|3|NULL|2|1");
            assertThat(rows(db, "SELECT '{\"x,y\",\"q\\\"\"}'::text[], ('{\"x,y\",\"q\\\"\"}'::text[])[2]")).containsExactly("{\"x,y\",\"q\\\"\"}|q\"");
            assertThat(rows(db, "SELECT ARRAY[1] || ARRAY[2, 3], ARRAY[1] || 2, 0 || ARRAY[1], NULL::int[] || ARRAY[4], '{a}' || ARRAY['b']"))
                    .containsExactly("{1,2,3}|{1,2}|{0,1}|{4}|{a,b}");
            fails("42P18", () -> db.query("SELECT ARRAY[]"));
            fails("22P02", () -> db.query("SELECT '{1,x}'::int[]"));
            fails("22P02", () -> db.query("SELECT '1,2'::int[]"));
            fails("42804", () -> db.query("SELECT (1)[1]"));
            fails("42883", () -> db.query("SELECT array_upper(1, 1)"));
        }
    }

    @Test
    void comparisonsAndQuantifiers() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            assertThat(rows(db, "SELECT ARRAY[1, 2] = '{1,2}', ARRAY[1, 2] < ARRAY[1, 3], ARRAY[1] < ARRAY[1, 0], ARRAY[1, 2] <> ARRAY[1, 2]"))
                    .containsExactly("t|t|t|f");
            assertThat(rows(db, "SELECT 2 = ANY(ARRAY[1, 2]), 3 = ANY(ARRAY[1, 2]), 3 = ANY(ARRAY[1, NULL]), NULL = ANY(ARRAY[1]),"
                    + " NULL = ANY('{}'::int[]), 'd' = any('{d,f}'), 3 > ALL(ARRAY[1, 2]), 3 > ALL(ARRAY[1, NULL]), 1 > ALL('{}'::int[])"))
                    .containsExactly("t|f|NULL|NULL|f|t|t|NULL|t");
            fails("42809", () -> db.query("SELECT 1 = ANY(1)"));
        }
    }

    @Test
    void arraySubqueriesAndArrayAggregates() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (g int, s text)");
            db.execute("INSERT INTO t VALUES (1, 'b'), (1, 'a'), (2, 'c')");
            assertThat(rows(db, "SELECT ARRAY(SELECT s FROM t ORDER BY 1), ARRAY(SELECT s FROM t WHERE g = 9), ARRAY(SELECT s FROM t ORDER BY s DESC LIMIT 2)"))
                    .containsExactly("{a,b,c}|{}|{c,b}");
            assertThat(rows(db, "SELECT g, array_agg(s ORDER BY s) FROM t GROUP BY g ORDER BY g")).containsExactly("1|{a,b}", "2|{c}");
            // correlated, as psql asks for a policy's roles
            assertThat(rows(db, "SELECT x.g, array_to_string(ARRAY(SELECT s FROM t WHERE t.g = x.g ORDER BY 1), ',') FROM (VALUES (1), (3)) x(g) ORDER BY 1"))
                    .containsExactly("1|a,b", "3|");
            // arrays are stored, arranged and maintained like any value
            db.execute("CREATE MATERIALIZED VIEW per_g AS SELECT g, array_agg(s ORDER BY s) AS items FROM t GROUP BY g");
            db.execute("INSERT INTO t VALUES (2, 'a')");
            assertThat(rows(db, "SELECT g, items, items[1] FROM per_g ORDER BY g")).containsExactly("1|{a,b}|a", "2|{a,c}|a");
            assertThat(rows(db, "SELECT count(DISTINCT items) FROM (SELECT ARRAY[g] AS items FROM t) x")).containsExactly("2");
        }
    }
}
