package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.Model.Codec;
import dev.tributary.timely.Antichain;
import org.junit.jupiter.api.Test;

/** Misuse of traces and handles fails at once, with a message that says what was wrong, and leaves the trace as it was. */
class TraceMisuseTest {
    private static Batch batch(Batcher batcher, long key, long time, long upper) {
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        ((LongColumn) u.keys()).add(key);
        ((LongColumn) u.vals()).add(0);
        u.push(time, 1);
        batcher.push(u);
        return batcher.seal(Antichain.of(upper));
    }

    private static TraceHandle trace() {
        return Trace.create("misuse", new LongColumn(), new LongColumn(), 1);
    }

    @Test
    void insertingABatchThatDoesNotStartAtTheUpperThrows() {
        TraceHandle h = trace();
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        Batch first = batch(batcher, 1, 0, 5);
        Batch second = batch(batcher, 2, 6, 10);

        assertThatThrownBy(() -> h.trace().insert(second))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[{5}, {10})")
                .hasMessageContaining("{0}");
        assertThat(h.trace().upper()).isEqualTo(Antichain.of(0));
        assertThat(h.trace().batchCount()).isZero();

        h.trace().insert(first);
        assertThatThrownBy(() -> h.trace().insert(first)).as("the same range twice").isInstanceOf(IllegalArgumentException.class);
        h.trace().insert(second);
        assertThat(h.trace().upper()).isEqualTo(Antichain.of(10));
        assertThat(Model.readAt(h, new long[] {9}, Codec.LONG, Codec.LONG)).hasSize(2);
    }

    @Test
    void readingBeforeTheLogicalCompactionFrontierThrowsNamingTheRange() {
        TraceHandle h = trace();
        h.setLogicalCompaction(Antichain.of(5));
        assertThatThrownBy(() -> h.readAt(new long[] {3}, (kc, k, vc, v, n) -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'misuse'")
                .hasMessageContaining(" 3")
                .hasMessageContaining("{5}");
        h.readAt(new long[] {5}, (kc, k, vc, v, n) -> {});

        TraceHandle product = Trace.create("loop", new LongColumn(), new LongColumn(), 2);
        product.setLogicalCompaction(Antichain.fromTimes(2, java.util.List.of(new long[] {1, 0}, new long[] {0, 1})));
        assertThatThrownBy(() -> product.readAt(new long[] {0, 0}, (kc, k, vc, v, n) -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(0, 0)")
                .hasMessageContaining("{(0, 1), (1, 0)}");
        product.readAt(new long[] {0, 1}, (kc, k, vc, v, n) -> {});
        product.readAt(new long[] {1, 0}, (kc, k, vc, v, n) -> {});
    }

    @Test
    void movingCompactionBackwardsThrowsAndKeepsTheFrontier() {
        TraceHandle h = trace();
        h.setLogicalCompaction(Antichain.of(5));
        assertThatThrownBy(() -> h.setLogicalCompaction(Antichain.of(3)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{5}")
                .hasMessageContaining("{3}");
        assertThat(h.logicalCompaction()).isEqualTo(Antichain.of(5));
        assertThat(h.trace().since()).isEqualTo(Antichain.of(5));
        h.setLogicalCompaction(Antichain.of(5));

        h.setPhysicalCompaction(Antichain.of(4));
        assertThatThrownBy(() -> h.setPhysicalCompaction(Antichain.of(2))).isInstanceOf(IllegalArgumentException.class);
        assertThat(h.physicalCompaction()).isEqualTo(Antichain.of(4));

        // In the product order, a move sideways is not forward either.
        TraceHandle product = Trace.create("loop", new LongColumn(), new LongColumn(), 2);
        product.setLogicalCompaction(Antichain.of(new long[] {1, 0}));
        assertThatThrownBy(() -> product.setLogicalCompaction(Antichain.of(new long[] {0, 1}))).isInstanceOf(IllegalArgumentException.class);
        product.setLogicalCompaction(Antichain.of(new long[] {1, 1}));
    }

    @Test
    void aDroppedHandleCannotBeUsed() {
        TraceHandle h = trace();
        TraceHandle other = h.share();
        h.drop();
        h.drop(); // idempotent
        assertThat(h.isDropped()).isTrue();
        for (Runnable use : new Runnable[] {
                () -> h.readAt(new long[] {0}, (kc, k, vc, v, n) -> {}),
                h::cursor,
                h::batches,
                h::share,
                () -> h.setLogicalCompaction(Antichain.of(1)),
                () -> h.setPhysicalCompaction(Antichain.of(1))}) {
            assertThatThrownBy(use::run).isInstanceOf(IllegalStateException.class).hasMessageContaining("dropped").hasMessageContaining("'misuse'");
        }

        // The other share still works; dropping it frees the trace.
        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 1);
        other.trace().insert(batch(batcher, 1, 0, 1));
        assertThat(Model.readAt(other, new long[] {0}, Codec.LONG, Codec.LONG)).hasSize(1);
        other.drop();
        assertThat(other.trace().batchCount()).isZero();
        assertThatThrownBy(() -> other.trace().insert(batch(batcher, 1, 1, 2))).isInstanceOf(IllegalStateException.class);
        assertThat(other.trace().exert(100)).isFalse();
    }

    @Test
    void updatesAndBatcherRejectMisalignedOrMismatchedInput() {
        Updates u = new Updates(new LongColumn(), new LongColumn(), 1);
        ((LongColumn) u.keys()).add(1);
        assertThatThrownBy(() -> u.push(0, 1)).isInstanceOf(IllegalStateException.class).hasMessageContaining("misaligned");

        Batcher batcher = new Batcher(new LongColumn(), new LongColumn(), 2);
        assertThatThrownBy(() -> batcher.push(new Updates(new LongColumn(), new LongColumn(), 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("arity 1")
                .hasMessageContaining("arity 2");
    }
}
