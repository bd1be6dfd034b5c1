package dev.tributary.sql.row;

import dev.tributary.sql.types.Jsonb;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A jsonb column's payload in a {@link Row}: the document as a tree of tagged values whose
 * unsigned bytewise order is PostgreSQL's jsonb order, so that rows sort, group and index on it
 * like any other column, and compact, since rows are held in memory by the million (no per-node
 * objects: {@code {"a": 1}} takes 16 bytes).
 *
 * <p>Each value is a tag, ordered as the kinds are ({@link #NULL} &lt; {@link #STRING} &lt;
 * {@link #NUMBER} &lt; {@link #FALSE} &lt; {@link #TRUE} &lt; {@link #ARRAY} &lt; {@link #OBJECT}),
 * then: a string as TEXT's escaped, terminated UTF-8; a number as NUMERIC's payload (value, then
 * display scale); an array its number of elements as an integer payload (so fewer elements sort
 * first, as in PostgreSQL) and then the elements; an object its number of pairs, then each key
 * (as a string, no tag) and its value in storage order. Counts first also make the encoding
 * prefix-free. At the top level an empty array is the one byte {@link #TOP_EMPTY_ARRAY}, below
 * every scalar, where PostgreSQL puts it.
 */
final class JsonbCodec {
    private JsonbCodec() {}

    static final int TOP_EMPTY_ARRAY = 0x01;
    static final int NULL = 0x02;
    static final int STRING = 0x03;
    static final int NUMBER = 0x04;
    static final int FALSE = 0x05;
    static final int TRUE = 0x06;
    static final int ARRAY = 0x07;
    static final int OBJECT = 0x08;

    static void write(RowCodec.Writer w, Jsonb v) {
        if (v instanceof Jsonb.Arr a && a.elements().isEmpty()) w.put(TOP_EMPTY_ARRAY);
        else writeValue(w, v);
    }

    private static void writeValue(RowCodec.Writer w, Jsonb v) {
        switch (v) {
            case Jsonb.Null n -> w.put(NULL);
            case Jsonb.Str s -> {
                w.put(STRING);
                RowCodec.writeString(w, s.value());
            }
            case Jsonb.Num n -> {
                w.put(NUMBER);
                RowCodec.writeNumeric(w, n.value(), 0);
            }
            case Jsonb.Bool b -> w.put(b.value() ? TRUE : FALSE);
            case Jsonb.Arr a -> {
                w.put(ARRAY);
                w.putInteger(a.elements().size());
                for (Jsonb e : a.elements()) writeValue(w, e);
            }
            case Jsonb.Obj o -> {
                w.put(OBJECT);
                w.putInteger(o.size());
                for (int i = 0; i < o.size(); i++) {
                    RowCodec.writeString(w, o.keys().get(i));
                    writeValue(w, o.values().get(i));
                }
            }
        }
    }

    /** The document whose payload starts at {@code pos}. */
    static Jsonb read(byte[] b, int pos) {
        if (b[pos] == TOP_EMPTY_ARRAY) return Jsonb.Arr.EMPTY;
        return new Reader(b, pos).value();
    }

    /** The end of the payload that starts at {@code pos}. */
    static int end(byte[] b, int pos) {
        if (b[pos] == TOP_EMPTY_ARRAY) return pos + 1;
        return valueEnd(b, pos);
    }

    private static int valueEnd(byte[] b, int p) {
        int tag = b[p];
        return switch (tag) {
            case NULL, FALSE, TRUE -> p + 1;
            case STRING -> RowCodec.escapedEnd(b, p + 1);
            case NUMBER -> RowCodec.numericEnd(b, p + 1);
            case ARRAY, OBJECT -> {
                long n = RowCodec.getInteger(b, p + 1);
                int q = p + 2 + RowCodec.integerBytes(b[p + 1]);
                for (long i = 0; i < n; i++) {
                    if (tag == OBJECT) q = RowCodec.escapedEnd(b, q);
                    q = valueEnd(b, q);
                }
                yield q;
            }
            default -> throw new IllegalArgumentException("not a jsonb payload: tag " + tag + " at byte " + p);
        };
    }

    /** Reads values one after another from a position it advances. */
    private static final class Reader {
        private final byte[] b;
        private int p;

        Reader(byte[] b, int p) {
            this.b = b;
            this.p = p;
        }

        Jsonb value() {
            int tag = b[p];
            switch (tag) {
                case NULL -> {
                    p++;
                    return Jsonb.Null.NULL;
                }
                case FALSE, TRUE -> {
                    p++;
                    return Jsonb.of(tag == TRUE);
                }
                case STRING -> {
                    return new Jsonb.Str(string(p + 1));
                }
                case NUMBER -> {
                    BigDecimal d = (BigDecimal) RowCodec.readNumeric(b, p + 1, 0);
                    p = RowCodec.numericEnd(b, p + 1);
                    return new Jsonb.Num(d);
                }
                case ARRAY, OBJECT -> {
                    int n = (int) RowCodec.getInteger(b, p + 1);
                    p += 2 + RowCodec.integerBytes(b[p + 1]);
                    List<Jsonb> values = new ArrayList<>(n);
                    List<String> keys = tag == OBJECT ? new ArrayList<>(n) : null;
                    for (int i = 0; i < n; i++) {
                        if (keys != null) keys.add(string(p));
                        values.add(value());
                    }
                    return keys == null ? new Jsonb.Arr(values) : new Jsonb.Obj(keys, values);
                }
                default -> throw new IllegalArgumentException("not a jsonb payload: tag " + tag + " at byte " + p);
            }
        }

        /** The escaped string at {@code from}; moves past it. */
        private String string(int from) {
            String s = new String(RowCodec.unescape(b, from), StandardCharsets.UTF_8);
            p = RowCodec.escapedEnd(b, from);
            return s;
        }
    }
}
