package dev.tributary.timely;

/**
 * A container of records at one time, addressed to one operator input on another worker: what
 * travels through the {@link Fabric}. Its count at the target input is part of progress tracking
 * from when it is sent until its consumer returns. The receiver copies its fields into the
 * input's queue and keeps no reference to it; messages between operators of one worker never
 * become objects.
 */
final class Message {
    final int dataflow;
    final int operator;
    final int port;
    final long[] time;
    final Container data;
    /** Where the container goes once consumed; {@code null} for containers nobody pools. */
    final ContainerPool<?> home;

    Message(int dataflow, int operator, int port, long[] time, Container data, ContainerPool<?> home) {
        this.dataflow = dataflow;
        this.operator = operator;
        this.port = port;
        this.time = time;
        this.data = data;
        this.home = home;
    }
}
