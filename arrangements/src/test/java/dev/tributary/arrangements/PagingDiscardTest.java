package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batcher's spilled runs are its own: once merged (into a bigger run, or into the sealed batch)
 * their parts are discarded, unmapped and their files deleted at once, so the spill directory
 * holds the sealed batch's parts and nothing else, with no collection needed; the sealed batch
 * holds every update, added up.
 */
class PagingDiscardTest {
    @Test
    void mergedRunsLeaveNoFilesBehind(@TempDir Path spill) throws IOException {
        Paging.enable(spill, 64 << 10, 4 << 10);
        try {
            long discardedBefore = Paging.stats().discardedParts();
            Batcher batcher = new Batcher(new BytesColumn(), new UnitColumn(), 1);
            Random r = new Random(3);
            TreeMap<String, Long> model = new TreeMap<>();
            for (int chunk = 0; chunk < 40; chunk++) {
                Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
                for (int i = 0; i < 5_000; i++) {
                    String key = "key-" + r.nextInt(150_000) + "-" + "x".repeat(20);
                    ((BytesColumn) u.keys()).add(key.getBytes(StandardCharsets.UTF_8));
                    ((UnitColumn) u.vals()).add();
                    u.push(0, 1);
                    model.merge(key, 1L, Long::sum);
                }
                batcher.push(u);
            }
            Batch sealed = batcher.seal(Antichain.of(1));
            assertThat(Paging.stats().discardedParts()).as("parts of merged runs discarded").isGreaterThan(discardedBefore);
            assertThat(sealed.isParted()).isTrue();
            long files;
            try (var list = Files.list(spill)) {
                files = list.filter(p -> p.toString().endsWith(".part")).count();
            }
            assertThat(files).as("spill files, against the sealed batch's %d parts", sealed.parts.length).isEqualTo(sealed.parts.length);
            TreeMap<String, Long> read = new TreeMap<>();
            Cursor c = sealed.cursor();
            for (; c.keyValid(); c.stepKey()) {
                String key = new String(((BytesColumn) c.keyColumn()).getBytes(c.keyIndex()), StandardCharsets.UTF_8);
                for (; c.valValid(); c.stepVal()) c.forEachTime((times, offset, diff) -> read.merge(key, diff, Long::sum));
            }
            assertThat(read).isEqualTo(model);
        } finally {
            Paging.disable(spill);
        }
    }

    /** A part written by an interrupted thread (a worker at shutdown) is written all the same, and the thread stays interrupted. */
    @Test
    void anInterruptedThreadStillSpills(@TempDir Path spill) {
        Paging.enable(spill, 64 << 10, 4 << 10);
        try {
            Batcher batcher = new Batcher(new BytesColumn(), new UnitColumn(), 1);
            Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
            for (int i = 0; i < 20_000; i++) {
                ((BytesColumn) u.keys()).add(("key-" + i).getBytes(StandardCharsets.UTF_8));
                ((UnitColumn) u.vals()).add();
                u.push(0, 1);
            }
            Thread.currentThread().interrupt();
            Batch sealed;
            try {
                batcher.push(u);
                sealed = batcher.seal(Antichain.of(1));
                assertThat(Thread.currentThread().isInterrupted()).as("the interrupt kept").isTrue();
            } finally {
                Thread.interrupted();
            }
            assertThat(sealed.isParted()).isTrue();
            assertThat(sealed.updateCount()).isEqualTo(20_000);
        } finally {
            Paging.disable(spill);
        }
    }
}
