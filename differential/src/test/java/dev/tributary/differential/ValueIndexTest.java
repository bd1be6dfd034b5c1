package dev.tributary.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.ObjectColumn;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** A value index finds exactly what a linear search finds, as the column grows and is cleared. */
class ValueIndexTest {

    /** Appends values from {@code make} in random order, with repeats, checking every lookup (hits and misses) against a scan. */
    private static void check(Column values, Column probes, IntFunction<Void> appendValue, IntFunction<Void> appendProbe, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ValueIndex index = new ValueIndex(values);
        for (int round = 0; round < 3; round++) {
            values.clear();
            index.clear();
            int n = 1 + random.nextInt(2000);
            for (int i = 0; i < n; i++) {
                probes.clear();
                int x = random.nextInt(4 * n);
                appendProbe.apply(x);
                int found = index.find(probes, 0);
                int scanned = -1;
                for (int v = 0; v < values.size() && scanned < 0; v++) if (values.equal(v, probes, 0)) scanned = v;
                assertThat(found).as("round %d, value %d after %d values", round, x, values.size()).isEqualTo(scanned);
                if (found < 0) appendValue.apply(x);
            }
            assertThat(values.size()).as("distinct values kept").isGreaterThan(Math.min(n / 2, ValueIndex.LINEAR));
        }
    }

    @Test
    void longs() {
        LongColumn values = new LongColumn();
        LongColumn probes = new LongColumn();
        check(values, probes, x -> { values.add(x * 7919L); return null; }, x -> { probes.add(x * 7919L); return null; }, 1);
    }

    @Test
    void byteStrings() {
        BytesColumn values = new BytesColumn();
        BytesColumn probes = new BytesColumn();
        check(values, probes, x -> { values.add(("v" + x).getBytes(StandardCharsets.UTF_8)); return null; },
                x -> { probes.add(("v" + x).getBytes(StandardCharsets.UTF_8)); return null; }, 2);
    }

    @Test
    void objectsWhoseHashDisagreesWithTheirOrderAreSearchedByTheOrder() {
        // equal under the comparator (the same remainder), different hash codes
        Comparator<Long> byRemainder = Comparator.comparingLong(v -> v % 1000);
        ObjectColumn<Long> values = new ObjectColumn<>(byRemainder, 16);
        ObjectColumn<Long> probes = new ObjectColumn<>(byRemainder, 1);
        check(values, probes, x -> { values.add((long) x); return null; }, x -> { probes.add(x + 1000L); return null; }, 3);
    }
}
