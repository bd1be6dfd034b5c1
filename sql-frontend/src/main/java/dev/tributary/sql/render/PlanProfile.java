package dev.tributary.sql.render;

import dev.tributary.sql.plan.Plan;
import dev.tributary.timely.DataflowGraph;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What each plan node of an analyzed query did (EXPLAIN ANALYZE): the rows its output operator
 * sent and the time its own operators spent, from the dataflow's {@link DataflowGraph} (the
 * workers' copies added up) and the operators the {@link Renderer} built for each node.
 *
 * <p>An operator is the node's own when that node is the innermost whose rendering built it (an
 * input's operators are built inside the node that reads it, so they are the input's). Rows are
 * updates: a row counted once per copy, a retraction as one more update.
 */
public final class PlanProfile {
    private PlanProfile() {}

    /** One node's figures: {@code rows} its output sent, {@code nanos} its own operators spent, over {@code operators} operators. */
    public record Measured(long rows, long nanos, int operators) {}

    /** Each rendered node's figures, by the node's identity (a node fused into the one above it has none). */
    public static Map<Plan, Measured> of(List<Renderer.RenderedNode> nodes, DataflowGraph graph) {
        int n = graph.operators().size();
        // innermost: the smallest range holding the operator (ranges nest, as rendering recurses)
        int[] owner = new int[n];
        java.util.Arrays.fill(owner, -1);
        for (int k = 0; k < nodes.size(); k++) {
            Renderer.RenderedNode node = nodes.get(k);
            for (int op = node.firstOperator(); op < Math.min(node.endOperator(), n); op++) {
                if (owner[op] < 0 || width(nodes.get(owner[op])) > width(node)) owner[op] = k;
            }
        }
        long[] nanos = new long[nodes.size()];
        int[] count = new int[nodes.size()];
        for (int op = 0; op < n; op++) {
            if (owner[op] < 0) continue;
            nanos[owner[op]] += graph.operators().get(op).elapsedNanos();
            count[owner[op]]++;
        }
        Map<Plan, Measured> out = new IdentityHashMap<>();
        for (int k = 0; k < nodes.size(); k++) {
            Renderer.RenderedNode node = nodes.get(k);
            long rows = node.output() >= 0 && node.output() < n ? graph.operators().get(node.output()).recordsOut() : 0;
            out.putIfAbsent(node.plan(), new Measured(rows, nanos[k], count[k]));
        }
        return out;
    }

    private static int width(Renderer.RenderedNode node) {
        return node.endOperator() - node.firstOperator();
    }
}
