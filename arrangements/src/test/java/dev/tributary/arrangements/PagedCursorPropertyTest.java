package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link CursorPropertyTest}'s properties over one batch held in tiny parts (a key or so each),
 * paged out and in: the trace's batches merged into it, where their columns can be encoded.
 */
@PagedTraces.Tiny
class PagedCursorPropertyTest extends CursorPropertyTest {
    @Override
    Cursor cursor(TraceDriver d) {
        List<Batch> batches = new ArrayList<>(d.trace().batches());
        batches.removeIf(Batch::isEmpty);
        // (long, long) batches merge on LongMerge's path, whose results are never parted, and whose merges recycle the inputs' arrays
        if (batches.size() < 2 || LongMerge.applies(batches) || !BatchCodec.encodable(batches.get(0).keyProto(), batches.get(0).valProto())) {
            return super.cursor(d);
        }
        List<Batch> adjacent = new ArrayList<>(d.trace().batches());
        // the times as they are (a since of the least time advances nothing), so every accumulation is the trace's
        Batch merged = new Merger(adjacent, Antichain.of(0)).finish();
        return merged.cursor();
    }
}
