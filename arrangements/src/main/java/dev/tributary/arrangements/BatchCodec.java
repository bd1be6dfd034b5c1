package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * Turns a {@link Batch} into bytes and back, for checkpoints of arrangements written to blob
 * storage, and splits a batch at a frontier (so that a checkpoint can cut batches at its own
 * boundaries).
 *
 * <p>The encoding describes itself; all numbers are little-endian:
 * <pre>
 *   magic "TRBC" (4 bytes), format version (int, {@value #VERSION}), arity (int),
 *   key column kind, value column kind (a byte each: 1 bytes, 2 longs, 3 unit),
 *   lower, upper, since: each an element count (int), then arity longs per element,
 *   key count, value count, update count (ints),
 *   keys, values: bytes: per value its end offset in the slab (int), then the slab's bytes;
 *                  longs: the longs; unit: nothing (the count above is the column),
 *   key offsets (key count + 1 ints), value offsets (value count + 1 ints),
 *   times (update count * arity longs), diffs (update count longs).
 * </pre>
 * The arrays are the batch's own, written and read in bulk: a batch of ten million updates costs
 * a few copies of its arrays, and no object per update or value. The byte order is that of the
 * usual hardware, so that those copies are plain memory copies.
 */
public final class BatchCodec {
    private BatchCodec() {}

    /** The format {@link #encode} writes and the only one {@link #decode} reads. */
    static final int VERSION = 1;

    private static final byte[] MAGIC = {'T', 'R', 'B', 'C'};
    private static final byte KIND_BYTES = 1;
    private static final byte KIND_LONGS = 2;
    private static final byte KIND_UNIT = 3;

    /** The encoded size past which {@link #encode} refuses: a Java array holds a little less than 2^31 bytes. */
    static final long MAX_ENCODED_BYTES = Integer.MAX_VALUE - 64;

    /** Magic, version, arity and the two column kinds. */
    private static final int FIXED_HEADER = MAGIC.length + 4 + 4 + 1 + 1;

    /**
     * Whether batches of keys like {@code keyProto} and values like {@code valProto} can be
     * encoded: true iff each is a {@link BytesColumn}, {@link LongColumn} or {@link UnitColumn}
     * (an {@link ObjectColumn}'s values have no byte form; a null column is not encodable).
     */
    public static boolean encodable(Column keyProto, Column valProto) {
        return kind(keyProto) != 0 && kind(valProto) != 0;
    }

    private static byte kind(Column c) {
        if (c instanceof BytesColumn) return KIND_BYTES;
        if (c instanceof LongColumn) return KIND_LONGS;
        if (c instanceof UnitColumn) return KIND_UNIT;
        return 0;
    }

    /**
     * The bytes of {@code batch} in the format described in the class comment, from which
     * {@link #decode} rebuilds a batch equal in content and description. The batch is only read,
     * as a cursor reads it: one from a trace must still be readable (held, or not yet merged away).
     *
     * @throws IllegalArgumentException if the batch's columns are not {@linkplain #encodable
     *     encodable}, if its arity is not positive or a frontier of its description has another
     *     arity, or if the encoding would be larger than {@code Integer.MAX_VALUE - 64} bytes (the
     *     caller splits such a batch beforehand, see {@link #before} and {@link #from})
     */
    public static byte[] encode(Batch batch) {
        if (batch.parts != null) {
            throw new IllegalArgumentException(batch + " is held in parts: encode each part (Batch.parts(), Part.encoding())");
        }
        byte keyKind = kind(batch.keys);
        byte valKind = kind(batch.vals);
        if (keyKind == 0 || valKind == 0) {
            throw new IllegalArgumentException("cannot encode a batch of " + batch.keys.getClass().getSimpleName() + " keys and "
                    + batch.vals.getClass().getSimpleName() + " values: only bytes, longs and unit columns have a byte form");
        }
        int arity = batch.arity;
        if (arity < 1) throw new IllegalArgumentException("cannot encode a batch of arity " + arity);
        Description d = batch.description();
        checkArity(d.lower(), arity, "lower");
        checkArity(d.upper(), arity, "upper");
        checkArity(d.since(), arity, "since");
        int nk = batch.keys.size();
        int nv = batch.vals.size();
        int nu = batch.updates;
        long size = FIXED_HEADER
                + antichainBytes(d.lower()) + antichainBytes(d.upper()) + antichainBytes(d.since())
                + 12
                + columnBytes(batch.keys) + columnBytes(batch.vals)
                + 4L * nk + 4 + 4L * nv + 4
                + 8L * nu * arity + 8L * nu;
        if (size > MAX_ENCODED_BYTES) {
            throw new IllegalArgumentException("the encoding of " + batch + " would take " + size + " bytes, over the limit of "
                    + MAX_ENCODED_BYTES + ": split the batch (BatchCodec.before/from) and encode the parts");
        }
        byte[] out = new byte[(int) size];
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.put(MAGIC).putInt(VERSION).putInt(arity).put(keyKind).put(valKind);
        putAntichain(b, d.lower());
        putAntichain(b, d.upper());
        putAntichain(b, d.since());
        b.putInt(nk).putInt(nv).putInt(nu);
        putColumn(b, batch.keys);
        putColumn(b, batch.vals);
        putInts(b, batch.keyOffsets, nk + 1);
        putInts(b, batch.valOffsets, nv + 1);
        putLongs(b, batch.times, nu * arity);
        putLongs(b, batch.diffs, nu);
        assert b.position() == out.length : b.position() + " of " + out.length;
        return out;
    }

    private static void checkArity(Antichain f, int arity, String what) {
        if (f.arity() != arity) {
            throw new IllegalArgumentException("the batch's " + what + " " + f + " has arity " + f.arity() + ", its times " + arity);
        }
    }

    private static long antichainBytes(Antichain f) {
        return 4 + 8L * f.size() * f.arity();
    }

    private static long columnBytes(Column c) {
        if (c instanceof BytesColumn bc) return 4L * bc.size() + (bc.start(bc.size()) - bc.start(0));
        if (c instanceof LongColumn lc) return 8L * lc.size();
        return 0;
    }

    private static void putAntichain(ByteBuffer b, Antichain f) {
        b.putInt(f.size());
        for (int i = 0; i < f.size(); i++) putLongs(b, f.get(i), f.arity());
    }

    private static void putColumn(ByteBuffer b, Column c) {
        if (c instanceof BytesColumn bc) {
            int n = bc.size();
            // offsets relative to the first value's start, which a column need not keep at 0
            int base = bc.start(0);
            for (int i = 1; i <= n; i++) b.putInt(bc.start(i) - base);
            b.put(bc.slab(), base, bc.start(n) - base);
        } else if (c instanceof LongColumn lc) {
            putLongs(b, lc.array(), lc.size());
        }
    }

    private static void putInts(ByteBuffer b, int[] a, int n) {
        b.asIntBuffer().put(a, 0, n);
        b.position(b.position() + 4 * n);
    }

    private static void putLongs(ByteBuffer b, long[] a, int n) {
        b.asLongBuffer().put(a, 0, n);
        b.position(b.position() + 8 * n);
    }

    /**
     * The batch that {@code bytes} (as written by {@link #encode}) encodes: equal in content
     * (keys, values, times, diffs in the same order) and description to the batch encoded. The
     * result owns fresh, exactly sized arrays and does not keep {@code bytes}.
     *
     * <p>Every count is checked against the bytes that remain before anything is allocated for
     * it, so input that lies about its counts costs no more memory than its own length.
     *
     * @throws IllegalArgumentException with a message saying what is wrong, if {@code bytes} is
     *     not such an encoding: wrong magic, an unknown version or column kind, a non-positive
     *     arity, truncated or trailing bytes, counts that do not fit the length, a description
     *     frontier that is not an antichain, offsets that do not rise from 0 to the next level's
     *     count (every key has a value and every value an update), or a zero diff
     */
    public static Batch decode(byte[] bytes) {
        return decode(ByteBuffer.wrap(Objects.requireNonNull(bytes, "bytes")));
    }

    /**
     * {@link #decode(byte[])} of the bytes from {@code bytes}' position to its limit (a mapped
     * file's, say, read without a copy on the heap first); the buffer itself is not moved.
     */
    public static Batch decode(ByteBuffer bytes) {
        Reader r = new Reader(bytes);
        Header h = r.header();
        int arity = h.arity;
        byte keyKind = h.keyKind;
        byte valKind = h.valKind;
        int nk = h.keys;
        int nv = h.vals;
        int nu = h.updates;
        // the least the counts take (a bytes column's slab may add more): refused here, before any array exists
        // (the times first, whose count times the arity could overflow a long)
        long timeLongs = (long) nu * arity;
        long least = timeLongs > r.b.remaining() / 8 ? Long.MAX_VALUE
                : 4L * nk + 4 + 4L * nv + 4 + 8 * timeLongs + 8L * nu + fixedColumnBytes(keyKind, nk) + fixedColumnBytes(valKind, nv);
        if (least > r.b.remaining()) {
            throw new IllegalArgumentException("counts inconsistent with the length: " + nk + " keys, " + nv + " values and " + nu + " updates of arity "
                    + arity + " take " + (least == Long.MAX_VALUE ? "more" : "at least " + least) + " bytes, and " + r.b.remaining() + " remain");
        }
        Column keys = r.column(keyKind, nk, "key");
        Column vals = r.column(valKind, nv, "value");
        int[] keyOffsets = r.ints(nk + 1, "key offsets");
        checkOffsets(keyOffsets, nv, "key", "value");
        int[] valOffsets = r.ints(nv + 1, "value offsets");
        checkOffsets(valOffsets, nu, "value", "update");
        long[] times = r.longs(nu * arity, "times");
        long[] diffs = r.longs(nu, "diffs");
        for (int i = 0; i < nu; i++) {
            if (diffs[i] == 0) throw new IllegalArgumentException("update " + i + " has a zero diff");
        }
        if (r.b.hasRemaining()) throw new IllegalArgumentException(r.b.remaining() + " bytes follow the encoded batch");
        return new Batch(keys, keyOffsets, vals, valOffsets, times, diffs, arity, h.description);
    }

    /**
     * The parted batch whose parts are encoded in {@code encodings} (each as {@link #encode}
     * writes a batch, in key order, all with one since, each within {@code [lower, upper)}), each
     * part left to {@link Paging} over its buffer (a mapped file's is not copied to the heap but
     * while read). The batch is described by {@code [lower, upper)} and the parts' since.
     *
     * @throws IllegalArgumentException if an encoding does not decode (see {@link #decode}), if
     *     the parts' sinces, arities or column kinds differ, if a part's range is not within
     *     {@code [lower, upper)}, or if their keys are not in order from one part to the next
     */
    public static Batch decodeParts(java.util.List<ByteBuffer> encodings, Antichain lower, Antichain upper) {
        if (encodings.isEmpty()) throw new IllegalArgumentException("a batch needs at least one part");
        Part[] parts = new Part[encodings.size()];
        Column bounds = null;
        Summary first = null;
        for (int i = 0; i < parts.length; i++) {
            // read from the header and the columns' ends, not decoded: a restart's parts stay in their files
            Summary b = summarize(encodings.get(i));
            if (b.updates == 0) throw new IllegalArgumentException("part " + i + " of a parted batch is empty");
            if (first == null) {
                first = b;
                bounds = b.keyProto.emptyLike(parts.length);
            } else {
                if (!b.description.since().equals(first.description.since()) || b.arity != first.arity
                        || b.keyProto.getClass() != first.keyProto.getClass() || b.valProto.getClass() != first.valProto.getClass()) {
                    throw new IllegalArgumentException("part " + i + " (" + b.description + ") is not like part 0 (" + first.description + ")");
                }
                if (bounds.compare(i - 1, b.ends, 0) >= 0) throw new IllegalArgumentException("part " + i + " starts at or before the last key of part " + (i - 1));
            }
            if (!lower.dominates(b.description.lower()) || !b.description.upper().dominates(upper)) {
                throw new IllegalArgumentException("part " + i + " (" + b.description + ") is not within [" + lower + ", " + upper + ")");
            }
            bounds.append(b.ends, 1);
            parts[i] = Paging.adopt(encodings.get(i), b);
        }
        return new Batch(parts, bounds, first.keyProto, first.valProto, first.arity, new Description(lower, upper, first.description.since()));
    }

    /**
     * What an encoding says of its batch without decoding its arrays: the header, the counts, the
     * bytes its keys and values take, its greatest time (arity 1; else MAX_VALUE), and in
     * {@code ends} its first and last keys (a column of the key kind). The lengths are checked to
     * add up to the buffer's; the arrays' contents are checked when the part is first decoded.
     */
    record Summary(int arity, Description description, Column keyProto, Column valProto, int keys, int vals, int updates,
            long keyBytes, long valBytes, long maxTime, Column ends) {}

    static Summary summarize(ByteBuffer bytes) {
        Reader r = new Reader(bytes);
        Header h = r.header();
        int arity = h.arity;
        int nk = h.keys;
        int nv = h.vals;
        int nu = h.updates;
        Column ends = protoOf(h.keyKind);
        long keyBytes = r.skipColumn(h.keyKind, nk, "key", ends);
        long valBytes = r.skipColumn(h.valKind, nv, "value", null);
        r.need(4L * (nk + 1) + 4L * (nv + 1), "the offsets");
        r.b.position(r.b.position() + 4 * (nk + 1) + 4 * (nv + 1));
        long timeLongs = (long) nu * arity;
        if (timeLongs > r.b.remaining() / 8) throw new IllegalArgumentException("truncated: " + nu + " updates' times do not fit in " + r.b.remaining() + " bytes");
        long maxTime = Long.MAX_VALUE;
        if (arity == 1) {
            maxTime = Long.MIN_VALUE;
            for (int u = 0, at = r.b.position(); u < nu; u++, at += 8) maxTime = Math.max(maxTime, r.b.getLong(at));
        }
        r.b.position(r.b.position() + (int) (8 * timeLongs));
        r.need(8L * nu, "diffs");
        r.b.position(r.b.position() + 8 * nu);
        if (r.b.hasRemaining()) throw new IllegalArgumentException(r.b.remaining() + " bytes follow the encoded batch");
        return new Summary(arity, h.description, protoOf(h.keyKind), protoOf(h.valKind), nk, nv, nu, keyBytes, valBytes, maxTime, ends);
    }

    private static Column protoOf(byte kind) {
        return kind == KIND_BYTES ? new BytesColumn() : kind == KIND_LONGS ? new LongColumn() : new UnitColumn();
    }

    private static void checkKind(byte kind, String what) {
        if (kind != KIND_BYTES && kind != KIND_LONGS && kind != KIND_UNIT) {
            throw new IllegalArgumentException("unknown " + what + " column kind " + kind + " (1 bytes, 2 longs, 3 unit)");
        }
    }

    private static long fixedColumnBytes(byte kind, int n) {
        return kind == KIND_BYTES ? 4L * n : kind == KIND_LONGS ? 8L * n : 0;
    }

    /**
     * Checks that {@code offsets} start at 0, rise strictly (no entry of this level is without
     * one of the next: a batch's invariant, which its cursors rely on) and end at {@code next}.
     */
    private static void checkOffsets(int[] offsets, int next, String level, String nextLevel) {
        if (offsets[0] != 0) throw new IllegalArgumentException(level + " offsets start at " + offsets[0] + ", not 0");
        int n = offsets.length - 1;
        for (int i = 0; i < n; i++) {
            if (offsets[i + 1] <= offsets[i]) {
                throw new IllegalArgumentException(level + " offsets not rising: " + level + " " + i + " spans [" + offsets[i] + ", " + offsets[i + 1] + ")");
            }
        }
        if (offsets[n] != next) {
            throw new IllegalArgumentException(level + " offsets end at " + offsets[n] + ", but there are " + next + " " + nextLevel + "s");
        }
    }

    /** What precedes an encoding's columns: checked, with its counts not yet checked against the length. */
    private record Header(int arity, byte keyKind, byte valKind, Description description, int keys, int vals, int updates) {}

    /** Reads the encoding, checking each length against what remains before reading or allocating for it. */
    private static final class Reader {
        final ByteBuffer b;

        Reader(ByteBuffer bytes) {
            this.b = bytes.slice().order(ByteOrder.LITTLE_ENDIAN);
        }

        Header header() {
            need(FIXED_HEADER, "the header");
            for (byte m : MAGIC) {
                if (b.get() != m) throw new IllegalArgumentException("not an encoded batch: the magic is not \"TRBC\"");
            }
            int version = b.getInt();
            if (version != VERSION) throw new IllegalArgumentException("unknown format version " + version + " (this reads version " + VERSION + ")");
            int arity = b.getInt();
            if (arity < 1) throw new IllegalArgumentException("arity " + arity + " is not positive");
            byte keyKind = b.get();
            byte valKind = b.get();
            checkKind(keyKind, "key");
            checkKind(valKind, "value");
            Antichain lower = antichain(arity, "lower");
            Antichain upper = antichain(arity, "upper");
            Antichain since = antichain(arity, "since");
            need(12, "the counts");
            int nk = count("key count");
            int nv = count("value count");
            int nu = count("update count");
            return new Header(arity, keyKind, valKind, new Description(lower, upper, since), nk, nv, nu);
        }

        void need(long n, String what) {
            if (n > b.remaining()) {
                throw new IllegalArgumentException("truncated: " + what + " take " + n + " bytes at offset " + b.position() + ", and " + b.remaining() + " remain");
            }
        }

        int count(String what) {
            int n = b.getInt();
            if (n < 0) throw new IllegalArgumentException(what + " " + n + " is negative");
            return n;
        }

        Antichain antichain(int arity, String what) {
            need(4, "the element count of " + what);
            int n = count("element count of " + what);
            if ((long) n * arity > b.remaining() / 8) {
                throw new IllegalArgumentException("truncated: " + what + " claims " + n + " elements of arity " + arity + ", and " + b.remaining() + " bytes remain");
            }
            Antichain.Builder builder = new Antichain.Builder(arity);
            for (int i = 0; i < n; i++) {
                long[] t = new long[arity];
                b.asLongBuffer().get(t);
                b.position(b.position() + 8 * arity);
                builder.insert(t);
            }
            Antichain f = builder.build();
            // a frontier of comparable (or repeated) times would come back smaller, and not equal to what was written
            if (f.size() != n) throw new IllegalArgumentException(what + " is not an antichain: some of its " + n + " elements are <= others");
            return f;
        }

        Column column(byte kind, int n, String what) {
            if (kind == KIND_UNIT) {
                UnitColumn c = new UnitColumn();
                c.add(n);
                return c;
            }
            if (kind == KIND_LONGS) return new LongColumn(longs(n, what + "s"), n);
            // the end offsets read as the column's offsets (after a leading 0), the slab in one
            // piece: the column adopts both, with no copy per value
            need(4L * n, what + " end offsets");
            int[] offsets = new int[n + 1];
            b.asIntBuffer().get(offsets, 1, n);
            b.position(b.position() + 4 * n);
            for (int i = 1; i <= n; i++) {
                if (offsets[i] < offsets[i - 1]) {
                    throw new IllegalArgumentException(what + " end offsets not monotone: " + what + " " + (i - 1) + " ends at " + offsets[i] + ", before " + offsets[i - 1]);
                }
            }
            int slab = offsets[n];
            need(slab, "the " + slab + " bytes of the " + what + "s");
            byte[] bytes = new byte[slab];
            b.get(bytes);
            return new BytesColumn(bytes, offsets, n);
        }

        /**
         * Moves past a column of {@code n} values of {@code kind}, appending its first and last
         * values to {@code ends} (if not null); returns the bytes its values take (bytes columns).
         */
        long skipColumn(byte kind, int n, String what, Column ends) {
            if (kind == KIND_UNIT) {
                if (ends != null && n > 0) ((UnitColumn) ends).add(2);
                return 0;
            }
            if (kind == KIND_LONGS) {
                need(8L * n, what + "s");
                if (ends != null && n > 0) {
                    ((LongColumn) ends).add(b.getLong(b.position()));
                    ((LongColumn) ends).add(b.getLong(b.position() + 8 * (n - 1)));
                }
                b.position(b.position() + 8 * n);
                return 0;
            }
            need(4L * n, what + " end offsets");
            int at = b.position();
            int slab = n == 0 ? 0 : b.getInt(at + 4 * (n - 1));
            if (slab < 0) throw new IllegalArgumentException(what + "s' slab length " + slab + " is negative");
            need(4L * n + slab, "the " + slab + " bytes of the " + what + "s");
            if (ends != null && n > 0) {
                int firstEnd = b.getInt(at);
                int lastStart = n == 1 ? 0 : b.getInt(at + 4 * (n - 2));
                if (firstEnd < 0 || firstEnd > slab || lastStart < 0 || lastStart > slab) throw new IllegalArgumentException(what + " end offsets outside the slab");
                int base = at + 4 * n;
                byte[] first = new byte[firstEnd];
                b.get(base, first);
                byte[] last = new byte[slab - lastStart];
                b.get(base + lastStart, last);
                ((BytesColumn) ends).add(first);
                ((BytesColumn) ends).add(last);
            }
            b.position(at + 4 * n + slab);
            return slab;
        }

        int[] ints(int n, String what) {
            need(4L * n, what);
            int[] a = new int[n];
            b.asIntBuffer().get(a);
            b.position(b.position() + 4 * n);
            return a;
        }

        long[] longs(int n, String what) {
            need(8L * n, what);
            long[] a = new long[n];
            b.asLongBuffer().get(a);
            b.position(b.position() + 8 * n);
            return a;
        }
    }

    /**
     * The updates of {@code batch} at times not {@code >=} {@code upper} (those with
     * {@code !upper.lessEqual(time)}), as a batch described by {@code [batch.lower(), upper)}
     * with the batch's since; keys and values left without updates are not in it. Returns
     * {@code batch} itself if its upper already is {@code upper}, else a new batch that shares
     * nothing with it. Times are those stored, so where the since is beyond {@code upper} the
     * updates it advanced are placed by their advanced times. {@code before(batch, f)} and
     * {@code from(batch, f)} split the batch in two.
     *
     * @throws IllegalArgumentException if {@code upper} has another arity than the batch, or
     *     does not lie between the batch's lower and upper (in the frontiers' order)
     */
    public static Batch before(Batch batch, Antichain upper) {
        checkWithin(batch, upper);
        if (upper.equals(batch.upper())) return batch;
        return select(batch, upper, false, new Description(batch.lower(), upper, batch.since()));
    }

    /**
     * The updates of {@code batch} at times {@code >=} {@code lower} (those with
     * {@code lower.lessEqual(time)}), as a batch described by {@code [lower, batch.upper())} with
     * the batch's since; keys and values left without updates are not in it. Returns
     * {@code batch} itself if its lower already is {@code lower}, else a new batch that shares
     * nothing with it. The complement of {@link #before}: together they hold every update of the
     * batch once.
     *
     * @throws IllegalArgumentException if {@code lower} has another arity than the batch, or
     *     does not lie between the batch's lower and upper (in the frontiers' order)
     */
    public static Batch from(Batch batch, Antichain lower) {
        checkWithin(batch, lower);
        if (lower.equals(batch.lower())) return batch;
        return select(batch, lower, true, new Description(lower, batch.upper(), batch.since()));
    }

    private static void checkWithin(Batch batch, Antichain frontier) {
        Objects.requireNonNull(frontier, "frontier");
        if (frontier.arity() != batch.arity) {
            throw new IllegalArgumentException("frontier " + frontier + " has arity " + frontier.arity() + ", the batch's times " + batch.arity);
        }
        // lower <= frontier <= upper: every time at or beyond the frontier is at or beyond lower, and every time beyond upper is beyond the frontier
        if (!batch.lower().dominates(frontier) || !frontier.dominates(batch.upper())) {
            throw new IllegalArgumentException("frontier " + frontier + " does not lie within " + batch.description());
        }
    }

    /** The updates whose time is {@code >=} {@code frontier} ({@code beyond}) or not, walking the trie in order. */
    private static Batch select(Batch batch, Antichain frontier, boolean beyond, Description description) {
        if (batch.parts != null) return selectParted(batch, frontier, beyond, description);
        int arity = batch.arity;
        long[] times = batch.times;
        int kept = 0;
        for (int u = 0; u < batch.updates; u++) {
            if (Times.beyond(frontier, times, u * arity) == beyond) kept++;
        }
        // sized by a first pass so that build() copies nothing when the guess is right
        BatchBuilder out = new BatchBuilder(batch.keys, batch.vals, arity, kept, Math.min(kept, batch.keys.size()), Math.min(kept, batch.vals.size()));
        if (kept > 0) {
            Column keys = batch.keys;
            Column vals = batch.vals;
            int[] ko = batch.keyOffsets;
            int[] vo = batch.valOffsets;
            long[] diffs = batch.diffs;
            for (int k = 0, nk = keys.size(); k < nk; k++) {
                for (int v = ko[k]; v < ko[k + 1]; v++) {
                    for (int u = vo[v]; u < vo[v + 1]; u++) {
                        if (Times.beyond(frontier, times, u * arity) == beyond) out.push(keys, k, vals, v, times, u * arity, diffs[u]);
                    }
                }
            }
        }
        return out.build(description);
    }

    /** {@link #select} of a parted batch: part by part, each selection a part of the result (parts left empty dropped). */
    private static Batch selectParted(Batch batch, Antichain frontier, boolean beyond, Description description) {
        java.util.List<Part> parts = new java.util.ArrayList<>();
        Column bounds = batch.keyProto().emptyLike(batch.parts.length);
        for (Part p : batch.parts) {
            Batch some = select(p.batch(), frontier, beyond, description);
            if (some.isEmpty()) continue;
            parts.add(Paging.spill(some));
            bounds.append(some.keys, some.keys.size() - 1);
        }
        if (parts.isEmpty()) return new BatchBuilder(batch.keyProto(), batch.valProto(), batch.arity, 0).build(description);
        return new Batch(parts.toArray(new Part[0]), bounds, batch.keyProto(), batch.valProto(), batch.arity, description);
    }
}
