package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Times under the product partial order, checked against coordinate-wise definitions. */
class TimestampsTest {
    private static long[] t(long... c) {
        return c;
    }

    @Test
    void constructorsMakeTheExpectedVectors() {
        assertThat(Timestamps.minimum(3)).containsExactly(0, 0, 0);
        assertThat(Timestamps.of(7L)).containsExactly(7);
        long[] source = {1, 2};
        long[] copy = Timestamps.of(source);
        assertThat(copy).containsExactly(1, 2).isNotSameAs(source);
    }

    @Test
    void productOrderOnIncomparableTimes() {
        assertThat(Timestamps.lessEqual(t(1, 5), t(2, 5))).isTrue();
        assertThat(Timestamps.lessEqual(t(1, 5), t(1, 5))).isTrue();
        assertThat(Timestamps.lessThan(t(1, 5), t(1, 5))).isFalse();
        assertThat(Timestamps.lessThan(t(1, 5), t(1, 6))).isTrue();
        // (0, 5) and (3, 0) are incomparable: neither is <= the other
        assertThat(Timestamps.lessEqual(t(0, 5), t(3, 0))).isFalse();
        assertThat(Timestamps.lessEqual(t(3, 0), t(0, 5))).isFalse();
        assertThat(Timestamps.lessThan(t(0, 5), t(3, 0))).isFalse();
        assertThat(Timestamps.lessThan(t(3, 0), t(0, 5))).isFalse();
    }

    @Test
    void joinAndMeetAreTheLeastUpperAndGreatestLowerBounds() {
        assertThat(Timestamps.join(t(0, 5), t(3, 0))).containsExactly(3, 5);
        assertThat(Timestamps.meet(t(0, 5), t(3, 0))).containsExactly(0, 0);
        SplittableRandom r = new SplittableRandom(1);
        for (int i = 0; i < 2_000; i++) {
            long[] a = random(r, 3);
            long[] b = random(r, 3);
            long[] c = random(r, 3);
            long[] join = Timestamps.join(a, b);
            long[] meet = Timestamps.meet(a, b);
            assertThat(Timestamps.lessEqual(a, join) && Timestamps.lessEqual(b, join)).isTrue();
            assertThat(Timestamps.lessEqual(meet, a) && Timestamps.lessEqual(meet, b)).isTrue();
            // least / greatest: any other upper (lower) bound is above (below) it
            if (Timestamps.lessEqual(a, c) && Timestamps.lessEqual(b, c)) assertThat(Timestamps.lessEqual(join, c)).isTrue();
            if (Timestamps.lessEqual(c, a) && Timestamps.lessEqual(c, b)) assertThat(Timestamps.lessEqual(c, meet)).isTrue();
            assertThat(Timestamps.lessEqual(a, b)).isEqualTo(java.util.Arrays.equals(join, b));
        }
    }

    @Test
    void compareIsATotalOrderExtendingThePartialOrder() {
        SplittableRandom r = new SplittableRandom(2);
        for (int i = 0; i < 2_000; i++) {
            long[] a = random(r, 2);
            long[] b = random(r, 2);
            if (Timestamps.lessThan(a, b)) assertThat(Timestamps.compare(a, b)).isNegative();
            if (java.util.Arrays.equals(a, b)) assertThat(Timestamps.compare(a, b)).isZero();
            assertThat(Integer.signum(Timestamps.compare(a, b))).isEqualTo(-Integer.signum(Timestamps.compare(b, a)));
        }
    }

    @Test
    void toStringShowsAScalarOrATuple() {
        assertThat(Timestamps.toString(t(5))).isEqualTo("5");
        assertThat(Timestamps.toString(t(5, 2))).isEqualTo("(5, 2)");
        assertThat(Timestamps.toString(t(1, 2, 3))).isEqualTo("(1, 2, 3)");
    }

    @Test
    void checkValidRejectsWrongArityAndNegativeCoordinatesNamingTheCaller() {
        Timestamps.checkValid(t(0, 4), 2, "op");
        assertThatThrownBy(() -> Timestamps.checkValid(t(1), 2, "input 'x'"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("input 'x'").hasMessageContaining("arity 1").hasMessageContaining("arity 2");
        assertThatThrownBy(() -> Timestamps.checkValid(t(1, -3), 2, "input 'x'"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("input 'x'").hasMessageContaining("(1, -3)").hasMessageContaining("negative");
    }

    static long[] random(SplittableRandom r, int arity) {
        long[] a = new long[arity];
        for (int i = 0; i < arity; i++) a[i] = r.nextInt(4);
        return a;
    }
}
