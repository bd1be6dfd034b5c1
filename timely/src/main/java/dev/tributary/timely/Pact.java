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

    /** Every record to worker 0: for an operator that must see the whole stream in one place (a sink, a subscriber). */
    static <C extends Container> Pact<C> gather(ContainerType<C> type) {
        return whole(type, false);
    }

    /** Every record to every worker: for what all workers must know (each worker's largest event time, say). */
    static <C extends Container> Pact<C> broadcast(ContainerType<C> type) {
        return whole(type, true);
    }

    /** Whole containers of {@code type} to worker 0, or to {@code everyWorker}. */
    private static <C extends Container> Pact<C> whole(ContainerType<C> type, boolean everyWorker) {
        return new Exchange<>(new ContainerType<>() {
            @Override
            public C create() {
                return type.create();
            }

            @Override
            public C create(int records) {
                return type.create(records);
            }

            @Override
            public void appendAll(C from, C into) {
                type.appendAll(from, into);
            }

            @Override
            @SuppressWarnings("unchecked")
            public void partition(C input, Container[] outputs, Router router) {
                int to = everyWorker ? outputs.length : 1;
                for (int i = 0; i < to; i++) type.appendAll(input, (C) outputs[i]);
            }
        });
    }
}
