package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;

import org.junit.jupiter.api.Test;

/** Set-returning functions in FROM: generate_series, unnest, _pg_expandarray; lateral over earlier items and enclosing queries. */
class SetReturningFunctionsTest {
    @Test
    void generateSeriesAndUnnest() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            assertThat(rows(db, "SELECT * FROM generate_series(1, 3)")).containsExactly("1", "2", "3");
            assertThat(rows(db, "SELECT s FROM pg_catalog.generate_series(10, 1, -4) s ORDER BY s")).containsExactly("2", "6", "10");
            assertThat(rows(db, "SELECT count(*) FROM generate_series(1, 0)")).containsExactly("0");
            assertThat(rows(db, "SELECT count(*) FROM generate_series(1, NULL)")).containsExactly("0");
            assertThat(rows(db, "SELECT u FROM unnest(ARRAY['b', NULL, 'a']) AS u ORDER BY u")).containsExactly("a", "b", "NULL");
            assertThat(rows(db, "SELECT e.x, e.n FROM information_schema._pg_expandarray(ARRAY[7, 5]) e ORDER BY e.n")).containsExactly("7|1", "5|2");
            assertThat(rows(db, "SELECT a, b FROM information_schema._pg_expandarray('{x}'::text[]) AS t(a, b)")).containsExactly("x|1");
            fails("22023", () -> db.query("SELECT * FROM generate_series(1, 3, 0)"));
            fails("42883", () -> db.query("SELECT * FROM generate_series('a'::text, 'b')"));
            fails("42883", () -> db.query("SELECT * FROM unnest(1)"));
            fails("0A000", () -> db.query("SELECT * FROM lower('A')"));
        }
    }

    @Test
    void inTheSelectListSideBySideWithCompositeResults() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            assertThat(rows(db, "SELECT generate_series(1, 3) AS a, generate_series(1, 2) AS b")).containsExactly("1|1", "2|2", "3|NULL");
            assertThat(rows(db, "SELECT unnest(ARRAY['x', 'y']), 7")).containsExactly("x|7", "y|7");
            assertThat(rows(db, "SELECT information_schema._pg_expandarray(ARRAY[5, 9]) AS k")).containsExactly("(5,1)", "(9,2)");
            assertThat(rows(db, "SELECT (information_schema._pg_expandarray(ARRAY[5, 9])).n, (information_schema._pg_expandarray(ARRAY[5, 9])).x"))
                    .containsExactly("1|5", "2|9");
            // a composite column of a subquery, its fields selected outside, as the JDBC driver asks for primary keys
            db.execute("CREATE TABLE t (id int, tags text[])");
            db.execute("INSERT INTO t VALUES (1, '{a,b}'), (2, NULL)");
            assertThat(rows(db, "SELECT r.id, (r.k).x, (r.k).n FROM (SELECT id, information_schema._pg_expandarray(tags) AS k FROM t) r ORDER BY 1, 3"))
                    .containsExactly("1|a|1", "1|b|2");
            assertThat(rows(db, "SELECT id, generate_series(1, id) FROM t ORDER BY 1, 2")).containsExactly("1|1", "2|1", "2|2");
            fails("42809", () -> db.query("SELECT (1).x"));
            fails("42703", () -> db.query("SELECT (information_schema._pg_expandarray(ARRAY[1])).nope"));
            fails("0A000", () -> db.query("SELECT count(*), generate_series(1, 2) FROM t"));
        }
    }

    @Test
    void lateralOverEarlierItemsAndEnclosingQueries() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE t (id int, tags text[])");
            db.execute("INSERT INTO t VALUES (1, '{a,b}'), (2, '{}'), (3, NULL), (4, '{c}')");
            assertThat(rows(db, "SELECT t.id, tag FROM t, unnest(t.tags) tag ORDER BY 1, 2")).containsExactly("1|a", "1|b", "4|c");
            assertThat(rows(db, "SELECT id, (SELECT string_agg(t.tags[s], '+') FROM generate_series(1, array_upper(t.tags, 1)) s) FROM t ORDER BY id"))
                    .containsExactly("1|a+b", "2|NULL", "3|NULL", "4|c");
            // maintained: a materialized view over a lateral function call follows its input
            db.execute("CREATE MATERIALIZED VIEW tag_counts AS SELECT tag, count(*) AS n FROM t, unnest(t.tags) tag GROUP BY tag");
            db.execute("INSERT INTO t VALUES (5, '{a,c,c}')");
            db.execute("DELETE FROM t WHERE id = 1");
            assertThat(rows(db, "SELECT tag, n FROM tag_counts ORDER BY tag")).containsExactly("a|1", "c|3");
        }
    }
}
