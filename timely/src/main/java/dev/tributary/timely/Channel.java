package dev.tributary.timely;

/**
 * One edge from an output to an input, on one worker: where a sent container goes.
 *
 * <p>{@link #push} takes ownership of the container and counts every message it creates at the
 * target input, before anyone can consume it. A message for this worker goes straight into the
 * target's queue; only one for another worker becomes a {@link Message} object, which the
 * receiving thread unpacks and drops.
 */
abstract sealed class Channel<C extends Container> permits Channel.Pipeline, Channel.Exchange {
    final Dataflow dataflow;
    final int targetOperator;
    final int targetPort;
    final int targetLocation;

    Channel(Dataflow dataflow, int targetOperator, int targetPort, int targetLocation) {
        this.dataflow = dataflow;
        this.targetOperator = targetOperator;
        this.targetPort = targetPort;
        this.targetLocation = targetLocation;
    }

    abstract void push(long[] time, C data, ContainerPool<C> home);

    /** Records stay on this worker. */
    static final class Pipeline<C extends Container> extends Channel<C> {
        private final InputPort<C> target;

        Pipeline(Dataflow dataflow, InputPort<C> target) {
            super(dataflow, target.operator.id, target.port, target.location);
            this.target = target;
        }

        @Override
        void push(long[] time, C data, ContainerPool<C> home) {
            dataflow.changes.update(targetLocation, time, 1);
            target.deliver(time, data, home);
        }
    }

    /** Each record goes to the worker owning its key. */
    static final class Exchange<C extends Container> extends Channel<C> {
        private final InputPort<C> localTarget;
        private final ContainerType<C> partitioner;
        private final ContainerPool<C> pool;
        private final Container[] parts;
        private final Router router;

        Exchange(Dataflow dataflow, InputPort<C> localTarget, ContainerType<C> partitioner, ContainerPool<C> pool) {
            super(dataflow, localTarget.operator.id, localTarget.port, localTarget.location);
            this.localTarget = localTarget;
            this.partitioner = partitioner;
            this.pool = pool;
            this.router = dataflow.worker.router();
            this.parts = new Container[router.workers()];
        }

        void closePool() {
            pool.close();
        }

        @Override
        void push(long[] time, C data, ContainerPool<C> home) {
            int peers = parts.length;
            int me = dataflow.worker.index();
            if (peers == 1) {
                dataflow.changes.update(targetLocation, time, 1);
                localTarget.deliver(time, data, home);
                return;
            }
            // room for an even share and some: a skewed part grows, an even one is never copied
            int share = data.size() / peers + data.size() / 8 + 16;
            for (int w = 0; w < peers; w++) parts[w] = pool.acquire(share);
            partitioner.partition(data, parts, router);
            if (home != null) home.release(data, me);
            for (int w = 0; w < peers; w++) {
                @SuppressWarnings("unchecked")
                C part = (C) parts[w];
                parts[w] = null;
                if (part.size() == 0) {
                    pool.release(part, me);
                    continue;
                }
                dataflow.changes.update(targetLocation, time, 1);
                if (w == me) localTarget.deliver(time, part, pool);
                else dataflow.worker.fabric.send(w, new Message(dataflow.index, targetOperator, targetPort, time, part, pool));
            }
        }
    }
}
