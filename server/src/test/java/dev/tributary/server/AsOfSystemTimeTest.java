package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reference scenario for {@code x AS OF SYSTEM TIME expr SINCE lit} under
 * {@code LEFT JOIN LATERAL}, on a manual clock: orders at three times against prices 1, 2, 3 get
 * 1, 2 and 3; an order timed before the pin gets NULL; an order an hour in the future is withheld
 * until the clock passes it and then gets the price at its time; raising every price by 100 six
 * days later changes none of the existing rows; a new order then sees 103. Deleting an order
 * retracts exactly its row.
 */
class AsOfSystemTimeTest {
    private static final String VIEW = """
            CREATE MATERIALIZED VIEW priced AS
            SELECT o.id, p.price
            FROM orders o
            LEFT JOIN LATERAL (
              SELECT price FROM prices AS OF SYSTEM TIME o.ts SINCE 10000
              WHERE prices.sym = o.sym
            ) p ON true""";

    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    @Test
    void theReferenceScenario() {
        for (int workers = 1; workers <= 3; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(10_000), workers)) {
                db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT 10000)");
                db.execute("CREATE TABLE orders (id int PRIMARY KEY, sym text, ts bigint)");
                db.execute("INSERT INTO prices VALUES ('x', 1)");                          // price 1 from 10000
                db.execute("ADVANCE CLOCK TO 20000");
                db.execute("UPDATE prices SET price = 2");                                 // 2 from 20001
                db.execute("ADVANCE CLOCK TO 30000");
                db.execute("UPDATE prices SET price = 3");                                 // 3 from 30001
                db.execute("ADVANCE CLOCK TO 40000");
                db.execute(VIEW);
                db.execute("INSERT INTO orders VALUES (1, 'x', 15000), (2, 'x', 25000), (3, 'x', 35000), (4, 'x', 5000), (5, 'x', 3640000)");
                assertThat(rows(db, "SELECT * FROM priced ORDER BY id")).as("%d workers", workers)
                        .containsExactly(List.of("1", "1"), List.of("2", "2"), List.of("3", "3"), java.util.Arrays.asList("4", null));
                // an hour on: the future order appears, with the price at its time
                db.execute("ADVANCE CLOCK TO 3650000");
                assertThat(rows(db, "SELECT price FROM priced WHERE id = 5")).containsExactly(List.of("3"));
                // six days later every price rises by 100: nothing already emitted changes
                db.execute("ADVANCE CLOCK BY INTERVAL '6 days'");
                db.execute("UPDATE prices SET price = price + 100");
                assertThat(rows(db, "SELECT * FROM priced ORDER BY id")).containsExactly(List.of("1", "1"), List.of("2", "2"), List.of("3", "3"),
                        java.util.Arrays.asList("4", null), List.of("5", "3"));
                db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
                long now = Long.parseLong(rows(db, "SELECT (extract(epoch FROM now()) * 1000)::bigint").get(0).get(0));
                db.execute("INSERT INTO orders VALUES (6, 'x', " + now + ")");
                assertThat(rows(db, "SELECT price FROM priced WHERE id = 6")).containsExactly(List.of("103"));
                // deleting an order retracts exactly what it produced, recomputed from the pinned history
                db.execute("DELETE FROM orders WHERE id IN (2, 4)");
                assertThat(rows(db, "SELECT * FROM priced ORDER BY id")).containsExactly(List.of("1", "1"), List.of("3", "3"), List.of("5", "3"),
                        List.of("6", "103"));
            }
        }
    }

    @Test
    void theDesugaringGivesTheSameAnswersThroughRepeatRowAndChanges() {
        try (Tributary db = Tributary.inMemory(Clock.manual(10_000))) {
            db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT 10000)");
            db.execute("CREATE TABLE orders (id int PRIMARY KEY, sym text, ts bigint)");
            db.execute("INSERT INTO prices VALUES ('x', 1), ('x', 1)");              // twice: the lookup finds it twice
            db.execute("ADVANCE CLOCK TO 20000");
            db.execute("INSERT INTO orders VALUES (1, 'x', 15000), (2, 'x', 5000), (3, 'x', 90000)");
            Tributary.Connection reference = db.session();
            reference.execute("SET asof_join = desugared");
            String q = VIEW.substring(VIEW.indexOf("SELECT")) + " ORDER BY o.id";
            List<List<String>> expected = List.of(List.of("1", "1"), List.of("1", "1"), java.util.Arrays.asList("2", null));
            assertThat(rows(db, q)).isEqualTo(expected);
            assertThat(reference.execute(q).get(0).text()).isEqualTo(expected);
            assertThat(reference.execute("EXPLAIN " + q).get(0).text().toString()).contains("Changes since 10000").contains("RepeatRow")
                    .doesNotContain("AsOfLookup");
            // repeat_row written by hand, with a negative and a NULL count
            assertThat(rows(db, "SELECT o.id FROM orders o, repeat_row(CASE WHEN o.id = 1 THEN 2 WHEN o.id = 2 THEN 0 END) ORDER BY 1"))
                    .containsExactly(List.of("1"), List.of("1"));
        }
    }

    @Test
    void aLookupReadsAnIndexThatKeepsTheHistoryInsteadOfCopyingIt() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(10_000), workers)) {
                db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT 10000)");
                db.execute("CREATE INDEX prices_sym ON prices (sym) WITH (RETAIN HISTORY PIN AT 10000)");
                db.execute("CREATE INDEX prices_sym_now ON prices (sym)");             // keeps no history: not usable
                db.execute("CREATE TABLE orders (id int PRIMARY KEY, sym text, ts bigint)");
                db.execute("INSERT INTO prices VALUES ('x', 1), (NULL, 7)");
                db.execute("ADVANCE CLOCK TO 20000");
                db.execute("UPDATE prices SET price = 2 WHERE sym = 'x'");
                db.execute("ADVANCE CLOCK TO 30000");
                db.execute(VIEW);
                db.execute("INSERT INTO orders VALUES (1, 'x', 15000), (2, 'x', 25000), (3, NULL, 25000)");
                assertThat(rows(db, "SELECT * FROM priced ORDER BY id")).as("%d workers", workers)
                        .containsExactly(List.of("1", "1"), List.of("2", "2"), java.util.Arrays.asList("3", null));
                assertThat(db.query("EXPLAIN " + VIEW.substring(VIEW.indexOf("SELECT"))).text().toString()).contains("through index prices_sym ");
                // the view holds its result only: the history it reads is the index's
                assertThat(db.arrangementSize("priced").records()).as("%d workers", workers).isEqualTo(3);
            }
        }
    }

    @Test
    void innerLookupsConditionsAndPullQueries() {
        try (Tributary db = Tributary.inMemory(Clock.manual(10_000))) {
            db.execute("CREATE TABLE prices (sym text, venue text, price int) WITH (RETAIN HISTORY FOR '1 day')");
            db.execute("CREATE TABLE orders (id int, sym text, ts timestamptz, qty int)");
            db.execute("INSERT INTO prices VALUES ('x', 'a', 1), ('x', 'b', 50), ('y', 'a', 7)");
            db.execute("ADVANCE CLOCK TO 20000");
            db.execute("UPDATE prices SET price = 2 WHERE sym = 'x' AND venue = 'a'");
            db.execute("ADVANCE CLOCK TO 30000");
            db.execute("INSERT INTO orders VALUES (1, 'x', '1970-01-01 00:00:15+00', 10), (2, 'x', '1970-01-01 00:00:25+00', 0), "
                    + "(3, 'z', '1970-01-01 00:00:25+00', 1), (4, 'y', NULL, 1)");
            String q = "SELECT o.id, p.total FROM orders o JOIN LATERAL (SELECT price * o.qty AS total FROM prices AS OF SYSTEM TIME o.ts SINCE 10000 "
                    + "WHERE prices.sym = o.sym AND prices.venue = 'a' AND o.qty > 0) p ON true ORDER BY o.id";
            // an inner lookup keeps only rows that found something; qty 0 fails the outer condition
            assertThat(rows(db, q)).containsExactly(List.of("1", "10"));
            String left = q.replace("JOIN LATERAL", "LEFT JOIN LATERAL");
            assertThat(rows(db, left)).containsExactly(List.of("1", "10"), java.util.Arrays.asList("2", null), java.util.Arrays.asList("3", null),
                    java.util.Arrays.asList("4", null));
            assertThat(db.query("EXPLAIN " + left).text().toString()).contains("Left AsOfLookup");
        }
    }

    @Test
    void whatItCannotDoIsRefused() {
        try (Tributary db = Tributary.inMemory(Clock.manual(10_000))) {
            db.execute("CREATE TABLE prices (sym text, price int)");
            db.execute("CREATE TABLE orders (id int, sym text, ts bigint)");
            db.execute("ADVANCE CLOCK TO 20000");
            for (String[] c : new String[][] {
                {"SELECT * FROM orders o LEFT JOIN LATERAL (SELECT price FROM prices AS OF SYSTEM TIME o.ts SINCE 10000 WHERE prices.sym = o.sym) p ON true", "72000"},
                {"SELECT * FROM orders o LEFT JOIN LATERAL (SELECT price FROM prices AS OF SYSTEM TIME o.ts SINCE 30000 WHERE prices.sym < o.sym) p ON true", "0A000"},
                {"SELECT * FROM orders o LEFT JOIN LATERAL (SELECT price FROM prices AS OF SYSTEM TIME o.ts SINCE 30000) p ON o.id = 1", "0A000"},
                {"SELECT * FROM orders o LEFT JOIN LATERAL (SELECT max(price) FROM prices AS OF SYSTEM TIME o.ts SINCE 30000 GROUP BY sym) p ON true", "0A000"},
                {"SELECT * FROM orders o LEFT JOIN LATERAL (SELECT price FROM prices AS OF SYSTEM TIME o.sym SINCE 30000) p ON true", "42804"},
                {"SELECT * FROM orders o LEFT JOIN LATERAL (SELECT price FROM prices AS OF SYSTEM TIME price SINCE 30000) p ON true", "42703"},
                {"SELECT * FROM prices AS OF SYSTEM TIME 5 SINCE 1", "0A000"},
                {"SET asof_join = sometimes", "22023"}}) {
                assertThatThrownBy(() -> db.execute(c[0])).as(c[0])
                        .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(c[1]));
            }
        }
    }
}
