package dev.tributary.sql.types;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A value of PostgreSQL's {@code jsonb}: a JSON document as a tree of immutable values, equal and
 * ordered as PostgreSQL's jsonb btree operators say.
 *
 * <p>Objects hold their keys once (the last of duplicates wins) in PostgreSQL's storage order,
 * shorter keys (in UTF-8 bytes) first, then bytewise, which is also the order in which its text
 * lists them. Numbers are exact ({@link BigDecimal}, scale at least 0) and keep the scale they
 * were written with ({@code 1.50}), but compare by value: {@code 1.0} equals {@code 1}.
 *
 * <p>The order ({@link #compareTo}) is PostgreSQL's: across kinds Object > Array > Boolean >
 * Number > String > Null; containers first by their number of members, then member by member
 * (an object's keys and values alternately, in storage order); strings by code point (the
 * {@code C} collation). At the top level only, a scalar sorts after the empty array and before
 * every other array, as PostgreSQL's pseudo-array of one scalar does.
 *
 * <p>This tree is what expressions work on; a row holds a jsonb as the order-preserving bytes
 * {@code JsonbCodec} writes, not as this tree.
 */
public sealed interface Jsonb extends Comparable<Jsonb> permits Jsonb.Null, Jsonb.Str, Jsonb.Num, Jsonb.Bool, Jsonb.Arr, Jsonb.Obj {

    /** JSON's {@code null} (not SQL's NULL). */
    record Null() implements Jsonb {
        public static final Null NULL = new Null();

        @Override
        public String toString() {
            return "null";
        }
    }

    /** A string, de-escaped. */
    record Str(String value) implements Jsonb {
        @Override
        public String toString() {
            return text(this);
        }
    }

    /** A number: equal to another of the same value whatever their scales, so hashed by value. */
    record Num(BigDecimal value) implements Jsonb {
        public Num {
            if (value.scale() < 0) value = value.setScale(0);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Num n && value.compareTo(n.value) == 0;
        }

        @Override
        public int hashCode() {
            return value.signum() == 0 ? 0 : value.stripTrailingZeros().hashCode();
        }

        @Override
        public String toString() {
            return value.toPlainString();
        }
    }

    /** {@code true} or {@code false}. */
    record Bool(boolean value) implements Jsonb {
        public static final Bool TRUE = new Bool(true);
        public static final Bool FALSE = new Bool(false);

        @Override
        public String toString() {
            return value ? "true" : "false";
        }
    }

    /** An array of its elements in order. */
    record Arr(List<Jsonb> elements) implements Jsonb {
        public static final Arr EMPTY = new Arr(List.of());

        public Arr {
            elements = List.copyOf(elements);
        }

        @Override
        public String toString() {
            return text(this);
        }
    }

    /** An object: {@code keys} unique and in storage order, {@code values[i]} the value of {@code keys[i]}. */
    record Obj(List<String> keys, List<Jsonb> values) implements Jsonb {
        public static final Obj EMPTY = new Obj(List.of(), List.of());

        public Obj {
            keys = List.copyOf(keys);
            values = List.copyOf(values);
            if (keys.size() != values.size()) throw new IllegalArgumentException(keys.size() + " keys for " + values.size() + " values");
        }

        /**
         * The object of {@code keys[i]: values[i]} in any order, duplicates allowed: the last of
         * each key wins, as PostgreSQL's input does.
         */
        public static Obj of(List<String> keys, List<? extends Jsonb> values) {
            int n = keys.size();
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) order[i] = i;
            // stable: among equal keys the last written is last
            Arrays.sort(order, (a, b) -> compareKeys(keys.get(a), keys.get(b)));
            List<String> k = new ArrayList<>(n);
            List<Jsonb> v = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int at = order[i];
                if (!k.isEmpty() && k.get(k.size() - 1).equals(keys.get(at))) {
                    v.set(v.size() - 1, values.get(at));
                } else {
                    k.add(keys.get(at));
                    v.add(values.get(at));
                }
            }
            return new Obj(k, v);
        }

        /** The value of {@code key}, or null when there is none. */
        public Jsonb get(String key) {
            int i = indexOf(key);
            return i < 0 ? null : values.get(i);
        }

        /** Where {@code key} is among the keys, or a negative number when absent. */
        public int indexOf(String key) {
            int lo = 0, hi = keys.size() - 1;
            while (lo <= hi) {
                int mid = (lo + hi) >>> 1;
                int c = compareKeys(keys.get(mid), key);
                if (c == 0) return mid;
                if (c < 0) lo = mid + 1;
                else hi = mid - 1;
            }
            return -1;
        }

        public int size() {
            return keys.size();
        }

        @Override
        public String toString() {
            return text(this);
        }
    }

    static Jsonb of(String s) {
        return new Str(s);
    }

    static Jsonb of(BigDecimal n) {
        return new Num(n);
    }

    static Jsonb of(boolean b) {
        return b ? Bool.TRUE : Bool.FALSE;
    }

    /** {@code text} as jsonb: 22P02 (or 22P05 for {@code \u0000}) with PostgreSQL's detail when it is not one JSON value. */
    static Jsonb parse(String text) {
        return JsonText.parseJsonb(text);
    }

    /** PostgreSQL's {@code jsonb_typeof}: object, array, string, number, boolean or null. */
    default String typeName() {
        return switch (this) {
            case Null n -> "null";
            case Str s -> "string";
            case Num n -> "number";
            case Bool b -> "boolean";
            case Arr a -> "array";
            case Obj o -> "object";
        };
    }

    /** Whether this is a scalar (not an array or an object). */
    default boolean isScalar() {
        return !(this instanceof Arr) && !(this instanceof Obj);
    }

    /**
     * This value with every number at its fewest fraction digits: equal values have equal key
     * forms, and so equal encodings in a row (what a join, a group or DISTINCT compares).
     */
    default Jsonb keyForm() {
        return switch (this) {
            case Num n -> {
                BigDecimal s = n.value().stripTrailingZeros();
                yield s.scale() == n.value().scale() ? n : new Num(s.scale() < 0 ? s.setScale(0) : s);
            }
            case Arr a -> new Arr(a.elements().stream().map(Jsonb::keyForm).toList());
            case Obj o -> new Obj(o.keys(), o.values().stream().map(Jsonb::keyForm).toList());
            case Null n -> n;
            case Str s -> s;
            case Bool b -> b;
        };
    }

    @Override
    default int compareTo(Jsonb other) {
        if (this instanceof Arr a && other.isScalar()) return a.elements().isEmpty() ? -1 : 1;
        if (isScalar() && other instanceof Arr a) return a.elements().isEmpty() ? 1 : -1;
        return compare(this, other);
    }

    /** PostgreSQL's order of two values below the top level (see the type's comment). */
    static int compare(Jsonb a, Jsonb b) {
        int ra = rank(a), rb = rank(b);
        if (ra != rb) return Integer.compare(ra, rb);
        return switch (a) {
            case Null n -> 0;
            case Str s -> Values.compareText(s.value(), ((Str) b).value());
            case Num n -> n.value().compareTo(((Num) b).value());
            case Bool x -> Boolean.compare(x.value(), ((Bool) b).value());
            case Arr x -> {
                List<Jsonb> y = ((Arr) b).elements();
                int c = Integer.compare(x.elements().size(), y.size());
                for (int i = 0; c == 0 && i < y.size(); i++) c = compare(x.elements().get(i), y.get(i));
                yield c;
            }
            case Obj x -> {
                Obj y = (Obj) b;
                int c = Integer.compare(x.size(), y.size());
                for (int i = 0; c == 0 && i < y.size(); i++) {
                    c = Values.compareText(x.keys().get(i), y.keys().get(i));
                    if (c == 0) c = compare(x.values().get(i), y.values().get(i));
                }
                yield c;
            }
        };
    }

    /** The kind's place in PostgreSQL's order across kinds. */
    private static int rank(Jsonb v) {
        return switch (v) {
            case Null n -> 0;
            case Str s -> 1;
            case Num n -> 2;
            case Bool b -> 3;
            case Arr a -> 4;
            case Obj o -> 5;
        };
    }

    /** PostgreSQL's storage order of object keys: shorter in UTF-8 first, then bytewise. */
    static int compareKeys(String a, String b) {
        int c = Integer.compare(utf8Length(a), utf8Length(b));
        return c != 0 ? c : Values.compareText(a, b);
    }

    private static int utf8Length(String s) {
        int n = s.length();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x80) return s.getBytes(StandardCharsets.UTF_8).length;
        }
        return n;
    }

    /** The value's text as PostgreSQL's jsonb output writes it: {@code {"a": 1, "b": [1, 2]}}. */
    static String text(Jsonb v) {
        StringBuilder b = new StringBuilder();
        append(b, v);
        return b.toString();
    }

    static void append(StringBuilder b, Jsonb v) {
        switch (v) {
            case Str s -> Json.quote(b, s.value());
            case Arr a -> {
                b.append('[');
                for (int i = 0; i < a.elements().size(); i++) {
                    if (i > 0) b.append(", ");
                    append(b, a.elements().get(i));
                }
                b.append(']');
            }
            case Obj o -> {
                b.append('{');
                for (int i = 0; i < o.size(); i++) {
                    if (i > 0) b.append(", ");
                    Json.quote(b, o.keys().get(i));
                    b.append(": ");
                    append(b, o.values().get(i));
                }
                b.append('}');
            }
            case Null n -> b.append("null");
            case Num n -> b.append(n.value().toPlainString());
            case Bool x -> b.append(x.value() ? "true" : "false");
        }
    }

    /** PostgreSQL's {@code jsonb_pretty}: four spaces a level, an empty container's brackets on two lines. */
    static String pretty(Jsonb v) {
        StringBuilder b = new StringBuilder();
        pretty(b, v, 0);
        return b.toString();
    }

    private static void pretty(StringBuilder b, Jsonb v, int depth) {
        switch (v) {
            case Arr a -> {
                b.append('[');
                for (int i = 0; i < a.elements().size(); i++) {
                    if (i > 0) b.append(',');
                    newline(b, depth + 1);
                    pretty(b, a.elements().get(i), depth + 1);
                }
                newline(b, depth);
                b.append(']');
            }
            case Obj o -> {
                b.append('{');
                for (int i = 0; i < o.size(); i++) {
                    if (i > 0) b.append(',');
                    newline(b, depth + 1);
                    Json.quote(b, o.keys().get(i));
                    b.append(": ");
                    pretty(b, o.values().get(i), depth + 1);
                }
                newline(b, depth);
                b.append('}');
            }
            default -> append(b, v);
        }
    }

    private static void newline(StringBuilder b, int depth) {
        b.append('\n').append("    ".repeat(depth));
    }
}
