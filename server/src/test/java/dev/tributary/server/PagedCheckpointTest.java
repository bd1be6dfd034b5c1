package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.Paging;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void pagedBytesAreReportedBesideTheHeapBytes(@TempDir Path dir) {
        try (Tributary db = Tributary.open(dir, Clock.manual(1_000), 2)) {
            db.execute("CREATE TABLE t (id int PRIMARY KEY, note text)");
            db.execute("CREATE MATERIALIZED VIEW by_note AS SELECT note, count(*) AS n FROM t GROUP BY note");
            for (int i = 0; i < 8; i++) db.execute("INSERT INTO t SELECT g, 'note ' || (g % 97) FROM generate_series(" + (i * 500) + ", " + (i * 500 + 499) + ") g");
            assertThat(SqlRows.rows(db, "SELECT sum(n) FROM by_note")).containsExactly("4000");
            ArrangementSize table = db.arrangementSize("t");
            assertThat(table.pagedBytes()).as("%s", table).isPositive();
            assertThat(table.parts().stream().mapToLong(ArrangementSize.Part::pagedBytes).sum()).isEqualTo(table.pagedBytes());
            assertThat(SqlRows.rows(db, "SELECT sum(paged_bytes) > 0 FROM tributary_internal.arrangement_sizes WHERE name = 't'")).containsExactly("t");
        }
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
