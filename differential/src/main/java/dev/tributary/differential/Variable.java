package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Feedback;
import dev.tributary.timely.Scope;

/**
 * A collection defined in terms of itself inside an iterative scope: round 0 holds the source,
 * and round {@code i + 1} holds what {@link #set} was given at round {@code i}. Several
 * variables of one scope make mutually recursive definitions.
 *
 * <p>Model: the loop carries only differences. Into the loop goes {@code result - source},
 * consolidated and moved one round on, so the variable accumulates to {@code result} of the
 * previous round; once a round changes nothing, nothing more goes around and the scope's
 * frontier can pass the outer time.
 */
public final class Variable<D> {
    private final Collection<D> source;
    private final Feedback<Updates> feedback;
    private final Collection<D> collection;

    private Variable(Collection<D> source) {
        Scope scope = source.scope();
        if (scope.parent() == null) {
            throw new IllegalArgumentException("a variable needs an iterative scope, and '" + scope.name() + "' is a dataflow's top scope; use Scope.iterative");
        }
        this.source = source;
        this.feedback = scope.feedback("variable", source.stream().type(), 1);
        this.collection = new Collection<>(feedback.stream(), source.type()).concat(source);
    }

    /** A variable starting at {@code source}, a collection of an iterative scope (usually entered from outside). */
    public static <D> Variable<D> from(Collection<D> source) {
        return new Variable<>(source);
    }

    /** The variable's contents: {@code source} in round 0, then what {@link #set} defines. */
    public Collection<D> collection() {
        return collection;
    }

    /** Defines the next round's contents as {@code result} of this round. Once only. */
    public void set(Collection<D> result) {
        feedback.connect(result.concat(source.negate()).consolidate().stepRound().stream());
    }
}
