package dev.tributary.propertytests.sqlgrammar;

import dev.tributary.propertytests.sqlgrammar.Schema.Column;
import dev.tributary.propertytests.sqlgrammar.Schema.Kind;
import dev.tributary.propertytests.sqlgrammar.Schema.Table;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The transactions of a case: INSERTs of one to four rows, UPDATEs (a column to a value or a
 * numeric column incremented) and DELETEs, each with a WHERE on one column's value or NULLness
 * (or none), in autocommit, in {@code BEGIN ... COMMIT} blocks, or in {@code BEGIN ... ROLLBACK}
 * blocks that must leave no trace.
 *
 * <p>Each statement is read from its own {@link Choices}, so jqwik shrinks a history by dropping
 * whole transactions and statements, and a statement by simplifying its choices; a statement
 * still means the same thing when the view's query shrinks.
 */
record History(List<Tx> txs) {
    enum End { AUTOCOMMIT, COMMIT, ROLLBACK }

    /** A transaction; an AUTOCOMMIT one of several statements is that many transactions. */
    record Tx(End end, List<Stmt> stmts) {
        /** The transactions as executed, one SQL text each. */
        List<String> units() {
            return switch (end) {
                case AUTOCOMMIT -> stmts.stream().map(Stmt::sql).toList();
                case COMMIT -> List.of("BEGIN; " + body() + "; COMMIT");
                case ROLLBACK -> List.of("BEGIN; " + body() + "; ROLLBACK");
            };
        }

        private String body() {
            return stmts.stream().map(Stmt::sql).collect(Collectors.joining("; "));
        }
    }

    record Stmt(Table table, String sql) {}

    /**
     * The transaction {@code end} (0 to 9: autocommit six times in ten, COMMIT three, ROLLBACK
     * one) over {@code stmts}, writing to {@code tables} (the tables the views read: writes to
     * others could not change a view).
     */
    static Tx tx(List<Table> tables, int end, List<List<Integer>> stmts) {
        End e = end < 6 ? End.AUTOCOMMIT : end < 9 ? End.COMMIT : End.ROLLBACK;
        return new Tx(e, stmts.stream().map(s -> stmt(tables, new Choices(s))).toList());
    }

    static Stmt stmt(List<Table> tables, Choices c) {
        Table t = c.pick(tables);
        int kind = c.below(10);
        if (kind < 6) {
            int n = 1 + c.below(4);
            List<String> rows = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                rows.add(t.columns().stream().map(col -> Schema.literal(value(col, c))).collect(Collectors.joining(", ", "(", ")")));
            }
            return new Stmt(t, "INSERT INTO " + t.name() + " VALUES " + String.join(", ", rows));
        }
        if (kind < 8) {
            Column set = c.pick(t.columns());
            String rhs = set.type().kind == Kind.NUM && c.chance(30) ? set.name() + " + 1" : Schema.literal(value(set, c));
            return new Stmt(t, "UPDATE " + t.name() + " SET " + set.name() + " = " + rhs + where(t, c));
        }
        return new Stmt(t, "DELETE FROM " + t.name() + where(t, c));
    }

    private static String where(Table t, Choices c) {
        if (c.chance(10)) return "";
        Column col = c.pick(t.columns());
        Object v = value(col, c);
        return " WHERE " + col.name() + (v == null ? " IS NULL" : " = " + Schema.literal(v));
    }

    /** A value of the column's domain, NULL one time in (domain size + 1). */
    private static Object value(Column col, Choices c) {
        List<Object> d = Schema.domain(col.type());
        int i = c.below(d.size() + 1);
        return i == d.size() ? null : d.get(i);
    }
}
