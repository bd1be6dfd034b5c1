package dev.tributary.arrangements;

/**
 * {@link BatcherPropertyTest}'s properties with paging at tiny sizes: every push spills the buffer
 * into a sorted run in parts, and every seal merges the runs' ready updates with the buffer's.
 */
@PagedTraces.Tiny
class PagedBatcherPropertyTest extends BatcherPropertyTest {
    @Override
    boolean spilling() {
        return true;
    }
}
