package dev.tributary.server;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * A measurement, not a check (it runs only with {@code -Dprobe.views=N}): the process CPU time a
 * second of a server with N materialized views costs with the introspection sampler on and off,
 * with nothing reading the engine relations ({@code -Dprobe.reader=none}) or a materialized view
 * reading one ({@code -Dprobe.reader=operators}). Each measured second samples twice (by hand,
 * timed alone too, and ADVANCE CLOCK's own) and waits for the last view to catch up; passes
 * alternate on and off, 15 seconds each (docs/BENCHMARKS.md, "Maintained introspection").
 */
@EnabledIfSystemProperty(named = "probe.views", matches = "\\d+")
class IntrospectionSampleCostTest {
    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    @Test
    void probe() {
        int views = Integer.getInteger("probe.views");
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (k int PRIMARY KEY, x int)");
            db.execute("INSERT INTO t SELECT i, i % 10 FROM generate_series(1, 1000) AS s(i)");
            for (int i = 0; i < views; i++) db.execute("CREATE MATERIALIZED VIEW v" + i + " AS SELECT x, count(*) FROM t GROUP BY x");
            Coordinator c = db.coordinator();
            String reader = System.getProperty("probe.reader", "none");
            if (!reader.equals("none")) db.execute("CREATE MATERIALIZED VIEW watch AS SELECT count(*) FROM tributary_internal." + reader);
            for (int pass = 0; pass < 4; pass++) {
                boolean on = pass % 2 == 0;
                c.introspectionInterval(on ? 1000 : 0);
                for (int i = 0; i < 5; i++) db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
                db.query("SELECT count(*) FROM v" + (views - 1));
                long[] cpu = new long[15];
                long[] sample = new long[15];
                for (int r = 0; r < 15; r++) {
                    long p0 = OS.getProcessCpuTime();
                    if (on) c.sampleIntrospection();
                    long p1 = OS.getProcessCpuTime();
                    db.execute("ADVANCE CLOCK BY INTERVAL '1 second'");
                    db.query("SELECT count(*) FROM v" + (views - 1));
                    long p2 = OS.getProcessCpuTime();
                    cpu[r] = p2 - p0;
                    sample[r] = p1 - p0;
                }
                java.util.Arrays.sort(cpu);
                java.util.Arrays.sort(sample);
                System.out.printf("PROBE views=%d reader=%s sampling=%s: process CPU per second (an extra sample by hand and ADVANCE, which samples too): median %.1f ms (p25 %.1f, p75 %.1f); the sample by hand alone median %.1f ms%n",
                        views, reader, on, cpu[7] / 1e6, cpu[3] / 1e6, cpu[11] / 1e6, sample[7] / 1e6);
            }
        }
    }
}
