package dev.tributary.storage;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Column;
import dev.tributary.arrangements.LongColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * The bytes of a batch part: {@link Updates} column by column, as the arrangements hold them
 * (byte strings as one slab with offsets, longs and units as they are), then the times (flat,
 * {@code arity} per update) and the diffs. Columns of byte strings (SQL rows), longs and units
 * are persisted; a column of Java objects is not (it has no byte form).
 *
 * <p>Layout: magic {@code TPRT}, format 1, key kind, value kind, arity, count; each column (a
 * bytes column: count + 1 offsets from 0, then the bytes; a long column: count longs; a unit
 * column: nothing); count x arity times; count diffs. Decoding checks every size against the
 * bytes there are before making anything of that size: damaged bytes are a
 * {@link CorruptDataException}, never an over-sized allocation or a wrong update.
 */
public final class PartCodec {
    private PartCodec() {}

    private static final int MAGIC = 0x54505254; // "TPRT"
    private static final byte FORMAT = 1;
    private static final byte UNIT = 0;
    private static final byte LONG = 1;
    private static final byte BYTES = 2;

    /** The bytes of {@code updates}. */
    public static byte[] encode(Updates updates) {
        int n = updates.size();
        int arity = updates.arity();
        long size = 4 + 1 + 2 + 4 + 4 + columnBytes(updates.keys(), n) + columnBytes(updates.vals(), n) + 8L * n * arity + 8L * n;
        if (size > Integer.MAX_VALUE - 16) throw new IllegalArgumentException("a part of " + n + " updates would take " + size + " bytes; write it as several parts");
        ByteBuffer b = ByteBuffer.allocate((int) size);
        b.putInt(MAGIC).put(FORMAT).put(kind(updates.keys())).put(kind(updates.vals())).putInt(arity).putInt(n);
        putColumn(b, updates.keys(), n);
        putColumn(b, updates.vals(), n);
        long[] times = updates.times();
        for (int i = 0; i < n * arity; i++) b.putLong(times[i]);
        long[] diffs = updates.diffs();
        for (int i = 0; i < n; i++) b.putLong(diffs[i]);
        return b.array();
    }

    private static byte kind(Column c) {
        return switch (c) {
            case UnitColumn u -> UNIT;
            case LongColumn l -> LONG;
            case BytesColumn s -> BYTES;
            default -> throw new IllegalArgumentException("a column of " + c.getClass().getSimpleName()
                    + " cannot be persisted: only byte strings (rows), longs and units have a byte form");
        };
    }

    private static long columnBytes(Column c, int n) {
        return switch (kind(c)) {
            case UNIT -> 0;
            case LONG -> 8L * n;
            default -> 4L * (n + 1) + (((BytesColumn) c).start(n) - ((BytesColumn) c).start(0));
        };
    }

    private static void putColumn(ByteBuffer b, Column c, int n) {
        switch (c) {
            case LongColumn l -> {
                for (int i = 0; i < n; i++) b.putLong(l.getLong(i));
            }
            case BytesColumn s -> {
                int first = s.start(0);
                for (int i = 0; i <= n; i++) b.putInt(s.start(i) - first);
                b.put(s.slab(), first, s.start(n) - first);
            }
            default -> { }
        }
    }

    /** The updates encoded in {@code bytes}; {@code where} names them (shard and part) in an error. */
    public static Updates decode(byte[] bytes, String where) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            if (b.getInt() != MAGIC) throw corrupt(where, "it does not start as a batch part");
            byte format = b.get();
            if (format != FORMAT) throw corrupt(where, "it is a part of format " + format + "; this Tributary reads format " + FORMAT);
            byte keyKind = b.get();
            byte valKind = b.get();
            int arity = b.getInt();
            int n = b.getInt();
            if (arity < 1 || arity > 64) throw corrupt(where, "its times have arity " + arity);
            if (n < 0) throw corrupt(where, "it says it holds " + n + " updates");
            // the smallest a part of n updates can be: checked before anything of that size is made
            if ((8L * arity + 8) * n > b.remaining()) throw corrupt(where, "it says " + n + " updates and has " + bytes.length + " bytes");
            Column keys = column(b, keyKind, n, where);
            Column vals = column(b, valKind, n, where);
            if (b.remaining() != 8L * n * (arity + 1)) throw corrupt(where, "its times and diffs take " + b.remaining() + " bytes, not " + 8L * n * (arity + 1));
            // the columns decoded are the updates' own: only the times and diffs are added to them
            long[] times = new long[n * arity];
            long[] diffs = new long[n];
            b.asLongBuffer().get(times).get(diffs);
            Updates u = new Updates(keys, vals, arity, Math.max(1, n));
            u.pushAll(times, diffs, n);
            return u;
        } catch (BufferUnderflowException | IndexOutOfBoundsException e) {
            throw corrupt(where, "it ends early (" + bytes.length + " bytes)");
        }
    }

    private static Column column(ByteBuffer b, byte kind, int n, String where) {
        switch (kind) {
            case UNIT -> {
                UnitColumn c = new UnitColumn();
                c.add(n);
                return c;
            }
            case LONG -> {
                if (8L * n > b.remaining()) throw corrupt(where, "a column of " + n + " longs does not fit in what is left");
                LongColumn c = new LongColumn(Math.max(1, n));
                for (int i = 0; i < n; i++) c.add(b.getLong());
                return c;
            }
            case BYTES -> {
                if (4L * (n + 1) > b.remaining()) throw corrupt(where, "the offsets of " + n + " byte strings do not fit in what is left");
                int at = b.position();
                int total = b.getInt(at + 4 * n);
                int data = at + 4 * (n + 1);
                if (b.getInt(at) != 0 || total < 0 || total > b.limit() - data) throw corrupt(where, "its byte strings take " + total + " bytes of the " + (b.limit() - data) + " left");
                BytesColumn c = new BytesColumn(Math.max(1, n), Math.max(1, total));
                int previous = 0;
                for (int i = 1; i <= n; i++) {
                    int end = b.getInt(at + 4 * i);
                    if (end < previous || end > total) throw corrupt(where, "byte string " + (i - 1) + " ends at " + end + ", before its start or past the strings");
                    c.add(b.array(), data + previous, end - previous);
                    previous = end;
                }
                b.position(data + total);
                return c;
            }
            default -> throw corrupt(where, "it has a column of unknown kind " + kind);
        }
    }

    private static CorruptDataException corrupt(String where, String what) {
        return new CorruptDataException(where + " is corrupt: " + what);
    }
}
