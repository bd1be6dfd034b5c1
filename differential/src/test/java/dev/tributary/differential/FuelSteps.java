package dev.tributary.differential;

import dev.tributary.timely.Worker;
import java.util.HashMap;
import java.util.Map;

/**
 * What the fuel tests share: the output recorded per time and counted per worker, one step of a
 * worker noting the most output it saw in a step, and the output accumulated up to a time.
 */
final class FuelSteps {
    private FuelSteps() {}

    /** Records each output update in {@code out} by time, and counts it for worker {@code index} (the thread it runs on). */
    static Collection.UpdateConsumer<Long> recorder(Map<Long, Map<Long, Long>> out, long[] seen, int index) {
        return (v, t, d) -> {
            seen[index] += Math.abs(d);
            synchronized (out) {
                out.computeIfAbsent(t[0], x -> new HashMap<>()).merge(v, d, (p, q) -> p + q == 0 ? null : p + q);
            }
        };
    }

    /** One step of {@code w}, noting the most output its worker saw in a step. */
    static void step(Worker w, long[] seen, long[] mostInAStep) {
        long before = seen[w.index()];
        w.step();
        mostInAStep[w.index()] = Math.max(mostInAStep[w.index()], seen[w.index()] - before);
    }

    /** Every update of {@code out} at times up to {@code t}, summed. */
    static Map<Long, Long> accumulated(Map<Long, Map<Long, Long>> out, long t) {
        Map<Long, Long> acc = new HashMap<>();
        out.forEach((time, updates) -> {
            if (time <= t) updates.forEach((v, d) -> acc.merge(v, d, (p, q) -> p + q == 0 ? null : p + q));
        });
        return acc;
    }
}
