package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class PartCodecTest {
    static Updates randomUpdates(Random r, Column keys, Column vals, int arity, int n) {
        Updates u = new Updates(keys, vals, arity);
        long[] t = new long[arity];
        for (int i = 0; i < n; i++) {
            for (Column c : new Column[] {keys, vals}) {
                switch (c) {
                    case BytesColumn b -> {
                        byte[] v = new byte[r.nextInt(12)];
                        r.nextBytes(v);
                        b.add(v);
                    }
                    case LongColumn l -> l.add(r.nextLong());
                    case UnitColumn un -> un.add();
                    default -> throw new AssertionError();
                }
            }
            for (int k = 0; k < arity; k++) t[k] = r.nextInt(1000);
            u.push(t, r.nextInt(7) - 3);
        }
        return u;
    }

    static void assertSame(Updates a, Updates b) {
        assertThat(b.size()).isEqualTo(a.size());
        assertThat(b.arity()).isEqualTo(a.arity());
        for (int i = 0; i < a.size(); i++) {
            assertThat(b.keys().get(i)).isEqualTo(a.keys().get(i));
            assertThat(b.vals().get(i)).isEqualTo(a.vals().get(i));
            assertThat(b.diff(i)).isEqualTo(a.diff(i));
            for (int k = 0; k < a.arity(); k++) assertThat(b.times()[i * a.arity() + k]).isEqualTo(a.times()[i * a.arity() + k]);
        }
    }

    @Test
    void everyPersistableLayoutRoundTrips() {
        Random r = new Random(11);
        Column[][] layouts = {{new BytesColumn(), new UnitColumn()}, {new BytesColumn(), new BytesColumn()}, {new LongColumn(), new LongColumn()}, {new LongColumn(), new UnitColumn()}};
        for (Column[] layout : layouts) {
            for (int arity = 1; arity <= 3; arity++) {
                for (int n : new int[] {0, 1, 57}) {
                    Updates u = randomUpdates(r, layout[0].emptyLike(4), layout[1].emptyLike(4), arity, n);
                    assertSame(u, PartCodec.decode(PartCodec.encode(u), "part"));
                }
            }
        }
    }

    @Test
    void aColumnOfJavaObjectsIsRefusedWithAReason() {
        Updates u = new Updates(new dev.tributary.arrangements.ObjectColumn<String>(String::compareTo), new UnitColumn(), 1);
        assertThatThrownBy(() -> PartCodec.encode(u)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be persisted");
    }

    /** Damaged parts are an error naming them, never another exception or an allocation of what a damaged count says. */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void damagedBytesAreCorruptDataNeverACrash(int seed) {
        Random r = new Random(seed);
        byte[] good = PartCodec.encode(randomUpdates(r, new BytesColumn(), seed % 2 == 0 ? new LongColumn() : new UnitColumn(), 1 + seed % 2, 40));
        for (int cut = 0; cut < good.length; cut++) {
            byte[] shorter = java.util.Arrays.copyOf(good, cut);
            assertThatThrownBy(() -> PartCodec.decode(shorter, "part p")).isInstanceOf(CorruptDataException.class).hasMessageContaining("part p");
        }
        for (int trial = 0; trial < 2000; trial++) {
            byte[] bad = good.clone();
            for (int flips = 1 + r.nextInt(3); flips > 0; flips--) bad[r.nextInt(bad.length)] = (byte) r.nextInt(256);
            try {
                PartCodec.decode(bad, "part p");
            } catch (CorruptDataException expected) {
                assertThat(expected).hasMessageContaining("part p");
            }
        }
        byte[] huge = good.clone();
        java.nio.ByteBuffer.wrap(huge).putInt(11, Integer.MAX_VALUE);
        assertThatThrownBy(() -> PartCodec.decode(huge, "part p")).isInstanceOf(CorruptDataException.class);
    }
}
