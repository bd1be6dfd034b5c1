package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.types.Json;
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
            case "json_build_object", "json_build_array", "to_json" -> true;
            default -> false;
        };
    }

    static ScalarExpr bind(String name, List<ScalarExpr> args, int pos) {
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
}
