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

    /**
     * Comparisons of integer and date columns with constants tested on a row's bytes agree with
     * the comparisons of the values, computed here: negative numbers, every integer width's
     * extremes, NULLs (never pass), the constant on either side.
     */
    @Test
    void comparisonsTestedOnBytesAgreeWithComparisonsOnValues() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k int PRIMARY KEY, a int, b bigint, d date)");
            long[] as = {Integer.MIN_VALUE, -70000, -256, -255, -1, 0, 1, 7, 255, 256, 65536, Integer.MAX_VALUE};
            long[] bs = {Long.MIN_VALUE, -(1L << 40), -257, -1, 0, 1, 300, 1L << 33, Long.MAX_VALUE};
            java.util.Random random = new java.util.Random(21);
            List<long[]> rows = new ArrayList<>();
            StringBuilder insert = new StringBuilder("INSERT INTO t VALUES ");
            for (int k = 0; k < 400; k++) {
                Long a = k % 13 == 0 ? null : random.nextBoolean() ? as[random.nextInt(as.length)] : (long) random.nextInt();
                Long b = k % 11 == 0 ? null : random.nextBoolean() ? bs[random.nextInt(bs.length)] : random.nextLong();
                Long d = k % 9 == 0 ? null : (long) (random.nextInt(40000) - 20000);
                rows.add(new long[] {k, a == null ? 0 : a, b == null ? 0 : b, d == null ? 0 : d, a == null ? 1 : 0, b == null ? 1 : 0, d == null ? 1 : 0});
                insert.append(k == 0 ? "" : ", ").append("(").append(k).append(", ").append(a).append(", ").append(b).append(", ")
                        .append(d == null ? "NULL" : "DATE '1970-01-01' + " + d).append(")");
            }
            s.execute(insert.toString());
            String[] ops = {"<", "<=", ">", ">="};
            for (int column = 1; column <= 3; column++) {
                long[] constants = column == 1 ? as : column == 2 ? bs : new long[] {-20000, -1, 0, 1, 365, 19999};
                for (long c : constants) {
                    for (String op : ops) {
                        for (boolean flip : new boolean[] {false, true}) {
                            String name = column == 1 ? "a" : column == 2 ? "b" : "d";
                            String literal = column == 3 ? "DATE '1970-01-01' + " + c : column == 1 ? "CAST(" + c + " AS int)" : "CAST(" + c + " AS bigint)";
                            String predicate = flip ? literal + " " + flipOp(op) + " " + name : name + " " + op + " " + literal;
                            List<String> expected = new ArrayList<>();
                            for (long[] r : rows) {
                                if (r[3 + column] == 1) continue;
                                long v = r[column];
                                boolean holds = switch (op) {
                                    case "<" -> v < c;
                                    case "<=" -> v <= c;
                                    case ">" -> v > c;
                                    default -> v >= c;
                                };
                                if (holds) expected.add(String.valueOf(r[0]));
                            }
                            List<String> got = new ArrayList<>();
                            for (List<String> row : s.execute("SELECT k FROM t WHERE " + predicate + " ORDER BY k").get(0).text()) got.add(row.get(0));
                            expected.sort(java.util.Comparator.comparingInt(Integer::parseInt));
                            assertThat(got).as(predicate).isEqualTo(expected);
                        }
                    }
                }
            }
        }
    }

    /**
     * A comparison with the greatest or least long: the range of keys it seeks is empty or one
     * value. {@code b > 9223372036854775807} used to run out of memory: the range's values were
     * listed by a loop whose counter overflowed at its end.
     */
    @Test
    void rangesAtTheEndsOfTheLongsSeekNothingOrTheEnd() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            Tributary.Connection s = db.session();
            s.execute("CREATE TABLE t (k bigint PRIMARY KEY, b bigint)");
            s.execute("INSERT INTO t VALUES (1, 5), (9223372036854775807, 9223372036854775807), (-9223372036854775808, -9223372036854775808)");
            for (String c : List.of("k", "b")) {
                assertThat(s.execute("SELECT count(*) FROM t WHERE " + c + " > 9223372036854775807").get(0).text()).containsExactly(List.of("0"));
                assertThat(s.execute("SELECT count(*) FROM t WHERE " + c + " >= 9223372036854775807").get(0).text()).containsExactly(List.of("1"));
                assertThat(s.execute("SELECT count(*) FROM t WHERE " + c + " < -9223372036854775808").get(0).text()).containsExactly(List.of("0"));
                assertThat(s.execute("SELECT count(*) FROM t WHERE " + c + " <= -9223372036854775808").get(0).text()).containsExactly(List.of("1"));
                assertThat(s.execute("SELECT count(*) FROM t WHERE " + c + " BETWEEN 9223372036854775806 AND 9223372036854775807").get(0).text())
                        .containsExactly(List.of("1"));
            }
        }
    }

    private static String flipOp(String op) {
        return switch (op) {
            case "<" -> ">";
            case "<=" -> ">=";
            case ">" -> "<";
            default -> "<=";
        };
    }
}
