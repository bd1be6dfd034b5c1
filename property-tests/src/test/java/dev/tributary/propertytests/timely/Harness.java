package dev.tributary.propertytests.timely;

import dev.tributary.propertytests.timely.Model.Bag;
import dev.tributary.propertytests.Guard;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Captured;
import dev.tributary.timely.Config;
import dev.tributary.timely.LongContainer;
import dev.tributary.timely.Router;
import dev.tributary.timely.Timely;
import dev.tributary.timely.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Consumer;

/** Running a computation under test, and reading what its captures saw. */
final class Harness {
    private Harness() {}

    /**
     * Far longer than any run here takes (milliseconds): only a guard, so that a computation that
     * never completes fails the try instead of hanging the build.
     */
    static final Duration GUARD = Duration.ofSeconds(30);

    /**
     * {@link Timely#run}, which must return: the property is that it does. jqwik does not honour
     * JUnit's {@code @Timeout}, so the guard is here: {@code Timely.run} runs on a thread of its
     * own, and if it has not returned after {@link #GUARD} that thread is interrupted, which makes
     * {@code Execution.join()} fail the computation and so stops every worker.
     */
    static void run(int workers, FrontierLog events, Consumer<Worker> program) {
        Guard.run(Config.workers(workers).withEvents(events), program, GUARD);
    }

    /** One capture per stream id, shared by all workers. */
    static List<Captured<LongContainer>> captures(int streams) {
        List<Captured<LongContainer>> out = new ArrayList<>();
        for (int i = 0; i < streams; i++) out.add(new Captured<>());
        return out;
    }

    /** What a capture saw, summed over workers. */
    static Bag collect(Captured<LongContainer> captured) {
        Bag b = new Bag();
        for (Captured.Event<LongContainer> e : captured.events()) {
            for (int i = 0; i < e.data().size(); i++) b.add(e.time(), e.data().get(i));
        }
        return b;
    }

    /**
     * Checks what every capture saw against the runtime's promises, adding a line to
     * {@code frontiers} for each breach: each container arrived at a time its frontier allowed; the
     * records of an exchange are on the worker that owns them; once the run is over, every worker's
     * frontier of every stream is empty.
     */
    static void checkCaptures(List<Captured<LongContainer>> captures, List<Integer> exchanges, int workers, FrontierLog frontiers) {
        Router router = new Router(workers);
        for (int id = 0; id < captures.size(); id++) {
            Captured<LongContainer> c = captures.get(id);
            for (Captured.Event<LongContainer> e : c.events()) {
                if (!e.frontierAtArrival().lessEqual(e.time())) {
                    frontiers.violation("stream s" + id + " on worker " + e.worker() + " received " + e.data() + " at " + Render.format(e.time())
                            + " while its frontier was " + e.frontierAtArrival());
                }
                if (exchanges.contains(id)) {
                    for (int i = 0; i < e.data().size(); i++) {
                        long v = e.data().get(i);
                        if (router.route(v) != e.worker()) {
                            frontiers.violation("exchanged stream s" + id + " delivered " + v + " to worker " + e.worker() + ", but worker "
                                    + router.route(v) + " owns it");
                        }
                    }
                }
            }
            List<Antichain> last = c.frontiers();
            for (int w = 0; w < workers; w++) {
                Antichain f = w < last.size() ? last.get(w) : null;
                if (f == null || !f.isEmpty()) {
                    frontiers.violation("stream s" + id + " on worker " + w + " ended with frontier " + f + ", not the empty frontier");
                }
            }
        }
    }

    /**
     * The streams whose actual records differ from the expected ones, with both at each time that
     * differs (at most five per stream); empty when everything matches.
     */
    static String differences(Map<Integer, Bag> expected, Map<Integer, Bag> actual) {
        StringBuilder sb = new StringBuilder();
        for (var e : expected.entrySet()) {
            Bag a = actual.get(e.getKey());
            if (Objects.equals(a, e.getValue())) continue;
            sb.append("  s").append(e.getKey()).append(":\n");
            var want = e.getValue().byTime();
            var got = a == null ? new Bag().byTime() : a.byTime();
            var times = new TreeSet<List<Long>>(Model::compareTimes);
            times.addAll(want.keySet());
            times.addAll(got.keySet());
            int shown = 0;
            for (List<Long> t : times) {
                if (Objects.equals(want.get(t), got.get(t))) continue;
                if (shown++ == 5) {
                    sb.append("    ...\n");
                    break;
                }
                sb.append("    at ").append(Model.formatTime(t)).append(": expected ").append(want.getOrDefault(t, List.of()))
                        .append(", captured ").append(got.getOrDefault(t, List.of())).append('\n');
            }
        }
        return sb.toString();
    }
}
