package dev.tributary.bench;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/** The parameters of the degree-counting experiment, shared by its load and update benchmarks (JMH reads inherited {@code @Param}s). */
@State(Scope.Benchmark)
public abstract class DegreeParams {
    @Param({"10000000"})
    public int nodes;

    @Param({"50000000"})
    public long edges;

    @Param({"1", "2"})
    public int workers;

    /** {@code count}, {@code arranged} or {@code distribution}: see {@link DegreeProgram}. */
    @Param({"count"})
    public String shape;
}
