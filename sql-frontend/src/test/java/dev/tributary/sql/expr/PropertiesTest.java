package dev.tributary.sql.expr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class PropertiesTest {

    private static ScalarExpr i(long v, SqlType t) {
        return new ScalarExpr.Literal(v, t);
    }

    /** Integer arithmetic is exact arithmetic, or 22003 exactly when the exact result leaves the kind's range. */
    @Property(seed = "711")
    void integerArithmeticMatchesExactModel(@ForAll int a, @ForAll int b, @ForAll("ops") BinaryOp op) {
        BigInteger x = BigInteger.valueOf(a), y = BigInteger.valueOf(b);
        BigInteger exact = switch (op) {
            case ADD -> x.add(y);
            case SUB -> x.subtract(y);
            case MUL -> x.multiply(y);
            default -> b == 0 ? null : x.divide(y);
        };
        ScalarExpr e = Operators.binary(op, i(a, SqlType.INTEGER), i(b, SqlType.INTEGER), 1);
        if (exact == null) {
            assertThat(catchThrowableOfType(SqlException.class, () -> e.eval(new Object[0])).sqlState()).isEqualTo("22012");
        } else if (exact.bitLength() > 31) {
            assertThat(catchThrowableOfType(SqlException.class, () -> e.eval(new Object[0])).getMessage()).isEqualTo("integer out of range");
        } else {
            assertThat(e.eval(new Object[0])).isEqualTo(exact.longValue());
        }
    }

    @Provide
    Arbitrary<BinaryOp> ops() {
        return Arbitraries.of(BinaryOp.ADD, BinaryOp.SUB, BinaryOp.MUL, BinaryOp.DIV);
    }

    /** LIKE agrees with the equivalent anchored regular expression. */
    @Property(seed = "712")
    void likeMatchesRegexModel(@ForAll("strings") String s, @ForAll("patterns") String p) {
        String regex = p.chars().mapToObj(c -> c == '%' ? ".*" : c == '_' ? "." : Pattern.quote(Character.toString(c)))
                .reduce("", String::concat);
        boolean expected = Pattern.compile(regex, Pattern.DOTALL).matcher(s).matches();
        assertThat(LikePattern.compile(p, "", false).matches(s)).isEqualTo(expected);
    }

    @Provide
    Arbitrary<String> strings() {
        return Arbitraries.strings().withChars("ab").ofMaxLength(8);
    }

    @Provide
    Arbitrary<String> patterns() {
        return Arbitraries.strings().withChars("ab%_").ofMaxLength(6);
    }

    /** NUMERIC division is the exact quotient rounded half away from zero at the chosen scale, never fewer than 16 significant digits. */
    @Property(seed = "713")
    void numericDivisionRoundsTheExactQuotient(@ForAll("decimals") BigDecimal a, @ForAll("decimals") BigDecimal b) {
        if (b.signum() == 0) return;
        BigDecimal q = Numerics.divide(a, b);
        BigDecimal exact = a.divide(b, q.scale() + 30, RoundingMode.DOWN);
        assertThat(q).isEqualTo(exact.setScale(q.scale(), RoundingMode.HALF_UP));
        assertThat(q.scale()).isGreaterThanOrEqualTo(Math.max(a.scale(), b.scale()));
        if (q.signum() != 0) assertThat(q.precision()).isGreaterThanOrEqualTo(16);
    }

    @Provide
    Arbitrary<BigDecimal> decimals() {
        return Arbitraries.bigDecimals().between(new BigDecimal("-1e12"), new BigDecimal("1e12")).ofScale(4)
                .map(d -> d.setScale(Math.abs(d.unscaledValue().intValue() % 5), RoundingMode.DOWN));
    }
}
