package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Path summaries: each shape, and composition checked against applying one summary after another. */
class PathSummaryTest {
    private static long[] t(long... c) {
        return c;
    }

    @Test
    void identityLeavesTimesUnchanged() {
        PathSummary id = PathSummary.identity(2);
        assertThat(id.isIdentity()).isTrue();
        assertThat(id.inputArity()).isEqualTo(2);
        assertThat(id.outputArity()).isEqualTo(2);
        assertThat(id.apply(t(4, 7))).containsExactly(4, 7);
        assertThat(PathSummary.increment(0, 0)).isEqualTo(id);
        assertThat(PathSummary.increment(0, 1).isIdentity()).isFalse();
    }

    @Test
    void feedbackIncrementsTheInnermostCoordinate() {
        PathSummary fb = PathSummary.feedback(2, 3);
        assertThat(fb.apply(t(4, 7))).containsExactly(4, 10);
        assertThat(fb.isIdentity()).isFalse();
        assertThat(PathSummary.feedback(1, 1).apply(t(9))).containsExactly(10);
        assertThat(PathSummary.increment(1, 2).apply(t(3, 4))).containsExactly(4, 6);
    }

    @Test
    void enterAppendsAZeroAndLeaveDropsTheInnermostCoordinate() {
        PathSummary enter = PathSummary.enter(1);
        assertThat(enter.inputArity()).isEqualTo(1);
        assertThat(enter.outputArity()).isEqualTo(2);
        assertThat(enter.apply(t(7))).containsExactly(7, 0);
        assertThat(PathSummary.enter(2).apply(t(7, 3))).containsExactly(7, 3, 0);
        PathSummary leave = PathSummary.leave(2);
        assertThat(leave.inputArity()).isEqualTo(2);
        assertThat(leave.outputArity()).isEqualTo(1);
        assertThat(leave.apply(t(7, 3))).containsExactly(7);
        assertThat(enter.followedBy(leave).isIdentity()).as("enter then leave is the identity").isTrue();
    }

    @Test
    void enterFeedbackLeaveComposeToTheRoundTrip() {
        PathSummary loop = PathSummary.enter(1).followedBy(PathSummary.feedback(2, 1)).followedBy(PathSummary.feedback(2, 1));
        assertThat(loop.apply(t(5))).containsExactly(5, 2);
        assertThat(loop.followedBy(PathSummary.leave(2)).apply(t(5))).containsExactly(5);
        // leaving then entering resets the loop counter
        assertThat(PathSummary.leave(2).followedBy(PathSummary.enter(1)).apply(t(5, 9))).containsExactly(5, 0);
    }

    @Test
    void followedByAgreesWithApplyingOneAfterTheOther() {
        SplittableRandom r = new SplittableRandom(5);
        for (int round = 0; round < 3_000; round++) {
            int arity = 1 + r.nextInt(3);
            List<PathSummary> a = randomChain(r, arity);
            int mid = last(a).outputArity();
            List<PathSummary> b = randomChain(r, mid);
            int end = last(b).outputArity();
            List<PathSummary> c = randomChain(r, end);
            PathSummary sa = compose(a);
            PathSummary sb = compose(b);
            PathSummary sc = compose(c);
            assertThat(sa.followedBy(sb).followedBy(sc)).as("associative").isEqualTo(sa.followedBy(sb.followedBy(sc)));
            for (int i = 0; i < 5; i++) {
                long[] time = randomTime(r, arity);
                long[] expected = time;
                for (PathSummary s : a) expected = s.apply(expected);
                for (PathSummary s : b) expected = s.apply(expected);
                assertThat(sa.followedBy(sb).apply(time)).as("%s then %s at %s", sa, sb, Timestamps.toString(time)).containsExactly(expected);
                assertThat(sb.apply(sa.apply(time))).containsExactly(expected);
            }
        }
    }

    @Test
    void followedByRejectsMismatchedArities() {
        assertThatThrownBy(() -> PathSummary.identity(1).followedBy(PathSummary.identity(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("arity 1").hasMessageContaining("arity 2");
    }

    @Test
    void lessEqualComparesSummariesOfTheSameShape() {
        assertThat(PathSummary.identity(2).lessEqual(PathSummary.feedback(2, 1))).isTrue();
        assertThat(PathSummary.feedback(2, 1).lessEqual(PathSummary.feedback(2, 2))).isTrue();
        assertThat(PathSummary.feedback(2, 2).lessEqual(PathSummary.feedback(2, 1))).isFalse();
        assertThat(PathSummary.feedback(2, 1).lessEqual(PathSummary.identity(2))).isFalse();
        assertThat(PathSummary.increment(1, 0).lessEqual(PathSummary.increment(0, 1))).as("incomparable").isFalse();
        assertThat(PathSummary.increment(0, 1).lessEqual(PathSummary.increment(1, 0))).as("incomparable").isFalse();
        assertThat(PathSummary.identity(1).lessEqual(PathSummary.identity(2))).as("different arities").isFalse();
    }

    @Test
    void lessEqualIsSoundPointwise() {
        SplittableRandom r = new SplittableRandom(6);
        int checked = 0;
        for (int round = 0; round < 5_000; round++) {
            int arity = 1 + r.nextInt(2);
            PathSummary a = compose(randomChain(r, arity));
            PathSummary b = compose(randomChain(r, arity));
            if (!a.lessEqual(b)) continue;
            checked++;
            for (int i = 0; i < 5; i++) {
                long[] time = randomTime(r, arity);
                assertThat(Timestamps.lessEqual(a.apply(time), b.apply(time))).as("%s <= %s at %s", a, b, Timestamps.toString(time)).isTrue();
            }
        }
        assertThat(checked).as("the generator produced comparable pairs").isGreaterThan(100);
    }

    @Test
    void applyReturnsNullWhenACoordinateWouldOverflow() {
        assertThat(PathSummary.increment(1).apply(t(Long.MAX_VALUE))).isNull();
        assertThat(PathSummary.increment(1).apply(t(Long.MAX_VALUE - 1))).containsExactly(Long.MAX_VALUE);
        assertThat(PathSummary.feedback(2, 1).apply(t(0, Long.MAX_VALUE))).isNull();
        assertThat(PathSummary.feedback(2, 1).apply(t(Long.MAX_VALUE, 0))).containsExactly(Long.MAX_VALUE, 1);
        assertThat(PathSummary.feedback(2, 1).followedBy(PathSummary.feedback(2, 1)).apply(t(0, Long.MAX_VALUE - 1))).isNull();
        // a path whose combined increment overflows yields no time at all: it composes to null
        assertThat(PathSummary.increment(Long.MAX_VALUE).apply(t(0))).containsExactly(Long.MAX_VALUE);
        assertThat(PathSummary.increment(Long.MAX_VALUE).followedBy(PathSummary.increment(1))).isNull();
        assertThat(PathSummary.increment(Long.MAX_VALUE).followedBy(PathSummary.increment(1).followedBy(PathSummary.identity(1)))).isNull();
        assertThat(PathSummary.identity(1).apply(t(Long.MAX_VALUE))).containsExactly(Long.MAX_VALUE);
    }

    @Test
    void negativeIncrementsAreRejected() {
        assertThatThrownBy(() -> PathSummary.increment(1, -1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> PathSummary.feedback(1, -2)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void equalityIsStructural() {
        assertThat(PathSummary.feedback(2, 1)).isEqualTo(PathSummary.increment(0, 1)).hasSameHashCodeAs(PathSummary.increment(0, 1));
        assertThat(PathSummary.enter(1)).isNotEqualTo(PathSummary.identity(2));
        assertThat(PathSummary.leave(2).followedBy(PathSummary.enter(1))).isNotEqualTo(PathSummary.identity(2));
        // (a, b) -> (a, 0) is below the identity for every time, and not the other way round
        assertThat(PathSummary.leave(2).followedBy(PathSummary.enter(1)).lessEqual(PathSummary.identity(2))).isTrue();
        assertThat(PathSummary.identity(2).lessEqual(PathSummary.leave(2).followedBy(PathSummary.enter(1)))).isFalse();
    }

    /** A random chain of identity / increment / feedback / enter / leave summaries starting at {@code arity}. */
    static List<PathSummary> randomChain(SplittableRandom r, int arity) {
        List<PathSummary> chain = new ArrayList<>();
        int a = arity;
        for (int n = 1 + r.nextInt(4); n > 0; n--) {
            PathSummary s = switch (r.nextInt(5)) {
                case 0 -> PathSummary.identity(a);
                case 1 -> PathSummary.feedback(a, 1 + r.nextInt(3));
                case 2 -> {
                    long[] inc = new long[a];
                    for (int i = 0; i < a; i++) inc[i] = r.nextInt(3);
                    yield PathSummary.increment(inc);
                }
                case 3 -> a < 3 ? PathSummary.enter(a) : PathSummary.identity(a);
                default -> a > 1 ? PathSummary.leave(a) : PathSummary.identity(a);
            };
            chain.add(s);
            a = s.outputArity();
        }
        return chain;
    }

    static PathSummary compose(List<PathSummary> chain) {
        PathSummary s = chain.get(0);
        for (int i = 1; i < chain.size(); i++) s = s.followedBy(chain.get(i));
        return s;
    }

    private static PathSummary last(List<PathSummary> chain) {
        return chain.get(chain.size() - 1);
    }

    private static long[] randomTime(SplittableRandom r, int arity) {
        long[] time = new long[arity];
        for (int i = 0; i < arity; i++) time[i] = r.nextInt(100);
        return time;
    }
}
