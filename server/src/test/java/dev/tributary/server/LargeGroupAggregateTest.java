package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.expr.Numerics;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Aggregates over a group of many rows (and a small group beside it), maintained through single
 * changes, against the aggregates computed here from the rows: count, sum, avg, bool_and/or
 * (accumulable), var_samp and stddev_pop (accumulable: sums of values and of their squares), min
 * and max (ordered), count and sum of DISTINCT, grouped and global. Views
 * made before the load (fed incrementally) and after it (built from existing rows) are checked.
 *
 * <p>{@code 1000 * jqwik.tries.default} rows: 100 000 by default, a million with {@code -Plong}.
 * That a change to such a group costs microseconds, not a pass over the group, is measured by
 * {@code AggregateBenchmark}; this test checks the answers.
 */
class LargeGroupAggregateTest {
    private static final int ROWS = 1000 * Integer.getInteger("jqwik.tries.default", 100);

    /** The rows, as the INSERT below generates them, with whether each is still there. */
    private static final class Model {
        final List<long[]> rows = new ArrayList<>(); // g, x, n (in cents), b (0/1), s (as number)

        Model(int n) {
            for (long i = 1; i <= n; i++) rows.add(new long[] {i % 1000 == 0 ? 2 : 1, (i * 7919) % 1000003, (i % 10000) * 100, i % 3 == 0 ? 1 : 0, i % 5000});
        }

        List<long[]> group(long g) {
            List<long[]> out = new ArrayList<>();
            for (long[] r : rows) if (g == 0 || r[0] == g) out.add(r);
            return out;
        }

        /** Column s: {@code 'v' || (i % 5000)}, or for a row added by a test (marked -1), 'zz'. */
        static String text(long[] r) {
            return r[4] < 0 ? "zz" : "v" + r[4];
        }

        static String numeric(long cents) {
            return BigDecimal.valueOf(cents, 2).toPlainString();
        }

        String accumulable(long g) {
            List<long[]> rs = group(g);
            BigInteger sum = BigInteger.ZERO;
            long sumN = 0;
            boolean and = true;
            boolean or = false;
            for (long[] r : rs) {
                sum = sum.add(BigInteger.valueOf(r[1]));
                sumN += r[2];
                and &= r[3] == 1;
                or |= r[3] == 1;
            }
            String avg = Numerics.divide(new BigDecimal(sum), BigDecimal.valueOf(rs.size())).toPlainString();
            return String.join("|", "" + g, "" + rs.size(), "" + rs.size(), sum.toString(), avg, numeric(sumN), and ? "t" : "f", or ? "t" : "f");
        }

        String ordered(long g) {
            List<long[]> rs = group(g);
            long minX = Long.MAX_VALUE, maxX = Long.MIN_VALUE, maxN = Long.MIN_VALUE;
            TreeSet<String> s = new TreeSet<>();
            for (long[] r : rs) {
                minX = Math.min(minX, r[1]);
                maxX = Math.max(maxX, r[1]);
                maxN = Math.max(maxN, r[2]);
                s.add(text(r));
            }
            return String.join("|", "" + g, "" + minX, "" + maxX, s.first(), s.last(), numeric(maxN));
        }

        String global() {
            List<long[]> rs = group(0);
            BigInteger sum = BigInteger.ZERO;
            long maxX = Long.MIN_VALUE, minN = Long.MAX_VALUE;
            for (long[] r : rs) {
                sum = sum.add(BigInteger.valueOf(r[1]));
                maxX = Math.max(maxX, r[1]);
                minN = Math.min(minN, r[2]);
            }
            return String.join("|", "" + rs.size(), sum.toString(), "" + maxX, numeric(minN));
        }

        /**
         * var_samp(x) and stddev_pop(n) of group {@code g}, from the rows' plain sums as
         * PostgreSQL's numeric aggregates finish them: {@code (N * sum(x^2) - sum(x)^2) / (N *
         * (N - 1))} (or {@code N^2}) at NUMERIC division's scale, the root at the same scale.
         */
        String spread(long g) {
            List<long[]> rs = group(g);
            BigInteger sx = BigInteger.ZERO, sxx = BigInteger.ZERO, sn = BigInteger.ZERO, snn = BigInteger.ZERO;
            for (long[] r : rs) {
                sx = sx.add(BigInteger.valueOf(r[1]));
                sxx = sxx.add(BigInteger.valueOf(r[1]).pow(2));
                sn = sn.add(BigInteger.valueOf(r[2]));
                snn = snn.add(BigInteger.valueOf(r[2]).pow(2));
            }
            BigDecimal count = BigDecimal.valueOf(rs.size());
            BigDecimal varX = spread(count, new BigDecimal(sx), new BigDecimal(sxx), count.multiply(count.subtract(BigDecimal.ONE)));
            BigDecimal varN = spread(count, new BigDecimal(sn, 2), new BigDecimal(snn, 4), count.multiply(count));
            BigDecimal sdN = varN.signum() == 0 ? varN
                    : varN.sqrt(new java.math.MathContext(varN.precision() + varN.scale() + 20)).setScale(varN.scale(), java.math.RoundingMode.HALF_UP);
            return String.join("|", "" + g, varX.toPlainString(), sdN.toPlainString());
        }

        private static BigDecimal spread(BigDecimal count, BigDecimal sum, BigDecimal sumOfSquares, BigDecimal denominator) {
            BigDecimal numerator = count.multiply(sumOfSquares).subtract(sum.multiply(sum));
            return numerator.signum() <= 0 ? BigDecimal.ZERO : Numerics.divide(numerator, denominator);
        }

        String distinct(long g) {
            TreeSet<Long> mod1000 = new TreeSet<>();
            TreeSet<Long> mod100 = new TreeSet<>();
            for (long[] r : group(g)) {
                mod1000.add(r[1] % 1000);
                mod100.add(r[1] % 100);
            }
            long sum = 0;
            for (long v : mod100) sum += v;
            return String.join("|", "" + g, "" + mod1000.size(), "" + sum);
        }
    }

    private static final String[] VIEWS = {
        "SELECT g, count(*) AS c, count(s) AS cs, sum(x) AS sx, avg(x) AS ax, sum(n) AS sn, bool_and(b) AS ba, bool_or(b) AS bo FROM big GROUP BY g",
        "SELECT g, min(x) AS mix, max(x) AS max, min(s) AS mis, max(s) AS mas, max(n) AS man FROM big GROUP BY g",
        "SELECT count(*) AS c, sum(x) AS sx, max(x) AS max, min(n) AS min FROM big",
        "SELECT g, count(DISTINCT x % 1000) AS c, sum(DISTINCT x % 100) AS s FROM big GROUP BY g",
        "SELECT g, var_samp(x) AS vx, stddev_pop(n) AS sn FROM big GROUP BY g",
    };

    private static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    private static void check(Tributary db, Model m, String when) {
        for (String prefix : new String[] {"pre", "post"}) {
            assertThat(rows(db, "SELECT * FROM " + prefix + "0 ORDER BY g")).as("%s, accumulable, %s", when, prefix).containsExactly(m.accumulable(1), m.accumulable(2));
            assertThat(rows(db, "SELECT * FROM " + prefix + "1 ORDER BY g")).as("%s, min and max, %s", when, prefix).containsExactly(m.ordered(1), m.ordered(2));
            assertThat(rows(db, "SELECT * FROM " + prefix + "2")).as("%s, global, %s", when, prefix).containsExactly(m.global());
            assertThat(rows(db, "SELECT * FROM " + prefix + "3 ORDER BY g")).as("%s, distinct, %s", when, prefix).containsExactly(m.distinct(1), m.distinct(2));
            assertThat(rows(db, "SELECT * FROM " + prefix + "4 ORDER BY g")).as("%s, variance, %s", when, prefix).containsExactly(m.spread(1), m.spread(2));
        }
    }

    @Test
    void aggregatesOfALargeGroupThroughSingleChanges() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0))) {
            db.execute("CREATE TABLE big (g int, x bigint, n numeric(12,2), b boolean, s text)");
            for (int v = 0; v < VIEWS.length; v++) db.execute("CREATE MATERIALIZED VIEW pre" + v + " AS " + VIEWS[v]);
            db.execute("INSERT INTO big SELECT CASE WHEN i % 1000 = 0 THEN 2 ELSE 1 END, (CAST(i AS bigint) * 7919) % 1000003, CAST(i % 10000 AS numeric(12,2)), "
                    + "i % 3 = 0, 'v' || (i % 5000) FROM generate_series(1, " + ROWS + ") AS s(i)");
            for (int v = 0; v < VIEWS.length; v++) db.execute("CREATE MATERIALIZED VIEW post" + v + " AS " + VIEWS[v]);
            Model m = new Model(ROWS);
            check(db, m, "after the load");

            // a new greatest x and a new least n in the large group
            db.execute("INSERT INTO big VALUES (1, 5000000, -1.25, false, 'zz')");
            m.rows.add(new long[] {1, 5000000, -125, 0, -1});
            check(db, m, "after inserting a new extreme");

            // the least x goes: the minimum moves to the next value
            long least = Long.MAX_VALUE;
            for (long[] r : m.rows) if (r[0] == 1) least = Math.min(least, r[1]);
            db.execute("DELETE FROM big WHERE x = " + least);
            long gone = least;
            m.rows.removeIf(r -> r[1] == gone);
            check(db, m, "after deleting the least x");

            // every row of the small group turns false, then the new row goes
            db.execute("UPDATE big SET b = false WHERE g = 2");
            for (long[] r : m.rows) if (r[0] == 2) r[3] = 0;
            db.execute("DELETE FROM big WHERE s = 'zz'");
            m.rows.removeIf(r -> r[4] == -1);
            check(db, m, "after an update and a delete");
        }
    }
}
