package dev.tributary.propertytests.sql;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.statistics.Statistics;

/**
 * The SQL incrementality oracle: every view of the {@link Shapes catalogue}, created as a
 * materialized view on empty tables, stays equal to its recomputation from scratch and to
 * DuckDB's answer through a random {@link History history} of inserts, updates and deletes in
 * autocommit, committed and rolled-back transactions, and so does the same view created halfway
 * through; in half the tries every column has an index, so that joins are planned through them. One property per family of shapes, so each
 * family gets its share of the tries ({@code jqwik.tries.default}; ten times more with
 * {@code -Plong}).
 *
 * <p>A failure shrinks to a short history and prints the view, the transactions, the tables and
 * the three answers; paste the transactions into {@code bin/tributary sql} to reproduce.
 */
class IncrementalityOracleTest {
    static final int MAX_TXS = 8;

    @Provide
    Arbitrary<History> histories() {
        return History.histories(Schema.TABLES, MAX_TXS);
    }

    private static void run(Shape shape, History history, boolean indexed) {
        Statistics.collect(shape.name());
        Statistics.label("indexes").collect(indexed ? "every column indexed" : "no indexes");
        Oracle.check(shape, history, indexed);
    }

    /**
     * A uniformly chosen shape of {@code family}. It does not shrink: shrinking would move a failure
     * to an earlier shape of the family, which may fail for a different reason.
     */
    private static Arbitrary<Shape> shapes(String family) {
        List<Shape> shapes = Shapes.family(family);
        return Arbitraries.randomValue(r -> shapes.get(r.nextInt(shapes.size())));
    }

    @Provide
    Arbitrary<Shape> filters() {
        return shapes(Shapes.FILTER);
    }

    @Provide
    Arbitrary<Shape> joins() {
        return shapes(Shapes.JOIN);
    }

    @Provide
    Arbitrary<Shape> aggregates() {
        return shapes(Shapes.AGGREGATE);
    }

    @Provide
    Arbitrary<Shape> distinctTopK() {
        return shapes(Shapes.DISTINCT_TOPK);
    }

    @Provide
    Arbitrary<Shape> subqueries() {
        return shapes(Shapes.SUBQUERY);
    }

    @Provide
    Arbitrary<Shape> setOperations() {
        return shapes(Shapes.SET_OP);
    }

    @Property(seed = "501", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    void filtersAndProjections(@ForAll("filters") Shape shape, @ForAll("histories") History history, @ForAll boolean indexed) {
        run(shape, history, indexed);
    }

    @Property(seed = "502", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    void joins(@ForAll("joins") Shape shape, @ForAll("histories") History history, @ForAll boolean indexed) {
        run(shape, history, indexed);
    }

    @Property(seed = "503", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    void aggregates(@ForAll("aggregates") Shape shape, @ForAll("histories") History history, @ForAll boolean indexed) {
        run(shape, history, indexed);
    }

    @Property(seed = "504", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    void distinctAndTopK(@ForAll("distinctTopK") Shape shape, @ForAll("histories") History history, @ForAll boolean indexed) {
        run(shape, history, indexed);
    }

    @Property(seed = "505", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    void correlatedSubqueries(@ForAll("subqueries") Shape shape, @ForAll("histories") History history, @ForAll boolean indexed) {
        run(shape, history, indexed);
    }

    @Property(seed = "506", shrinking = ShrinkingMode.FULL, edgeCases = EdgeCasesMode.NONE)
    void setOperations(@ForAll("setOperations") Shape shape, @ForAll("histories") History history, @ForAll boolean indexed) {
        run(shape, history, indexed);
    }
}
