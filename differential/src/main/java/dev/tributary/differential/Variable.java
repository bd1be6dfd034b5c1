package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Feedback;
import dev.tributary.timely.Scope;

/**
 * A collection defined in terms of itself inside an iterative scope: round 0 holds the source
 * (or nothing), and round {@code i + 1} holds what {@link #set} was given at round {@code i}.
 * Several variables of one scope make mutually recursive definitions.
 *
 * <p>Model: the loop carries only differences. Into the loop goes {@code result - source},
 * consolidated and moved one round on, so the variable accumulates to {@code result} of the
 * previous round; once a round changes nothing, nothing more goes around and the scope's
 * frontier can pass the outer time.
 *
 * <p>A variable with a round limit {@code L} feeds back only what rounds below {@code L} give:
 * from round {@code L} on it holds round {@code L}'s contents, and {@link #overflow()} holds the
 * differences round {@code L}'s result still made (nothing once the definition has converged
 * within the limit), so a definition that never converges stops instead of running for ever.
 */
public final class Variable<D> {
    private final Collection<D> source;
    private final Feedback<Updates> feedback;
    private final Collection<D> collection;
    private final long limit;
    private Collection<D> overflow;
    private boolean set;

    private Variable(Scope scope, Collection<D> source, DataType<D> type, long limit) {
        if (scope.parent() == null) {
            throw new IllegalArgumentException("a variable needs an iterative scope, and '" + scope.name() + "' is a dataflow's top scope; use Scope.iterative");
        }
        if (limit < 1) throw new IllegalArgumentException("a variable's round limit is at least 1, not " + limit);
        // a loop's state is its rounds in flight as well as its traces: a checkpoint cannot restore it
        if (dev.tributary.arrangements.Seed.of(scope).seeded()) {
            throw new dev.tributary.arrangements.Seed.Mismatch("a dataflow with a loop (scope '" + scope.name() + "') is built from scratch, not from a checkpoint");
        }
        this.source = source;
        this.limit = limit;
        this.feedback = scope.feedback("variable", Collection.containerType(type, scope.arity()), 1);
        Collection<D> fed = new Collection<>(feedback.stream(), type);
        this.collection = source == null ? fed : fed.concat(source);
    }

    /** A variable starting at {@code source}, a collection of an iterative scope (usually entered from outside). */
    public static <D> Variable<D> from(Collection<D> source) {
        return new Variable<>(source.scope(), source, source.type(), Long.MAX_VALUE);
    }

    /** A variable starting at {@code source} that stops changing after round {@code limit}. */
    public static <D> Variable<D> from(Collection<D> source, long limit) {
        return new Variable<>(source.scope(), source, source.type(), limit);
    }

    /** A variable of the iterative {@code scope} that holds nothing in round 0 and stops changing after round {@code limit}. */
    public static <D> Variable<D> empty(Scope scope, DataType<D> type, long limit) {
        return new Variable<>(scope, null, type, limit);
    }

    /** The variable's contents: {@code source} in round 0, then what {@link #set} defines. */
    public Collection<D> collection() {
        return collection;
    }

    /** Defines the next round's contents as {@code result} of this round. Once only. */
    public void set(Collection<D> result) {
        if (set) throw new IllegalStateException("a variable is set once");
        set = true;
        Collection<D> delta = (source == null ? result : result.concat(source.negate())).consolidate();
        feedback.connect(delta.stepRound(limit).stream());
        if (limit != Long.MAX_VALUE) overflow = delta.inRound(limit);
    }

    /**
     * What the result of the limit's round still changed, at the times it did (its innermost
     * coordinate the limit): empty at every time by which the definition had converged. Only
     * after {@link #set}, and only for a variable made with a limit.
     */
    public Collection<D> overflow() {
        if (overflow == null) throw new IllegalStateException(set ? "a variable without a round limit has no overflow" : "a variable's overflow exists once it is set");
        return overflow;
    }
}
