package dev.tributary.arrangements;

import java.util.List;

/**
 * Several cursors read as one: the current key is the least key of any cursor, the current
 * value the least value under it, and the updates of a value are those of every cursor
 * positioned there. A trace has a logarithmic number of batches, so minima are found by scanning.
 *
 * <p>The cursors at the current key are listed ({@link #atKey}, usually one or two of a trace's
 * dozen or more batches), and so are those at the current value: reading a key's values and
 * updates visits only them, and only a move to another key visits every cursor.
 */
final class CursorList implements HeldCursor {
    /** The batch cursors the list owns and re-aims at each {@link #aim}; the first {@link #n} are read. */
    private BatchCursor[] cursors;
    /** How many of {@link #cursors} are read. */
    private int n;
    /** The indexes of the cursors at the current key, in order, and how many there are. */
    private int[] atKey;
    private int keyHolders;
    /** The indexes of the cursors at the current value (a subset of {@link #atKey}), and how many. */
    private int[] atVal;
    private int valHolders;
    private int minKey = -1;
    private int minVal = -1;
    /**
     * Set by {@link #seekKeyExact}: only the cursors listed in {@link #atKey} are known to be at
     * the current key; the others may lag behind it, so they are brought up before a step.
     */
    private boolean exact;
    /**
     * The keys of the last {@link #prepareSeeks} (none since the last aim, or no batch was large
     * enough to prepare them: no keys): an exact seek finds its probe here once for every cursor,
     * where each would walk the probes to it.
     */
    private final ProbeWalk probes = new ProbeWalk();
    /** Scratch for the probes' mixed hashes ({@link KeyFilter#mixAll}). */
    private long[] mixed;

    /** Whether the batches read are pinned ({@link #hold}) until {@link #release}. */
    private boolean holding;

    /** A list that reads nothing until {@linkplain #aim aimed}, reusing its cursors from one aim to the next. */
    CursorList() {
        this.cursors = new BatchCursor[0];
        this.atKey = new int[0];
        this.atVal = new int[0];
        findKey();
    }

    /**
     * Reads the non-empty batches among the first {@code count} of {@code batches} from their
     * first key, with the cursors of the last aim re-aimed (so nothing is allocated once the list
     * has had as many batches): whoever still used this list before is reading something else now.
     */
    void aim(List<Batch> batches, int count) {
        if (holding) throw new IllegalStateException("a held cursor is re-aimed before it is released");
        if (cursors.length < count) {
            cursors = java.util.Arrays.copyOf(cursors, count);
            atKey = new int[count];
            atVal = new int[count];
        }
        int m = 0;
        for (int i = 0; i < count; i++) {
            Batch b = batches.get(i);
            if (b.isEmpty()) continue;
            if (cursors[m] == null) cursors[m] = new BatchCursor(b);
            else cursors[m].aim(b);
            m++;
        }
        n = m;
        probes.reset(null);
        minVal = -1;
        findKey();
    }

    /** Lets go of the batches read and the probes prepared, keeping the cursor objects for the next {@link #aim}. Not for a held list. */
    void forget() {
        if (holding) return;
        for (BatchCursor c : cursors) if (c != null) c.forget();
        n = 0;
        probes.reset(null);
    }

    /** Pins the batches the list reads now, until {@link #release}: see {@link HeldCursor}. Called right after {@link #aim}, which refuses a held list. */
    void hold() {
        for (int c = 0; c < n; c++) cursors[c].batch().hold();
        holding = true;
    }

    /** Whether the list holds its batches: it may not be re-aimed until released. */
    boolean holding() {
        return holding;
    }

    @Override
    public void release() {
        if (!holding) return;
        holding = false;
        for (int c = 0; c < n; c++) cursors[c].batch().release();
    }

    private void findKey() {
        exact = false;
        minKey = -1;
        keyHolders = 0;
        for (int c = 0; c < n; c++) {
            BatchCursor cursor = cursors[c];
            if (!cursor.keyValid()) continue;
            if (minKey < 0) {
                minKey = c;
                atKey[keyHolders++] = c;
                continue;
            }
            int cmp = cursor.keyColumn().compare(cursor.keyIndex(), cursors[minKey].keyColumn(), cursors[minKey].keyIndex());
            if (cmp < 0) {
                minKey = c;
                keyHolders = 0;
            }
            if (cmp <= 0) atKey[keyHolders++] = c;
        }
        findVal();
    }

    private void findVal() {
        minVal = -1;
        valHolders = 0;
        for (int h = 0; h < keyHolders; h++) {
            int c = atKey[h];
            BatchCursor cursor = cursors[c];
            if (!cursor.valValid()) continue;
            if (minVal < 0) {
                minVal = c;
                atVal[valHolders++] = c;
                continue;
            }
            int cmp = cursor.valColumn().compare(cursor.valIndex(), cursors[minVal].valColumn(), cursors[minVal].valIndex());
            if (cmp < 0) {
                minVal = c;
                valHolders = 0;
            }
            if (cmp <= 0) atVal[valHolders++] = c;
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
            // bring the cursors not at the key up to it (the holders are listed in index order)
            Column column = keyColumn();
            int i = keyIndex();
            for (int c = 0, h = 0; c < n; c++) {
                if (h < keyHolders && atKey[h] == c) h++;
                else cursors[c].seekKey(column, i);
            }
            findKey();
        }
        for (int h = 0; h < keyHolders; h++) cursors[atKey[h]].stepKey();
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
        keyHolders = 0;
        int p = probes.find(column, i);
        if (p < 0) {
            for (int c = 0; c < n; c++) {
                if (cursors[c].seekKeyExact(column, i)) atKey[keyHolders++] = c;
            }
        } else {
            for (int c = 0; c < n; c++) {
                if (cursors[c].seekKeyExact(column, i, probes.keys, p)) atKey[keyHolders++] = c;
            }
        }
        if (keyHolders > 0) minKey = atKey[0];
        exact = true;
        findVal();
        return minKey >= 0;
    }

    @Override
    public void prepareSeeks(Column keys) {
        // the probes' hashes, mixed once for every filter that checks them
        long[] hashes = null;
        for (int c = 0; c < n && hashes == null; c++) {
            if (cursors[c].batch().filter != null) hashes = KeyFilter.mixAll(keys, mixed = BatchCursor.grown(mixed, keys.size()));
        }
        boolean any = false;
        for (int c = 0; c < n; c++) any |= cursors[c].prepare(keys, hashes);
        // no batch large enough (a small trace): nothing to find the probes for
        probes.reset(any ? keys : null);
    }

    @Override
    public void stepVal() {
        for (int h = 0; h < valHolders; h++) cursors[atVal[h]].stepVal();
        findVal();
    }

    @Override
    public void seekVal(Column column, int i) {
        for (int h = 0; h < keyHolders; h++) cursors[atKey[h]].seekVal(column, i);
        findVal();
    }

    @Override
    public void rewindVals() {
        for (int h = 0; h < keyHolders; h++) cursors[atKey[h]].rewindVals();
        findVal();
    }

    @Override
    public void rewindKeys() {
        for (int c = 0; c < n; c++) cursors[c].rewindKeys();
        findKey();
    }

    @Override
    public void forEachTime(TimeDiffConsumer consumer) {
        for (int h = 0; h < valHolders; h++) cursors[atVal[h]].forEachTime(consumer);
    }

    @Override
    public long accumulate(long[] time) {
        long sum = 0;
        for (int h = 0; h < valHolders; h++) sum += cursors[atVal[h]].accumulate(time);
        return sum;
    }
}
