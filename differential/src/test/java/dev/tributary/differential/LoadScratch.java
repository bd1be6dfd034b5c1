package dev.tributary.differential;

import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.SplittableRandom;

public class LoadScratch {
    public static void main(String[] args) {
        int edges = Integer.parseInt(args[0]);
        int nodes = Integer.parseInt(args[1]);
        int workers = Integer.parseInt(args[2]);
        long start = System.nanoTime();
        Timely.run(Config.workers(workers), w -> {
            InputSession<Long>[] in = new InputSession[1];
            Probe p = w.dataflow("deg", scope -> {
                in[0] = InputSession.create(scope, "e", DataType.longs());
                return in[0].collection().count().probe();
            });
            SplittableRandom r = new SplittableRandom(w.index());
            for (int i = w.index(); i < edges; i += w.peers()) {
                in[0].insert((long) r.nextInt(nodes));
                if ((i & 0xffff) == 0) w.step();
            }
            in[0].advanceTo(1);
            w.stepWhile(() -> p.lessThan(1));
            long loaded = System.nanoTime();
            if (w.index() == 0) System.out.printf("load %.2f s%n", (loaded - start) / 1e9);
            in[0].close();
            w.stepWhile(() -> !p.isDone());
        });
    }
}
