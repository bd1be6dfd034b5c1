package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The input queue's ring against a plain deque: order, growth across the wrap, and no stale references. */
class MessageQueueTest {
    private record Entry(long[] time, Container data, ContainerPool<?> home) {}

    private static final ContainerPool<LongContainer> POOL = new ContainerPool<>(LongContainer.TYPE, 0, 1, new ContainerPool.Budget());

    @Test
    void isFirstInFirstOutThroughWrapsAndGrowth() {
        SplittableRandom r = new SplittableRandom(7);
        MessageQueue q = new MessageQueue();
        ArrayDeque<Entry> model = new ArrayDeque<>();
        long next = 0;
        for (int step = 0; step < 5000; step++) {
            // bursts longer than the initial capacity, so pushes wrap and the ring grows mid-wrap
            if (r.nextInt(3) > 0) {
                for (int k = r.nextInt(12); k > 0; k--) {
                    Entry e = new Entry(new long[] {next++}, LongContainer.TYPE.create(), r.nextBoolean() ? POOL : null);
                    q.push(e.time(), e.data(), e.home());
                    model.addLast(e);
                }
            } else {
                for (int k = r.nextInt(12); k > 0 && !model.isEmpty(); k--) {
                    Entry e = model.pollFirst();
                    assertThat(q.peekTime()).isSameAs(e.time());
                    assertThat(q.peekData()).isSameAs(e.data());
                    assertThat(q.peekHome()).isSameAs(e.home());
                    q.pop();
                }
            }
            assertThat(q.size()).isEqualTo(model.size());
            assertThat(q.isEmpty()).isEqualTo(model.isEmpty());
            assertThat(q.referencedSlots()).as("only waiting messages are referenced").isEqualTo(model.size());
        }
    }

    @Test
    void aMessagePushedWhileTheOldestIsReadGoesBehindAndLeavesItIntact() {
        MessageQueue q = new MessageQueue();
        for (int i = 0; i < 8; i++) q.push(new long[] {i}, LongContainer.TYPE.create(), null);
        long[] time = q.peekTime();
        Container data = q.peekData();
        q.pop();
        // what a consumer sending back to its own input does: the ring is full again and grows
        for (int i = 8; i < 10; i++) q.push(new long[] {i}, LongContainer.TYPE.create(), null);
        assertThat(time).containsExactly(0);
        assertThat(data).isNotNull();
        for (int i = 1; i < 10; i++) {
            assertThat(q.peekTime()).containsExactly(i);
            q.pop();
        }
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.referencedSlots()).isZero();
    }

    @Test
    void readingAnEmptyQueueIsAnError() {
        MessageQueue q = new MessageQueue();
        assertThatThrownBy(q::peekTime).isInstanceOf(IllegalStateException.class).hasMessageContaining("no message is waiting");
        assertThatThrownBy(q::pop).isInstanceOf(IllegalStateException.class);
    }
}
