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
        ContainerPool<LongContainer> pool = new ContainerPool<>(LongContainer.TYPE, 0, 1);
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
        ContainerPool<LongContainer> pool = new ContainerPool<>(LongContainer.TYPE, 0, 1);
        LongContainer[] many = new LongContainer[1000];
        for (int i = 0; i < many.length; i++) many[i] = pool.acquire();
        for (LongContainer c : many) pool.release(c, 0);
        java.util.Set<LongContainer> reused = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int i = 0; i < many.length; i++) reused.add(pool.acquire());
        int kept = 0;
        for (LongContainer c : many) if (reused.contains(c)) kept++;
        assertThat(kept).isBetween(1, 16);
    }
}
