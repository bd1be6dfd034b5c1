package dev.tributary.timely;

/**
 * What an operator does when it is scheduled: read its inputs, look at their frontiers, send,
 * and manage its capabilities.
 *
 * <p>An operator is scheduled when a message arrives at one of its inputs, when an input frontier
 * changes, when it asked to be (see {@link OperatorBuilder#activator()}), and once after the
 * dataflow is built. It must return promptly: a worker runs one operator at a time.
 */
@FunctionalInterface
public interface OperatorLogic {
    void schedule();
}
