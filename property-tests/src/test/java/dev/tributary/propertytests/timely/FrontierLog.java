package dev.tributary.propertytests.timely;

import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import dev.tributary.timely.TimelyEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watches every frontier the runtime shows, and records each time one moves backwards or a
 * record arrives at a time its frontier had already passed.
 *
 * <p>As a {@link TimelyEvents} hook it sees every frontier change of every operator input, per
 * worker: each new frontier must be dominated by the previous one ({@code old.dominates(new)}:
 * every new element is {@code >=} some old element). A {@link Watch} does the same from inside an
 * operator's logic, which also covers the frontier an input has when the dataflow is built (the
 * hook reports changes only), and checks each arriving message's time against it.
 *
 * <p>Violations are collected, not thrown, so that a run goes on to show everything that went
 * wrong; the property asserts that there are none.
 */
final class FrontierLog implements TimelyEvents {
    private final Map<List<Integer>, Antichain> last = new ConcurrentHashMap<>();
    private final Map<List<Integer>, String> names = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    private final AtomicLong changes = new AtomicLong();

    @Override
    public void operatorScheduled(int worker, int dataflow, int operator, String name) {
        names.putIfAbsent(List.of(dataflow, operator), name + "#" + operator);
    }

    @Override
    public void frontierChanged(int worker, int dataflow, int operator, int port, Antichain frontier) {
        changes.incrementAndGet();
        Antichain old = last.put(List.of(worker, dataflow, operator, port), frontier);
        if (old == null) old = Antichain.of(Timestamps.minimum(frontier.arity()));
        if (!old.dominates(frontier)) {
            violations.add("frontier of operator " + names.getOrDefault(List.of(dataflow, operator), "#" + operator) + " input " + port
                    + " on worker " + worker + " moved backwards from " + old + " to " + frontier);
        }
    }

    /** A watch for one operator's single input on one worker; use it from that worker's thread only. */
    Watch watch(int worker, String operator) {
        return new Watch(worker, operator);
    }

    final class Watch {
        private final int worker;
        private final String operator;
        private Antichain seen;

        private Watch(int worker, String operator) {
            this.worker = worker;
            this.operator = operator;
        }

        /** The frontier the operator is shown now: not behind the one it was shown before. */
        void check(Antichain frontier) {
            if (seen != null && !seen.dominates(frontier)) {
                violations.add("operator " + operator + " on worker " + worker + " was shown frontier " + frontier + " after " + seen);
            }
            seen = frontier;
        }

        /** A message at {@code time} is read while the input frontier is {@code frontier}. */
        void arrival(long[] time, Antichain frontier) {
            check(frontier);
            if (!frontier.lessEqual(time)) {
                violations.add("operator " + operator + " on worker " + worker + " read a message at " + Render.format(time)
                        + " while its frontier was " + frontier);
            }
        }
    }

    /** Records a violation found elsewhere (for example in what a capture saw). */
    void violation(String what) {
        violations.add(what);
    }

    List<String> violations() {
        return new ArrayList<>(violations);
    }

    /** How many frontier changes the hook saw; a run that saw none did not exercise it. */
    long changes() {
        return changes.get();
    }
}
