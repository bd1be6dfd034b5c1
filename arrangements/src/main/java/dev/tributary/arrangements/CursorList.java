package dev.tributary.arrangements;

import java.util.List;

/**
 * Several cursors read as one: the current key is the least key of any cursor, the current
 * value the least value under it, and the updates of a value are those of every cursor
 * positioned there. A trace has a logarithmic number of batches, so minima are found by scanning.
 */
final class CursorList implements Cursor {
    private Cursor[] cursors;
    /** How many of {@link #cursors} are read. */
    private int n;
    private boolean[] atKey;
    private boolean[] atVal;
    /** The batch cursors the list owns and re-aims at each {@link #aim}; {@link #cursors} holds the non-empty ones' first {@link #n}. */
    private BatchCursor[] own;
    private int minKey = -1;
    private int minVal = -1;
    /**
     * Set by {@link #seekKeyExact}: only the cursors flagged in {@link #atKey} are known to be at
     * the current key; the others may lag behind it, so they are brought up before a step.
     */
    private boolean exact;

    /** A list that reads nothing until {@linkplain #aim aimed}, reusing its cursors from one aim to the next. */
    CursorList() {
        this.cursors = new Cursor[0];
        this.own = new BatchCursor[0];
        this.atKey = new boolean[0];
        this.atVal = new boolean[0];
        findKey();
    }

    /**
     * Reads the non-empty batches among the first {@code count} of {@code batches} from their
     * first key, with the cursors of the last aim re-aimed (so nothing is allocated once the list
     * has had as many batches): whoever still used this list before is reading something else now.
     */
    void aim(List<Batch> batches, int count) {
        if (own.length < count) {
            own = java.util.Arrays.copyOf(own, count);
            cursors = new Cursor[count];
            atKey = new boolean[count];
            atVal = new boolean[count];
        }
        int m = 0;
        for (int i = 0; i < count; i++) {
            Batch b = batches.get(i);
            if (b.isEmpty()) continue;
            if (own[m] == null) own[m] = new BatchCursor(b);
            else own[m].aim(b);
            cursors[m] = own[m];
            m++;
        }
        for (int i = m; i < cursors.length; i++) cursors[i] = null;
        n = m;
        minVal = -1;
        findKey();
    }

    private void findKey() {
        exact = false;
        minKey = -1;
        for (int c = 0; c < n; c++) {
            atKey[c] = false;
            if (!cursors[c].keyValid()) continue;
            if (minKey < 0) {
                minKey = c;
                continue;
            }
            int cmp = cursors[c].keyColumn().compare(cursors[c].keyIndex(), cursors[minKey].keyColumn(), cursors[minKey].keyIndex());
            if (cmp < 0) minKey = c;
        }
        if (minKey >= 0) {
            for (int c = 0; c < n; c++) {
                atKey[c] = cursors[c].keyValid()
                        && cursors[c].keyColumn().equal(cursors[c].keyIndex(), cursors[minKey].keyColumn(), cursors[minKey].keyIndex());
            }
        }
        findVal();
    }

    private void findVal() {
        minVal = -1;
        for (int c = 0; c < n; c++) {
            atVal[c] = false;
            if (!atKey[c] || !cursors[c].valValid()) continue;
            if (minVal < 0 || cursors[c].valColumn().compare(cursors[c].valIndex(), cursors[minVal].valColumn(), cursors[minVal].valIndex()) < 0) {
                minVal = c;
            }
        }
        if (minVal >= 0) {
            for (int c = 0; c < n; c++) {
                atVal[c] = atKey[c] && cursors[c].valValid()
                        && cursors[c].valColumn().equal(cursors[c].valIndex(), cursors[minVal].valColumn(), cursors[minVal].valIndex());
            }
        }
    }

    @Override
    public boolean keyValid() {
        return minKey >= 0;
    }

    @Override
    public boolean valValid() {
        return minVal >= 0;
    }

    @Override
    public Column keyColumn() {
        return cursors[minKey].keyColumn();
    }

    @Override
    public int keyIndex() {
        return cursors[minKey].keyIndex();
    }

    @Override
    public Column valColumn() {
        return cursors[minVal].valColumn();
    }

    @Override
    public int valIndex() {
        return cursors[minVal].valIndex();
    }

    @Override
    public void stepKey() {
        if (exact) {
            if (minKey < 0) throw new IllegalStateException("stepKey after a seekKeyExact that found nothing: seek or rewind first");
            Column column = keyColumn();
            int i = keyIndex();
            for (int c = 0; c < n; c++) {
                if (!atKey[c]) cursors[c].seekKey(column, i);
            }
            findKey();
        }
        for (int c = 0; c < n; c++) {
            if (atKey[c]) cursors[c].stepKey();
        }
        findKey();
    }

    @Override
    public void seekKey(Column column, int i) {
        for (int c = 0; c < n; c++) cursors[c].seekKey(column, i);
        findKey();
    }

    /** Only the cursors that hold the key are positioned; the rest answer false without moving when they can. */
    @Override
    public boolean seekKeyExact(Column column, int i) {
        minKey = -1;
        for (int c = 0; c < n; c++) {
            atKey[c] = cursors[c].seekKeyExact(column, i);
            if (atKey[c] && minKey < 0) minKey = c;
        }
        exact = true;
        findVal();
        return minKey >= 0;
    }

    @Override
    public void prepareSeeks(Column keys) {
        for (int c = 0; c < n; c++) cursors[c].prepareSeeks(keys);
    }

    @Override
    public void stepVal() {
        for (int c = 0; c < n; c++) {
            if (atVal[c]) cursors[c].stepVal();
        }
        findVal();
    }

    @Override
    public void seekVal(Column column, int i) {
        for (int c = 0; c < n; c++) {
            if (atKey[c]) cursors[c].seekVal(column, i);
        }
        findVal();
    }

    @Override
    public void rewindVals() {
        for (int c = 0; c < n; c++) {
            if (atKey[c]) cursors[c].rewindVals();
        }
        findVal();
    }

    @Override
    public void rewindKeys() {
        for (int c = 0; c < n; c++) cursors[c].rewindKeys();
        findKey();
    }

    @Override
    public void forEachTime(TimeDiffConsumer consumer) {
        for (int c = 0; c < n; c++) {
            if (atVal[c]) cursors[c].forEachTime(consumer);
        }
    }

    @Override
    public long accumulate(long[] time) {
        long sum = 0;
        for (int c = 0; c < n; c++) {
            if (atVal[c]) sum += cursors[c].accumulate(time);
        }
        return sum;
    }
}
