package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * ASOF JOIN in DuckDB's spelling ({@code ASOF [LEFT] JOIN ... ON keys AND l.t >= r.t}) and
 * Snowflake's ({@code MATCH_CONDITION(...)}): each left row with the nearest right row of its key
 * on the side the inequality allows; the cases DuckDB is not the oracle for (a NULL time, tied
 * right rows, errors), a view's definition, and EXPLAIN. Maintenance against DuckDB:
 * {@code AsofJoinOracleTest} in property-tests.
 */
class AsofJoinTest {
    @Test
    void eachRowMeetsItsNearestMatch() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE trades (id int, sym text, ts timestamp)");
            db.execute("CREATE TABLE prices (sym text, ts timestamp, px int)");
            db.execute("INSERT INTO prices VALUES ('a', '2026-01-01 10:00', 1), ('a', '2026-01-01 11:00', 2), ('b', '2026-01-01 10:30', 3),"
                    + " ('a', '2026-01-01 11:00', 5)");
            db.execute("INSERT INTO trades VALUES (1, 'a', '2026-01-01 10:59'), (2, 'a', '2026-01-01 11:00'), (3, 'a', '2026-01-01 09:00'),"
                    + " (4, 'b', '2026-01-01 12:00'), (5, 'c', '2026-01-01 12:00'), (6, 'a', NULL), (7, NULL, '2026-01-01 12:00'), (2, 'a', '2026-01-01 11:00')");
            // the latest price at or before each trade; of the tied 11:00 prices, the last in row order (5 after 2)
            assertThat(rows(db, "SELECT t.id, p.px FROM trades t ASOF JOIN prices p ON t.sym = p.sym AND t.ts >= p.ts ORDER BY 1, 2"))
                    .containsExactly("1|1", "2|5", "2|5", "4|3");
            assertThat(rows(db, "SELECT t.id, p.px FROM trades t ASOF JOIN prices p ON t.sym = p.sym AND t.ts > p.ts ORDER BY 1, 2"))
                    .containsExactly("1|1", "2|1", "2|1", "4|3");
            assertThat(rows(db, "SELECT t.id, p.px FROM trades t ASOF JOIN prices p ON t.sym = p.sym AND t.ts <= p.ts ORDER BY 1, 2"))
                    .containsExactly("1|5", "2|5", "2|5", "3|1");
            // LEFT: a trade without a match (a NULL key or time included: NULL >= x is not true) once, padded
            assertThat(rows(db, "SELECT t.id, p.px FROM trades t ASOF LEFT JOIN prices p ON t.sym = p.sym AND t.ts < p.ts ORDER BY 1, 2"))
                    .containsExactly("1|5", "2|NULL", "2|NULL", "3|1", "4|NULL", "5|NULL", "6|NULL", "7|NULL");
            assertThat(rows(db, "SELECT t.id, p.px FROM trades t ASOF JOIN prices p MATCH_CONDITION(t.ts >= p.ts) ON t.sym = p.sym WHERE t.id = 1"))
                    .containsExactly("1|1");
            // the inequality may be written either way round, and without keys every row is one group
            assertThat(rows(db, "SELECT t.id, p.px FROM trades t ASOF JOIN prices p ON p.ts <= t.ts WHERE t.id = 4")).containsExactly("4|5");
            db.execute("CREATE VIEW latest AS SELECT t.id, p.px FROM trades t ASOF LEFT JOIN prices p ON t.sym = p.sym AND t.ts >= p.ts");
            assertThat(rows(db, "SELECT definition FROM pg_views WHERE viewname = 'latest'").get(0)).contains("ASOF LEFT JOIN prices");
            assertThat(rows(db, "SELECT count(*) FROM latest")).containsExactly("8");
            assertThat(String.join("\n", rows(db, "EXPLAIN SELECT * FROM trades t ASOF JOIN prices p ON t.sym = p.sym AND t.ts >= p.ts")))
                    .contains("AsofJoin on left #1 = right #0, nearest with left #2 >= right #1");
            // a column named asof is still a column
            db.execute("CREATE TABLE asof (asof int)");
            assertThat(rows(db, "SELECT asof FROM asof")).isEmpty();
        }
    }

    @Test
    void anOnClauseItCannotTakeIsAClearError() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE l (k int, t int)");
            db.execute("CREATE TABLE r (k int, t int)");
            fails("42601", () -> db.query("SELECT * FROM l ASOF JOIN r ON l.k = r.k"));
            fails("42601", () -> db.query("SELECT * FROM l ASOF JOIN r ON l.t >= r.t AND l.k < r.k"));
            fails("0A000", () -> db.query("SELECT * FROM l ASOF JOIN r ON l.t >= r.t AND l.k > 3"));
            fails("0A000", () -> db.query("SELECT * FROM l ASOF JOIN r USING (k)"));
            // as in PostgreSQL, asof before anything but JOIN or LEFT is an alias
            fails("42P01", () -> db.query("SELECT * FROM l ASOF RIGHT JOIN r ON l.t >= r.t"));
        }
    }
}
