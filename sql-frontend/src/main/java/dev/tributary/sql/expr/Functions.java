package dev.tributary.sql.expr;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.InfiniteTimes;
import dev.tributary.sql.types.Interval;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.SqlType.Kind;
import dev.tributary.sql.types.Json;
import dev.tributary.sql.types.Jsonb;
import dev.tributary.sql.types.JsonbOperations;
import dev.tributary.sql.types.Values;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Resolution of SQL function calls to typed {@link ScalarExpr}s: PostgreSQL's built-in string,
 * math and date/time functions with their overloads, chosen as PostgreSQL chooses
 * ({@link Resolver}; so {@code round(1)} is the float8 round, {@code length('x')} the text one,
 * {@code date_trunc('month', date)} the timestamptz one).
 *
 * <p>Also routes the names of the special forms a parser may hand over as calls: {@code coalesce},
 * {@code nullif}, {@code greatest}, {@code least}, and the clock: {@code now()},
 * {@code current_timestamp}, {@code transaction_timestamp()}, {@code statement_timestamp()},
 * {@code current_date}, {@code localtimestamp}, {@code localtime} become {@link ScalarExpr.Now}
 * nodes, which {@link ScalarExprs#bindStatementTime} replaces with the statement's time.
 *
 * <p>{@code position(sub IN s)} is {@code position(sub, s)}; {@code EXTRACT(f FROM x)} is
 * {@code extract('f', x)}; {@code TRIM(LEADING c FROM s)} is {@code ltrim(s, c)}.
 */
public final class Functions {
    private Functions() {}

    private static final String NO_FUNCTION_HINT =
            "No function matches the given name and argument types. You might need to add explicit type casts.";
    private static final String AMBIGUOUS_FUNCTION_HINT =
            "Could not choose a best candidate function. You might need to add explicit type casts.";

    private static final Map<String, List<Resolver.Candidate>> FUNCTIONS = new HashMap<>();

    private static void fn(String name, SqlType result, ScalarExpr.Impl impl, Kind... params) {
        FUNCTIONS.computeIfAbsent(name, k -> new ArrayList<>()).add(new Resolver.Candidate(name, List.of(params), result, impl, true));
    }

    private static void alias(String name, String of) {
        FUNCTIONS.put(name, FUNCTIONS.get(of));
    }

    private static final Kind T = Kind.TEXT, I = Kind.INTEGER, N = Kind.NUMERIC, D = Kind.DOUBLE;

    static {
        // ------------------------------------------------------------------ strings
        fn("length", SqlType.INTEGER, x -> (long) cpLen((String) x[0]), T);
        fn("jsonb_typeof", SqlType.TEXT, x -> ((Jsonb) x[0]).typeName(), Kind.JSONB);
        fn("jsonb_array_length", SqlType.INTEGER, x -> JsonbOperations.arrayLength((Jsonb) x[0]), Kind.JSONB);
        fn("jsonb_strip_nulls", SqlType.JSONB, x -> JsonbOperations.stripNulls((Jsonb) x[0]), Kind.JSONB);
        fn("jsonb_pretty", SqlType.TEXT, x -> Jsonb.pretty((Jsonb) x[0]), Kind.JSONB);
        fn("json_typeof", SqlType.TEXT, x -> Json.typeOf((String) x[0]), Kind.JSON);
        fn("json_strip_nulls", SqlType.JSON, x -> Json.stripNulls((String) x[0]), Kind.JSON);
        fn("json_array_length", SqlType.INTEGER, x -> Json.arrayLength((String) x[0]), Kind.JSON);
        fn("length", SqlType.INTEGER, x -> (long) cpLen(Values.rtrim((String) x[0])), Kind.CHAR);
        fn("length", SqlType.INTEGER, x -> (long) ((Bytea) x[0]).length(), Kind.BYTEA);
        fn("char_length", SqlType.INTEGER, x -> (long) cpLen((String) x[0]), T);
        fn("char_length", SqlType.INTEGER, x -> (long) cpLen(Values.rtrim((String) x[0])), Kind.CHAR);
        alias("character_length", "char_length");
        fn("octet_length", SqlType.INTEGER, x -> (long) ((String) x[0]).getBytes(StandardCharsets.UTF_8).length, T);
        fn("octet_length", SqlType.INTEGER, x -> (long) ((Bytea) x[0]).length(), Kind.BYTEA);
        fn("pg_size_pretty", SqlType.TEXT, x -> sizePretty((Long) x[0]), Kind.BIGINT);
        fn("lower", SqlType.TEXT, x -> ((String) x[0]).toLowerCase(Locale.ROOT), T);
        fn("upper", SqlType.TEXT, x -> ((String) x[0]).toUpperCase(Locale.ROOT), T);
        fn("initcap", SqlType.TEXT, x -> initcap((String) x[0]), T);
        fn("substring", SqlType.TEXT, x -> substring((String) x[0], (Long) x[1], null), T, I);
        fn("substring", SqlType.TEXT, x -> substring((String) x[0], (Long) x[1], (Long) x[2]), T, I, I);
        fn("substring", SqlType.TEXT, x -> Regexes.substring((String) x[0], (String) x[1]), T, T);
        fn("substring", SqlType.BYTEA, x -> substring((Bytea) x[0], (Long) x[1], null), Kind.BYTEA, I);
        fn("substring", SqlType.BYTEA, x -> substring((Bytea) x[0], (Long) x[1], (Long) x[2]), Kind.BYTEA, I, I);
        alias("substr", "substring");
        fn("strpos", SqlType.INTEGER, x -> strpos((String) x[0], (String) x[1]), T, T);
        fn("position", SqlType.INTEGER, x -> strpos((String) x[1], (String) x[0]), T, T);
        fn("btrim", SqlType.TEXT, x -> trim((String) x[0], " ", true, true), T);
        fn("btrim", SqlType.TEXT, x -> trim((String) x[0], (String) x[1], true, true), T, T);
        alias("trim", "btrim");
        fn("ltrim", SqlType.TEXT, x -> trim((String) x[0], " ", true, false), T);
        fn("ltrim", SqlType.TEXT, x -> trim((String) x[0], (String) x[1], true, false), T, T);
        fn("rtrim", SqlType.TEXT, x -> trim((String) x[0], " ", false, true), T);
        fn("rtrim", SqlType.TEXT, x -> trim((String) x[0], (String) x[1], false, true), T, T);
        fn("replace", SqlType.TEXT, x -> ((String) x[1]).isEmpty() ? x[0] : ((String) x[0]).replace((String) x[1], (String) x[2]), T, T, T);
        fn("left", SqlType.TEXT, x -> left((String) x[0], (Long) x[1]), T, I);
        fn("right", SqlType.TEXT, x -> right((String) x[0], (Long) x[1]), T, I);
        fn("repeat", SqlType.TEXT, x -> repeat((String) x[0], (Long) x[1]), T, I);
        fn("reverse", SqlType.TEXT, x -> new StringBuilder((String) x[0]).reverse().toString(), T);
        fn("lpad", SqlType.TEXT, x -> pad((String) x[0], (Long) x[1], " ", true), T, I);
        fn("lpad", SqlType.TEXT, x -> pad((String) x[0], (Long) x[1], (String) x[2], true), T, I, T);
        fn("rpad", SqlType.TEXT, x -> pad((String) x[0], (Long) x[1], " ", false), T, I);
        fn("rpad", SqlType.TEXT, x -> pad((String) x[0], (Long) x[1], (String) x[2], false), T, I, T);
        fn("starts_with", SqlType.BOOLEAN, x -> ((String) x[0]).startsWith((String) x[1]), T, T);
        fn("split_part", SqlType.TEXT, x -> splitPart((String) x[0], (String) x[1], (Long) x[2]), T, T, I);
        fn("ascii", SqlType.INTEGER, x -> ((String) x[0]).isEmpty() ? 0L : (long) ((String) x[0]).codePointAt(0), T);
        fn("chr", SqlType.TEXT, x -> chr((Long) x[0]), I);

        // ------------------------------------------------------------------ math
        for (Kind k : new Kind[] {Kind.SMALLINT, Kind.INTEGER, Kind.BIGINT}) {
            fn("abs", SqlType.of(k), x -> (Long) x[0] < 0 ? Numerics.subInt(0, (Long) x[0], k) : x[0], k);
            fn("mod", SqlType.of(k), x -> Numerics.modInt((Long) x[0], (Long) x[1]), k, k);
        }
        fn("abs", SqlType.REAL, x -> Math.abs((Double) x[0]), Kind.REAL);
        fn("abs", SqlType.DOUBLE, x -> Math.abs((Double) x[0]), D);
        fn("abs", SqlType.NUMERIC, x -> Numerics.abs(x[0]), N);
        fn("mod", SqlType.NUMERIC, x -> Numerics.mod(x[0], x[1]), N, N);
        fn("div", SqlType.NUMERIC, x -> Numerics.div(x[0], x[1]), N, N);
        fn("round", SqlType.DOUBLE, x -> Math.rint((Double) x[0]), D);
        fn("round", SqlType.NUMERIC, x -> Numerics.rounded(x[0], d -> d.setScale(0, RoundingMode.HALF_UP)), N);
        fn("round", SqlType.NUMERIC, x -> Numerics.rounded(x[0], d -> roundTo(d, (Long) x[1], RoundingMode.HALF_UP)), N, I);
        fn("trunc", SqlType.DOUBLE, x -> truncDouble((Double) x[0]), D);
        fn("trunc", SqlType.NUMERIC, x -> Numerics.rounded(x[0], d -> d.setScale(0, RoundingMode.DOWN)), N);
        fn("trunc", SqlType.NUMERIC, x -> Numerics.rounded(x[0], d -> roundTo(d, (Long) x[1], RoundingMode.DOWN)), N, I);
        fn("floor", SqlType.DOUBLE, x -> Math.floor((Double) x[0]), D);
        fn("floor", SqlType.NUMERIC, x -> Numerics.rounded(x[0], d -> d.setScale(0, RoundingMode.FLOOR)), N);
        fn("ceil", SqlType.DOUBLE, x -> Math.ceil((Double) x[0]), D);
        fn("ceil", SqlType.NUMERIC, x -> Numerics.rounded(x[0], d -> d.setScale(0, RoundingMode.CEILING)), N);
        alias("ceiling", "ceil");
        fn("power", SqlType.DOUBLE, x -> Numerics.powFloat((Double) x[0], (Double) x[1]), D, D);
        fn("power", SqlType.NUMERIC, x -> Numerics.power(x[0], x[1]), N, N);
        alias("pow", "power");
        fn("sqrt", SqlType.DOUBLE, x -> Numerics.sqrtFloat((Double) x[0]), D);
        fn("sqrt", SqlType.NUMERIC, x -> Numerics.sqrt(x[0]), N);
        fn("cbrt", SqlType.DOUBLE, x -> Math.cbrt((Double) x[0]), D);
        fn("exp", SqlType.DOUBLE, x -> Numerics.expFloat((Double) x[0]), D);
        fn("exp", SqlType.NUMERIC, x -> Numerics.exp(x[0]), N);
        fn("ln", SqlType.DOUBLE, x -> Numerics.lnFloat((Double) x[0]), D);
        fn("ln", SqlType.NUMERIC, x -> Numerics.ln(x[0]), N);
        fn("log", SqlType.DOUBLE, x -> Numerics.log10Float((Double) x[0]), D);
        fn("log", SqlType.NUMERIC, x -> Numerics.log10(x[0]), N);
        fn("log", SqlType.NUMERIC, x -> Numerics.log(x[0], x[1]), N, N);
        fn("log10", SqlType.DOUBLE, x -> Numerics.log10Float((Double) x[0]), D);
        fn("log10", SqlType.NUMERIC, x -> Numerics.log10(x[0]), N);
        fn("sign", SqlType.DOUBLE, x -> Math.signum((Double) x[0]), D);
        fn("sign", SqlType.NUMERIC, x -> Numerics.sign(x[0]), N);
        fn("pi", SqlType.DOUBLE, x -> Math.PI);

        // ------------------------------------------------------------------ dates and times
        for (Kind k : new Kind[] {Kind.DATE, Kind.TIME, Kind.TIMESTAMP, Kind.TIMESTAMPTZ, Kind.INTERVAL}) {
            SqlType t = SqlType.of(k);
            fn("extract", SqlType.NUMERIC, x -> DateTimes.extract((String) x[0], x[1], t), T, k);
        }
        for (Kind k : new Kind[] {Kind.TIME, Kind.TIMESTAMP, Kind.TIMESTAMPTZ, Kind.INTERVAL}) {
            SqlType t = SqlType.of(k);
            fn("date_part", SqlType.DOUBLE, x -> DateTimes.datePart((String) x[0], x[1], t), T, k);
        }
        fn("date_part", SqlType.DOUBLE,
                x -> DateTimes.datePart((String) x[0], InfiniteTimes.atStartOfDay((LocalDate) x[1]), SqlType.TIMESTAMP), T, Kind.DATE);
        for (Kind k : new Kind[] {Kind.DATE, Kind.TIMESTAMP, Kind.TIMESTAMPTZ}) fn("isfinite", SqlType.BOOLEAN, x -> InfiniteTimes.isFinite(x[0]), k);
        fn("isfinite", SqlType.BOOLEAN, x -> true, Kind.INTERVAL);
        fn("date_trunc", SqlType.TIMESTAMP, x -> DateTimes.trunc((String) x[0], (LocalDateTime) x[1], SqlType.TIMESTAMP), T, Kind.TIMESTAMP);
        fn("date_trunc", SqlType.TIMESTAMPTZ, x -> DateTimes.trunc((String) x[0],
                LocalDateTime.ofInstant((Instant) x[1], ZoneOffset.UTC), SqlType.TIMESTAMPTZ).toInstant(ZoneOffset.UTC), T, Kind.TIMESTAMPTZ);
        fn("date_trunc", SqlType.INTERVAL, x -> DateTimes.trunc((String) x[0], (Interval) x[1]), T, Kind.INTERVAL);
        fn("date_bin", SqlType.TIMESTAMP, x -> dateBin((Interval) x[0], (LocalDateTime) x[1], (LocalDateTime) x[2]), Kind.INTERVAL, Kind.TIMESTAMP, Kind.TIMESTAMP);
        fn("date_bin", SqlType.TIMESTAMPTZ, x -> dateBin((Interval) x[0], LocalDateTime.ofInstant((Instant) x[1], ZoneOffset.UTC),
                LocalDateTime.ofInstant((Instant) x[2], ZoneOffset.UTC)).toInstant(ZoneOffset.UTC), Kind.INTERVAL, Kind.TIMESTAMPTZ, Kind.TIMESTAMPTZ);
        fn("make_date", SqlType.DATE, x -> makeDate((Long) x[0], (Long) x[1], (Long) x[2]), I, I, I);
        fn("quote_ident", SqlType.TEXT, x -> dev.tributary.sql.parser.SqlFormatter.ident((String) x[0]), T);
        fn("quote_literal", SqlType.TEXT, x -> quoteLiteral((String) x[0]), T);
        fn("to_timestamp", SqlType.TIMESTAMPTZ, x -> toTimestamp((Double) x[0]), D);

        // ------------------------------------------------------------------ formatting (to_char and kin)
        // an empty template: PostgreSQL gives NULL for dates and times, the empty string for numbers
        // an infinite time has no fields to print: NULL, as PostgreSQL answers
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) || !InfiniteTimes.isFinite(x[0]) ? null : DateTimeFormat.of((String) x[1]).format((LocalDateTime) x[0]), Kind.TIMESTAMP, T);
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) || !InfiniteTimes.isFinite(x[0]) ? null : DateTimeFormat.of((String) x[1]).format((Instant) x[0]), Kind.TIMESTAMPTZ, T);
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) ? null : DateTimeFormat.of((String) x[1]).format((Interval) x[0]), Kind.INTERVAL, T);
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) ? "" : NumberFormat.of((String) x[1]).format(x[0]), N, T);
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) ? "" : NumberFormat.of((String) x[1]).format((Long) x[0], 32), I, T);
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) ? "" : NumberFormat.of((String) x[1]).format((Long) x[0], 64), Kind.BIGINT, T);
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) ? "" : NumberFormat.of((String) x[1]).format((Double) x[0], 6), Kind.REAL, T);
        fn("to_char", SqlType.TEXT, x -> blank(x[1]) ? "" : NumberFormat.of((String) x[1]).format((Double) x[0], 15), D, T);
        fn("to_number", SqlType.NUMERIC, x -> blank(x[1]) ? null : NumberFormat.of((String) x[1]).parse((String) x[0]), T, T);
        fn("to_date", SqlType.DATE, x -> DateTimeFormat.of((String) x[1]).toDate((String) x[0]), T, T);
        fn("to_timestamp", SqlType.TIMESTAMPTZ, x -> DateTimeFormat.of((String) x[1]).toTimestamp((String) x[0]), T, T);
    }

    /**
     * PostgreSQL's {@code date_bin(stride, source, origin)}: the start of the stride-wide bin,
     * counted from {@code origin}, that {@code source} falls in (0A000 for a stride of months or
     * years, 22008 for one that is not positive).
     */
    static LocalDateTime dateBin(Interval stride, LocalDateTime source, LocalDateTime origin) {
        if (!InfiniteTimes.isFinite(source)) return source;
        if (!InfiniteTimes.isFinite(origin)) throw new SqlException("22008", "origin out of range");
        if (stride.months() != 0) throw new SqlException("0A000", "timestamps cannot be binned into intervals containing months or years");
        long width = Math.addExact(Math.multiplyExact((long) stride.days(), 86_400_000_000L), stride.micros());
        if (width <= 0) throw new SqlException("22008", "stride must be greater than zero");
        long delta = java.time.Duration.between(origin, source).toNanos() / 1000;
        long bins = Math.floorDiv(delta, width);
        return origin.plusNanos(Math.multiplyExact(bins, width) * 1000);
    }

    /** PostgreSQL 15's pg_size_pretty: bytes below 10 kB, then kB, MB, GB, TB, each rounded half away from zero from the unit below. */
    static String sizePretty(long size) {
        long limit = 10 * 1024;
        long limit2 = limit * 2 - 1;
        if (Math.abs(size) < limit) return size + " bytes";
        size >>= 9; // half-kB
        String[] units = {"kB", "MB", "GB", "TB"};
        for (int u = 0; ; u++) {
            if (Math.abs(size) < limit2 || u == units.length - 1) return (size + (size < 0 ? -1 : 1)) / 2 + " " + units[u];
            size >>= 10;
        }
    }

    /** The functions {@link #call} resolves by name before its table of signatures. */
    private static final java.util.Set<String> SPECIAL = java.util.Set.of("now", "current_timestamp", "transaction_timestamp", "statement_timestamp",
            "current_date", "localtimestamp", "localtime", "coalesce", "greatest", "least", "nullif", "concat", "concat_ws", "format", "gen_random_uuid", "random", "pg_typeof");

    /** Whether a scalar function named {@code name} exists, with any arguments. */
    public static boolean exists(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        return SPECIAL.contains(n) || FUNCTIONS.containsKey(n) || ArrayExprs.isArrayFunction(n);
    }

    /**
     * {@code name(args)} resolved; {@code pos} is the call's place in the statement. 42883
     * {@code function foo(integer) does not exist} (with PostgreSQL's hint) when no signature
     * matches, 42725 when the choice is ambiguous.
     */
    public static ScalarExpr call(String name, List<ScalarExpr> args, int pos) {
        String n = name.toLowerCase(Locale.ROOT);
        if (ArrayExprs.isArrayFunction(n)) return ArrayExprs.function(n, args, pos);
        switch (n) {
            case "now", "current_timestamp", "transaction_timestamp", "statement_timestamp" -> {
                if (args.isEmpty()) return new ScalarExpr.Now(SqlType.TIMESTAMPTZ);
            }
            case "current_date" -> {
                if (args.isEmpty()) return new ScalarExpr.Now(SqlType.DATE);
            }
            case "localtimestamp" -> {
                if (args.isEmpty()) return new ScalarExpr.Now(SqlType.TIMESTAMP);
            }
            case "localtime" -> {
                if (args.isEmpty()) return new ScalarExpr.Now(SqlType.TIME);
            }
            case "pg_typeof" -> {
                // the argument's type as PostgreSQL names it, without length or precision (regtype is
                // an OID here, so the name is text: pg_typeof(x)::text and comparisons with a name work)
                if (args.size() == 1) {
                    SqlType t = args.get(0).type();
                    String shown = t.isArray() ? t.element().kind().pgName() + "[]" : t.kind().pgName();
                    return new ScalarExpr.Literal(shown, SqlType.TEXT);
                }
            }
            case "gen_random_uuid" -> {
                // a version 4 uuid from a cryptographically strong generator, as PostgreSQL's
                if (args.isEmpty()) return new ScalarExpr.VolatileCall(n, List.of(), SqlType.UUID, x -> java.util.UUID.randomUUID());
            }
            case "random" -> {
                if (args.isEmpty()) return new ScalarExpr.VolatileCall(n, List.of(), SqlType.DOUBLE, x -> java.util.concurrent.ThreadLocalRandom.current().nextDouble());
            }
            case "coalesce" -> {
                SqlType t = Types.common(Types.typesOf(args), "COALESCE", pos);
                return new ScalarExpr.Coalesce(Types.coerceAll(args, t, pos), t);
            }
            case "greatest", "least" -> {
                SqlType t = Types.common(Types.typesOf(args), n.toUpperCase(Locale.ROOT), pos);
                return new ScalarExpr.Greatest(Types.coerceAll(args, t, pos), t, n.equals("greatest"));
            }
            case "nullif" -> {
                if (args.size() == 2) return Operators.nullIf(args.get(0), args.get(1), pos);
            }
            case "concat" -> {
                return concat(n, List.of(), args, pos);
            }
            case "concat_ws" -> {
                if (!args.isEmpty()) {
                    ScalarExpr sep = Casts.tryCoerce(args.get(0), SqlType.TEXT, CastContext.IMPLICIT, pos);
                    if (sep != null) return concat(n, List.of(sep), args.subList(1, args.size()), pos);
                }
            }
            case "format" -> {
                if (!args.isEmpty()) {
                    ScalarExpr fmt = Casts.tryCoerce(args.get(0), SqlType.TEXT, CastContext.IMPLICIT, pos);
                    if (fmt != null) return format(fmt, args.subList(1, args.size()), pos);
                }
            }
            default -> {
            }
        }
        List<Resolver.Candidate> cands = FUNCTIONS.get(n);
        List<Resolver.Candidate> found = cands == null ? List.of() : Resolver.select(cands, Types.typesOf(args), false);
        if (found.size() != 1) {
            StringBuilder sig = new StringBuilder(n).append('(');
            for (int i = 0; i < args.size(); i++) sig.append(i > 0 ? ", " : "").append(Operators.typeName(args.get(i).type()));
            sig.append(')');
            if (found.isEmpty()) throw new SqlException("42883", "function " + sig + " does not exist", pos, NO_FUNCTION_HINT);
            throw new SqlException("42725", "function " + sig + " is not unique", pos, AMBIGUOUS_FUNCTION_HINT);
        }
        Resolver.Candidate c = found.get(0);
        List<ScalarExpr> coerced = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            coerced.add(Casts.coerce(args.get(i), SqlType.of(c.params().get(i)), CastContext.IMPLICIT, pos));
        }
        return new ScalarExpr.Call(n, coerced, c.result(), c.impl(), c.strict());
    }

    /** concat / concat_ws: variadic "any", each argument by its output function, NULLs skipped. */
    private static ScalarExpr concat(String name, List<ScalarExpr> fixed, List<ScalarExpr> rest, int pos) {
        List<ScalarExpr> all = new ArrayList<>(fixed);
        for (ScalarExpr a : rest) {
            all.add(a.type().kind() == Kind.UNKNOWN ? Casts.coerce(a, SqlType.TEXT, CastContext.IMPLICIT, pos) : a);
        }
        List<SqlType> types = Types.typesOf(all);
        boolean ws = name.equals("concat_ws");
        ScalarExpr.Impl impl = x -> {
            if (ws && x[0] == null) return null;
            StringBuilder b = new StringBuilder();
            boolean first = true;
            for (int i = ws ? 1 : 0; i < x.length; i++) {
                if (x[i] == null) continue;
                if (ws && !first) b.append((String) x[0]);
                b.append(Values.toText(x[i], types.get(i)));
                first = false;
            }
            return b.toString();
        };
        return new ScalarExpr.Call(name, all, SqlType.TEXT, impl, false);
    }

    /**
     * PostgreSQL's {@code format(fmt, args...)}: {@code %s} (text; NULL as nothing), {@code %I}
     * (quoted as an identifier; NULL is 22004), {@code %L} (quoted as a literal; NULL as NULL) and
     * {@code %%}, each with an optional {@code n$} position and a {@code -} flag and width (also
     * {@code *} or {@code *n$}, read from the arguments); 22023 for anything else or too few arguments.
     */
    private static ScalarExpr format(ScalarExpr fmt, List<ScalarExpr> rest, int pos) {
        List<ScalarExpr> all = new ArrayList<>();
        all.add(fmt);
        for (ScalarExpr a : rest) all.add(a.type().kind() == Kind.UNKNOWN ? Casts.coerce(a, SqlType.TEXT, CastContext.IMPLICIT, pos) : a);
        List<SqlType> types = Types.typesOf(all);
        ScalarExpr.Impl impl = x -> {
            if (x[0] == null) return null;
            String f = (String) x[0];
            StringBuilder b = new StringBuilder();
            int next = 1; // the next argument taken without a position
            for (int i = 0; i < f.length(); i++) {
                char c = f.charAt(i);
                if (c != '%') {
                    b.append(c);
                    continue;
                }
                if (++i >= f.length()) throw new SqlException("22023", "unterminated format() type specifier", 0, "For a single \"%\" use \"%%\".");
                if (f.charAt(i) == '%') {
                    b.append('%');
                    continue;
                }
                int[] at = {i};
                Integer position = formatNumber(f, at, true);
                i = at[0];
                boolean left = false;
                while (i < f.length() && f.charAt(i) == '-') {
                    left = true;
                    i++;
                }
                int width = 0;
                if (i < f.length() && f.charAt(i) == '*') {
                    at[0] = i + 1;
                    Integer wp = formatNumber(f, at, true);
                    i = at[0];
                    int widthArg = wp != null ? wp : next++;
                    if (widthArg >= x.length) throw new SqlException("22023", "too few arguments for format()");
                    Object wv = x[widthArg];
                    width = wv == null ? 0 : Math.toIntExact(Long.parseLong(Values.toText(wv, types.get(widthArg))));
                    if (width < 0) {
                        left = true;
                        width = -width;
                    }
                } else {
                    at[0] = i;
                    Integer w = formatNumber(f, at, false);
                    i = at[0];
                    if (w != null) width = w;
                }
                if (i >= f.length()) throw new SqlException("22023", "unterminated format() type specifier", 0, "For a single \"%\" use \"%%\".");
                char type = f.charAt(i);
                int arg = position != null ? position : next++;
                if (position != null) next = position + 1;
                if (type != 's' && type != 'I' && type != 'L') {
                    throw new SqlException("22023", "unrecognized format() type specifier \"" + type + "\"", 0, "For a single \"%\" use \"%%\".");
                }
                if (arg >= x.length) throw new SqlException("22023", "too few arguments for format()");
                Object v = x[arg];
                String text = switch (type) {
                    case 's' -> v == null ? "" : Values.toText(v, types.get(arg));
                    case 'I' -> {
                        if (v == null) throw new SqlException("22004", "null values cannot be formatted as an SQL identifier");
                        yield dev.tributary.sql.parser.SqlFormatter.ident(Values.toText(v, types.get(arg)));
                    }
                    default -> v == null ? "NULL" : quoteLiteral(Values.toText(v, types.get(arg)));
                };
                int pad = width - text.codePointCount(0, text.length());
                if (pad > 0 && !left) b.append(" ".repeat(pad));
                b.append(text);
                if (pad > 0 && left) b.append(" ".repeat(pad));
            }
            return b.toString();
        };
        return new ScalarExpr.Call("format", all, SqlType.TEXT, impl, false);
    }

    /** Digits at {@code at[0]}, followed by {@code $} when {@code dollar}: the number (at[0] moved past it), or null (at[0] unchanged). */
    private static Integer formatNumber(String f, int[] at, boolean dollar) {
        int i = at[0];
        int start = i;
        while (i < f.length() && Character.isDigit(f.charAt(i))) i++;
        if (i == start || (dollar && (i >= f.length() || f.charAt(i) != '$'))) return null;
        int n = Integer.parseInt(f.substring(start, i));
        if (dollar && n == 0) throw new SqlException("22023", "format specifies argument 0, but arguments are numbered from 1");
        at[0] = dollar ? i + 1 : i;
        return n;
    }

    /** PostgreSQL's quote_literal: in single quotes, quotes doubled; with a backslash, an E'' string with backslashes doubled. */
    static String quoteLiteral(String s) {
        String q = "'" + s.replace("'", "''") + "'";
        return s.indexOf('\\') < 0 ? q : "E" + q.replace("\\", "\\\\");
    }

    // ------------------------------------------------------------------------ string helpers

    private static int cpLen(String s) {
        return s.codePointCount(0, s.length());
    }

    /** The code points {@code [from, to)} (0-based, clamped) of s. */
    private static String cpSub(String s, long from, long to) {
        int len = cpLen(s);
        from = Math.max(0, Math.min(from, len));
        to = Math.max(from, Math.min(to, len));
        return s.substring(s.offsetByCodePoints(0, (int) from), s.offsetByCodePoints(0, (int) to));
    }

    /** PostgreSQL's substring: characters {@code start .. start+count-1} (1-based) that exist. */
    static String substring(String s, long start, Long count) {
        if (count != null && count < 0) throw new SqlException("22011", "negative substring length not allowed");
        long end = count == null ? Long.MAX_VALUE : start + count;
        if (count != null && end < start) end = Long.MAX_VALUE; // overflow: to the end
        return cpSub(s, Math.max(start, 1) - 1, end - 1);
    }

    static Bytea substring(Bytea b, long start, Long count) {
        if (count != null && count < 0) throw new SqlException("22011", "negative substring length not allowed");
        long end = count == null ? Long.MAX_VALUE : start + count;
        long from = Math.max(start, 1) - 1;
        long to = Math.min(end - 1, b.length());
        byte[] all = b.toByteArray();
        if (from >= to) return Bytea.copyOf(new byte[0]);
        return Bytea.copyOf(java.util.Arrays.copyOfRange(all, (int) from, (int) to));
    }

    static long strpos(String s, String sub) {
        int i = s.indexOf(sub);
        return i < 0 ? 0 : s.codePointCount(0, i) + 1;
    }

    static String trim(String s, String chars, boolean leading, boolean trailing) {
        int[] cps = s.codePoints().toArray();
        int b = 0, e = cps.length;
        if (leading) while (b < e && chars.indexOf(Character.toString(cps[b])) >= 0) b++;
        if (trailing) while (e > b && chars.indexOf(Character.toString(cps[e - 1])) >= 0) e--;
        return new String(cps, b, e - b);
    }

    static String left(String s, long n) {
        int len = cpLen(s);
        return n >= 0 ? cpSub(s, 0, n) : cpSub(s, 0, len + n);
    }

    static String right(String s, long n) {
        int len = cpLen(s);
        return n >= 0 ? cpSub(s, len - n, len) : cpSub(s, -n, len);
    }

    static String repeat(String s, long n) {
        if (n <= 0 || s.isEmpty()) return "";
        if ((long) s.length() * n > (1 << 28)) throw new SqlException("54000", "requested length too large");
        return s.repeat((int) n);
    }

    static String pad(String s, long len, String fill, boolean leftSide) {
        if (len <= 0) return "";
        int have = cpLen(s);
        if (have >= len) return cpSub(s, 0, len);
        if (fill.isEmpty()) return s;
        if (len > (1 << 28)) throw new SqlException("54000", "requested length too large");
        int[] f = fill.codePoints().toArray();
        StringBuilder p = new StringBuilder();
        for (int i = 0; i < len - have; i++) p.appendCodePoint(f[i % f.length]);
        return leftSide ? p + s : s + p;
    }

    static String splitPart(String s, String delim, long n) {
        if (n == 0) throw new SqlException("22023", "field position must not be zero");
        List<String> parts = new ArrayList<>();
        if (delim.isEmpty()) {
            parts.add(s);
        } else {
            int from = 0, i;
            while ((i = s.indexOf(delim, from)) >= 0) {
                parts.add(s.substring(from, i));
                from = i + delim.length();
            }
            parts.add(s.substring(from));
        }
        if (s.isEmpty()) return "";
        long idx = n > 0 ? n - 1 : parts.size() + n;
        return idx >= 0 && idx < parts.size() ? parts.get((int) idx) : "";
    }

    static String initcap(String s) {
        StringBuilder b = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            b.appendCodePoint(inWord ? Character.toLowerCase(c) : Character.toUpperCase(c));
            inWord = Character.isLetterOrDigit(c);
            i += Character.charCount(c);
        }
        return b.toString();
    }

    static String chr(long c) {
        if (c == 0) throw new SqlException("54000", "null character not permitted");
        if (c < 0 || c > Character.MAX_CODE_POINT || (c >= 0xD800 && c <= 0xDFFF)) {
            throw new SqlException("54000", "requested character too large for encoding: " + c);
        }
        return Character.toString((int) c);
    }

    // -------------------------------------------------------------------------- math helpers

    /** round/trunc(numeric, n): to n decimals (n < 0: to tens, hundreds, ...), scale max(n, 0). */
    static BigDecimal roundTo(BigDecimal v, long n, RoundingMode mode) {
        int places = (int) Math.max(-1000, Math.min(1000, n));
        BigDecimal r = v.setScale(places, mode);
        return places < 0 ? r.setScale(0) : r;
    }

    static double truncDouble(double d) {
        return d >= 0 ? Math.floor(d) : Math.ceil(d);
    }

    static LocalDate makeDate(long y, long m, long d) {
        try {
            if (y == 0) throw new java.time.DateTimeException("year zero");
            return LocalDate.of((int) (y < 0 ? y + 1 : y), (int) m, (int) d);
        } catch (java.time.DateTimeException | ArithmeticException e) {
            throw new SqlException("22008", "date field value out of range: " + y + "-" + (m < 10 ? "0" : "") + m + "-" + (d < 10 ? "0" : "") + d);
        }
    }

    private static boolean blank(Object template) {
        return ((String) template).isEmpty();
    }

    /** PostgreSQL's {@code to_timestamp(double precision)}: seconds since the epoch, rounded to microseconds. */
    static Instant toTimestamp(double seconds) {
        // PostgreSQL's range: 4714-11-24 BC to 294276 AD; Instant's is wider, so check by value
        if (Double.isNaN(seconds)) throw new SqlException("22008", "timestamp cannot be NaN");
        if (Double.isInfinite(seconds)) return (Instant) InfiniteTimes.of(Kind.TIMESTAMPTZ, seconds > 0 ? 1 : -1);
        if (Math.abs(seconds) > 9.2e12) throw new SqlException("22008", "timestamp out of range: \"" + Values.doubleText(seconds) + "\"");
        long micros = Math.round(seconds * 1e6);
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000L);
    }
}
