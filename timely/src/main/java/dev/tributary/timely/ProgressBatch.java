package dev.tributary.timely;

/**
 * Net pointstamp changes one worker made during one step of one dataflow, as sent to every other
 * worker. Each worker applies the batches of a given sender in the order they were sent.
 */
record ProgressBatch(int dataflow, int fromWorker, int[] locations, long[][] times, long[] deltas) {}
