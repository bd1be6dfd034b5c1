package dev.tributary.propertytests.differential;

import dev.tributary.propertytests.differential.Harness.Outcome;
import dev.tributary.propertytests.differential.Harness.Output;
import dev.tributary.propertytests.differential.Operators.Binary;
import dev.tributary.propertytests.differential.Operators.Unary;
import java.util.HashMap;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Each operator alone, at the top level, on 1 to 3 workers: the output accumulated at every time
 * is the operator applied to the input accumulated there (while running, after the run, and in
 * the trace where the output is an arrangement; see {@link Harness}).
 */
class OperatorTest {
    @Provide
    Arbitrary<Script> oneInput() {
        return Generators.scripts(1);
    }

    @Provide
    Arbitrary<Script> twoInputs() {
        return Generators.scripts(2);
    }

    @SuppressWarnings("unchecked")
    static Outcome<Object> check(Script script, Unary op) {
        return Harness.check(script, op.toString(), inputs -> (Output<Object>) op.render(inputs.get(0)), in -> op.model(in.get(0)));
    }

    @SuppressWarnings("unchecked")
    static Outcome<Object> check(Script script, Binary op) {
        return Harness.check(script, op.toString(), inputs -> (Output<Object>) op.render(inputs.get(0), inputs.get(1)),
                in -> op.model(in.get(0), in.get(1)));
    }

    @Property(seed = "101")
    void map(@ForAll("oneInput") Script script) {
        check(script, Unary.MAP);
    }

    @Property(seed = "102")
    void filter(@ForAll("oneInput") Script script) {
        check(script, Unary.FILTER);
    }

    @Property(seed = "103")
    void flatMap(@ForAll("oneInput") Script script) {
        check(script, Unary.FLAT_MAP);
    }

    @Property(seed = "127")
    void explodeWithMultiplicitiesThatCarryValues(@ForAll("oneInput") Script script) {
        check(script, Unary.EXPLODE);
    }

    @Property(seed = "104")
    void negate(@ForAll("oneInput") Script script) {
        check(script, Unary.NEGATE);
    }

    @Property(seed = "105")
    void concatOfOneCollectionWithItself(@ForAll("oneInput") Script script) {
        check(script, Unary.CONCAT_SELF);
    }

    @Property(seed = "106")
    void concat(@ForAll("twoInputs") Script script) {
        check(script, Binary.CONCAT);
    }

    /** Besides the oracle: no two updates with the same (data, time), and no zero diff. */
    @Property(seed = "107")
    void consolidate(@ForAll("oneInput") Script script) {
        Outcome<Object> out = check(script, Unary.CONSOLIDATE);
        Map<Upd<Object>, Integer> seen = new HashMap<>();
        for (Upd<Object> u : out.updates()) {
            if (u.diff() == 0) throw new AssertionError("consolidate output a zero diff: " + u + "\n  input: " + script);
            Upd<Object> at = new Upd<>(u.data(), u.time(), 0);
            if (seen.merge(at, 1, Integer::sum) > 1) {
                throw new AssertionError("consolidate output two updates of " + u.data() + " at time " + u.time() + ": " + Harness.sorted(out.updates())
                        + "\n  input: " + script);
            }
        }
    }

    @Property(seed = "108")
    void enterThenLeaveChangesNothing(@ForAll("oneInput") Script script) {
        check(script, Unary.ENTER_LEAVE);
    }

    @Property(seed = "109")
    void arrangeByKeyAsCollection(@ForAll("oneInput") Script script) {
        check(script, Unary.ARRANGE_BY_KEY);
    }

    @Property(seed = "110")
    void arrangeBySelfFlatten(@ForAll("oneInput") Script script) {
        check(script, Unary.ARRANGE_BY_SELF);
    }

    @Property(seed = "111")
    void join(@ForAll("twoInputs") Script script) {
        check(script, Binary.JOIN);
    }

    @Property(seed = "112")
    void joinOfAnArrangementWithItself(@ForAll("oneInput") Script script) {
        check(script, Unary.SELF_JOIN);
    }

    @Property(seed = "123")
    void joinOfLongs(@ForAll("twoInputs") Script script) {
        check(script, Binary.JOIN_LONGS);
    }

    @Property(seed = "124")
    void reduceThatReadsKeysAndStrings(@ForAll("oneInput") Script script) {
        check(script, Unary.REDUCE_KEYED_STRINGS);
    }

    @Property(seed = "113")
    void semijoin(@ForAll("twoInputs") Script script) {
        check(script, Binary.SEMIJOIN);
    }

    @Property(seed = "114")
    void antijoin(@ForAll("twoInputs") Script script) {
        check(script, Binary.ANTIJOIN);
    }

    @Property(seed = "115")
    void reduceWithACustomReducer(@ForAll("oneInput") Script script) {
        check(script, Unary.REDUCE);
    }

    @Property(seed = "116")
    void count(@ForAll("oneInput") Script script) {
        check(script, Unary.COUNT);
    }

    @Property(seed = "117")
    void countOfAnArrangement(@ForAll("oneInput") Script script) {
        check(script, Unary.COUNT_BY_KEY);
    }

    @Property(seed = "118")
    void distinct(@ForAll("oneInput") Script script) {
        check(script, Unary.DISTINCT);
    }

    @Property(seed = "119")
    void threshold(@ForAll("oneInput") Script script) {
        check(script, Unary.THRESHOLD);
    }

    @Property(seed = "120")
    void sum(@ForAll("oneInput") Script script) {
        check(script, Unary.SUM);
    }

    @Property(seed = "121")
    void min(@ForAll("oneInput") Script script) {
        check(script, Unary.MIN);
    }

    @Property(seed = "122")
    void max(@ForAll("oneInput") Script script) {
        check(script, Unary.MAX);
    }

    @Property(seed = "125")
    void topK(@ForAll("oneInput") Script script) {
        check(script, Unary.TOP_K);
    }

    @Property(seed = "126")
    void topKWithoutALimit(@ForAll("oneInput") Script script) {
        check(script, Unary.TOP_K_ALL_BUT_FIRST);
    }
}
