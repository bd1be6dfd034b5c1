package dev.tributary.sql.types;

import java.math.BigDecimal;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Random jsonb documents for property tests: small pools of keys, strings and numbers (so that
 * documents often share keys, tie, or differ only in a number's scale: 1, 1.0, 1.00) nested a few
 * levels, and a model of PostgreSQL's jsonb order written independently of {@link Jsonb#compareTo}.
 */
public final class JsonbDocuments {
    private JsonbDocuments() {}

    public static Arbitrary<Jsonb> documents() {
        return value(3);
    }

    private static Arbitrary<Jsonb> value(int depth) {
        Arbitrary<Jsonb> scalars = Arbitraries.oneOf(
                Arbitraries.just(Jsonb.Null.NULL),
                Arbitraries.of(true, false).map(Jsonb::of),
                Arbitraries.of("0", "1", "1.0", "1.00", "-1", "-0.5", "2.50", "1e3", "12345678901234567890.5", "0.000")
                        .map(s -> Jsonb.parse(s)),
                Arbitraries.of("", "a", "b", "ab", "é", "\u0001", "\"", "\\", "😀", "a b").map(Jsonb::of));
        if (depth == 0) return scalars;
        Arbitrary<Jsonb> arrays = value(depth - 1).list().ofMaxSize(3).map(l -> new Jsonb.Arr(l));
        Arbitrary<Jsonb> objects = Combinators.combine(Arbitraries.of("a", "b", "aa", "é", "", "k").list().ofMaxSize(3),
                value(depth - 1).list().ofSize(3)).as((keys, values) -> Jsonb.Obj.of(keys, values.subList(0, keys.size())));
        return Arbitraries.frequencyOf(Tuple.of(3, scalars), Tuple.of(1, arrays), Tuple.of(1, objects));
    }

    /**
     * PostgreSQL's jsonb order (top-level pseudo-array included), numbers of equal value then
     * ordered by their scale when {@code byScale} (as a row's encoding orders them).
     */
    public static int modelCompare(Jsonb a, Jsonb b, boolean byScale) {
        int ta = topRank(a), tb = topRank(b);
        if (ta != tb) return Integer.compare(ta, tb);
        return nested(a, b, byScale);
    }

    /** Empty array, scalars, non-empty arrays, objects: PostgreSQL's top-level order of kinds. */
    private static int topRank(Jsonb v) {
        if (v instanceof Jsonb.Arr a) return a.elements().isEmpty() ? 0 : 2;
        return v instanceof Jsonb.Obj ? 3 : 1;
    }

    private static int rank(Jsonb v) {
        return List.of("null", "string", "number", "boolean", "array", "object").indexOf(v.typeName());
    }

    private static int nested(Jsonb a, Jsonb b, boolean byScale) {
        if (rank(a) != rank(b)) return Integer.compare(rank(a), rank(b));
        if (a instanceof Jsonb.Num x) {
            BigDecimal y = ((Jsonb.Num) b).value();
            int c = x.value().compareTo(y);
            return c != 0 || !byScale ? c : Integer.compare(x.value().scale(), y.scale());
        }
        if (a instanceof Jsonb.Str x) return java.util.Arrays.compare(x.value().codePoints().toArray(), ((Jsonb.Str) b).value().codePoints().toArray());
        if (a instanceof Jsonb.Bool x) return Boolean.compare(x.value(), ((Jsonb.Bool) b).value());
        if (a instanceof Jsonb.Arr x) {
            List<Jsonb> y = ((Jsonb.Arr) b).elements();
            if (x.elements().size() != y.size()) return Integer.compare(x.elements().size(), y.size());
            for (int i = 0; i < y.size(); i++) {
                int c = nested(x.elements().get(i), y.get(i), byScale);
                if (c != 0) return c;
            }
            return 0;
        }
        if (a instanceof Jsonb.Obj x) {
            Jsonb.Obj y = (Jsonb.Obj) b;
            if (x.size() != y.size()) return Integer.compare(x.size(), y.size());
            for (int i = 0; i < y.size(); i++) {
                int c = java.util.Arrays.compare(x.keys().get(i).codePoints().toArray(), y.keys().get(i).codePoints().toArray());
                if (c == 0) c = nested(x.values().get(i), y.values().get(i), byScale);
                if (c != 0) return c;
            }
            return 0;
        }
        return 0;
    }
}
