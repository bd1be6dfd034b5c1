package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.types.Json;
import dev.tributary.sql.types.Jsonb;
import dev.tributary.sql.types.JsonbOperations;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code json_build_object}, {@code json_build_array} and {@code to_json}: JSON made of values of
 * any type (PostgreSQL's variadic "any"), each written as {@link Json#of} writes it. Not strict:
 * a NULL value is JSON's null; a NULL object key is 22004.
 */
final class JsonFunctions {
    private JsonFunctions() {}

    static boolean is(String name) {
        return switch (name) {
            case "json_build_object", "json_build_array", "to_json", "jsonb_build_object", "jsonb_build_array", "to_jsonb",
                    "jsonb_set", "jsonb_insert", "jsonb_extract_path", "jsonb_extract_path_text", "json_extract_path",
                    "json_extract_path_text", "jsonb_set_lax", "jsonb_path_query", "jsonb_path_query_array", "jsonb_path_query_first",
                    "jsonb_path_exists", "jsonb_path_match" -> true;
            default -> false;
        };
    }

    static ScalarExpr bind(String name, List<ScalarExpr> args, int pos) {
        if (name.startsWith("jsonb_path_") || name.equals("jsonb_set_lax")) throw new SqlException("0A000", "function " + name + " (jsonpath) is not supported", pos);
        if (name.startsWith("jsonb_") || name.equals("to_jsonb") || name.endsWith("_path") || name.endsWith("_path_text")) return bindJsonb(name, args, pos);
        List<SqlType> types = new ArrayList<>();
        for (ScalarExpr a : args) types.add(a.type().kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : a.type());
        List<ScalarExpr> typed = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) typed.add(args.get(i).type().kind() == SqlType.Kind.UNKNOWN ? Sx.coerce(args.get(i), SqlType.TEXT, pos, name) : args.get(i));
        return switch (name) {
            case "to_json" -> {
                if (args.size() != 1) throw new SqlException("42883", "function to_json with " + args.size() + " arguments does not exist", pos);
                yield new ScalarExpr.Call(name, typed, SqlType.JSON, x -> Json.of(x[0], types.get(0)), false);
            }
            case "json_build_array" -> new ScalarExpr.Call(name, typed, SqlType.JSON, x -> {
                StringBuilder b = new StringBuilder("[");
                for (int i = 0; i < x.length; i++) {
                    if (i > 0) b.append(", ");
                    b.append(Json.of(x[i], types.get(i)));
                }
                return b.append(']').toString();
            }, false);
            default -> {
                if (args.size() % 2 != 0) {
                    throw new SqlException("22023", "argument list must have even number of elements", pos,
                            "The arguments of json_build_object() must consist of alternating keys and values.");
                }
                yield new ScalarExpr.Call(name, typed, SqlType.JSON, x -> {
                    StringBuilder b = new StringBuilder("{");
                    for (int i = 0; i < x.length; i += 2) {
                        if (x[i] == null) throw new SqlException("22004", "null value not allowed for object key");
                        if (i > 0) b.append(", ");
                        Json.quote(b, types.get(i).kind() == SqlType.Kind.JSON ? (String) x[i] : Values.toText(x[i], types.get(i)));
                        b.append(" : ").append(Json.of(x[i + 1], types.get(i + 1)));
                    }
                    return b.append('}').toString();
                }, false);
            }
        };
    }

    private static final SqlType TEXT_ARRAY = SqlType.array(SqlType.TEXT);

    /** The jsonb builders and editors, and the path extractors of both json and jsonb. */
    private static ScalarExpr bindJsonb(String name, List<ScalarExpr> args, int pos) {
        List<SqlType> types = new ArrayList<>();
        for (ScalarExpr a : args) types.add(a.type().kind() == SqlType.Kind.UNKNOWN ? SqlType.TEXT : a.type());
        List<ScalarExpr> typed = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) typed.add(args.get(i).type().kind() == SqlType.Kind.UNKNOWN ? Sx.coerce(args.get(i), SqlType.TEXT, pos, name) : args.get(i));
        return switch (name) {
            case "to_jsonb" -> {
                if (args.size() != 1) throw new SqlException("42883", "function to_jsonb with " + args.size() + " arguments does not exist", pos);
                yield new ScalarExpr.Call(name, typed, SqlType.JSONB, x -> Json.toJsonb(x[0], types.get(0)), false);
            }
            case "jsonb_build_array" -> new ScalarExpr.Call(name, typed, SqlType.JSONB, x -> {
                List<Jsonb> out = new ArrayList<>();
                for (int i = 0; i < x.length; i++) out.add(Json.toJsonb(x[i], types.get(i)));
                return new Jsonb.Arr(out);
            }, false);
            case "jsonb_build_object" -> {
                if (args.size() % 2 != 0) {
                    throw new SqlException("22023", "argument list must have even number of elements", pos,
                            "The arguments of jsonb_build_object() must consist of alternating keys and values.");
                }
                for (int i = 0; i < args.size(); i += 2) {
                    SqlType.Kind k = types.get(i).kind();
                    if (k == SqlType.Kind.JSON || k == SqlType.Kind.JSONB || k == SqlType.Kind.ARRAY || k == SqlType.Kind.RECORD) {
                        throw new SqlException("22023", "key value must be scalar, not array, composite, or json", pos);
                    }
                }
                yield new ScalarExpr.Call(name, typed, SqlType.JSONB, x -> {
                    List<String> keys = new ArrayList<>();
                    List<Jsonb> values = new ArrayList<>();
                    for (int i = 0; i < x.length; i += 2) {
                        if (x[i] == null) throw new SqlException("22023", "argument " + (i + 1) + ": key must not be null");
                        keys.add(Values.toText(x[i], types.get(i)));
                        values.add(Json.toJsonb(x[i + 1], types.get(i + 1)));
                    }
                    return Jsonb.Obj.of(keys, values);
                }, false);
            }
            case "jsonb_set", "jsonb_insert" -> {
                if (args.size() != 3 && args.size() != 4) throw noFunction(name, args, pos);
                List<ScalarExpr> a = new ArrayList<>();
                a.add(Sx.coerce(args.get(0), SqlType.JSONB, pos, name));
                a.add(Sx.coerce(args.get(1), TEXT_ARRAY, pos, name));
                a.add(Sx.coerce(args.get(2), SqlType.JSONB, pos, name));
                boolean set = name.equals("jsonb_set");
                a.add(args.size() == 4 ? Sx.coerce(args.get(3), SqlType.BOOLEAN, pos, name) : new ScalarExpr.Literal(set, SqlType.BOOLEAN));
                yield new ScalarExpr.Call(name, a, SqlType.JSONB, x -> set
                        ? JsonbOperations.set((Jsonb) x[0], (List<?>) x[1], (Jsonb) x[2], (Boolean) x[3])
                        : JsonbOperations.insert((Jsonb) x[0], (List<?>) x[1], (Jsonb) x[2], (Boolean) x[3]), true);
            }
            default -> {
                // jsonb_extract_path(_text) and json_extract_path(_text): a variadic text path
                if (args.isEmpty()) throw noFunction(name, args, pos);
                boolean jsonb = name.startsWith("jsonb");
                boolean text = name.endsWith("_text");
                ScalarExpr doc = Sx.coerce(args.get(0), jsonb ? SqlType.JSONB : SqlType.JSON, pos, name);
                List<ScalarExpr> steps = new ArrayList<>();
                for (ScalarExpr a : args.subList(1, args.size())) steps.add(Sx.coerce(a, SqlType.TEXT, pos, name));
                List<ScalarExpr> all = new ArrayList<>();
                all.add(doc);
                all.addAll(steps);
                SqlType result = text ? SqlType.TEXT : doc.type();
                yield new ScalarExpr.Call(name, all, result, x -> {
                    if (x[0] == null) return null;
                    List<Object> path = java.util.Arrays.asList(x).subList(1, x.length);
                    if (jsonb) {
                        Jsonb found = JsonbOperations.path((Jsonb) x[0], path);
                        return text ? JsonbOperations.text(found) : found;
                    }
                    String found = Json.path((String) x[0], path);
                    return text ? Json.text(found) : found;
                }, false);
            }
        };
    }

    private static SqlException noFunction(String name, List<ScalarExpr> args, int pos) {
        return new SqlException("42883", "function " + name + "(" + String.join(", ", args.stream().map(a -> a.type().kind().pgName()).toList())
                + ") does not exist", pos, "No function matches the given name and argument types. You might need to add explicit type casts.");
    }
}
