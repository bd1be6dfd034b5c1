package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Pools keep containers for the steady state only: one grown past {@link ContainerPool#MAX_POOLED_BYTES}
 * (a message of a million records) is left to the collector, and at most a few wait in a pool.
 * Before, a view's hydration left gigabytes of such containers in its operators' pools.
 */
class ContainerPoolTest {
    @Test
    void oversizedContainersAreNotKept() {
        ContainerPool<LongContainer> pool = new ContainerPool<>(LongContainer.TYPE, 0, 1, new ContainerPool.Budget());
        LongContainer big = pool.acquire();
        for (long i = 0; i < 1_000_000; i++) big.add(i);
        pool.release(big, 0);
        assertThat(pool.acquire()).as("a container of 8 MB is not pooled").isNotSameAs(big);

        LongContainer small = pool.acquire();
        small.add(1);
        pool.release(small, 0);
        assertThat(pool.acquire()).as("an ordinary one is").isSameAs(small);
    }

    @Test
    void aPoolKeepsAFewContainers() {
        ContainerPool<LongContainer> pool = new ContainerPool<>(LongContainer.TYPE, 0, 1, new ContainerPool.Budget());
        LongContainer[] many = new LongContainer[1000];
        for (int i = 0; i < many.length; i++) many[i] = pool.acquire();
        for (LongContainer c : many) pool.release(c, 0);
        java.util.Set<LongContainer> reused = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < many.length; i++) reused.add(pool.acquire());
        int kept = 0;
        for (LongContainer c : many) if (reused.contains(c)) kept++;
        assertThat(kept).isBetween(1, 16);
    }

    /**
     * A worker has a pool per channel of every dataflow; together they hold at most
     * {@link ContainerPool#WORKER_POOLED_BYTES}, however many channels there are (after a large
     * build, each pool's few full containers added up to 50 MB).
     */
    @Test
    void aWorkersPoolsTogetherKeepABoundedNumberOfBytes() {
        ContainerPool.Budget budget = new ContainerPool.Budget();
        java.util.List<ContainerPool<LongContainer>> pools = new java.util.ArrayList<>();
        for (int p = 0; p < 200; p++) pools.add(new ContainerPool<>(LongContainer.TYPE, 0, 2, budget));
        for (ContainerPool<LongContainer> pool : pools) {
            for (int k = 0; k < 8; k++) {
                LongContainer c = pool.acquire();
                for (long i = 0; i < 30_000; i++) c.add(i); // about 256 kB each
                pool.release(c, k % 2); // by the owner and by another worker
            }
        }
        assertThat(budget.pooled()).isPositive().isLessThanOrEqualTo(ContainerPool.WORKER_POOLED_BYTES);
        // taking containers out gives their bytes back, to the last one
        for (ContainerPool<LongContainer> pool : pools) for (int k = 0; k < 8; k++) pool.acquire();
        assertThat(budget.pooled()).isZero();
    }

    /**
     * A dropped dataflow gives its pools' bytes back to the worker's budget: before, every
     * dropped dataflow kept its share for good, and after a few view builds the budget was spent
     * and no container was pooled any more (each hydration message then allocated its arrays).
     */
    @Test
    void aDroppedDataflowGivesItsPoolsBytesBack() {
        long[] pooled = new long[2];
        Timely.run(Config.workers(1), w -> {
            @SuppressWarnings("unchecked")
            InputHandle<LongContainer>[] in = new InputHandle[1];
            int index = w.dataflow("copies", s -> {
                in[0] = s.input("in", LongContainer.TYPE);
                in[0].stream().inspect((t, c) -> {}).inspect((t, c) -> {}).probe();
                return s.dataflowIndex();
            });
            for (int round = 0; round < 10; round++) {
                LongContainer c = new LongContainer();
                for (long i = 0; i < 1000; i++) c.add(i);
                in[0].send(c);
                in[0].advanceTo(round + 1);
                w.step();
                w.step();
            }
            pooled[0] = w.poolBudget.pooled();
            w.dropDataflow(index);
            pooled[1] = w.poolBudget.pooled();
        });
        assertThat(pooled[0]).as("pooled while the dataflow runs").isPositive();
        assertThat(pooled[1]).as("pooled after its drop").isZero();
    }
}
