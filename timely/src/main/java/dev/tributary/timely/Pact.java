package dev.tributary.timely;

/**
 * How records travel along an edge to an operator's input: a parallelization contract.
 *
 * <p>{@link Pipeline}: records stay on the worker that produced them. {@link Exchange}: each record
 * goes to the worker that owns its key (as the container type's {@link ContainerType#partition}
 * says), so an operator sees all records of a key on one worker.
 */
public sealed interface Pact<C extends Container> permits Pact.Pipeline, Pact.Exchange {

    record Pipeline<C extends Container>() implements Pact<C> {}

    /** Routes by {@code partitioner}; {@code null} means the stream's own container type. */
    record Exchange<C extends Container>(ContainerType<C> partitioner) implements Pact<C> {}

    static <C extends Container> Pact<C> pipeline() {
        return new Pipeline<>();
    }

    static <C extends Container> Pact<C> exchange() {
        return new Exchange<>(null);
    }

    static <C extends Container> Pact<C> exchange(ContainerType<C> partitioner) {
        return new Exchange<>(partitioner);
    }
}
