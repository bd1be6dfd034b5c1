package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * A set-returning function call, as a table: for the values of {@code args} (evaluated over one
 * input row) it gives zero or more rows of {@code columnTypes}, lazily: a caller takes as many as
 * it has room for, so {@code generate_series(1, 1000000000)} is never a list of a billion rows. {@code generate_series(a, b[,
 * step])} over integers, {@code unnest(array)}, and {@code information_schema._pg_expandarray(array)}
 * (each element with its 1-based index, as columns {@code x} and {@code n}).
 *
 * <p>A NULL argument gives no rows, as PostgreSQL's strict set-returning functions do.
 */
public record TableFunction(String name, List<ScalarExpr> args, List<String> columnNames, List<SqlType> columnTypes, Rows rows, boolean strict) {
    public TableFunction(String name, List<ScalarExpr> args, List<String> columnNames, List<SqlType> columnTypes, Rows rows) {
        this(name, args, columnNames, columnTypes, rows, true);
    }

    public TableFunction {
        args = List.copyOf(args);
        columnNames = List.copyOf(columnNames);
        columnTypes = List.copyOf(columnTypes);
    }

    /**
     * The rows for one call's argument values (none of them null, for a strict function), made as
     * they are taken; an argument error (22023 for a zero step) is raised by {@code apply}.
     */
    public interface Rows {
        Iterator<Object[]> apply(Object[] args);
    }

    /** The rows of the call over {@code input} (the row its arguments read), made as they are taken. */
    public Iterator<Object[]> evaluate(Object[] input) {
        Object[] values = new Object[args.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = args.get(i).eval(input);
            if (values[i] == null && strict) return Collections.emptyIterator();
        }
        return rows.apply(values);
    }

    /** This call's rows each with its 1-based number appended, as a bigint column {@code ordinality} ({@code WITH ORDINALITY}). */
    public TableFunction withOrdinality() {
        List<String> names = new ArrayList<>(columnNames);
        names.add("ordinality");
        List<SqlType> types = new ArrayList<>(columnTypes);
        types.add(SqlType.BIGINT);
        int width = columnTypes.size();
        return new TableFunction(name, args, names, types, values -> {
            Iterator<Object[]> inner = rows.apply(values);
            return new Iterator<>() {
                private long n;

                @Override
                public boolean hasNext() {
                    return inner.hasNext();
                }

                @Override
                public Object[] next() {
                    Object[] row = Arrays.copyOf(inner.next(), width + 1);
                    row[width] = ++n;
                    return row;
                }
            };
        }, strict);
    }

    /** This call with its arguments replaced (after their columns were renumbered). */
    public TableFunction withArgs(List<ScalarExpr> newArgs) {
        return new TableFunction(name, newArgs, columnNames, columnTypes, rows, strict);
    }

    /**
     * Several calls run side by side, as PostgreSQL runs the set-returning functions of one select
     * list: row i holds each call's row i, or NULLs for a call that has fewer rows; as many rows
     * as the longest call gives.
     */
    public static TableFunction zip(List<TableFunction> calls) {
        if (calls.size() == 1) return calls.get(0);
        List<ScalarExpr> args = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<SqlType> types = new ArrayList<>();
        List<String> callNames = new ArrayList<>();
        for (TableFunction f : calls) {
            args.addAll(f.args());
            names.addAll(f.columnNames());
            types.addAll(f.columnTypes());
            callNames.add(f.name());
        }
        int width = types.size();
        return new TableFunction(String.join(" + ", callNames), args, names, types, x -> {
            List<Iterator<Object[]>> each = new ArrayList<>();
            int at = 0;
            for (TableFunction f : calls) {
                Object[] mine = Arrays.copyOfRange(x, at, at + f.args().size());
                at += f.args().size();
                boolean anyNull = false;
                for (Object v : mine) anyNull |= v == null;
                each.add(anyNull && f.strict() ? Collections.emptyIterator() : f.rows().apply(mine));
            }
            return new Iterator<>() {
                @Override
                public boolean hasNext() {
                    for (Iterator<Object[]> it : each) if (it.hasNext()) return true;
                    return false;
                }

                @Override
                public Object[] next() {
                    if (!hasNext()) throw new NoSuchElementException();
                    Object[] row = new Object[width];
                    int col = 0;
                    for (int k = 0; k < calls.size(); k++) {
                        int n = calls.get(k).columnTypes().size();
                        if (each.get(k).hasNext()) System.arraycopy(each.get(k).next(), 0, row, col, n);
                        col += n;
                    }
                    return row;
                }
            };
        }, false);
    }

    /** Whether {@code name} is a set-returning function {@link #resolve} knows. */
    public static boolean isSetReturning(String name) {
        return switch (name) {
            case "generate_series", "unnest", "_pg_expandarray", "generate_subscripts", "pg_partition_ancestors",
                    "jsonb_each", "jsonb_each_text", "jsonb_array_elements", "jsonb_array_elements_text", "jsonb_object_keys",
                    "json_each", "json_each_text", "json_array_elements", "json_array_elements_text", "json_object_keys" -> true;
            default -> false;
        };
    }

    /**
     * Whether the one column of {@code name}'s rows keeps its own name in FROM (an OUT parameter's,
     * as {@code value} of {@code jsonb_array_elements}) rather than taking the function's alias.
     */
    public static boolean namesItsColumn(String name) {
        return switch (name) {
            case "jsonb_array_elements", "jsonb_array_elements_text", "json_array_elements", "json_array_elements_text" -> true;
            default -> false;
        };
    }

    /** The call {@code name(args)}; 42883 when its arguments fit no signature. */
    public static TableFunction resolve(String name, List<ScalarExpr> args, int pos) {
        return switch (name) {
            case "generate_series" -> generateSeries(args, pos);
            case "unnest" -> {
                SqlType array = arrayArgument(name, args, pos);
                yield new TableFunction(name, args, List.of("unnest"), List.of(array.element()), x -> {
                    List<?> elements = (List<?>) x[0];
                    return indexed(elements.size(), i -> new Object[] {elements.get(i)});
                });
            }
            case "_pg_expandarray" -> {
                SqlType array = arrayArgument(name, args, pos);
                yield new TableFunction(name, args, List.of("x", "n"), List.of(array.element(), SqlType.INTEGER), x -> {
                    List<?> elements = (List<?>) x[0];
                    return indexed(elements.size(), i -> new Object[] {elements.get(i), (long) (i + 1)});
                });
            }
            case "generate_subscripts" -> {
                // generate_subscripts(array, dim [, reverse]): the subscripts of dimension dim
                if (args.size() < 2 || args.size() > 3 || !args.get(0).type().isArray()) throw noFunction(name, args, pos);
                int lower = args.get(0).type().isVector() ? 0 : 1;
                List<ScalarExpr> typed = new java.util.ArrayList<>(List.of(args.get(0), Casts.coerce(args.get(1), SqlType.INTEGER, CastContext.IMPLICIT, pos)));
                if (args.size() == 3) typed.add(Casts.coerce(args.get(2), SqlType.BOOLEAN, CastContext.IMPLICIT, pos));
                yield new TableFunction(name, typed, List.of("generate_subscripts"), List.of(SqlType.INTEGER), x -> {
                    List<?> elements = (List<?>) x[0];
                    long d = x[1] == null ? -1 : (Long) x[1] - 1;
                    boolean has = d >= 0 && d < dev.tributary.sql.types.ShapedArray.dimensions(elements);
                    int n = has ? dev.tributary.sql.types.ShapedArray.length(elements, (int) d) : 0;
                    long from = has ? dev.tributary.sql.types.ShapedArray.lower(elements, (int) d) - 1 + lower : 0;
                    boolean reverse = x.length > 2 && Boolean.TRUE.equals(x[2]);
                    return indexed(n, i -> new Object[] {from + (reverse ? n - 1 - i : i)});
                });
            }
            case "pg_partition_ancestors" -> {
                // no table is a partition: a relation's ancestors are itself (psql's \\d asks, by OID)
                if (args.size() != 1) throw noFunction(name, args, pos);
                ScalarExpr a = args.get(0);
                ScalarExpr oid = a.type().isInteger() ? Casts.coerce(a, SqlType.BIGINT, CastContext.IMPLICIT, pos)
                        : new ScalarExpr.Call("regclass", List.of(Casts.coerce(a, SqlType.TEXT, CastContext.EXPLICIT, pos)), SqlType.BIGINT, x -> {
                            String s = ((String) x[0]).strip();
                            if (s.isEmpty() || !s.chars().allMatch(Character::isDigit)) {
                                throw new SqlException("22P02", "invalid input syntax for type oid: \"" + s + "\"", 0, "Give the relation's OID.");
                            }
                            return Long.parseLong(s);
                        }, true);
                yield new TableFunction(name, List.of(oid), List.of("relid"), List.of(SqlType.BIGINT), x -> indexed(x[0] == null ? 0 : 1, i -> new Object[] {x[0]}));
            }
            case "jsonb_each", "jsonb_each_text", "jsonb_array_elements", "jsonb_array_elements_text", "jsonb_object_keys",
                    "json_each", "json_each_text", "json_array_elements", "json_array_elements_text", "json_object_keys" -> jsonMembers(name, args, pos);
            default -> throw new IllegalArgumentException("not a set-returning function: " + name);
        };
    }

    /**
     * The json and jsonb functions that take a document apart into rows: an object's members
     * ({@code _each}: key and value; {@code _object_keys}: keys) or an array's elements, values as
     * jsonb (json: as written) or, for {@code _text}, as {@code ->>} gives them; 22023 for a
     * document of another kind, with PostgreSQL's message.
     */
    private static TableFunction jsonMembers(String name, List<ScalarExpr> args, int pos) {
        boolean jsonb = name.startsWith("jsonb");
        SqlType doc = jsonb ? SqlType.JSONB : SqlType.JSON;
        if (args.size() != 1) throw noFunction(name, args, pos);
        SqlType.Kind k = args.get(0).type().kind();
        if (k != doc.kind() && k != SqlType.Kind.UNKNOWN) throw noFunction(name, args, pos);
        List<ScalarExpr> typed = List.of(Casts.coerce(args.get(0), doc, CastContext.IMPLICIT, pos));
        boolean text = name.endsWith("_text");
        SqlType valueType = text ? SqlType.TEXT : doc;
        boolean each = name.contains("_each");
        boolean keys = name.endsWith("_object_keys");
        List<String> names = each ? List.of("key", "value") : keys ? List.of(name) : List.of("value");
        List<SqlType> types = each ? List.of(SqlType.TEXT, valueType) : keys ? List.of(SqlType.TEXT) : List.of(valueType);
        return new TableFunction(name, typed, names, types, x -> {
            // each member as {key, value}: key null for an array's element
            List<Object[]> members = new ArrayList<>();
            String kind;
            if (jsonb) {
                dev.tributary.sql.types.Jsonb j = (dev.tributary.sql.types.Jsonb) x[0];
                kind = j.typeName();
                if (j instanceof dev.tributary.sql.types.Jsonb.Obj o) {
                    for (int i = 0; i < o.size(); i++) members.add(new Object[] {o.keys().get(i), o.values().get(i)});
                } else if (j instanceof dev.tributary.sql.types.Jsonb.Arr a) {
                    for (dev.tributary.sql.types.Jsonb e : a.elements()) members.add(new Object[] {null, e});
                }
            } else {
                kind = dev.tributary.sql.types.Json.typeOf((String) x[0]);
                List<String[]> m = dev.tributary.sql.types.Json.members((String) x[0]);
                if (m != null) for (String[] kv : m) members.add(new Object[] {kv[0], kv[1]});
            }
            boolean object = kind.equals("object"), array = kind.equals("array");
            if (each && !object) {
                throw new SqlException("22023", jsonb ? "cannot call " + name + " on a non-object"
                        : "cannot deconstruct " + (array ? "an array as an object" : "a scalar"));
            }
            if (keys && !object) throw new SqlException("22023", "cannot call " + name + " on " + (array ? "an array" : "a scalar"));
            if (!each && !keys && !array) {
                if (!jsonb) throw new SqlException("22023", "cannot call " + name + " on a " + (object ? "non-array" : "scalar"));
                throw new SqlException("22023", "cannot extract elements from " + (object ? "an object" : "a scalar"));
            }
            return indexed(members.size(), i -> {
                Object[] m = members.get(i);
                Object value = !text ? m[1] : jsonb ? dev.tributary.sql.types.JsonbOperations.text((dev.tributary.sql.types.Jsonb) m[1])
                        : dev.tributary.sql.types.Json.text((String) m[1]);
                return each ? new Object[] {m[0], value} : keys ? new Object[] {m[0]} : new Object[] {value};
            });
        });
    }

    private static boolean datetime(SqlType t) {
        return t.kind() == SqlType.Kind.TIMESTAMP || t.kind() == SqlType.Kind.TIMESTAMPTZ || t.kind() == SqlType.Kind.DATE;
    }

    /**
     * {@code generate_series(start, stop, step interval)} over timestamps (or timestamptz; dates
     * are taken as timestamptz, as PostgreSQL resolves them): start, start + step, ... while not
     * past stop (22023 for a zero step).
     */
    private static TableFunction timestampSeries(List<ScalarExpr> args, int pos) {
        boolean plain = args.get(0).type().kind() == SqlType.Kind.TIMESTAMP || args.get(1).type().kind() == SqlType.Kind.TIMESTAMP;
        boolean zoned = !plain || args.get(0).type().kind() == SqlType.Kind.TIMESTAMPTZ || args.get(1).type().kind() == SqlType.Kind.TIMESTAMPTZ;
        SqlType t = plain && !zoned ? SqlType.TIMESTAMP : SqlType.TIMESTAMPTZ;
        for (int i = 0; i < 2; i++) {
            SqlType a = args.get(i).type();
            if (!datetime(a) && a.kind() != SqlType.Kind.UNKNOWN) throw noFunction("generate_series", args, pos);
        }
        if (args.get(2).type().kind() != SqlType.Kind.INTERVAL && args.get(2).type().kind() != SqlType.Kind.UNKNOWN) throw noFunction("generate_series", args, pos);
        List<ScalarExpr> coerced = List.of(Casts.coerce(args.get(0), t, CastContext.IMPLICIT, pos), Casts.coerce(args.get(1), t, CastContext.IMPLICIT, pos),
                Casts.coerce(args.get(2), SqlType.INTERVAL, CastContext.IMPLICIT, pos));
        boolean tz = t.kind() == SqlType.Kind.TIMESTAMPTZ;
        return new TableFunction("generate_series", coerced, List.of("generate_series"), List.of(t), x -> {
            LocalDateTime from = tz ? LocalDateTime.ofInstant((Instant) x[0], ZoneOffset.UTC) : (LocalDateTime) x[0];
            LocalDateTime to = tz ? LocalDateTime.ofInstant((Instant) x[1], ZoneOffset.UTC) : (LocalDateTime) x[1];
            Interval step = (Interval) x[2];
            if (step.months() == 0 && step.days() == 0 && step.micros() == 0) throw new SqlException("22023", "step size cannot equal zero");
            // the direction of the step: its sign as a span (months count as 30 days, as PostgreSQL compares intervals)
            boolean up = ((long) step.months() * 30 + step.days()) * 86_400_000_000L + step.micros() > 0;
            boolean empty = up ? from.isAfter(to) : from.isBefore(to);
            if (!empty && (!InfiniteTimes.isFinite(from) || !InfiniteTimes.isFinite(to))) {
                // PostgreSQL would go on without end
                throw new SqlException("0A000", "generate_series with an infinite bound is not supported by Tributary");
            }
            return new Iterator<>() {
                private LocalDateTime next = from;

                @Override
                public boolean hasNext() {
                    return up ? !next.isAfter(to) : !next.isBefore(to);
                }

                @Override
                public Object[] next() {
                    if (!hasNext()) throw new NoSuchElementException();
                    LocalDateTime v = next;
                    // PostgreSQL adds the step to the value before, again and again
                    next = DateTimes.plus(next, step);
                    return new Object[] {tz ? v.toInstant(ZoneOffset.UTC) : v};
                }
            };
        });
    }

    private static SqlType arrayArgument(String name, List<ScalarExpr> args, int pos) {
        if (args.size() != 1 || !args.get(0).type().isArray()) throw noFunction(name, args, pos);
        return args.get(0).type();
    }

    private static TableFunction generateSeries(List<ScalarExpr> args, int pos) {
        if (args.size() != 2 && args.size() != 3) throw noFunction("generate_series", args, pos);
        if (args.size() == 3 && (args.get(2).type().kind() == SqlType.Kind.INTERVAL || datetime(args.get(0).type()) || datetime(args.get(1).type()))) {
            return timestampSeries(args, pos);
        }
        boolean big = false;
        for (ScalarExpr a : args) {
            if (!a.type().isInteger() && a.type().kind() != SqlType.Kind.UNKNOWN) throw noFunction("generate_series", args, pos);
            big |= a.type().kind() == SqlType.Kind.BIGINT;
        }
        SqlType t = big ? SqlType.BIGINT : SqlType.INTEGER;
        List<ScalarExpr> coerced = Types.coerceAll(args, t, pos);
        return new TableFunction("generate_series", coerced, List.of("generate_series"), List.of(t), x -> {
            long from = (Long) x[0], to = (Long) x[1], step = x.length > 2 ? (Long) x[2] : 1;
            if (step == 0) throw new SqlException("22023", "step size cannot equal zero");
            return new Iterator<>() {
                private long next = from;
                private boolean done = step > 0 ? from > to : from < to;

                @Override
                public boolean hasNext() {
                    return !done;
                }

                @Override
                public Object[] next() {
                    if (done) throw new NoSuchElementException();
                    long v = next;
                    // the last value may be the type's bound: the series ends there, it does not wrap
                    long following = v + step;
                    done = ((v ^ following) & (step ^ following)) < 0 || (step > 0 ? following > to : following < to);
                    next = following;
                    return new Object[] {v};
                }
            };
        });
    }

    /** Rows 0 to {@code size - 1}, each made by {@code row} when it is taken. */
    private static Iterator<Object[]> indexed(int size, java.util.function.IntFunction<Object[]> row) {
        return new Iterator<>() {
            private int i;

            @Override
            public boolean hasNext() {
                return i < size;
            }

            @Override
            public Object[] next() {
                if (i >= size) throw new NoSuchElementException();
                return row.apply(i++);
            }
        };
    }

    private static SqlException noFunction(String name, List<ScalarExpr> args, int pos) {
        List<String> types = new ArrayList<>();
        for (ScalarExpr a : args) types.add(a.type().toString());
        return new SqlException("42883", "function " + name + "(" + String.join(", ", types) + ") does not exist", pos,
                "No function matches the given name and argument types. You might need to add explicit type casts.");
    }
}
