package dev.tributary.differential.examples;

import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.InputSession;
import dev.tributary.differential.KV;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.List;
import java.util.function.Consumer;

/**
 * Graph reachability with {@code iterate}: the nodes reachable from the roots, maintained as
 * edges are added and removed. Run with no arguments for a random graph whose edges change;
 * prints how many nodes are reachable after each change.
 */
public final class Reachability {
    private Reachability() {}

    private static final DataType<Long> NODES = DataType.longs();

    /** The nodes reachable from {@code roots} over {@code edges}. */
    public static Collection<Long> reach(Collection<KV<Long, Long>> edges, Collection<Long> roots) {
        return roots.iterate(reached -> {
            Arrangement<Long, Long> graph = edges.enter(reached.scope()).arrangeByKey(KV::key, NODES, KV::val, NODES);
            return reached.arrangeBySelf()
                    .join(graph, (src, unit, dst) -> dst, NODES)
                    .concat(reached)
                    .distinct();
        });
    }

    /** An edge change: at {@code time}, edge {@code src -> dst} is added ({@code diff = 1}) or removed ({@code -1}). */
    public record EdgeChange(long time, long src, long dst, long diff) {}

    /** Runs {@link #reach} from node 0 over the changes (each worker feeds its share), reporting every change of the reachable set. */
    public static void run(int workers, List<EdgeChange> changes, Consumer<KV<Long, Long>> reachableChanges) {
        Timely.run(Config.workers(workers), worker -> {
            InputSession<KV<Long, Long>>[] edges = new InputSession[1];
            InputSession<Long>[] roots = new InputSession[1];
            Probe probe = worker.dataflow("reachability", scope -> {
                edges[0] = InputSession.create(scope, "edges", DataType.pairs(NODES, NODES));
                roots[0] = InputSession.create(scope, "roots", NODES);
                return reach(edges[0].collection(), roots[0].collection())
                        .inspect((node, time, diff) -> reachableChanges.accept(KV.of(node, diff)))
                        .probe();
            });
            if (worker.index() == 0) roots[0].insert(0L);
            roots[0].close();
            for (int i = 0; i < changes.size(); i++) {
                EdgeChange c = changes.get(i);
                edges[0].advanceTo(c.time());
                if (i % worker.peers() == worker.index()) edges[0].update(KV.of(c.src(), c.dst()), c.diff());
            }
            edges[0].close();
            worker.stepWhile(() -> !probe.isDone());
        });
    }

    public static void main(String[] args) {
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        List<EdgeChange> changes = new java.util.ArrayList<>();
        int nodes = 1000;
        for (int i = 0; i < 1500; i++) changes.add(new EdgeChange(0, random.nextInt(nodes), random.nextInt(nodes), 1));
        for (int t = 1; t <= 10; t++) {
            changes.add(new EdgeChange(t, random.nextInt(nodes), random.nextInt(nodes), 1));
            EdgeChange old = changes.get(random.nextInt(1500));
            changes.add(new EdgeChange(t, old.src(), old.dst(), -1));
        }
        long[] reachable = {0};
        run(2, changes, c -> {
            synchronized (reachable) {
                reachable[0] += c.val();
            }
        });
        System.out.println("nodes reachable from 0 at the end: " + reachable[0]);
    }
}
