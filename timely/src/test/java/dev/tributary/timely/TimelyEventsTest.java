package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The introspection hook sees scheduling, sends (with their record counts) and frontier changes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimelyEventsTest {
    record Scheduled(int worker, int dataflow, int operator, String name) {}

    record Sent(int worker, int dataflow, int operator, int port, long time, int records) {}

    record FrontierChanged(int worker, int dataflow, int operator, int port, Antichain frontier) {}

    static final class Recorder implements TimelyEvents {
        final ConcurrentLinkedQueue<Scheduled> scheduled = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Sent> sent = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<FrontierChanged> frontiers = new ConcurrentLinkedQueue<>();

        @Override
        public void operatorScheduled(int worker, int dataflow, int operator, String name) {
            scheduled.add(new Scheduled(worker, dataflow, operator, name));
        }

        @Override
        public void messagesSent(int worker, int dataflow, int operator, int port, long[] time, int records) {
            sent.add(new Sent(worker, dataflow, operator, port, time[0], records));
        }

        @Override
        public void frontierChanged(int worker, int dataflow, int operator, int port, Antichain frontier) {
            frontiers.add(new FrontierChanged(worker, dataflow, operator, port, frontier));
        }
    }

    private static final int INPUT = 0, DOUBLE = 1, SINK = 2;
    private static final int PER_TIME = 1_500; // more than one container per worker and time

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void eventsReportSchedulingSendsAndFrontiers(int workers) {
        Recorder events = new Recorder();
        int[] ids = new int[3];
        Timely.run(Config.workers(workers).withEvents(events), worker -> {
            worker.dataflow("unused", scope -> null); // so the dataflow under test has index 1
            InputHandle<LongContainer> in = worker.dataflow("observed", scope -> {
                InputHandle<LongContainer> input = scope.input("numbers", LongContainer.TYPE);
                OperatorBuilder b = scope.operator("double");
                InputPort<LongContainer> port = b.input(input.stream(), Pact.exchange());
                OutputPort<LongContainer> out = b.output(LongContainer.TYPE);
                b.build(() -> port.forEach((cap, data) -> {
                    LongContainer c = out.newContainer();
                    for (int i = 0; i < data.size(); i++) {
                        c.add(data.get(i));
                        c.add(data.get(i));
                    }
                    out.send(cap, c);
                }));
                out.stream().sink("sink", Pact.pipeline(), (cap, data) -> {});
                ids[1] = b.id();
                return input;
            });
            for (long t = 0; t < 2; t++) {
                for (int i = 0; i < PER_TIME; i++) in.staged().add(t * PER_TIME + i);
                in.advanceTo(t + 1);
            }
        });
        assertThat(ids[1]).isEqualTo(DOUBLE);

        // scheduled: every operator with logic, named by its plain name, on every worker
        for (int w = 0; w < workers; w++) {
            int worker = w;
            List<Scheduled> mine = events.scheduled.stream().filter(s -> s.worker() == worker).toList();
            assertThat(mine).allSatisfy(s -> assertThat(s.dataflow()).isEqualTo(1));
            assertThat(mine).extracting(Scheduled::name).contains("double", "sink");
            assertThat(mine).filteredOn(s -> s.name().equals("double")).allSatisfy(s -> assertThat(s.operator()).isEqualTo(DOUBLE));
            assertThat(mine).filteredOn(s -> s.name().equals("sink")).allSatisfy(s -> assertThat(s.operator()).isEqualTo(SINK));
        }

        // sent: per operator and time, the record counts add up to what was sent
        Map<String, Long> records = new TreeMap<>();
        for (Sent s : events.sent) {
            assertThat(s.dataflow()).isEqualTo(1);
            assertThat(s.port()).isZero();
            assertThat(s.records()).isPositive();
            records.merge(s.operator() + "@" + s.time(), (long) s.records(), Long::sum);
        }
        assertThat(records).isEqualTo(Map.of(
                INPUT + "@0", (long) PER_TIME * workers, INPUT + "@1", (long) PER_TIME * workers,
                DOUBLE + "@0", 2L * PER_TIME * workers, DOUBLE + "@1", 2L * PER_TIME * workers));
        assertThat(events.sent).filteredOn(s -> s.operator() == INPUT)
                .as("the input sends containers of at most InputHandle.BATCH records")
                .allSatisfy(s -> assertThat(s.records()).isLessThanOrEqualTo(InputHandle.BATCH));

        // frontiers: each worker sees the sink's input move 0 -> 1 -> 2 -> done, in that order
        for (int w = 0; w < workers; w++) {
            int worker = w;
            List<Antichain> sinkFrontiers = events.frontiers.stream()
                    .filter(f -> f.worker() == worker && f.operator() == SINK && f.port() == 0)
                    .map(FrontierChanged::frontier).toList();
            assertThat(sinkFrontiers).as("worker %d", w).endsWith(Antichain.empty(1));
            for (int i = 1; i < sinkFrontiers.size(); i++) {
                assertThat(sinkFrontiers.get(i - 1).dominates(sinkFrontiers.get(i)))
                        .as("worker %d: frontiers only move forward: %s", w, sinkFrontiers).isTrue();
            }
            assertThat(sinkFrontiers).as("no repeated report of an unchanged frontier").doesNotHaveDuplicates();
            assertThat(events.frontiers).filteredOn(f -> f.worker() == worker)
                    .allSatisfy(f -> assertThat(f.dataflow()).isEqualTo(1))
                    .extracting(FrontierChanged::operator).contains(DOUBLE, SINK);
        }
    }
}
