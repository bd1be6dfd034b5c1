package dev.tributary.propertytests.differential;

import dev.tributary.arrangements.TraceHandle;
import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.propertytests.differential.Script.Advance;
import dev.tributary.propertytests.differential.Script.Cmd;
import dev.tributary.propertytests.differential.Script.Flush;
import dev.tributary.propertytests.differential.Script.Step;
import dev.tributary.propertytests.differential.Script.Update;
import dev.tributary.propertytests.Guard;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a differential dataflow under a {@link Script} and checks it against the reference.
 *
 * <p>The oracle: for every time {@code t}, the output accumulated at {@code t} equals the operator
 * applied to the inputs accumulated at {@code t}. It is checked three ways. (1) While the
 * dataflow runs: whenever a worker's probe on the output passes a time, the updates output so far
 * (on all workers) must already accumulate to the reference there, since nothing at that time may
 * come later. (2) After the run: the whole output, at every time. (3) Where the output is read
 * out of an arrangement, its trace too: a handle shared before the dataflow runs is read at each
 * time once the probe has passed it (summed over the workers' shards), and then advanced to the
 * probe's frontier, so that compaction runs and must not change what can be read.
 */
final class Harness {
    private Harness() {}

    /**
     * Far longer than any run here takes (milliseconds): only a guard, so that a computation that
     * never completes fails the try instead of hanging the build.
     */
    static final Duration GUARD = Duration.ofSeconds(30);

    /** What a dataflow under test hands back: its output and, optionally, an arrangement to read. */
    record Output<R>(Collection<R> collection, Traced<?, ?, R> traced) {}

    /** An arrangement whose trace holds the output too, each {@code (key, val)} read as {@code decode(key, val)}. */
    record Traced<K, V, R>(Arrangement<K, V> arrangement, BiFunction<K, V, R> decode) {}

    static <R> Output<R> output(Collection<R> c) {
        return new Output<>(c, null);
    }

    static <K, V, R> Output<R> output(Collection<R> c, Arrangement<K, V> arrangement, BiFunction<K, V, R> decode) {
        return new Output<>(c, new Traced<>(arrangement, decode));
    }

    /** Builds the dataflow under test from the inputs' collections (one per input of the script). */
    @FunctionalInterface
    interface Build<R> {
        Output<R> build(List<Collection<Long>> inputs);
    }

    /** What a worker saw at one time when its probe passed it: the output so far, accumulated there. */
    record Observation<R>(int worker, long time, Map<R, Long> accumulated) {}

    /** Everything a run produced. */
    record Outcome<R>(List<Upd<R>> updates, List<Observation<R>> observed, List<Observation<R>> traceReads) {}

    /**
     * {@link Timely#run}, which must return: the property is that it does. jqwik does not honour
     * JUnit's {@code @Timeout}, so the guard is here: the computation runs on a thread of its own,
     * and if it has not returned after {@link #GUARD} that thread is interrupted, which fails the
     * computation and so stops every worker.
     */
    static void runGuarded(int workers, Consumer<Worker> program) {
        Guard.run(Config.workers(workers), program, GUARD);
    }

    /** Runs {@code build} on the script's workers, each carrying out its commands, and collects what it output. */
    static <R> Outcome<R> run(Script script, Build<R> build) {
        List<Upd<R>> updates = Collections.synchronizedList(new ArrayList<>());
        List<Observation<R>> observed = Collections.synchronizedList(new ArrayList<>());
        List<Observation<R>> traceReads = Collections.synchronizedList(new ArrayList<>());
        long horizon = script.horizon();
        runGuarded(script.workers(), worker -> {
            List<InputSession<Long>> sessions = new ArrayList<>();
            List<Reader<?, ?, R>> reader = new ArrayList<>(1);
            Probe probe = worker.dataflow("under-test", scope -> {
                List<Collection<Long>> inputs = new ArrayList<>();
                for (int i = 0; i < script.inputs(); i++) {
                    sessions.add(InputSession.create(scope, "in" + i, DataType.longs()));
                    inputs.add(sessions.get(i).collection());
                }
                Output<R> out = build.build(inputs);
                if (out.traced() != null) reader.add(new Reader<>(out.traced()));
                return out.collection().inspect((d, t, diff) -> updates.add(new Upd<>(d, t[0], diff))).probe();
            });
            Watcher<R> watcher = new Watcher<>(worker.index(), probe, horizon, updates, observed, reader.isEmpty() ? null : reader.getFirst(), traceReads);
            for (Cmd c : script.commands()) {
                if (c.worker() != worker.index()) continue;
                switch (c) {
                    case Update u -> sessions.get(u.input()).updateAt(u.data(), new long[] {u.time()}, u.diff());
                    case Advance a -> sessions.forEach(s -> s.advanceTo(a.to()));
                    case Flush f -> sessions.forEach(InputSession::flush);
                    case Step s -> {
                        for (int i = 0; i < s.times(); i++) worker.step();
                    }
                }
                watcher.watch();
            }
            sessions.forEach(InputSession::close);
            worker.stepWhile(() -> {
                watcher.watch();
                return !probe.isDone();
            });
            watcher.watch();
            for (Reader<?, ?, R> r : reader) r.handle.drop();
        });
        return new Outcome<>(new ArrayList<>(updates), new ArrayList<>(observed), new ArrayList<>(traceReads));
    }

    /** A share of the output's trace, taken while the dataflow is built, and how to read it. */
    private static final class Reader<K, V, R> {
        final TraceHandle handle;
        final Traced<K, V, R> traced;

        Reader(Traced<K, V, R> traced) {
            this.traced = traced;
            this.handle = traced.arrangement().trace().share();
        }

        Map<R, Long> readAt(long time) {
            Map<R, Long> m = new HashMap<>();
            Arrangement<K, V> a = traced.arrangement();
            handle.readAt(new long[] {time}, (keys, k, vals, v, n) -> Multisets.add(m, traced.decode().apply(a.keyType().get(keys, k), a.valType().get(vals, v)), n));
            return m;
        }

        void advanceTo(Antichain f) {
            if (f.isEmpty()) return;
            if (!f.equals(handle.logicalCompaction()) && handle.logicalCompaction().dominates(f)) handle.setLogicalCompaction(f);
            if (!f.equals(handle.physicalCompaction()) && handle.physicalCompaction().dominates(f)) handle.setPhysicalCompaction(f);
        }
    }

    /** One worker's watch on its probe: records what the output (and trace) hold at each time the probe passes. */
    private static final class Watcher<R> {
        private final int worker;
        private final Probe probe;
        private final long horizon;
        private final List<Upd<R>> updates;
        private final List<Observation<R>> observed;
        private final Reader<?, ?, R> reader;
        private final List<Observation<R>> traceReads;
        private Antichain last = Antichain.of(new long[1]);

        Watcher(int worker, Probe probe, long horizon, List<Upd<R>> updates, List<Observation<R>> observed, Reader<?, ?, R> reader,
                List<Observation<R>> traceReads) {
            this.worker = worker;
            this.probe = probe;
            this.horizon = horizon;
            this.updates = updates;
            this.observed = observed;
            this.reader = reader;
            this.traceReads = traceReads;
        }

        void watch() {
            Antichain now = probe.frontier();
            if (now.equals(last)) return;
            List<Upd<R>> snapshot = null;
            for (long t = 0; t <= horizon; t++) {
                if (!last.lessEqual(t) || now.lessEqual(t)) continue;
                if (snapshot == null) {
                    synchronized (updates) {
                        snapshot = new ArrayList<>(updates);
                    }
                }
                observed.add(new Observation<>(worker, t, Multisets.accumulate(snapshot, t)));
                if (reader != null) traceReads.add(new Observation<>(worker, t, reader.readAt(t)));
            }
            if (reader != null) reader.advanceTo(now);
            last = now;
        }
    }

    /** {@link #verify}, within a property: also labels what the script exercises. */
    static <R> Outcome<R> check(Script script, String what, Build<R> build, Function<List<Map<Long, Long>>, Map<?, Long>> model) {
        Generators.collectStatistics(script);
        return verify(script, what, build, model);
    }

    /**
     * Runs {@code build} under {@code script} and checks all three forms of the oracle against
     * {@code model}, which maps the inputs accumulated at a time to the output expected there.
     */
    static <R> Outcome<R> verify(Script script, String what, Build<R> build, Function<List<Map<Long, Long>>, Map<?, Long>> model) {
        String context = "\n  dataflow: " + what + "\n  input: " + script;
        Outcome<R> outcome;
        try {
            outcome = run(script, build);
        } catch (RuntimeException | AssertionError e) {
            throw new AssertionError("the dataflow failed: " + e.getMessage() + context, e);
        }
        long horizon = script.horizon();
        Map<Long, Map<?, Long>> expected = new HashMap<>();
        Function<Long, Map<?, Long>> expectedAt = t -> expected.computeIfAbsent(Math.min(t, horizon), u -> model.apply(script.accumulated(u)));
        long last = horizon;
        for (Upd<R> u : outcome.updates()) last = Math.max(last, u.time());
        for (long t = 0; t <= last; t++) {
            Map<R, Long> got = Multisets.accumulate(outcome.updates(), t);
            String diff = Multisets.difference(expectedAt.apply(t), got);
            if (!diff.isEmpty()) {
                throw new AssertionError("the output accumulated at time " + t + " is not the reference's" + context + "\n  inputs at " + t + ": "
                        + showInputs(script, t) + "\n  expected: " + Multisets.show(expectedAt.apply(t)) + "\n  output:   " + Multisets.show(got)
                        + "\n  output - expected: " + diff + "\n  output updates: " + sorted(outcome.updates()));
            }
        }
        for (Observation<R> o : outcome.observed()) {
            String diff = Multisets.difference(expectedAt.apply(o.time()), o.accumulated());
            if (!diff.isEmpty()) {
                throw new AssertionError("when worker " + o.worker() + "'s probe passed time " + o.time() + ", the output so far accumulated to "
                        + Multisets.show(o.accumulated()) + " there, not the reference's " + Multisets.show(expectedAt.apply(o.time()))
                        + " (output - expected: " + diff + "): updates at a complete time came later" + context + "\n  output updates: "
                        + sorted(outcome.updates()));
            }
        }
        checkObservedEveryTime(script, outcome.observed(), "probe", context);
        if (!outcome.traceReads().isEmpty()) {
            checkObservedEveryTime(script, outcome.traceReads(), "trace read", context);
            Map<Long, Map<Object, Long>> summed = new HashMap<>();
            for (Observation<R> o : outcome.traceReads()) {
                Map<Object, Long> m = summed.computeIfAbsent(o.time(), t -> new HashMap<>());
                o.accumulated().forEach((d, n) -> Multisets.add(m, d, n));
            }
            for (long t = 0; t <= horizon; t++) {
                Map<Object, Long> got = summed.getOrDefault(t, Map.of());
                String diff = Multisets.difference(expectedAt.apply(t), got);
                if (!diff.isEmpty()) {
                    throw new AssertionError("the arrangement's trace read at time " + t + " (summed over workers) is not the reference's" + context
                            + "\n  expected: " + Multisets.show(expectedAt.apply(t)) + "\n  trace:    " + Multisets.show(got)
                            + "\n  trace - expected: " + diff);
                }
            }
        }
        return outcome;
    }

    /** Every worker saw every time up to the horizon pass, once. */
    private static <R> void checkObservedEveryTime(Script script, List<Observation<R>> observed, String what, String context) {
        for (int w = 0; w < script.workers(); w++) {
            List<Long> times = new ArrayList<>();
            for (Observation<R> o : observed) {
                if (o.worker() == w) times.add(o.time());
            }
            Collections.sort(times);
            List<Long> want = new ArrayList<>();
            for (long t = 0; t <= script.horizon(); t++) want.add(t);
            if (!times.equals(want)) {
                throw new AssertionError("worker " + w + " had a " + what + " at times " + times + ", not once at each of " + want + context);
            }
        }
    }

    static String showInputs(Script script, long t) {
        List<String> parts = new ArrayList<>();
        for (Map<Long, Long> m : script.accumulated(t)) parts.add(Multisets.show(m));
        return String.join(", ", parts);
    }

    static <R> String sorted(List<Upd<R>> updates) {
        List<Upd<R>> s = new ArrayList<>(updates);
        s.sort((a, b) -> a.time() != b.time() ? Long.compare(a.time(), b.time()) : Multisets.ORDER.compare(a.data(), b.data()));
        return s.toString();
    }
}
