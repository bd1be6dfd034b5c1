package dev.tributary.server;

import static dev.tributary.server.SqlRows.error;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A query that filters, maps or projects one stored collection is a scan: every worker runs the
 * steps over its part of the arrangement and sends only what passes. Its answer, and the error it
 * reports when rows fail, are those of the same query maintained as a view, however the rows are
 * spread over the workers; equalities with constants tested on a row's bytes agree with the
 * same equalities evaluated on values.
 */
class ScanTest {

    @Test
    void aScanReportsTheErrorAViewOfItReports() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k int PRIMARY KEY, a int, b bigint)");
            // rows on both workers fail: some divide by zero, some overflow
            s.execute("INSERT INTO t SELECT g, g % 7, CASE WHEN g % 11 = 0 THEN 4000000000 ELSE g END FROM generate_series(1, 2000) g");
            String query = "SELECT k, 10 / a AS q, b * b AS bb FROM t";
            SqlException scan = error(s, query);
            s.execute("CREATE MATERIALIZED VIEW v AS " + query);
            SqlException view = error(s, "SELECT * FROM v");
            assertThat(scan.sqlState()).isEqualTo(view.sqlState());
            assertThat(scan.getMessage()).isEqualTo(view.getMessage());
            // the view's own error is what a scan of it with a filter reports, whatever the filter keeps
            assertThat(error(s, "SELECT * FROM v WHERE k = -1").getMessage()).isEqualTo(view.getMessage());
            // with the failing rows gone, both answer
            s.execute("DELETE FROM t WHERE a = 0 OR b > 3000000000");
            assertThat(s.execute(query).get(0).rows()).hasSize(s.execute("SELECT * FROM v").get(0).rows().size()).hasSize(2000 - 285 - 181 + 25);
        }
    }

    @Test
    void theErrorReportedIsTheLeastOverAllWorkers() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k int PRIMARY KEY, s text)");
            s.execute("INSERT INTO t SELECT g, 'x' || g FROM generate_series(1, 500) g");
            // each row fails with its own message: the least of them is on one worker or the other
            for (int from = 0; from < 8; from++) {
                String query = "SELECT k, CAST(s AS int) FROM t WHERE k > " + from * 37;
                java.util.Optional<String> least = java.util.stream.IntStream.rangeClosed(from * 37 + 1, 500)
                        .mapToObj(g -> "invalid input syntax for type integer: \"x" + g + "\"").min(String::compareTo);
                assertThat(error(s, query).getMessage()).as(query).isEqualTo(least.orElseThrow());
            }
        }
    }

    @Test
    void equalitiesTestedOnBytesAgreeWithEqualitiesOnValues() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k bigint PRIMARY KEY, s text, v varchar(8), i int, f boolean, d date)");
            s.execute("INSERT INTO t VALUES (1, 'a', 'a', 0, true, date '2024-01-01'), (2, '', '', -1, false, date '1999-12-31'),"
                    + " (3, 'ä€𝄞', 'ä€', 2147483647, NULL, NULL), (4, NULL, NULL, NULL, true, date '2024-01-01'),"
                    + " (-9223372036854775808, 'a ', 'a ', -2147483648, false, date '2024-01-02'), (9223372036854775807, 'A', 'A', 256, true, NULL)");
            List<String> equalities = List.of("s = 'a'", "s = ''", "s = 'ä€𝄞'", "'a ' = s", "v = 'a'", "v = 'ä€'", "i = 0", "i = -1", "i = 2147483647",
                    "i = -2147483648", "i = 256", "k = -9223372036854775808", "k = 9223372036854775807", "f = true", "f = false", "d = date '2024-01-01'",
                    "s = NULL", "i = NULL", "s = 'a' AND i = 0", "k = 1 AND s = 'b'");
            for (String eq : equalities) {
                // the same test spelt so that it is evaluated on values: through a computed column
                String onValues = eq.replace("s =", "s || '' =").replace("= s", "= s || ''").replace("v =", "v || '' =")
                        .replace("i =", "i + 0 =").replace("k =", "k + 0 =").replace("f =", "(f AND true) =").replace("d =", "d + 0 =");
                assertThat(sorted(s, "SELECT k FROM t WHERE " + eq)).as(eq).isEqualTo(sorted(s, "SELECT k FROM t WHERE " + onValues));
            }
            assertThat(sorted(s, "SELECT k FROM t WHERE s = 'a'")).containsExactly("1");
            assertThat(sorted(s, "SELECT k, i FROM t WHERE d = date '2024-01-01'")).containsExactly("1,0", "4,null");
            assertThat(sorted(s, "SELECT * FROM t WHERE i = 2147483647")).containsExactly("3,ä€𝄞,ä€,2147483647,null,null");
        }
    }

    private static List<String> sorted(Tributary.Connection s, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> row : s.execute(sql).get(0).text()) out.add(String.join(",", row.stream().map(String::valueOf).toList()));
        out.sort(null);
        return out;
    }
}
