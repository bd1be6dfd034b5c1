package dev.tributary.arrangements;

/**
 * A trace cursor that stays valid after its trace changes, until {@link #release()}d.
 *
 * <p>An ordinary trace cursor is good only until the trace's next insertion or merge, because a
 * merge may give the arrays of the batches it replaced to the next batches. A held cursor pins
 * the batches it reads instead (see {@link TraceHandle#heldCursorThrough}): they are immutable, so
 * it goes on reading exactly what the trace held when it was aimed, across any number of the
 * reader's activations. This is how an operator spreads one large piece of work over several
 * activations. Releasing gives the batches back, after which the cursor must not be read.
 */
public interface HeldCursor extends Cursor {
    /** Unpins the batches: the cursor must not be read again until it is re-aimed. Releasing twice does nothing. */
    void release();
}
