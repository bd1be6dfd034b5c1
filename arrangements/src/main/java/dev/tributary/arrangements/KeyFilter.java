package dev.tributary.arrangements;

/**
 * Which keys a batch may hold: a blocked Bloom filter over its key column, one 64-bit word per
 * key's hash with {@value #BITS} bits set in it, at most {@value #KEYS_PER_WORD} keys per word
 * on average (8 bits per key or more: a key the batch lacks gets a false "may" a few times in a
 * hundred).
 *
 * <p>It lets a probe skip a large batch that lacks its key for one cache line instead of a binary
 * search, each step of which misses the cache. A trace holds a few large batches whose keys each
 * cover a small share of the key space (the results of recent merges), and a probe for one key
 * would otherwise search every one of them. Built once per batch, only for those that sparse
 * probes mostly miss ({@link BatchCursor#prepareSeeks}); immutable once built, so a reader that
 * finds it through a data race sees it whole (its array is reached through a final field).
 */
final class KeyFilter {
    private static final int BITS = 4;
    private static final int KEYS_PER_WORD = 8;

    /** At least {@code mask + 1} words (a pooled array may be longer); only the first {@code mask + 1} are used. */
    private final long[] words;
    private final int mask;

    private KeyFilter(long[] words, int length) {
        this.words = words;
        this.mask = length - 1;
    }

    /**
     * Whether a filter may be built over {@code keys}: only columns whose {@link Column#hash} is a
     * function of the value's bits, so that values equal in the column's order hash alike (an
     * {@link ObjectColumn}'s order is its comparator's, which {@code hashCode} need not agree with:
     * 1.0 and 1.00 as {@code BigDecimal}s), since a filter that misses a key loses data.
     */
    static boolean applies(Column keys) {
        return keys instanceof LongColumn || keys instanceof BytesColumn;
    }

    /** A filter of every value of {@code keys}, its words from {@code pool} (null: a new array). */
    static KeyFilter of(Column keys, MergeScratch pool) {
        int n = keys.size();
        int length = Integer.highestOneBit(Math.max(1, n / KEYS_PER_WORD));
        if (length < Math.max(1, n / KEYS_PER_WORD)) length <<= 1;
        long[] words;
        if (pool == null) {
            words = new long[length];
        } else {
            words = pool.longs(length);
            java.util.Arrays.fill(words, 0, length, 0L);
        }
        KeyFilter f = new KeyFilter(words, length);
        for (int i = 0; i < n; i++) {
            long h = mix(keys.hash(i));
            f.words[(int) h & f.mask] |= bits(h);
        }
        return f;
    }

    /** Whether a key with {@link Column#hash} {@code hash} may be in the batch (false: certainly not). */
    boolean mayContain(long hash) {
        long h = mix(hash);
        return holds(word(h), h);
    }

    /**
     * The word that key hash {@code mixed} (a {@link Column#hash} through {@link #mix}) falls in.
     * {@link #mayContain} in two steps, for a loop over many probes: the words read first, the
     * loads independent of each other and of any branch, so their cache misses overlap.
     */
    long word(long mixed) {
        return words[(int) mixed & mask];
    }

    /** Whether {@code word}, the {@link #word} of {@code mixed}, says the key may be in the batch. */
    static boolean holds(long word, long mixed) {
        long b = bits(mixed);
        return (word & b) == b;
    }

    /** {@code keys}' {@link Column#hash}es through {@link #mix}, into {@code into} (at least as long); returns {@code into}. */
    static long[] mixAll(Column keys, long[] into) {
        for (int p = 0, m = keys.size(); p < m; p++) into[p] = mix(keys.hash(p));
        return into;
    }

    /** {@value #BITS} bit positions from the hash's upper bits (the lower ones pick the word). */
    private static long bits(long h) {
        return 1L << (h >>> 58) | 1L << (h >>> 52 & 63) | 1L << (h >>> 46 & 63) | 1L << (h >>> 40 & 63);
    }

    /**
     * A finalizer that spreads every input bit over the whole word (column hashes of longs are the
     * values themselves); the same for every filter, so probes checked against several mix once.
     */
    static long mix(long x) {
        x = (x ^ (x >>> 33)) * 0xff51afd7ed558ccdL;
        x = (x ^ (x >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return x ^ (x >>> 33);
    }

    /** The array of words: the batch that owns the filter gives it back to its pool with its own arrays. */
    long[] words() {
        return words;
    }

    long heapBytes() {
        return 32 + Column.arrayBytes(words.length, 8);
    }
}
