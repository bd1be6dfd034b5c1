package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * UPDATE ... FROM and DELETE ... USING beyond what the .slt file shows against PostgreSQL:
 * prepared with parameters, a target row joined many times changed once, and the refusal of a
 * bare RETURNING * (which in PostgreSQL lists the joined tables' columns too).
 */
class UpdateFromTest {
    private static List<String> rows(Result r) {
        List<String> out = new ArrayList<>();
        for (List<String> row : r.text()) out.add(String.join("|", row.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    @Test
    void preparedWithParametersEachRowOnce() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE price (sku text PRIMARY KEY, cents int)");
            s.execute("CREATE TABLE change (sku text, pct int)");
            s.execute("INSERT INTO price VALUES ('a', 100), ('b', 200), ('c', 300)");
            s.execute("INSERT INTO change VALUES ('a', 10), ('a', 10), ('b', 50), ('b', 50), ('b', 50)");
            Prepared up = s.prepare("UPDATE price p SET cents = p.cents * (100 + c.pct) / 100 FROM change c WHERE c.sku = p.sku AND c.pct >= $1 RETURNING p.sku, cents",
                    List.of());
            assertThat(rows(s.execute(up, Arrays.asList(20L)))).containsExactly("b|300");
            assertThat(rows(s.execute(up, Arrays.asList(0L)))).containsExactlyInAnyOrder("a|110", "b|450");
            Prepared del = s.prepare("DELETE FROM price USING change WHERE change.sku = price.sku AND change.pct = $1", List.of());
            assertThat(s.execute(del, Arrays.asList(50L)).tag()).isEqualTo("DELETE 1");
            assertThat(rows(s.execute("SELECT * FROM price ORDER BY sku").get(0))).containsExactly("a|110", "c|300");
        }
    }

    @Test
    void aRepeatedRowOfAKeylessTableIsChangedAsOftenAsItIsThere() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE bag (x int)");
            db.execute("CREATE TABLE src (x int)");
            db.execute("INSERT INTO bag VALUES (1), (1), (1), (2)");
            db.execute("INSERT INTO src VALUES (1), (1), (2), (2), (2), (2)");
            assertThat(db.execute("UPDATE bag SET x = bag.x * 10 FROM src WHERE src.x = bag.x").get(0).tag()).isEqualTo("UPDATE 4");
            assertThat(rows(db.query("SELECT x FROM bag ORDER BY x"))).containsExactly("10", "10", "10", "20");
            assertThat(db.execute("DELETE FROM bag USING src WHERE src.x * 10 = bag.x AND bag.x = 10").get(0).tag()).isEqualTo("DELETE 3");
        }
    }

    @Test
    void aTableMadeByCreateTableAsIsMadeAgainEmptyAfterARestartWithItsRows(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE src (a int, b text)");
            db.execute("INSERT INTO src VALUES (1, 'x'), (2, 'y')");
            assertThat(db.execute("CREATE TABLE copy (n, s) AS SELECT a * 10, b FROM src").get(0).tag()).isEqualTo("SELECT 2");
            db.execute("DELETE FROM src");
        }
        try (Tributary db = Tributary.open(dir.resolve("data"), Clock.manual(2_000), 2)) {
            // replayed as the CREATE TABLE of its columns: the query is not run again over src, now empty
            assertThat(rows(db.query("SELECT * FROM copy ORDER BY n"))).containsExactly("10|x", "20|y");
            db.execute("INSERT INTO copy VALUES (30, 'z')");
        }
    }

    @Test
    void aBareReturningStarIsRefused() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 1)) {
            db.execute("CREATE TABLE t (a int)");
            db.execute("CREATE TABLE u (a int)");
            SqlRows.fails("0A000", "RETURNING * of an UPDATE ... FROM or DELETE ... USING is not supported", () -> db.execute("UPDATE t SET a = 1 FROM u RETURNING *"));
            SqlRows.fails("0A000", () -> db.execute("DELETE FROM t USING u RETURNING *"));
            db.execute("DELETE FROM t USING u WHERE t.a = u.a RETURNING t.*");
        }
    }
}
