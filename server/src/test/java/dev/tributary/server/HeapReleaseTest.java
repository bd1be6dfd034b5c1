package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * What a dropped table held is freed: nothing outside its dataflow keeps its batches. Before, the
 * coordinator's scratch array of published index shards (read by a primary key check) kept the
 * last shards it read, and with them every batch of the table, after the DROP.
 */
class HeapReleaseTest {
    private static long liveMegabytes() {
        for (int i = 0; i < 3; i++) System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
    }

    @Test
    void aDroppedTablesRowsAreFreed() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE warm (id int PRIMARY KEY)");
            db.execute("INSERT INTO warm VALUES (1)");
            db.execute("DROP TABLE warm");
            long before = liveMegabytes();
            db.execute("CREATE TABLE big (id int PRIMARY KEY, pad text)");
            db.execute("INSERT INTO big SELECT i, repeat('x', 300) || i FROM generate_series(1, 200000) AS s(i)");
            db.execute("INSERT INTO big VALUES (0, 'checked against the published shards')");
            long loaded = liveMegabytes();
            assertThat(loaded - before).as("the table holds its rows").isGreaterThan(50);
            db.execute("DROP TABLE big");
            assertThat(liveMegabytes() - before).as("after the DROP, MB more than before the table").isLessThan(10);
        }
    }
}
