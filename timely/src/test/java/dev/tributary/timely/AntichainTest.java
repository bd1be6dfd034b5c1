package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Frontiers: the builder keeps exactly the minimal elements; queries follow the product order. */
class AntichainTest {
    private static long[] t(long... c) {
        return c;
    }

    private static Antichain of(int arity, long[]... times) {
        return Antichain.fromTimes(arity, List.of(times));
    }

    @Test
    void builderDiscardsDominatedTimesAndEvictsDominatedElements() {
        Antichain.Builder b = new Antichain.Builder(1);
        assertThat(b.insert(t(5))).isTrue();
        assertThat(b.insert(t(7))).as("7 is dominated by 5").isFalse();
        assertThat(b.insert(t(5))).as("an equal time is dominated too").isFalse();
        assertThat(b.insert(t(3))).as("3 evicts 5").isTrue();
        assertThat(b.build()).isEqualTo(Antichain.of(3));
    }

    @Test
    void builderKeepsIncomparableElementsOfArityTwo() {
        Antichain.Builder b = new Antichain.Builder(2);
        assertThat(b.insert(t(3, 0))).isTrue();
        assertThat(b.insert(t(0, 5))).isTrue();
        assertThat(b.insert(t(1, 1))).isTrue();
        assertThat(b.insert(t(4, 4))).as("(4, 4) >= (1, 1)").isFalse();
        Antichain a = b.build();
        assertThat(a.size()).isEqualTo(3);
        assertThat(a.arity()).isEqualTo(2);
        // elements are in lexicographic order
        assertThat(a.get(0)).containsExactly(0, 5);
        assertThat(a.get(1)).containsExactly(1, 1);
        assertThat(a.get(2)).containsExactly(3, 0);
        assertThat(b.insert(t(0, 0))).as("(0, 0) evicts every element").isTrue();
        assertThat(b.build()).isEqualTo(Antichain.of(t(0, 0)));
    }

    @Test
    void fromTimesIsTheSetOfMinimalElements() {
        SplittableRandom r = new SplittableRandom(3);
        for (int round = 0; round < 500; round++) {
            int arity = 1 + r.nextInt(3);
            List<long[]> times = new ArrayList<>();
            for (int i = r.nextInt(8); i > 0; i--) times.add(TimestampsTest.random(r, arity));
            Antichain a = Antichain.fromTimes(arity, times);
            // recompute: the minimal elements are those no other (distinct) time is < than
            List<long[]> minimal = new ArrayList<>();
            for (long[] x : times) {
                boolean dominated = false;
                for (long[] y : times) dominated |= Timestamps.lessThan(y, x);
                if (!dominated && minimal.stream().noneMatch(m -> java.util.Arrays.equals(m, x))) minimal.add(x);
            }
            assertThat(a.size()).isEqualTo(minimal.size());
            for (long[] m : minimal) assertThat(contains(a, m)).isTrue();
            for (int i = 0; i < 20; i++) {
                long[] q = TimestampsTest.random(r, arity);
                assertThat(a.lessEqual(q)).isEqualTo(times.stream().anyMatch(x -> Timestamps.lessEqual(x, q)));
                assertThat(a.lessThan(q)).isEqualTo(times.stream().anyMatch(x -> Timestamps.lessThan(x, q)));
            }
        }
    }

    @Test
    void lessEqualAndLessThanOnAnArityTwoFrontier() {
        Antichain a = of(2, t(0, 5), t(3, 0));
        assertThat(a.lessEqual(t(1, 5))).isTrue();
        assertThat(a.lessEqual(t(3, 0))).isTrue();
        assertThat(a.lessThan(t(3, 0))).as("nothing strictly below (3, 0)").isFalse();
        assertThat(a.lessThan(t(3, 1))).isTrue();
        assertThat(a.lessEqual(t(2, 4))).as("(2, 4) is below neither element").isFalse();
        assertThat(a.lessThan(t(2, 4))).isFalse();
        assertThat(a.lessEqual(t(0, 4))).isFalse();
    }

    @Test
    void arityOneConveniencesAgreeWithTheArrayForms() {
        Antichain a = Antichain.of(4);
        for (long q = 0; q < 8; q++) {
            assertThat(a.lessEqual(q)).isEqualTo(a.lessEqual(t(q))).isEqualTo(q >= 4);
            assertThat(a.lessThan(q)).isEqualTo(a.lessThan(t(q))).isEqualTo(q > 4);
        }
        Antichain empty = Antichain.empty(1);
        assertThat(empty.isEmpty()).isTrue();
        assertThat(empty.lessEqual(Long.MAX_VALUE)).isFalse();
        assertThat(empty.lessThan(t(Long.MAX_VALUE))).isFalse();
    }

    @Test
    void dominates() {
        assertThat(Antichain.of(0).dominates(Antichain.of(5))).isTrue();
        assertThat(Antichain.of(5).dominates(Antichain.of(0))).isFalse();
        assertThat(Antichain.of(5).dominates(Antichain.of(5))).isTrue();
        assertThat(Antichain.of(5).dominates(Antichain.empty(1))).as("every frontier dominates the empty one").isTrue();
        assertThat(Antichain.empty(1).dominates(Antichain.of(5))).isFalse();
        assertThat(Antichain.empty(1).dominates(Antichain.empty(1))).isTrue();

        Antichain a = of(2, t(0, 5), t(3, 0));
        assertThat(a.dominates(Antichain.of(t(3, 5)))).isTrue();
        assertThat(a.dominates(of(2, t(0, 9), t(4, 0)))).isTrue();
        assertThat(a.dominates(Antichain.of(t(1, 1)))).as("(1, 1) is below neither element").isFalse();
        assertThat(a.dominates(of(2, t(0, 5), t(1, 1)))).isFalse();
        assertThat(Antichain.of(t(0, 0)).dominates(a)).isTrue();
        assertThat(a.dominates(Antichain.of(t(0, 0)))).isFalse();
    }

    @Test
    void equalityIgnoresInsertionOrderButNotArity() {
        Antichain a = of(2, t(3, 0), t(0, 5));
        Antichain b = of(2, t(0, 5), t(3, 0), t(4, 4));
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(Antichain.of(t(0, 5)));
        assertThat(Antichain.empty(1)).isEqualTo(Antichain.empty(1)).isNotEqualTo(Antichain.empty(2));
        assertThat(Antichain.of(1)).isNotEqualTo(Antichain.of(2));
        assertThat(Antichain.of(1)).isEqualTo(Antichain.of(t(1)));
        assertThat(a).hasToString("{(0, 5), (3, 0)}");
        assertThat(Antichain.empty(1)).hasToString("{}");
    }

    @Test
    void aOneElementFrontierBehavesLikeAnyOther() {
        Antichain one = Antichain.of(t(2, 3));
        assertThat(one.size()).isEqualTo(1);
        assertThat(one.isEmpty()).isFalse();
        assertThat(one.arity()).isEqualTo(2);
        assertThat(one.get(0)).containsExactly(2, 3);
        assertThatThrownBy(() -> one.get(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> Antichain.empty(2).get(0)).isInstanceOf(IndexOutOfBoundsException.class);
        Antichain built = of(2, t(4, 4), t(2, 3));
        assertThat(built).isEqualTo(one).hasSameHashCodeAs(one).hasToString("{(2, 3)}");
        assertThat(one.dominates(built)).isTrue();
        assertThat(of(2, t(0, 5), t(3, 0)).dominates(one)).isFalse();
    }

    @Test
    void emptyFrontiersAreSharedPerArityAndStillValues() {
        assertThat(Antichain.empty(1)).isSameAs(Antichain.empty(1)).isEqualTo(new Antichain.Builder(1).build());
        assertThat(Antichain.empty(100)).as("an unusual arity is not cached but still equal").isEqualTo(Antichain.empty(100))
                .isNotEqualTo(Antichain.empty(1));
    }

    @Test
    void aBuilderKeepsWorkingAfterBuild() {
        Antichain.Builder b = new Antichain.Builder(2);
        b.insert(t(3, 0));
        b.insert(t(0, 5));
        Antichain first = b.build();
        assertThat(b.insert(t(1, 1))).isTrue();
        assertThat(b.insert(t(2, 2))).as("(1, 1) dominates it").isFalse();
        assertThat(b.build()).isEqualTo(of(2, t(0, 5), t(1, 1), t(3, 0)));
        assertThat(first).as("a built frontier does not see later inserts").isEqualTo(of(2, t(0, 5), t(3, 0)));
        Antichain.Builder c = new Antichain.Builder(2);
        c.insert(t(2, 2));
        assertThat(c.build()).isEqualTo(Antichain.of(t(2, 2)));
        assertThat(c.insert(t(1, 3))).as("incomparable to (2, 2)").isTrue();
        assertThat(c.insert(t(1, 2))).as("evicts both").isTrue();
        assertThat(c.build()).isEqualTo(Antichain.of(t(1, 2)));
        assertThat(c.insert(t(0, 9))).isTrue();
        assertThat(c.build()).isEqualTo(of(2, t(0, 9), t(1, 2)));
    }

    @Test
    void aBuilderReturnsThePreviousFrontierWhenItIsEqual() {
        Antichain.Builder b = new Antichain.Builder(1);
        b.insert(t(4));
        Antichain first = b.build();
        assertThat(b.build(first)).isSameAs(first);
        assertThat(b.build(Antichain.of(5))).isEqualTo(first).isNotSameAs(first);
        Antichain.Builder two = new Antichain.Builder(2);
        two.insert(t(0, 3));
        two.insert(t(3, 0));
        Antichain pair = two.build();
        two.insert(t(4, 4));
        assertThat(two.build(pair)).isSameAs(pair);
        assertThat(two.build(Antichain.of(t(0, 3)))).isEqualTo(pair);
        assertThat(new Antichain.Builder(1).build(first)).isSameAs(Antichain.empty(1));
    }

    private static boolean contains(Antichain a, long[] t) {
        for (int i = 0; i < a.size(); i++) {
            if (java.util.Arrays.equals(a.get(i), t)) return true;
        }
        return false;
    }
}
