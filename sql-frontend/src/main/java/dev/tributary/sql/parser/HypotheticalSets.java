package dev.tributary.sql.parser;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.BinaryOp;
import dev.tributary.sql.ast.Expr;
import dev.tributary.sql.ast.OrderItem;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * PostgreSQL's hypothetical-set aggregates, {@code rank}, {@code dense_rank}, {@code percent_rank}
 * and {@code cume_dist} of direct arguments {@code h} {@code WITHIN GROUP (ORDER BY s)}: where a
 * row with sort key {@code h} would place among the group's rows. That place is a count of the
 * rows that sort before it (or with it), so each is written as plain aggregates over a predicate,
 * which the engine maintains as it maintains any count:
 * <ul>
 *   <li>{@code rank = 1 + count(*) FILTER (WHERE s before h)};</li>
 *   <li>{@code dense_rank = 1 + count(DISTINCT ROW(s)) FILTER (WHERE s before h)};</li>
 *   <li>{@code percent_rank = (rank - 1) / count(*)}, 0 for no rows;</li>
 *   <li>{@code cume_dist = (count(*) FILTER (WHERE s before h or peer of h) + 1) / (count(*) + 1)}.</li>
 * </ul>
 * "Before" follows each sort key's direction and NULL placement, keys compared in order (a later
 * key decides only between peers of the earlier ones). The direct arguments are also read
 * outside the aggregates, so that, as in PostgreSQL, they may use only grouped columns (42803).
 */
final class HypotheticalSets {
    private static final Set<String> NAMES = Set.of("rank", "dense_rank", "percent_rank", "cume_dist");

    private HypotheticalSets() {}

    /** {@code call} written with plain aggregates when it is a hypothetical-set aggregate; null otherwise. */
    static Expr desugar(Expr.FunctionCall call) {
        String name = call.name().get(call.name().size() - 1);
        if (!call.withinGroup() || call.name().size() > 2 || !NAMES.contains(name)) return null;
        if (call.name().size() == 2 && !call.name().get(0).equals("pg_catalog")) return null;
        int pos = call.pos();
        List<Expr> h = call.args();
        List<OrderItem> s = call.orderBy();
        if (h.size() != s.size()) {
            throw new SqlException("42883", "function " + name + " does not exist", pos,
                    "To use the hypothetical-set aggregate " + name + ", the number of hypothetical direct arguments (here " + h.size()
                            + ") must match the number of ordering columns (here " + s.size() + ").");
        }
        Expr before = null, peers = null;
        for (int k = s.size() - 1; k >= 0; k--) {
            Expr key = s.get(k).expr(), at = h.get(k);
            Expr keyBefore = before(s.get(k), key, at, pos);
            Expr peer = new Expr.IsDistinctFrom(pos, key, at, true);
            before = before == null ? keyBefore : or(keyBefore, and(peer, before, pos), pos);
            peers = peers == null ? peer : and(peer, peers, pos);
        }
        Expr count = count(null, call.filter(), pos);
        Expr result = switch (name) {
            case "rank" -> new Expr.Binary(pos, BinaryOp.ADD, new Expr.IntegerLiteral(pos, 1), count(before, call.filter(), pos), pos);
            case "dense_rank" -> new Expr.Binary(pos, BinaryOp.ADD, new Expr.IntegerLiteral(pos, 1),
                    new Expr.FunctionCall(pos, List.of("count"), List.of(new Expr.RowConstructor(pos, keys(s))), true, false, List.of(),
                            filter(before, call.filter(), pos)), pos);
            case "percent_rank" -> new Expr.FunctionCall(pos, List.of("coalesce"), List.of(
                    new Expr.Binary(pos, BinaryOp.DIV, new Expr.Cast(pos, count(before, call.filter(), pos), SqlType.DOUBLE),
                            new Expr.FunctionCall(pos, List.of("nullif"), List.of(count, new Expr.IntegerLiteral(pos, 0)), false, false, List.of(), null), pos),
                    new Expr.Cast(pos, new Expr.IntegerLiteral(pos, 0), SqlType.DOUBLE)), false, false, List.of(), null);
            case "cume_dist" -> new Expr.Binary(pos, BinaryOp.DIV,
                    new Expr.Cast(pos, new Expr.Binary(pos, BinaryOp.ADD, count(or(before, peers, pos), call.filter(), pos), new Expr.IntegerLiteral(pos, 1), pos),
                            SqlType.DOUBLE),
                    new Expr.Binary(pos, BinaryOp.ADD, count, new Expr.IntegerLiteral(pos, 1), pos), pos);
            default -> throw new IllegalStateException(name);
        };
        // the direct arguments read where grouped columns are checked: 0 whatever they are
        for (Expr at : h) {
            result = new Expr.Binary(pos, BinaryOp.ADD, result, new Expr.Case(pos, null,
                    List.of(new Expr.When(pos, new Expr.IsNull(pos, at, false), new Expr.IntegerLiteral(pos, 0))), new Expr.IntegerLiteral(pos, 0)), pos);
        }
        return result;
    }

    /** Whether key {@code key} sorts before {@code at} as {@code item} orders it (NULL counts as false). */
    private static Expr before(OrderItem item, Expr key, Expr at, int pos) {
        boolean nullsFirst = item.nulls() == OrderItem.Nulls.DEFAULT ? item.descending() : item.nulls() == OrderItem.Nulls.FIRST;
        Expr less = new Expr.Binary(pos, item.descending() ? BinaryOp.GT : BinaryOp.LT, key, at, pos);
        Expr nulls = nullsFirst
                ? and(new Expr.IsNull(pos, key, false), new Expr.IsNull(pos, at, true), pos)
                : and(new Expr.IsNull(pos, key, true), new Expr.IsNull(pos, at, false), pos);
        return or(less, nulls, pos);
    }

    private static List<Expr> keys(List<OrderItem> s) {
        List<Expr> out = new ArrayList<>();
        for (OrderItem o : s) out.add(o.expr());
        return out;
    }

    /** {@code count(*)} of the rows {@code where} (null: all) and the call's own FILTER (null: none) let through. */
    private static Expr count(Expr where, Expr filter, int pos) {
        return new Expr.FunctionCall(pos, List.of("count"), List.of(), false, true, List.of(), filter(where, filter, pos));
    }

    private static Expr filter(Expr where, Expr filter, int pos) {
        if (where == null) return filter;
        return filter == null ? where : and(filter, where, pos);
    }

    private static Expr and(Expr a, Expr b, int pos) {
        return new Expr.Binary(pos, BinaryOp.AND, a, b, pos);
    }

    private static Expr or(Expr a, Expr b, int pos) {
        return new Expr.Binary(pos, BinaryOp.OR, a, b, pos);
    }
}
