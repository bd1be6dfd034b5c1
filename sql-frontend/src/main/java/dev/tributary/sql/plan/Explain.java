package dev.tributary.sql.plan;

import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.types.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * A plan as indented text, one operator per line, columns written {@code #0, #1, ...}: what
 * EXPLAIN prints. Reads of stored collections name the table, materialized view or index, and
 * every operator that keeps state says which arrangement it builds.
 */
public final class Explain {
    private Explain() {}

    public static String explain(Plan plan, LongFunction<String> stored) {
        return explain(plan, stored, p -> null);
    }

    /**
     * {@link #explain(Plan, LongFunction)} with {@code annotation}'s text for a node (null: none)
     * at the end of its line: what EXPLAIN ANALYZE measured for it.
     */
    public static String explain(Plan plan, LongFunction<String> stored, Function<Plan, String> annotation) {
        Out out = new Out(annotation);
        write(plan, 0, stored, out);
        return out.text.toString().stripTrailing();
    }

    /**
     * One node of an explained plan: the plan node, its line, the further lines it printed
     * (a Let's "in", a delta join's paths), and the nodes of its inputs.
     */
    public record Node(Plan plan, String line, List<String> notes, List<Node> inputs) {
        public Node {
            notes = List.copyOf(notes);
            inputs = List.copyOf(inputs);
        }
    }

    /** The plan as a tree of {@link Node}s, each with the line EXPLAIN prints for it. */
    public static Node tree(Plan plan, LongFunction<String> stored) {
        Out out = new Out(p -> null);
        write(plan, 0, stored, out);
        List<Node> top = out.root.build();
        return top.get(0);
    }

    /**
     * The plan as EXPLAIN (FORMAT JSON) gives it: an array of one object whose {@code "Plan"} is
     * the root node; each node has its {@code "Node Type"} (the first word of its line), the rest
     * of the line as {@code "Details"}, further lines as {@code "Notes"}, what {@code actual}
     * adds for it (EXPLAIN ANALYZE's figures; null: nothing) and its inputs as {@code "Plans"};
     * {@code extra}'s entries follow {@code "Plan"} (an execution time, how the query was answered).
     */
    public static String json(Plan plan, LongFunction<String> stored, Function<Plan, Map<String, Object>> actual, Map<String, Object> extra) {
        Map<String, Object> top = new LinkedHashMap<>();
        top.put("Plan", jsonNode(tree(plan, stored), actual));
        top.putAll(extra);
        return jsonDocument(List.of(top));
    }

    /** {@code document} (maps, lists, strings, numbers, booleans) as indented JSON, laid out as PostgreSQL lays out EXPLAIN's. */
    public static String jsonDocument(Object document) {
        StringBuilder b = new StringBuilder();
        writeJson(document, 0, b);
        return b.toString();
    }

    private static Map<String, Object> jsonNode(Node n, Function<Plan, Map<String, Object>> actual) {
        Map<String, Object> o = new LinkedHashMap<>();
        int space = n.line().indexOf(' ');
        o.put("Node Type", space < 0 ? n.line() : n.line().substring(0, space));
        if (space >= 0) o.put("Details", n.line().substring(space + 1));
        if (!n.notes().isEmpty()) o.put("Notes", n.notes());
        Map<String, Object> measured = actual.apply(n.plan());
        if (measured != null) o.putAll(measured);
        if (!n.inputs().isEmpty()) {
            List<Object> inputs = new ArrayList<>();
            for (Node i : n.inputs()) inputs.add(jsonNode(i, actual));
            o.put("Plans", inputs);
        }
        return o;
    }

    /** {@code v} (a map, list, string, number or boolean) as indented JSON, as PostgreSQL lays EXPLAIN's out. */
    private static void writeJson(Object v, int depth, StringBuilder b) {
        switch (v) {
            case Map<?, ?> m -> {
                b.append("{");
                int i = 0;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    b.append(i++ == 0 ? "\n" : ",\n").append("  ".repeat(depth + 1));
                    Json.quote(b, e.getKey().toString());
                    b.append(": ");
                    writeJson(e.getValue(), depth + 1, b);
                }
                b.append("\n").append("  ".repeat(depth)).append("}");
            }
            case List<?> l -> {
                b.append("[");
                for (int i = 0; i < l.size(); i++) {
                    b.append(i == 0 ? "\n" : ",\n").append("  ".repeat(depth + 1));
                    writeJson(l.get(i), depth + 1, b);
                }
                b.append("\n").append("  ".repeat(depth)).append("]");
            }
            case String str -> Json.quote(b, str);
            case Number n -> b.append(n);
            case Boolean x -> b.append(x);
            default -> throw new IllegalArgumentException("not a JSON value: " + v);
        }
    }

    /**
     * Where {@link #write} puts a plan: its text, and the tree of nodes (each node's first line is
     * its own; any later line it prints is a note).
     */
    private static final class Out {
        final StringBuilder text = new StringBuilder();
        final Function<Plan, String> annotation;
        final Building root = new Building(null);
        final java.util.ArrayDeque<Building> open = new java.util.ArrayDeque<>();

        Out(Function<Plan, String> annotation) {
            this.annotation = annotation;
            open.push(root);
        }

        void enter(Plan plan) {
            Building n = new Building(plan);
            open.peek().inputs.add(n);
            open.push(n);
        }

        void exit() {
            open.pop();
        }

        void line(int depth, String line) {
            Building n = open.peek();
            String shown = line;
            if (n.line == null) {
                n.line = line;
                String a = annotation.apply(n.plan);
                if (a != null) shown = line + " " + a;
            } else {
                n.notes.add(line);
            }
            text.append("  ".repeat(depth)).append(shown).append('\n');
        }
    }

    /** A node being written. One that printed no line of its own (a delta join shown as its fallback) gives way to its inputs. */
    private static final class Building {
        final Plan plan;
        String line;
        final List<String> notes = new ArrayList<>();
        final List<Building> inputs = new ArrayList<>();

        Building(Plan plan) {
            this.plan = plan;
        }

        List<Node> build() {
            List<Node> in = new ArrayList<>();
            for (Building b : inputs) in.addAll(b.build());
            return line == null ? in : List.of(new Node(plan, line, notes, in));
        }
    }

    private static List<String> columns(Plan p) {
        List<String> c = new ArrayList<>();
        for (int i = 0; i < p.arity(); i++) c.add("#" + i);
        return c;
    }

    private static String exprs(List<ScalarExpr> exprs, Plan input) {
        List<String> cols = columns(input);
        List<String> out = new ArrayList<>();
        for (ScalarExpr e : exprs) out.add(e.describe(cols));
        return String.join(", ", out);
    }

    private static String cols(List<Integer> cols) {
        List<String> out = new ArrayList<>();
        for (int c : cols) out.add("#" + c);
        return String.join(", ", out);
    }

    private static void line(Out b, int depth, String text) {
        b.line(depth, text);
    }

    private static void write(Plan plan, int d, LongFunction<String> stored, Out b) {
        b.enter(plan);
        writeNode(plan, d, stored, b);
        b.exit();
    }

    private static void writeNode(Plan plan, int d, LongFunction<String> stored, Out b) {
        switch (plan) {
            case Plan.Get g -> line(b, d, "Get " + stored.apply(g.id()) + " (its arrangement, shared)");
            case Plan.IndexedGet g -> line(b, d, "Get " + stored.apply(g.source()) + " through index " + g.indexName()
                    + " on " + cols(g.key()) + " (the join uses the index's arrangement, no new one)");
            case Plan.Constant c -> line(b, d, "Constant " + c.rows().size() + " row" + (c.rows().size() == 1 ? "" : "s"));
            case Plan.Filter f -> {
                line(b, d, "Filter " + exprs(f.predicates(), f.input()));
                write(f.input(), d + 1, stored, b);
            }
            case Plan.Map m -> {
                line(b, d, "Map " + exprs(m.exprs(), m.input()));
                write(m.input(), d + 1, stored, b);
            }
            case Plan.Window w -> {
                line(b, d, "Window " + w.function().describe() + " partition " + cols(w.partition())
                        + " order " + cols(w.order().stream().map(Plan.SortKey::column).toList()));
                write(w.input(), d + 1, stored, b);
            }
            case Plan.Sessions s -> {
                line(b, d, "Sessions partition " + cols(s.partition()) + " time #" + s.time() + " gap "
                        + (s.input().types().get(s.time()).isInteger() ? Long.toString(s.gap())
                                : "'" + dev.tributary.sql.types.Values.toText(new dev.tributary.sql.types.Interval(0, 0, s.gap()), dev.tributary.sql.types.SqlType.INTERVAL) + "'"));
                write(s.input(), d + 1, stored, b);
            }
            case Plan.FlatMap m -> {
                line(b, d, "FlatMap " + m.function().name() + "(" + exprs(m.function().args(), m.input()) + ")");
                write(m.input(), d + 1, stored, b);
            }
            case Plan.Project p -> {
                line(b, d, "Project " + cols(p.columns()));
                write(p.input(), d + 1, stored, b);
            }
            case Plan.Join j -> {
                boolean li = j.left() instanceof Plan.IndexedGet g && g.key().equals(j.leftKey());
                boolean ri = j.right() instanceof Plan.IndexedGet g && g.key().equals(j.rightKey());
                String arranges = li && ri ? "both inputs are indexes, nothing new is arranged"
                        : li ? "arranges the right input by key" : ri ? "arranges the left input by key" : "arranges both inputs by key";
                line(b, d, j.leftKey().isEmpty() ? "CrossJoin (arranges both inputs by the empty key)"
                        : "Join on left " + cols(j.leftKey()) + " = right " + cols(j.rightKey()) + " (" + arranges + ")");
                write(j.left(), d + 1, stored, b);
                write(j.right(), d + 1, stored, b);
            }
            case Plan.Reduce r -> {
                List<String> aggs = new ArrayList<>();
                for (AggregateCall a : r.aggregates()) {
                    aggs.add(a.name() + "(" + (a.distinct() ? "DISTINCT " : "") + cols(a.args()) + ")" + (a.filter() >= 0 ? " FILTER #" + a.filter() : ""));
                }
                boolean extremes = r.aggregates().stream().anyMatch(a -> a.function().accumulation() == null
                        && (a.function().name().equals("min") || a.function().name().equals("max"))) && Plans.insertsOnly(r.input());
                line(b, d, "Reduce group by [" + cols(r.groupKey()) + "] aggregates [" + String.join(", ", aggs) + "] (arranges input by group"
                        + (extremes ? "; a min or max keeps each group's extreme only: its input only grows)" : ")"));
                write(r.input(), d + 1, stored, b);
            }
            case Plan.PaneAggregate x -> {
                java.util.function.LongFunction<String> shown = units -> windowUnits(x.input(), x.time(), units);
                long pane = java.math.BigInteger.valueOf(x.slide()).gcd(java.math.BigInteger.valueOf(x.size())).longValue();
                line(b, d, "PaneAggregate " + (x.cumulative() ? "cumulating " : "") + "windows of #" + x.time() + " size " + shown.apply(x.size())
                        + (x.cumulative() ? " growing by " : " every ") + shown.apply(x.slide())
                        + (x.offset() != 0 ? " offset " + shown.apply(x.offset()) : "") + " on panes of " + shown.apply(pane) + windowGroups(x.groupKey(), x.aggregates())
                        + " (each window once, when the watermark passes its end; a pane freed when its last window closes)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.SessionAggregate x -> {
                line(b, d, "SessionAggregate sessions of #" + x.time() + " gap " + windowUnits(x.input(), x.time(), x.gap()) + " partition by ["
                        + cols(x.partition()) + "]" + windowGroups(x.groupKey(), x.aggregates())
                        + " (each session once, when the watermark passes its end, and freed then)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.Distinct x -> {
                line(b, d, "Distinct (arranges input)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.AsofJoin a -> {
                line(b, d, "Asof" + (a.leftOuter() ? " Left" : "") + "Join on left " + cols(a.leftKey()) + " = right " + cols(a.rightKey())
                        + ", nearest with left #" + a.leftTime() + " " + a.op() + " right #" + a.rightTime() + " (arranges both inputs by key)");
                write(a.left(), d + 1, stored, b);
                write(a.right(), d + 1, stored, b);
            }
            case Plan.TimeColumn x -> {
                line(b, d, "TimeColumn (each row with its time: a stream's first rows come first)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.CommitTime x -> {
                line(b, d, "CommitTime (each row with the time it committed at: PROCTIME())");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.SystemTime x -> {
                line(b, d, "SystemTime (each result at the system time the streams' watermarks passed it)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.Lookup l -> {
                line(b, d, "Lookup on " + cols(l.streamKey()) + " = " + cols(l.tableKey())
                        + " as each row's commit finds the table (a half join: the stream is not stored; the table side is arranged)");
                write(l.stream(), d + 1, stored, b);
                write(l.table(), d + 1, stored, b);
            }
            case Plan.AsOfLookup a -> {
                line(b, d, (a.left() ? "Left " : "") + "AsOfLookup on " + cols(a.outerKey()) + " = " + cols(a.dimensionKey()) + " at #" + a.time()
                        + (a.since() == Plan.AsOfLookup.READABLE ? " since its history is readable" : " since " + a.since()) + " (half-join: each row waits for its time, reads the second input's history once)");
                write(a.outer(), d + 1, stored, b);
                write(a.dimension(), d + 1, stored, b);
            }
            case Plan.EventTime e -> {
                line(b, d, "EventTime on #" + e.timeColumn() + " watermark " + exprs(List.of(e.watermark()), e.input()) + " of the largest seen"
                        + (e.fromNow() ? ", from now" : "") + " (rows below the watermark when they commit are dropped and counted)");
                write(e.input(), d + 1, stored, b);
            }
            case Plan.Delay x -> {
                line(b, d, "Delay to #" + x.column() + (x.expire() ? " and expire there (a closed window's state is freed behind the watermark)"
                        : " (each window's rows once, final, when the watermark passes its end)"));
                write(x.input(), d + 1, stored, b);
            }
            case Plan.Expire x -> {
                line(b, d, "Expire at #" + x.column() + " + " + x.after() + " (freed once the watermark passes the last time it can match)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.Inserts x -> {
                line(b, d, "Inserts (the retractions below only free state)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.AtClose x -> {
                line(b, d, "AtClose #" + x.column() + " (each window's rows once, when the watermark passes its end)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.TemporalFilter t -> {
                line(b, d, "TemporalFilter present while now() >= " + cols(t.lower()) + " and now() < " + cols(t.upper())
                        + " (inserted and retracted as time passes)");
                write(t.input(), d + 1, stored, b);
            }
            case Plan.RepeatRow r -> {
                line(b, d, "RepeatRow #" + r.count() + " times");
                write(r.input(), d + 1, stored, b);
            }
            case Plan.Changes c -> {
                line(b, d, "Changes since " + c.since() + " (each update as a row with change_time and change_diff)");
                write(c.input(), d + 1, stored, b);
            }
            case Plan.FirstRows x -> {
                line(b, d, "FirstRows group by [" + cols(x.groupKey()) + "]" + (x.limit() >= 0 ? " limit " + x.limit() : "") + (x.offset() > 0 ? " offset " + x.offset() : "")
                        + " (the stream's first rows by time, never retracted: a count per group, not the rows)");
                write(x.input(), d + 1, stored, b);
            }
            case Plan.TopK t -> {
                List<String> keys = new ArrayList<>();
                for (Plan.SortKey k : t.order()) keys.add("#" + k.column() + (k.descending() ? " DESC" : "") + (k.nullsFirst() ? " NULLS FIRST" : ""));
                line(b, d, "TopK group by [" + cols(t.groupKey()) + "] order by [" + String.join(", ", keys) + "]"
                        + (t.limit() >= 0 ? " limit " + t.limit() : "") + (t.offset() > 0 ? " offset " + t.offset() : "")
                        + (Plans.insertsOnly(t.input()) ? " (keeps each group's top rows only: its input only grows)" : " (arranges input by group)"));
                write(t.input(), d + 1, stored, b);
            }
            case Plan.Union u -> {
                line(b, d, "Union");
                for (Plan p : u.inputs()) write(p, d + 1, stored, b);
            }
            case Plan.Negate n -> {
                line(b, d, "Negate");
                write(n.input(), d + 1, stored, b);
            }
            case Plan.Threshold t -> {
                line(b, d, "Threshold (arranges input)");
                write(t.input(), d + 1, stored, b);
            }
            case Plan.Let l -> {
                line(b, d, "Let l" + l.id() + " =");
                write(l.value(), d + 2, stored, b);
                line(b, d, "in");
                write(l.body(), d + 1, stored, b);
            }
            case Plan.LetRec r -> {
                line(b, d, "LetRec (iterates until no binding changes, at most " + r.limit() + " rounds" + (r.errorAtLimit() ? "" : ", then returns what it has") + ")");
                for (Plan.Binding x : r.bindings()) {
                    if (x.initial() != null) {
                        line(b, d + 1, "l" + x.id() + " (" + x.name() + ") starts as");
                        write(x.initial(), d + 2, stored, b);
                        line(b, d + 1, "and then is");
                    } else {
                        line(b, d + 1, "l" + x.id() + " (" + x.name() + ") =");
                    }
                    write(x.value(), d + 2, stored, b);
                }
                line(b, d, "in");
                write(r.body(), d + 1, stored, b);
            }
            case Plan.LetRef r -> line(b, d, "Ref l" + r.id());
            case Plan.DeltaJoin j -> {
                if (j.paths().isEmpty()) {
                    write(j.fallback(), d, stored, b);
                    break;
                }
                line(b, d, "DeltaJoin of " + j.inputs().size() + " inputs (no intermediate arrangements)"
                        + (j.residual().isEmpty() ? "" : " then Filter " + exprs(j.residual(), j)));
                for (Plan.DeltaPath p : j.paths()) {
                    StringBuilder path = new StringBuilder("changes of input " + p.start());
                    for (Plan.DeltaStep s : p.steps()) path.append(" -> lookup input ").append(s.input()).append(" in index ").append(s.indexName());
                    line(b, d + 1, path.toString());
                }
                for (int i = 0; i < j.inputs().size(); i++) {
                    line(b, d + 1, "input " + i + ": " + stored.apply(j.inputs().get(i).id())
                            + (j.filters().get(i).isEmpty() ? "" : " filtered by " + exprs(j.filters().get(i), j.inputs().get(i))));
                }
            }
        }
    }

    /** A window's size in its time column's units, as written: an interval, or an integer. */
    private static String windowUnits(Plan input, int time, long units) {
        return input.types().get(time).isInteger() ? Long.toString(units)
                : "'" + dev.tributary.sql.types.Values.toText(new dev.tributary.sql.types.Interval(0, 0, units), dev.tributary.sql.types.SqlType.INTERVAL) + "'";
    }

    /** " group by [...] aggregates [...]" of a window aggregate. */
    private static String windowGroups(List<Integer> groupKey, List<AggregateCall> aggregates) {
        List<String> aggs = new ArrayList<>();
        for (AggregateCall a : aggregates) aggs.add(a.name() + "(" + cols(a.args()) + ")" + (a.filter() >= 0 ? " FILTER #" + a.filter() : ""));
        List<String> keys = new ArrayList<>();
        for (int k : groupKey) keys.add(k == Plan.PaneAggregate.WINDOW_START ? "window_start" : k == Plan.PaneAggregate.WINDOW_END ? "window_end" : "#" + k);
        return " group by [" + String.join(", ", keys) + "] aggregates [" + String.join(", ", aggs) + "]";
    }
}
