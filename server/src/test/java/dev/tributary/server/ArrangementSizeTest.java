package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Tributary#arrangementSize}: a table counts its own arrangement; a materialized view
 * counts the arrangements its dataflow built (its result, its errors, a lookup's re-keyed input)
 * and an AS OF SYSTEM TIME lookup's waiting rows, never the tables it imports; the parts add up to
 * the totals, and the figures are the same on one worker and on several, and in
 * {@code tributary_internal.arrangement_sizes}.
 */
class ArrangementSizeTest {
    private static long part(ArrangementSize s, String name) {
        return s.parts().stream().filter(p -> p.name().equals(name)).mapToLong(ArrangementSize.Part::records).sum();
    }

    private static void partsAddUp(ArrangementSize s) {
        assertThat(s.parts().stream().mapToLong(ArrangementSize.Part::records).sum()).isEqualTo(s.records());
        assertThat(s.parts().stream().mapToLong(ArrangementSize.Part::bytes).sum()).isEqualTo(s.bytes());
    }

    @Test
    void aViewCountsWhatItsDataflowBuiltNotItsInputs() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(0), workers)) {
                db.execute("CREATE TABLE t (a int, b text)");
                db.execute("INSERT INTO t VALUES (1, 'x'), (2, 'x'), (3, 'y')");
                db.execute("CREATE MATERIALIZED VIEW big AS SELECT * FROM t WHERE a > 1");
                db.execute("CREATE VIEW plain AS SELECT * FROM t");
                assertThat(db.query("SELECT count(*) FROM big").text()).containsExactly(List.of("2"));
                ArrangementSize t = db.arrangementSize("t");
                assertThat(t.records()).as("%d workers", workers).isEqualTo(3);
                assertThat(t.bytes()).isPositive();
                partsAddUp(t);
                ArrangementSize big = db.arrangementSize("big");
                // its rows (2) and its errors (none); t's arrangement is imported, not counted again
                assertThat(big.records()).as("%d workers", workers).isEqualTo(2);
                assertThat(big.parts()).hasSize(2);
                partsAddUp(big);
                assertThat(db.arrangementSize("plain")).isEqualTo(new ArrangementSize(0, 0, List.of()));
                // the same figures in SQL, a row per part
                assertThat(db.query("SELECT name, part, records FROM tributary_internal.arrangement_sizes WHERE records > 0 ORDER BY name").text())
                        .containsExactly(List.of("big", "bySelf", "2"), List.of("t", "bySelf", "3"));
                assertThat(db.query("SELECT sum(bytes) FROM tributary_internal.arrangement_sizes WHERE name = 'big'").text())
                        .containsExactly(List.of(String.valueOf(big.bytes())));
                db.execute("DROP MATERIALIZED VIEW big");
                for (String gone : List.of("big", "nothing")) {
                    assertThatThrownBy(() -> db.arrangementSize(gone))
                            .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("42P01"));
                }
            }
        }
    }

    @Test
    void anAsOfLookupCountsTheHistoryItArrangesAndTheRowsWaitingForTheirTime() {
        for (int workers = 1; workers <= 2; workers++) {
            try (Tributary db = Tributary.inMemory(Clock.manual(10_000), workers)) {
                db.execute("CREATE TABLE prices (sym text, price int) WITH (RETAIN HISTORY PIN AT 10000)");
                db.execute("CREATE TABLE orders (id int, sym text, ts bigint)");
                db.execute("INSERT INTO prices VALUES ('x', 1), ('y', 5)");
                db.execute("ADVANCE CLOCK TO 20000");
                db.execute("UPDATE prices SET price = 2 WHERE sym = 'x'");
                db.execute("ADVANCE CLOCK TO 30000");
                db.execute("CREATE MATERIALIZED VIEW priced AS SELECT o.id, p.price FROM orders o LEFT JOIN LATERAL "
                        + "(SELECT price FROM prices AS OF SYSTEM TIME o.ts SINCE 10000 WHERE prices.sym = o.sym) p ON true");
                db.execute("INSERT INTO orders VALUES (1, 'x', 15000), (2, 'y', 25000), (3, 'x', 90000)");
                assertThat(db.query("SELECT * FROM priced ORDER BY id").text()).containsExactly(List.of("1", "1"), List.of("2", "5"));
                ArrangementSize held = db.arrangementSize("priced");
                // prices' history since the pin, keyed by sym: two inserts, then a retraction and an insertion
                assertThat(held.parts()).extracting(ArrangementSize.Part::name).contains("byKey", "halfJoin:waiting");
                assertThat(part(held, "byKey")).as("%d workers", workers).isEqualTo(4);
                assertThat(part(held, "halfJoin:waiting")).as("%d workers", workers).isEqualTo(1);
                assertThat(held.records()).isEqualTo(4 + 1 + 2);
                partsAddUp(held);
                db.execute("ADVANCE CLOCK TO 100000");
                assertThat(db.query("SELECT price FROM priced WHERE id = 3").text()).containsExactly(List.of("2"));
                ArrangementSize after = db.arrangementSize("priced");
                assertThat(part(after, "halfJoin:waiting")).isZero();
                assertThat(after.records()).isEqualTo(4 + 3);
            }
        }
    }
}
