package dev.tributary.timely;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Operator counts are exact: what each operator of a small dataflow took in and sent, summed over the workers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataflowGraphTest {
    private static final int VALUES = 5_000;

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void countsRecordsInAndOutPerOperator(int workers) {
        Map<Integer, DataflowGraph> graphs = new ConcurrentHashMap<>();
        Timely.run(Config.workers(workers), worker -> {
            InputHandle<LongContainer>[] in = new InputHandle[1];
            Probe probe = worker.dataflow("evens", scope -> {
                in[0] = scope.input("numbers", LongContainer.TYPE);
                Stream<LongContainer> evens = in[0].stream().unary("keepEven", Pact.pipeline(), LongContainer.TYPE, (input, output) ->
                        input.forEach((cap, data) -> {
                            LongContainer out = output.newContainer();
                            for (int i = 0; i < data.size(); i++) if (data.get(i) % 2 == 0) out.add(data.get(i));
                            output.send(cap, out);
                        }));
                evens.sink("count", Pact.exchange(), (cap, data) -> {});
                return evens.probe();
            });
            for (long v = 0; v < VALUES; v++) if (v % worker.peers() == worker.index()) in[0].staged().add(v);
            in[0].close();
            worker.stepWhile(() -> !probe.isDone());
            graphs.put(worker.index(), worker.graph(0));
        });
        List<DataflowGraph> copies = new ArrayList<>();
        for (int w = 0; w < workers; w++) copies.add(graphs.get(w));
        DataflowGraph g = DataflowGraph.sum(copies);

        assertThat(g.name()).isEqualTo("evens");
        DataflowGraph.OperatorStats input = operator(g, "numbers");
        DataflowGraph.OperatorStats keep = operator(g, "keepEven");
        DataflowGraph.OperatorStats count = operator(g, "count");
        assertThat(input.recordsOut()).isEqualTo(VALUES);
        assertThat(keep.recordsIn()).isEqualTo(VALUES);
        assertThat(keep.recordsOut()).isEqualTo(VALUES / 2);
        assertThat(count.recordsIn()).isEqualTo(VALUES / 2);
        assertThat(count.recordsOut()).isZero();
        assertThat(keep.activations()).isPositive();
        assertThat(keep.messagesIn()).isPositive().isLessThanOrEqualTo(keep.recordsIn());
        assertThat(keep.scope()).isEqualTo("evens");
        assertThat(keep.inputs()).isEqualTo(1);
        assertThat(keep.outputs()).isEqualTo(1);
        assertThat(g.channels()).contains(
                new DataflowGraph.ChannelEdge(input.id(), 0, keep.id(), 0, false),
                new DataflowGraph.ChannelEdge(keep.id(), 0, count.id(), 0, true));
    }

    private static DataflowGraph.OperatorStats operator(DataflowGraph g, String name) {
        return g.operators().stream().filter(o -> o.name().equals(name)).findFirst().orElseThrow(() -> new AssertionError("no operator " + name + " in " + g));
    }
}
