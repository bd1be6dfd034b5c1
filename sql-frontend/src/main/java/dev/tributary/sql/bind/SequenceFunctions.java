package dev.tributary.sql.bind;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.Sequences;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code nextval}, {@code currval}, {@code setval} and {@code lastval}, bound to the catalog's
 * {@link Sequences} as {@link ScalarExpr.VolatileCall}s (never folded, called per row). The
 * sequence is named by a string literal or {@code 'name'::regclass}, resolved when bound as
 * PostgreSQL resolves a regclass constant (42P01 if there is none, 42809 if it is no sequence);
 * an expression naming it is resolved each time it is called.
 */
final class SequenceFunctions {
    private SequenceFunctions() {}

    static boolean is(String name) {
        return switch (name) {
            case "nextval", "currval", "setval", "lastval" -> true;
            default -> false;
        };
    }

    static ScalarExpr bind(Binder binder, ExprBinder exprs, String name, Expr.FunctionCall f) {
        int arity = f.args().size();
        boolean fits = switch (name) {
            case "lastval" -> arity == 0;
            case "setval" -> arity == 2 || arity == 3;
            default -> arity == 1;
        };
        if (!fits) {
            throw new SqlException("42883", "function " + name + " with " + arity + " argument" + (arity == 1 ? "" : "s") + " does not exist", f.pos(),
                    "No function matches the given name and argument types. You might need to add explicit type casts.");
        }
        Sequences values = binder.catalog().sequences();
        if (name.equals("lastval")) return new ScalarExpr.VolatileCall(name, List.of(), SqlType.BIGINT, x -> values.last());
        Expr target = f.args().get(0);
        String literal = literalName(target);
        List<ScalarExpr> args = new ArrayList<>();
        java.util.function.ToLongFunction<Object> sequence;
        if (literal != null) {
            long id = resolve(binder, literal, f.pos()).id();
            sequence = x -> id;
        } else {
            ScalarExpr e = exprs.bind(target);
            if (e.type().kind() != SqlType.Kind.TEXT && e.type().kind() != SqlType.Kind.UNKNOWN) {
                throw new SqlException("0A000", name + "() takes the sequence's name here, as text", f.pos());
            }
            args.add(Sx.coerce(e, SqlType.TEXT, f.pos(), "argument of " + name));
            sequence = x -> resolve(binder, (String) x, f.pos()).id();
        }
        int first = args.size(); // where the arguments after the sequence start in what the call is given
        for (int i = 1; i < arity; i++) {
            Expr a = f.args().get(i);
            SqlType want = i == 1 ? SqlType.BIGINT : SqlType.BOOLEAN;
            args.add(Sx.coerce(exprs.bind(a), want, a.pos(), "argument of " + name));
        }
        boolean named = literal == null;
        return switch (name) {
            case "nextval" -> new ScalarExpr.VolatileCall(name, args, SqlType.BIGINT, x -> values.next(sequence.applyAsLong(named ? x[0] : null)));
            case "currval" -> new ScalarExpr.VolatileCall(name, args, SqlType.BIGINT, x -> values.current(sequence.applyAsLong(named ? x[0] : null)));
            default -> new ScalarExpr.VolatileCall(name, args, SqlType.BIGINT, x -> values.set(sequence.applyAsLong(named ? x[0] : null),
                    (Long) x[first], arity < 3 || (Boolean) x[first + 1]));
        };
    }

    /** The name {@code e} gives as a constant: {@code 'name'} or {@code 'name'::regclass}; null otherwise. */
    private static String literalName(Expr e) {
        if (e instanceof Expr.StringLiteral s) return s.value();
        if (e instanceof Expr.FunctionCall c && c.name().get(c.name().size() - 1).equals("regclass") && c.args().size() == 1
                && c.args().get(0) instanceof Expr.StringLiteral s) {
            return s.value();
        }
        return null;
    }

    /** The sequence {@code text} names (PostgreSQL's regclass input: an optional schema, quotes for case). */
    private static CatalogItem.Sequence resolve(Binder binder, String text, int pos) {
        List<String> parts = dev.tributary.sql.catalog.SystemCatalog.nameParts(text.trim());
        String name = parts.get(parts.size() - 1);
        if (parts.size() == 2 && !binder.catalog().schemaExists(parts.get(0))) {
            throw new SqlException("3F000", "schema \"" + parts.get(0) + "\" does not exist", pos);
        }
        CatalogItem item = binder.catalogItem(parts).orElseThrow(() -> new SqlException("42P01", "relation \"" + text + "\" does not exist", pos));
        if (!(item instanceof CatalogItem.Sequence s)) throw new SqlException("42809", "\"" + name + "\" is not a sequence", pos);
        binder.dependOn(s.id());
        return s;
    }
}
