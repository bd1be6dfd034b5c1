package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Paging;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link CheckpointTest} with arrangements paged at sizes so small that every merged batch of a
 * few hundred bytes is held in parts, and only a few parts stay on the heap: tables, joins,
 * aggregates, indexes, checkpoints and restarts must answer exactly as they do with nothing paged.
 */
class PagedCheckpointTest extends CheckpointTest {
    private static Paging.Stats before;

    @BeforeAll
    static void pageTiny() {
        System.setProperty("tributary.paging.part.bytes", "256");
        System.setProperty("tributary.paging.resident.bytes", "2048");
        before = Paging.stats();
    }

    @AfterAll
    static void unpage() {
        System.clearProperty("tributary.paging.part.bytes");
        System.clearProperty("tributary.paging.resident.bytes");
        Paging.Stats after = Paging.stats();
        // the point of running these again: batches were parted, paged out and read back in
        assertThat(after.spilledBytes()).as("bytes written to parts").isGreaterThan(before.spilledBytes());
        assertThat(after.loads()).as("parts read back after eviction").isGreaterThan(before.loads());
    }
}
