package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Counted times and the frontier of the positive ones, checked against a plain count table. */
class MutableAntichainTest {
    private static long[] t(long... c) {
        return c;
    }

    @Test
    void countsAccumulateAndCancel() {
        MutableAntichain m = new MutableAntichain(1);
        assertThat(m.isEmpty()).isTrue();
        assertThat(m.frontier()).isEqualTo(Antichain.empty(1));
        m.update(t(3), 2);
        m.update(t(5), 1);
        assertThat(m.count(t(3))).isEqualTo(2);
        assertThat(m.frontier()).isEqualTo(Antichain.of(3));
        m.update(t(3), -1);
        assertThat(m.frontier()).isEqualTo(Antichain.of(3));
        m.update(t(3), -1);
        assertThat(m.count(t(3))).isZero();
        assertThat(m.frontier()).as("recomputed once 3 cancels").isEqualTo(Antichain.of(5));
        m.update(t(5), -1);
        assertThat(m.isEmpty()).isTrue();
        assertThat(m.frontier().isEmpty()).isTrue();
        m.update(t(9), 0);
        assertThat(m.isEmpty()).as("a zero delta changes nothing").isTrue();
    }

    @Test
    void countsAreKeyedByValueNotByArrayIdentity() {
        MutableAntichain m = new MutableAntichain(2);
        m.update(t(1, 2), 1);
        m.update(t(1, 2), -1);
        assertThat(m.isEmpty()).isTrue();
    }

    @Test
    void negativeCountsAreNeverInTheFrontier() {
        MutableAntichain m = new MutableAntichain(1);
        m.update(t(2), -1);
        assertThat(m.isEmpty()).as("a negative count is still a count").isFalse();
        assertThat(m.count(t(2))).isEqualTo(-1);
        assertThat(m.frontier().isEmpty()).isTrue();
        assertThat(m.lessEqual(t(10))).isFalse();
        m.update(t(4), 1);
        assertThat(m.frontier()).isEqualTo(Antichain.of(4));
        m.update(t(2), 1);
        assertThat(m.isEmpty()).isFalse();
        assertThat(m.frontier()).isEqualTo(Antichain.of(4));
    }

    @Test
    void frontierOfIncomparableTimesIsRecomputedAfterEachChange() {
        MutableAntichain m = new MutableAntichain(2);
        m.update(t(0, 5), 1);
        m.update(t(3, 0), 1);
        m.update(t(4, 6), 1);
        assertThat(m.frontier()).isEqualTo(Antichain.fromTimes(2, List.of(t(0, 5), t(3, 0))));
        assertThat(m.lessEqual(t(2, 4))).isFalse();
        assertThat(m.lessEqual(t(3, 4))).isTrue();
        m.update(t(0, 5), -1);
        assertThat(m.frontier()).isEqualTo(Antichain.of(t(3, 0)));
        m.update(t(3, 0), -1);
        assertThat(m.frontier()).isEqualTo(Antichain.of(t(4, 6)));
    }

    @Test
    void matchesACountTableUnderRandomUpdates() {
        SplittableRandom r = new SplittableRandom(4);
        for (int round = 0; round < 200; round++) {
            int arity = 1 + r.nextInt(2);
            MutableAntichain m = new MutableAntichain(arity);
            List<long[]> keys = new ArrayList<>();
            List<Long> counts = new ArrayList<>();
            for (int step = 0; step < 60; step++) {
                long[] time = TimestampsTest.random(r, arity);
                long delta = r.nextInt(5) - 2;
                m.update(time.clone(), delta);
                int k = indexOf(keys, time);
                if (k < 0) {
                    keys.add(time);
                    counts.add(delta);
                } else {
                    counts.set(k, counts.get(k) + delta);
                }
                List<long[]> positive = new ArrayList<>();
                boolean allZero = true;
                for (int i = 0; i < keys.size(); i++) {
                    if (counts.get(i) > 0) positive.add(keys.get(i));
                    allZero &= counts.get(i) == 0;
                    assertThat(m.count(keys.get(i))).isEqualTo(counts.get(i));
                }
                assertThat(m.frontier()).isEqualTo(Antichain.fromTimes(arity, positive));
                assertThat(m.isEmpty()).isEqualTo(allZero);
            }
        }
    }

    @Test
    void anUnchangedFrontierIsTheSameInstance() {
        MutableAntichain m = new MutableAntichain(1);
        m.update(t(3), 1);
        Antichain f = m.frontier();
        assertThat(m.frontier()).as("read twice").isSameAs(f);
        m.update(t(3), 1);
        m.update(t(7), 1);
        assertThat(m.frontier()).as("counts changed, the frontier did not").isSameAs(f);
        m.update(t(1), 1);
        m.update(t(1), -1);
        assertThat(m.frontier()).as("a time that came and went within one read").isSameAs(f);
        m.update(t(3), -2);
        Antichain g = m.frontier();
        assertThat(g).isNotSameAs(f).isEqualTo(Antichain.of(7));
        assertThat(f).as("the old frontier is a value that did not move").isEqualTo(Antichain.of(3));
        m.update(t(7), -1);
        assertThat(m.frontier()).isEqualTo(Antichain.empty(1));
    }

    @Test
    void anUnchangedFrontierOfSeveralElementsIsTheSameInstance() {
        MutableAntichain m = new MutableAntichain(2);
        m.update(t(3, 0), 1);
        m.update(t(0, 5), 1);
        Antichain f = m.frontier();
        m.update(t(4, 4), 1);
        assertThat(m.frontier()).isSameAs(f).isEqualTo(Antichain.fromTimes(2, List.of(t(0, 5), t(3, 0))));
        m.update(t(1, 1), 1);
        assertThat(m.frontier()).isNotSameAs(f).isEqualTo(Antichain.fromTimes(2, List.of(t(0, 5), t(1, 1), t(3, 0))));
    }

    @Test
    void aCandidateIsTakenOnlyWhenItIsTheNewFrontier() {
        MutableAntichain m = new MutableAntichain(1);
        m.update(t(3), 1);
        Antichain candidate = Antichain.of(3);
        assertThat(m.frontier(candidate)).isSameAs(candidate);
        m.update(t(3), -1);
        m.update(t(4), 1);
        Antichain wrong = Antichain.of(5);
        assertThat(m.frontier(wrong)).isNotSameAs(wrong).isEqualTo(Antichain.of(4));
        Antichain kept = m.frontier();
        m.update(t(2), 1);
        m.update(t(2), -1);
        assertThat(m.frontier(Antichain.of(4))).as("an unchanged frontier keeps its own instance").isSameAs(kept);
        m.update(t(4), -1);
        assertThat(m.frontier(Antichain.of(t(4, 0)))).as("a candidate of another arity is no match").isEqualTo(Antichain.empty(1));
    }

    private static int indexOf(List<long[]> keys, long[] t) {
        for (int i = 0; i < keys.size(); i++) {
            if (java.util.Arrays.equals(keys.get(i), t)) return i;
        }
        return -1;
    }
}
