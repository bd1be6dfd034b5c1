package dev.tributary.propertytests.differential;

import dev.tributary.differential.Collection;
import dev.tributary.propertytests.differential.Operators.Binary;
import dev.tributary.propertytests.differential.Operators.Unary;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Operators inside an iterative scope, where times are pairs {@code (outer, round)} ordered by the
 * product order. Each operator reads the variable of a linear {@link ShiftLoop}, whose contents
 * differ from round to round, so the operator's input changes at times such as {@code (1, 3)} and
 * {@code (2, 0)} that are incomparable; its output then leaves the scope, which adds up all the
 * rounds. The oracle: at every outer time, the left output is the operator applied to the loop's
 * limit there, since the variable settles at the limit and the output at the last round is
 * the operator of it.
 */
class NestedScopeTest {
    @Provide
    Arbitrary<Script> oneInput() {
        return Generators.scripts(1, 6, 24);
    }

    @Provide
    Arbitrary<Script> twoInputs() {
        return Generators.scripts(2, 6, 24);
    }

    @SuppressWarnings("unchecked")
    private static Harness.Output<Object> leave(Harness.Output<?> inner) {
        return Harness.output(((Collection<Object>) inner.collection()).leave());
    }

    /** {@code op(x).leave()} for the loop variable {@code x} over input 0. */
    @Property(seed = "201")
    void unaryOperatorOfALoopVariable(@ForAll Unary op, @ForAll("oneInput") Script script) {
        Harness.check(script, op + " of the linear loop's variable over in0, left",
                inputs -> leave(op.render(ShiftLoop.linear(inputs.get(0)))),
                in -> op.model(ShiftLoop.linearLimit(in.get(0))));
    }

    /** {@code op(x, in1 entered).leave()}: one side changes every round, the other only at round 0. */
    @Property(seed = "202")
    void binaryOperatorOfALoopVariableAndAnEnteredCollection(@ForAll Binary op, @ForAll("twoInputs") Script script) {
        Harness.check(script, op + " with a = the linear loop's variable over in0, b = in1 entered, left",
                inputs -> {
                    Collection<Long> x = ShiftLoop.linear(inputs.get(0));
                    return leave(op.render(x, inputs.get(1).enter(x.scope())));
                },
                in -> op.model(ShiftLoop.linearLimit(in.get(0)), in.get(1)));
    }

    /** {@code op(in1 entered, x).leave()}: the same with the sides swapped, so the loop's updates come second. */
    @Property(seed = "203")
    void binaryOperatorOfAnEnteredCollectionAndALoopVariable(@ForAll Binary op, @ForAll("twoInputs") Script script) {
        Harness.check(script, op + " with a = in1 entered, b = the linear loop's variable over in0, left",
                inputs -> {
                    Collection<Long> x = ShiftLoop.linear(inputs.get(0));
                    return leave(op.render(inputs.get(1).enter(x.scope()), x));
                },
                in -> op.model(in.get(1), ShiftLoop.linearLimit(in.get(0))));
    }

    /**
     * The distinct loop alone, {@code x(i + 1) = distinct(in0 + shift(x(i)))}, left: a reduction
     * whose input changes at incomparable product times and whose output goes around the loop.
     */
    @Property(seed = "204")
    void distinctInsideALoop(@ForAll("oneInput") Script script) {
        Harness.check(script, "x = in0 entered; x(i + 1) = distinct(in0 + shift(x(i))); x left",
                inputs -> Harness.output(ShiftLoop.distinct(inputs.get(0)).leave()),
                in -> ShiftLoop.distinctLimit(in.get(0)));
    }
}
