package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class AggregatesTest {

    private static AggregateFunction agg(String name, SqlType... types) {
        return Aggregates.resolve(name, List.of(types), false, false, 1);
    }

    /** Single-argument rows, each with multiplicity 1. */
    private static Object run(AggregateFunction f, Object... values) {
        List<Object[]> rows = new ArrayList<>();
        for (Object v : values) rows.add(new Object[] {v});
        long[] m = new long[values.length];
        Arrays.fill(m, 1);
        return f.evaluate(rows, m);
    }

    private static String show(AggregateFunction f, Object v) {
        return v == null ? "NULL" : Values.toText(v, f.resultType());
    }

    @Test
    void count() {
        AggregateFunction star = Aggregates.resolve("count", List.of(), false, true, 1);
        assertThat(star.resultType()).isEqualTo(SqlType.BIGINT);
        assertThat(star.evaluate(List.of(new Object[0], new Object[0]), new long[] {2, 3})).isEqualTo(5L);
        assertThat(star.evaluate(List.of(), new long[0])).isEqualTo(0L);
        AggregateFunction c = agg("count", SqlType.TEXT);
        assertThat(c.evaluate(List.of(new Object[] {"a"}, new Object[] {null}, new Object[] {"b"}), new long[] {1, 5, 2})).isEqualTo(3L);
        assertThat(run(c)).isEqualTo(0L);
    }

    @Test
    void sums() {
        AggregateFunction s = agg("sum", SqlType.INTEGER);
        assertThat(s.resultType()).isEqualTo(SqlType.BIGINT);
        assertThat(run(s, 1L, 2L, null)).isEqualTo(3L);
        assertThat(run(s)).isNull();
        assertThat(run(s, (Object) null)).isNull();
        assertThat(s.evaluate(List.<Object[]>of(new Object[] {(long) Integer.MAX_VALUE}), new long[] {3})).isEqualTo(6442450941L);
        AggregateFunction s8 = agg("sum", SqlType.BIGINT);
        assertThat(s8.resultType()).isEqualTo(SqlType.NUMERIC);
        assertThat(show(s8, run(s8, Long.MAX_VALUE, Long.MAX_VALUE))).isEqualTo("18446744073709551614");
        AggregateFunction sn = agg("sum", SqlType.numeric(10, 2));
        assertThat(sn.argTypes()).containsExactly(SqlType.NUMERIC);
        assertThat(show(sn, sn.evaluate(List.of(new Object[] {new BigDecimal("1.50")}, new Object[] {new BigDecimal("2.1")}),
                new long[] {2, 1}))).isEqualTo("5.10");
        AggregateFunction sf = agg("sum", SqlType.DOUBLE);
        assertThat(run(sf, 0.5, 0.25)).isEqualTo(0.75);
        assertError(() -> run(sf, 1e308, 1e308), "22003", "value out of range: overflow");
        AggregateFunction sr = agg("sum", SqlType.REAL);
        assertThat(sr.resultType()).isEqualTo(SqlType.REAL);
        AggregateFunction si = agg("sum", SqlType.INTERVAL);
        assertThat(show(si, si.evaluate(List.<Object[]>of(new Object[] {Values.fromText("1 day 01:00", SqlType.INTERVAL)}), new long[] {2})))
                .isEqualTo("2 days 02:00:00");
        AggregateFunction s2 = agg("sum", SqlType.SMALLINT);
        assertThat(s2.resultType()).isEqualTo(SqlType.BIGINT);
    }

    @Test
    void sumOfBigintsBeyondLongStaysExact() {
        AggregateFunction s = agg("sum", SqlType.INTEGER);
        assertError(() -> s.evaluate(List.<Object[]>of(new Object[] {(long) Integer.MAX_VALUE}), new long[] {Long.MAX_VALUE / 2}),
                "22003", "bigint out of range");
    }

    @Test
    void averages() {
        AggregateFunction a = agg("avg", SqlType.INTEGER);
        assertThat(a.resultType()).isEqualTo(SqlType.NUMERIC);
        assertThat(show(a, run(a, 1L, 2L))).isEqualTo("1.5000000000000000");
        assertThat(show(a, run(a, 1L, 2L, 3L, null))).isEqualTo("2.0000000000000000");
        assertThat(show(a, a.evaluate(List.of(new Object[] {1L}, new Object[] {4L}), new long[] {2, 1}))).isEqualTo("2.0000000000000000");
        assertThat(show(a, run(a, 1L, 1L, 2L))).isEqualTo("1.3333333333333333");
        assertThat(run(a)).isNull();
        AggregateFunction an = agg("avg", SqlType.NUMERIC);
        assertThat(show(an, run(an, new BigDecimal("1.5"), new BigDecimal("2.5")))).isEqualTo("2.0000000000000000");
        assertThat(show(an, run(an, new BigDecimal("0.000000000000000000001"), new BigDecimal("0")))).isEqualTo("0.0000000000000000000005000000000000000000");
        AggregateFunction af = agg("avg", SqlType.REAL);
        assertThat(af.resultType()).isEqualTo(SqlType.DOUBLE);
        assertThat(run(af, 1.0, 2.0)).isEqualTo(1.5);
        AggregateFunction ai = agg("avg", SqlType.INTERVAL);
        assertThat(show(ai, run(ai, Values.fromText("1 day", SqlType.INTERVAL), Values.fromText("2 days", SqlType.INTERVAL))))
                .isEqualTo("1 day 12:00:00");
    }

    @Test
    void minMax() {
        AggregateFunction mx = agg("max", SqlType.TEXT);
        assertThat(run(mx, "apple", null, "pear", "banana")).isEqualTo("pear");
        assertThat(run(agg("min", SqlType.TEXT), "apple", null, "Zebra")).isEqualTo("Zebra");
        AggregateFunction mv = agg("max", SqlType.varchar(5));
        assertThat(mv.resultType()).isEqualTo(SqlType.TEXT);
        assertThat(mv.argTypes()).containsExactly(SqlType.TEXT);
        AggregateFunction md = agg("max", SqlType.DATE);
        assertThat(md.resultType()).isEqualTo(SqlType.DATE);
        assertThat(run(md, Values.fromText("2024-01-01", SqlType.DATE), Values.fromText("2023-12-31", SqlType.DATE)))
                .isEqualTo(Values.fromText("2024-01-01", SqlType.DATE));
        assertThat(run(agg("min", SqlType.INTEGER), null, null)).isNull();
        assertThat(run(agg("min", SqlType.DOUBLE), Double.NaN, 1.0)).isEqualTo(1.0);
        assertThat(run(agg("max", SqlType.DOUBLE), Double.NaN, 1.0)).isEqualTo(Double.NaN);
        assertThat(agg("max", SqlType.UNKNOWN).resultType()).isEqualTo(SqlType.TEXT);
        assertError(() -> agg("max", SqlType.BOOLEAN), "42883", "function max(boolean) does not exist");
    }

    @Test
    void booleans() {
        assertThat(run(agg("bool_and", SqlType.BOOLEAN), true, null, false)).isEqualTo(false);
        assertThat(run(agg("bool_and", SqlType.BOOLEAN), true, null)).isEqualTo(true);
        assertThat(run(agg("bool_or", SqlType.BOOLEAN), (Object) null)).isNull();
        assertThat(run(agg("bool_or", SqlType.BOOLEAN), false, true)).isEqualTo(true);
        assertThat(run(agg("every", SqlType.BOOLEAN), true, true)).isEqualTo(true);
    }

    @Test
    void stringAgg() {
        AggregateFunction s = agg("string_agg", SqlType.TEXT, SqlType.UNKNOWN);
        assertThat(s.argTypes()).containsExactly(SqlType.TEXT, SqlType.TEXT);
        Object r = s.evaluate(List.of(new Object[] {"a", ","}, new Object[] {"b", ","}, new Object[] {null, ","},
                new Object[] {"c", ";"}, new Object[] {"d", null}), new long[] {1, 2, 1, 1, 1});
        assertThat(r).isEqualTo("a,b,b;cd");
        assertThat(s.evaluate(List.<Object[]>of(new Object[] {null, ","}), new long[] {1})).isNull();
        AggregateFunction b = agg("string_agg", SqlType.BYTEA, SqlType.BYTEA);
        assertThat(b.resultType()).isEqualTo(SqlType.BYTEA);
        assertThat(Values.toText(b.evaluate(List.of(new Object[] {Values.fromText("\\x01", SqlType.BYTEA), Values.fromText("\\xff", SqlType.BYTEA)},
                new Object[] {Values.fromText("\\x02", SqlType.BYTEA), Values.fromText("\\xff", SqlType.BYTEA)}), new long[] {1, 1}),
                SqlType.BYTEA)).isEqualTo("\\x01ff02");
    }

    @Test
    void unknownAggregates() {
        assertError(() -> agg("sum", SqlType.TEXT), "42883", "function sum(text) does not exist");
        assertError(() -> Aggregates.resolve("sum", List.of(), false, true, 1), "42883", "function sum() does not exist");
        assertThat(Aggregates.isAggregate("SUM")).isTrue();
        assertThat(Aggregates.isAggregate("upper")).isFalse();
    }
}
