package dev.tributary.propertytests.timely;

import dev.tributary.propertytests.timely.Shape.BufferNode;
import dev.tributary.propertytests.timely.Shape.ConcatNode;
import dev.tributary.propertytests.timely.Shape.CountNode;
import dev.tributary.propertytests.timely.Shape.ExchangeNode;
import dev.tributary.propertytests.timely.Shape.FilterNode;
import dev.tributary.propertytests.timely.Shape.Graph;
import dev.tributary.propertytests.timely.Shape.LoopNode;
import dev.tributary.propertytests.timely.Shape.MapNode;
import dev.tributary.propertytests.timely.Shape.Node;
import dev.tributary.timely.Captured;
import dev.tributary.timely.Feedback;
import dev.tributary.timely.InputHandle;
import dev.tributary.timely.LongContainer;
import dev.tributary.timely.Notificator;
import dev.tributary.timely.Pact;
import dev.tributary.timely.Scope;
import dev.tributary.timely.Stream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongPredicate;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;

/**
 * Builds a {@link Shape} as a timely dataflow, on one worker: every worker calls this with the same
 * shape, inside {@code worker.dataflow(...)}. Every stream, in every scope, is captured into
 * {@code captures.get(id)}, and every operator written here checks the frontiers it is shown
 * against {@link FrontierLog#watch}.
 */
final class Render {
    private final Scope top;
    private final List<Captured<LongContainer>> captures;
    private final FrontierLog frontiers;
    /** The stream of every id built so far. */
    final Map<Integer, Stream<LongContainer>> streams = new HashMap<>();

    private Render(Scope top, List<Captured<LongContainer>> captures, FrontierLog frontiers) {
        this.top = top;
        this.captures = captures;
        this.frontiers = frontiers;
    }

    /** Builds {@code shape} in the top-level scope; returns the renderer (for its streams) and the inputs. */
    static Render build(Scope top, Graph shape, List<Captured<LongContainer>> captures, FrontierLog frontiers, List<InputHandle<LongContainer>> inputs) {
        Render r = new Render(top, captures, frontiers);
        for (int i = 0; i < shape.sourceIds().size(); i++) {
            InputHandle<LongContainer> in = top.input("input" + i, LongContainer.TYPE);
            inputs.add(in);
            r.put(shape.sourceIds().get(i), in.stream());
        }
        r.nodes(shape, top);
        return r;
    }

    private void put(int id, Stream<LongContainer> s) {
        streams.put(id, s.capture(captures.get(id)));
    }

    private void nodes(Graph g, Scope scope) {
        for (Node n : g.nodes()) {
            String name = "s" + n.id();
            Stream<LongContainer> s = switch (n) {
                case MapNode m -> map(streams.get(m.input()), name + "-map", m::apply);
                case FilterNode f -> filter(streams.get(f.input()), name + "-filter", f::keeps);
                case ExchangeNode e -> streams.get(e.input()).exchange();
                case ConcatNode c -> streams.get(c.left()).concat(streams.get(c.right()));
                case BufferNode b -> buffer(streams.get(b.input()), name + "-buffer", b);
                case CountNode c -> count(streams.get(c.input()), name + "-count");
                case LoopNode l -> {
                    Scope inner = scope.iterative(name + "-loop");
                    Feedback<LongContainer> back = inner.feedback(name + "-feedback", LongContainer.TYPE, l.increment());
                    put(l.body().sourceIds().getFirst(), streams.get(l.input()).enter(inner).concat(back.stream()));
                    nodes(l.body(), inner);
                    Stream<LongContainer> out = streams.get(l.body().outputId());
                    back.connect(gate(out, name + "-gate", l::feedsBack));
                    yield out.leave();
                }
            };
            put(n.id(), s);
        }
    }

    private Stream<LongContainer> map(Stream<LongContainer> in, String name, LongUnaryOperator f) {
        FrontierLog.Watch watch = frontiers.watch(top.worker(), name);
        return in.unary(name, Pact.pipeline(), LongContainer.TYPE, (input, output) -> {
            watch.check(input.frontier());
            input.forEach((cap, data) -> {
                watch.arrival(cap.time(), input.frontier());
                LongContainer out = output.newContainer();
                for (int i = 0; i < data.size(); i++) out.add(f.applyAsLong(data.get(i)));
                output.send(cap, out);
            });
        });
    }

    private Stream<LongContainer> filter(Stream<LongContainer> in, String name, LongPredicate keep) {
        FrontierLog.Watch watch = frontiers.watch(top.worker(), name);
        return in.unary(name, Pact.pipeline(), LongContainer.TYPE, (input, output) -> {
            watch.check(input.frontier());
            input.forEach((cap, data) -> {
                watch.arrival(cap.time(), input.frontier());
                LongContainer out = output.newContainer();
                for (int i = 0; i < data.size(); i++) {
                    if (keep.test(data.get(i))) out.add(data.get(i));
                }
                output.send(cap, out);
            });
        });
    }

    /** Passes the containers whose time satisfies {@code pass}; the loop's way to stop. */
    private Stream<LongContainer> gate(Stream<LongContainer> in, String name, Predicate<long[]> pass) {
        FrontierLog.Watch watch = frontiers.watch(top.worker(), name);
        return in.unary(name, Pact.pipeline(), LongContainer.TYPE, (input, output) -> {
            watch.check(input.frontier());
            input.forEach((cap, data) -> {
                watch.arrival(cap.time(), input.frontier());
                if (!pass.test(cap.time())) return;
                LongContainer out = output.newContainer();
                out.addAll(data.values(), 0, data.size());
                output.send(cap, out);
            });
        });
    }

    /** Holds records, under a capability at their delayed time, until the input frontier passes it. */
    private Stream<LongContainer> buffer(Stream<LongContainer> in, String name, BufferNode b) {
        FrontierLog.Watch watch = frontiers.watch(top.worker(), name);
        Map<List<Long>, LongContainer> held = new HashMap<>();
        Notificator notificator = new Notificator();
        return in.unary(name, Pact.pipeline(), LongContainer.TYPE, (input, output) -> {
            watch.check(input.frontier());
            input.forEach((cap, data) -> {
                watch.arrival(cap.time(), input.frontier());
                long[] at = b.delayed(cap.time());
                held.computeIfAbsent(key(at), k -> new LongContainer()).addAll(data.values(), 0, data.size());
                notificator.notifyAt(cap.delayed(at));
            });
            notificator.forEachReady(cap -> {
                LongContainer records = held.remove(key(cap.time()));
                LongContainer out = output.newContainer();
                out.addAll(records.values(), 0, records.size());
                output.send(cap, out);
            }, input.frontier());
        });
    }

    /** Per time, once complete: {@code value + 1000 * count} for each value, on the value's owner. */
    private Stream<LongContainer> count(Stream<LongContainer> in, String name) {
        FrontierLog.Watch watch = frontiers.watch(top.worker(), name);
        Map<List<Long>, Map<Long, Long>> counts = new HashMap<>();
        Notificator notificator = new Notificator();
        return in.unary(name, Pact.exchange(), LongContainer.TYPE, (input, output) -> {
            watch.check(input.frontier());
            input.forEach((cap, data) -> {
                watch.arrival(cap.time(), input.frontier());
                Map<Long, Long> at = counts.computeIfAbsent(key(cap.time()), k -> new HashMap<>());
                for (int i = 0; i < data.size(); i++) at.merge(data.get(i), 1L, Long::sum);
                notificator.notifyAt(cap);
            });
            notificator.forEachReady(cap -> {
                LongContainer out = output.newContainer();
                counts.remove(key(cap.time())).forEach((v, n) -> out.add(CountNode.encode(v, n)));
                output.send(cap, out);
            }, input.frontier());
        });
    }

    private static List<Long> key(long[] time) {
        List<Long> k = new ArrayList<>(time.length);
        for (long c : time) k.add(c);
        return k;
    }

    static String format(long[] time) {
        return time.length == 1 ? Long.toString(time[0]) : Arrays.toString(time).replace('[', '(').replace(']', ')');
    }
}
