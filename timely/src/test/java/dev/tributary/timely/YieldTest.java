package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link OperatorBuilder#yieldActivator}: an operator that stops with work left and yields takes
 * turns with the worker's other dataflows. While they have work it runs once in
 * {@link Worker#YIELD_EVERY} steps (a commit that needs a dozen steps to reach an index is not
 * slowed by a runaway query's slice in each), and in every step when they have none (it is
 * never starved, and uses an otherwise idle worker fully).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class YieldTest {
    /**
     * The fair share is wall-clock time: a pause (a collection, a compilation, a busy machine)
     * charged to the other dataflow's step can put it over its share for a while, and the yielding
     * operator then runs in its place. So the scenario runs afresh, up to three times, until a run
     * without such a pause shows the rule; the count without other work is exact every time.
     */
    @Test
    void aYieldingOperatorRunsEveryFewStepsBesideOtherWorkAndEveryStepWithout() {
        int low = 40 / Worker.YIELD_EVERY - 1;
        int high = 40 / Worker.YIELD_EVERY + 1;
        int[] counted = run();
        for (int attempt = 1; attempt < 3 && (counted[0] < low || counted[0] > high); attempt++) counted = run();
        assertThat(counted[0]).as("runs in 40 steps beside other work").isBetween(low, high);
        assertThat(counted[1]).as("runs in 40 steps without other work").isEqualTo(40);
    }

    /** Runs in 40 steps beside another dataflow's work, and in 40 without. */
    private static int[] run() {
        int[] yieldingRuns = {0};
        int[] busySteps = {0};
        int[][] counted = new int[2][];
        Timely.run(Config.workers(1), worker -> {
            boolean[] stop = {false};
            Runnable[] busy = new Runnable[1];
            worker.dataflow("runaway", scope -> {
                OperatorBuilder b = scope.operator("endless");
                b.output(LongContainer.TYPE);
                Runnable again = b.yieldActivator();
                b.build(cap -> () -> {
                    if (stop[0]) {
                        if (cap.isValid()) cap.drop();
                        return;
                    }
                    yieldingRuns[0]++;
                    again.run();
                });
                return null;
            });
            worker.dataflow("interactive", scope -> {
                OperatorBuilder b = scope.operator("busy");
                b.output(LongContainer.TYPE);
                Runnable again = b.activator();
                busy[0] = again;
                b.build(cap -> () -> {
                    if (stop[0]) {
                        if (cap.isValid()) cap.drop();
                        return;
                    }
                    if (busySteps[0] > 0) {
                        busySteps[0]--;
                        again.run();
                    }
                });
                return null;
            });
            for (int i = 0; i < 3; i++) worker.step();

            // 40 steps in which the other dataflow has work
            int before = yieldingRuns[0];
            busySteps[0] = 40;
            busy[0].run();
            for (int i = 0; i < 40; i++) worker.step();
            int besideWork = yieldingRuns[0] - before;

            // 40 steps in which it has none (after the step in which the other ran last)
            worker.step();
            before = yieldingRuns[0];
            for (int i = 0; i < 40; i++) worker.step();
            int alone = yieldingRuns[0] - before;
            counted[0] = new int[] {besideWork, alone};
            stop[0] = true;
            busy[0].run();
        });
        return counted[0];
    }
}
