package dev.tributary.propertytests.differential;

import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.DataType;
import dev.tributary.differential.KV;
import dev.tributary.differential.Reducer;
import dev.tributary.propertytests.differential.Harness.Output;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Every operator of the differential layer, each as a dataflow fragment over {@code Collection<Long>}
 * and, next to it, the same operator on a plain multiset: the reference. Keys are small residues,
 * so they collide; the functions are fixed, since a property varies the data and the schedule.
 */
final class Operators {
    private Operators() {}

    static final DataType<Long> LONGS = DataType.longs();

    /** An operator of one collection. */
    enum Unary {
        MAP("map(d -> (3d + 1) mod 4)") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.map(d -> (3 * d + 1) % 4, LONGS));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.map(m, d -> (3 * d + 1) % 4);
            }
        },
        FILTER("filter(d mod 3 != 1)") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.filter(d -> d % 3 != 1));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.filter(m, d -> d % 3 != 1);
            }
        },
        EXPLODE("explode(d -> (d mod 3, d), (0, 1)), combined") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.explode((d, n, out) -> {
                    out.add(d % 3, n * d);
                    out.add(0L, n);
                }, LONGS, true));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                Map<Long, Long> out = new HashMap<>();
                m.forEach((d, n) -> {
                    Multisets.add(out, d % 3, n * d);
                    Multisets.add(out, 0L, n);
                });
                return out;
            }
        },
        FLAT_MAP("flatMap(d -> [d, d/2, d/2])") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.flatMap(d -> List.of(d, d / 2, d / 2), LONGS));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.flatMap(m, d -> List.of(d, d / 2, d / 2));
            }
        },
        NEGATE("negate") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.negate());
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.negate(m);
            }
        },
        CONCAT_SELF("c.concat(c.map(d -> d / 2))") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.concat(c.map(d -> d / 2, LONGS)));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.plus(m, Multisets.map(m, d -> d / 2));
            }
        },
        CONSOLIDATE("consolidate") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.consolidate());
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return m;
            }
        },
        ENTER_LEAVE("enter(iterative scope).leave()") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.enter(c.scope().iterative("x")).leave());
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return m;
            }
        },
        ARRANGE_BY_KEY("arrangeByKey(d mod 3, d / 3).asCollection()") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, Long> a = c.arrangeByKey(d -> d % 3, LONGS, d -> d / 3, LONGS);
                return Harness.output(a.asCollection(), a, KV::of);
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.map(m, d -> KV.of(d % 3, d / 3));
            }
        },
        ARRANGE_BY_SELF("arrangeBySelf().flatten((d, unit) -> 10d)") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, ?> a = c.arrangeBySelf();
                return Harness.output(a.flatten((d, u) -> 10 * d, LONGS), a, (d, u) -> 10 * d);
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.map(m, d -> 10 * d);
            }
        },
        SELF_JOIN("a = arrangeByKey(d mod 2, d); a.join(a, (k, x, y) -> 10x + y)") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, Long> a = c.arrangeByKey(d -> d % 2, LONGS, d -> d, LONGS);
                return Harness.output(a.join(a, (k, x, y) -> 10 * x + y, LONGS));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.join(m, d -> d % 2, m, d -> d % 2, (x, y) -> 10 * x + y);
            }
        },
        COUNT("count") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.count());
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.count(m);
            }
        },
        COUNT_BY_KEY("arrangeByKey(d mod 3, d).count()") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, Long> a = c.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS).count();
                return Harness.output(a.asCollection(), a, KV::of);
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.count(Multisets.map(m, d -> d % 3));
            }
        },
        DISTINCT("distinct") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.distinct());
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.distinct(m);
            }
        },
        THRESHOLD("threshold(n -> n mod 3 - (n < 0 ? 1 : 0))") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.threshold(Unary::thresholdOf));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return Multisets.threshold(m, Unary::thresholdOf);
            }
        },
        REDUCE("arrangeByKey(d mod 3, d).reduce(custom)") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, Long> a = c.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS).reduce("custom", CUSTOM, LONGS);
                return Harness.output(a.asCollection(), a, KV::of);
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                Map<KV<Long, Long>, Long> out = new HashMap<>();
                Multisets.group(m, d -> d % 3).forEach((k, vals) -> custom(vals, (v, n) -> Multisets.add(out, KV.of(k, v), n)));
                return out;
            }
        },
        REDUCE_KEYED_STRINGS("arrangeByKey(d mod 3, \"v\" + d).reduce(key + size + first + last, strings)") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, String> a = c.arrangeByKey(d -> d % 3, LONGS, d -> "v" + d, DataType.strings()).reduce("keyed", KEYED, DataType.strings());
                return Harness.output(a.asCollection(), a, KV::of);
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                Map<KV<Long, String>, Long> out = new HashMap<>();
                Map<Long, TreeMap<String, Long>> groups = new TreeMap<>();
                m.forEach((d, n) -> {
                    if (n != 0) groups.computeIfAbsent(d % 3, k -> new TreeMap<>()).merge("v" + d, n, Long::sum);
                });
                groups.forEach((k, vals) -> keyed(k, vals, (v, n) -> Multisets.add(out, KV.of(k, v), n)));
                return out;
            }
        },
        SUM("arrangeByKey(d mod 3, d).sum(v -> v - 2)") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS).sum(v -> v - 2));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                Map<KV<Long, Long>, Long> out = new HashMap<>();
                Multisets.group(m, d -> d % 3).forEach((k, vals) -> {
                    long s = 0;
                    for (var e : vals.entrySet()) s += (e.getKey() - 2) * e.getValue();
                    out.put(KV.of(k, s), 1L);
                });
                return out;
            }
        },
        MIN("arrangeByKey(d mod 3, d).min()") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS).min());
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return extreme(m, false);
            }
        },
        MAX("arrangeByKey(d mod 3, d).max()") {
            @Override
            Output<?> render(Collection<Long> c) {
                return Harness.output(c.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS).max());
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return extreme(m, true);
            }
        },
        TOP_K("arrangeByKey(d mod 3, d).topK(1, 2)") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, Long> a = c.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS).topK("topk", 1, 2);
                return Harness.output(a.asCollection(), a, KV::of);
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return firstUnits(m, 1, 2);
            }
        },
        TOP_K_ALL_BUT_FIRST("arrangeByKey(d mod 3, d).topK(2, no limit)") {
            @Override
            Output<?> render(Collection<Long> c) {
                Arrangement<Long, Long> a = c.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS).topK("rest", 2, -1);
                return Harness.output(a.asCollection(), a, KV::of);
            }

            @Override
            Map<?, Long> model(Map<Long, Long> m) {
                return firstUnits(m, 2, Long.MAX_VALUE);
            }
        };

        final String description;

        Unary(String description) {
            this.description = description;
        }

        /** The operator applied to {@code c}, in whatever scope {@code c} lives. */
        abstract Output<?> render(Collection<Long> c);

        /** The operator applied to a multiset. */
        abstract Map<?, Long> model(Map<Long, Long> m);

        static long thresholdOf(long n) {
            return Math.floorMod(n, 3) - (n < 0 ? 1 : 0);
        }

        /** Per key {@code d mod 3}, its least (or greatest) datum with a positive count. */
        static Map<?, Long> extreme(Map<Long, Long> m, boolean greatest) {
            Map<KV<Long, Long>, Long> out = new HashMap<>();
            Multisets.group(m, d -> d % 3).forEach((k, vals) -> {
                List<Long> positive = new ArrayList<>();
                vals.forEach((v, n) -> {
                    if (n > 0) positive.add(v);
                });
                if (!positive.isEmpty()) out.put(KV.of(k, greatest ? positive.getLast() : positive.getFirst()), 1L);
            });
            return out;
        }

        /**
         * Per key {@code d mod 3}, its data in ascending order counted in units (those with a
         * positive count): {@code offset} units skipped, then at most {@code limit} taken.
         */
        static Map<?, Long> firstUnits(Map<Long, Long> m, long offset, long limit) {
            Map<KV<Long, Long>, Long> out = new HashMap<>();
            Multisets.group(m, d -> d % 3).forEach((k, vals) -> {
                long skip = offset;
                long take = limit;
                for (Map.Entry<Long, Long> e : new TreeMap<>(vals).entrySet()) {
                    long n = e.getValue();
                    if (n <= 0 || take == 0) continue;
                    long skipped = Math.min(skip, n);
                    skip -= skipped;
                    long taken = Math.min(n - skipped, take);
                    if (taken > 0) {
                        out.put(KV.of(k, e.getKey()), taken);
                        take -= taken;
                    }
                }
            });
            return out;
        }

        @Override
        public String toString() {
            return description;
        }
    }

    /**
     * The custom reduction: for a key's values (ascending, each with its non-zero count), the
     * weighted sum mod 5 once, and, when there are several values, {@code 100 + how many} with the
     * first value's count, which may be negative.
     */
    static void custom(TreeMap<Long, Long> values, BiConsumer<Long, Long> out) {
        long s = 0;
        for (var e : values.entrySet()) s += e.getKey() * e.getValue();
        out.accept(Math.floorMod(s, 5L), 1L);
        if (values.size() > 1) out.accept(100L + values.size(), values.firstEntry().getValue());
    }

    static final Reducer<Long, Long, Long> CUSTOM = (key, in, out) -> {
        TreeMap<Long, Long> values = new TreeMap<>();
        for (int i = 0; i < in.size(); i++) values.put(in.value(i), in.count(i));
        custom(values, out::add);
    };

    /**
     * A reduction that reads its key and its (string) values, each more than once: for a key's
     * values (ascending), {@code key:size:first:last} with the first value's count, and the first
     * value again with count 1 (so two outputs may be equal and must be summed).
     */
    static void keyed(long key, TreeMap<String, Long> values, BiConsumer<String, Long> out) {
        out.accept(key + ":" + values.size() + ":" + values.firstKey() + ":" + values.lastKey(), values.firstEntry().getValue());
        out.accept(values.firstKey(), 1L);
        out.accept(values.firstKey(), 1L);
    }

    static final Reducer<Long, String, String> KEYED = (key, in, out) -> {
        TreeMap<String, Long> values = new TreeMap<>();
        for (int i = 0; i < in.size(); i++) values.put(in.value(i), in.count(i));
        if (!in.value(0).equals(values.firstKey()) || !in.value(in.size() - 1).equals(values.lastKey())) {
            throw new AssertionError("reduce input not in value order: " + values);
        }
        keyed(key, values, out::add);
    };

    /** An operator of two collections. */
    enum Binary {
        CONCAT("a.concat(b)") {
            @Override
            Output<?> render(Collection<Long> a, Collection<Long> b) {
                return Harness.output(a.concat(b));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> a, Map<Long, Long> b) {
                return Multisets.plus(a, b);
            }
        },
        JOIN("a.arrangeByKey(d mod 3, d).join(b.arrangeByKey(d mod 3, d), (k, x, y) -> 10x + y)") {
            @Override
            Output<?> render(Collection<Long> a, Collection<Long> b) {
                Arrangement<Long, Long> left = a.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS);
                Arrangement<Long, Long> right = b.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS);
                return Harness.output(left.join(right, (k, x, y) -> 10 * x + y, LONGS));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> a, Map<Long, Long> b) {
                return Multisets.join(a, d -> d % 3, b, d -> d % 3, (x, y) -> 10 * x + y);
            }
        },
        JOIN_LONGS("a.arrangeByKey(d mod 3, d).joinLongs(b.arrangeByKey(d mod 3, d), (k, x, y) -> 10x + y + k)") {
            @Override
            Output<?> render(Collection<Long> a, Collection<Long> b) {
                Arrangement<Long, Long> left = a.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS);
                Arrangement<Long, Long> right = b.arrangeByKey(d -> d % 3, LONGS, d -> d, LONGS);
                return Harness.output(left.joinLongs(right, (k, x, y) -> 10 * x + y + k));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> a, Map<Long, Long> b) {
                return Multisets.join(a, d -> d % 3, b, d -> d % 3, (x, y) -> 10 * x + y + x % 3);
            }
        },
        SEMIJOIN("a.semijoin(b, d -> d mod 4)") {
            @Override
            Output<?> render(Collection<Long> a, Collection<Long> b) {
                return Harness.output(a.semijoin(b, d -> d % 4));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> a, Map<Long, Long> b) {
                Map<Long, Long> out = new HashMap<>();
                a.forEach((d, n) -> Multisets.add(out, d, n * b.getOrDefault(d % 4, 0L)));
                return out;
            }
        },
        ANTIJOIN("a.antijoin(b.distinct(), d -> d mod 4)") {
            @Override
            Output<?> render(Collection<Long> a, Collection<Long> b) {
                return Harness.output(a.antijoin(b.distinct(), d -> d % 4));
            }

            @Override
            Map<?, Long> model(Map<Long, Long> a, Map<Long, Long> b) {
                Map<Long, Long> keys = Multisets.distinct(b);
                return Multisets.filter(a, d -> !keys.containsKey(d % 4));
            }
        };

        final String description;

        Binary(String description) {
            this.description = description;
        }

        abstract Output<?> render(Collection<Long> a, Collection<Long> b);

        abstract Map<?, Long> model(Map<Long, Long> a, Map<Long, Long> b);

        @Override
        public String toString() {
            return description;
        }
    }
}
