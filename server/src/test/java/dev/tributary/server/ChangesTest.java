package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code CHANGES(x AS OF t)} as a table factor: x's history from t on as an append-only relation
 * with change_time and change_diff, the history before t folded into t, usable in queries, joins,
 * aggregates, materialized views and indexes, and refused when x no longer holds its history at t.
 * Summing change_diff up to a time gives back x as of that time.
 */
class ChangesTest {
    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    /** prices: a at 1001 (price 1), a updated to 2 at 2001, b inserted at 3001, a deleted at 4001; clock at 5000. */
    private static Tributary prices(int workers) {
        Tributary db = Tributary.inMemory(Clock.manual(1_000), workers);
        db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT 1000)");
        db.execute("INSERT INTO prices VALUES ('a', 1)");
        db.execute("ADVANCE CLOCK TO 2000");
        db.execute("UPDATE prices SET price = 2 WHERE sym = 'a'");
        db.execute("ADVANCE CLOCK TO 3000");
        db.execute("INSERT INTO prices VALUES ('b', 10)");
        db.execute("ADVANCE CLOCK TO 4000");
        db.execute("DELETE FROM prices WHERE sym = 'a'");
        db.execute("ADVANCE CLOCK TO 5000");
        return db;
    }

    @Test
    void theHistoryAsRows() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = prices(workers)) {
                assertThat(rows(db, "SELECT sym, price, change_time, change_diff FROM CHANGES(prices AS OF 1000) ORDER BY change_time, change_diff, sym"))
                        .containsExactly(
                                List.of("a", "1", "1970-01-01 00:00:01.001+00", "1"),
                                List.of("a", "1", "1970-01-01 00:00:02.001+00", "-1"),
                                List.of("a", "2", "1970-01-01 00:00:02.001+00", "1"),
                                List.of("b", "10", "1970-01-01 00:00:03.001+00", "1"),
                                List.of("a", "2", "1970-01-01 00:00:04.001+00", "-1"));
                // a later start folds what came before into a snapshot at it
                assertThat(rows(db, "SELECT c.sym, c.price, c.change_time, c.change_diff FROM CHANGES(prices AS OF 2500) AS c ORDER BY 3, 4, 1"))
                        .containsExactly(
                                List.of("a", "2", "1970-01-01 00:00:02.5+00", "1"),
                                List.of("b", "10", "1970-01-01 00:00:03.001+00", "1"),
                                List.of("a", "2", "1970-01-01 00:00:04.001+00", "-1"));
            }
        }
    }

    @Test
    void summingChangesUpToATimeIsTheTableAsOfThen() {
        try (Tributary db = prices(1)) {
            for (long t : new long[] {1000, 1500, 2001, 3000, 3001, 4500}) {
                assertThat(rows(db, "SELECT sym, price FROM (SELECT sym, price, sum(change_diff) AS n FROM CHANGES(prices AS OF 1000) "
                        + "WHERE change_time <= '" + timestamp(t) + "' GROUP BY sym, price) s WHERE n > 0 ORDER BY sym"))
                        .as("at %d", t).isEqualTo(rows(db, "SELECT sym, price FROM prices ORDER BY sym AS OF " + t));
            }
        }
    }

    private static String timestamp(long millis) {
        return java.time.OffsetDateTime.ofInstant(java.time.Instant.ofEpochMilli(millis), java.time.ZoneOffset.UTC)
                .format(java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSxxx"));
    }

    @Test
    void inViewsJoinsAggregatesAndIndexes() {
        try (Tributary db = prices(1)) {
            db.execute("CREATE MATERIALIZED VIEW changed AS SELECT sym, count(*) AS changes, sum(change_diff) AS net FROM CHANGES(prices AS OF 1000) GROUP BY sym");
            db.execute("CREATE INDEX changed_sym ON changed (sym)");
            assertThat(rows(db, "SELECT * FROM changed ORDER BY sym")).containsExactly(List.of("a", "4", "0"), List.of("b", "1", "1"));
            db.execute("UPDATE prices SET price = 11 WHERE sym = 'b'");
            assertThat(rows(db, "SELECT changes, net FROM changed WHERE sym = 'b'")).containsExactly(List.of("3", "1"));
            // an append-only relation: deleting from the table adds rows
            db.execute("DELETE FROM prices");
            assertThat(rows(db, "SELECT * FROM changed ORDER BY sym")).containsExactly(List.of("a", "4", "0"), List.of("b", "4", "0"));
            db.execute("CREATE TABLE names (sym text, name text); INSERT INTO names VALUES ('a', 'Alpha')");
            assertThat(rows(db, "SELECT n.name, c.price, c.change_diff FROM CHANGES(prices AS OF 1000) c JOIN names n ON n.sym = c.sym "
                    + "ORDER BY c.change_time, c.change_diff")).containsExactly(
                    List.of("Alpha", "1", "1"), List.of("Alpha", "1", "-1"), List.of("Alpha", "2", "1"), List.of("Alpha", "2", "-1"));
            assertThat(db.query("EXPLAIN SELECT * FROM CHANGES(prices AS OF 1000)").text().toString()).contains("Changes since 1000");
        }
    }

    @Test
    void historyThatIsGoneIsRefused() {
        try (Tributary db = prices(1)) {
            db.execute("CREATE TABLE plain (a int)");
            db.execute("ADVANCE CLOCK TO 6000");
            for (String sql : List.of("SELECT * FROM CHANGES(prices AS OF 500)", "SELECT * FROM CHANGES(plain AS OF 5000)",
                    "CREATE MATERIALIZED VIEW m AS SELECT * FROM CHANGES(plain AS OF 5000)")) {
                assertThatThrownBy(() -> db.execute(sql)).as(sql).isInstanceOfSatisfying(SqlException.class, e -> {
                    assertThat(e.sqlState()).isEqualTo("72000");
                    assertThat(e.getMessage()).startsWith("CHANGES(... AS OF ").contains("is before the history table");
                });
            }
            assertThatThrownBy(() -> db.execute("SELECT * FROM CHANGES(nope AS OF 1000)"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P01"));
            assertThatThrownBy(() -> db.execute("SELECT * FROM CHANGES(prices AS OF true)"))
                    .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42804"));
        }
    }
}
