package dev.tributary.sql.bind;

import dev.tributary.sql.ast.Expr;
import java.util.ArrayList;
import java.util.List;

/** Structural helpers over parsed expressions. */
final class Exprs {
    private Exprs() {}

    /** Whether {@code e} holds a subquery (outside any nested query). */
    static boolean hasSubquery(Expr e) {
        if (e instanceof Expr.InSubquery || e instanceof Expr.Exists || e instanceof Expr.ScalarSubquery || e instanceof Expr.Quantified) return true;
        for (Expr c : children(e)) if (hasSubquery(c)) return true;
        return false;
    }

    /** The direct sub-expressions of {@code e}, not those inside subqueries. */
    static List<Expr> children(Expr e) {
        List<Expr> c = new ArrayList<>();
        switch (e) {
            case Expr.Unary u -> c.add(u.operand());
            case Expr.Binary b -> {
                c.add(b.left());
                c.add(b.right());
            }
            case Expr.Cast x -> c.add(x.operand());
            case Expr.Between b -> {
                c.add(b.expr());
                c.add(b.low());
                c.add(b.high());
            }
            case Expr.Like l -> {
                c.add(l.expr());
                c.add(l.pattern());
                if (l.escape() != null) c.add(l.escape());
            }
            case Expr.IsNull i -> c.add(i.expr());
            case Expr.IsTruth i -> c.add(i.expr());
            case Expr.IsDistinctFrom d -> {
                c.add(d.left());
                c.add(d.right());
            }
            case Expr.InList i -> {
                c.add(i.expr());
                c.addAll(i.list());
            }
            case Expr.InSubquery i -> c.add(i.expr());
            case Expr.Quantified q -> c.add(q.left());
            case Expr.FunctionCall f -> {
                c.addAll(f.args());
                if (f.filter() != null) c.add(f.filter());
                for (var o : f.orderBy()) c.add(o.expr());
            }
            case Expr.Extract x -> c.add(x.source());
            case Expr.QuantifiedArray q -> {
                c.add(q.left());
                c.add(q.array());
            }
            case Expr.ArrayConstructor a -> c.addAll(a.elements());
            case Expr.RowConstructor r -> c.addAll(r.fields());
            case Expr.FieldSelection f -> c.add(f.expr());
            case Expr.WindowCall w -> {
                c.addAll(w.call().args());
                if (w.call().filter() != null) c.add(w.call().filter());
                c.addAll(w.partitionBy());
                for (var o : w.orderBy()) c.add(o.expr());
                if (w.window().frame() != null) {
                    if (w.window().frame().start().offset() != null) c.add(w.window().frame().start().offset());
                    if (w.window().frame().end().offset() != null) c.add(w.window().frame().end().offset());
                }
            }
            case Expr.Subscript s -> {
                c.add(s.array());
                for (Expr.Subscript.Index i : s.indexes()) {
                    if (i.lower() != null) c.add(i.lower());
                    if (i.upper() != null) c.add(i.upper());
                }
            }
            case Expr.Case k -> {
                if (k.operand() != null) c.add(k.operand());
                for (Expr.When w : k.whens()) {
                    c.add(w.condition());
                    c.add(w.result());
                }
                if (k.elseExpr() != null) c.add(k.elseExpr());
            }
            default -> {
            }
        }
        return c;
    }
}
