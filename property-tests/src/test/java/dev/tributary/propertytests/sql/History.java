package dev.tributary.propertytests.sql;

import dev.tributary.propertytests.sql.Schema.Column;
import dev.tributary.propertytests.sql.Schema.Table;
import dev.tributary.propertytests.sql.Schema.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * A history of transactions over {@link Schema}'s tables: the input of an oracle run.
 *
 * <p>A transaction is one statement in autocommit, or a {@code BEGIN ... COMMIT} block, or a
 * {@code BEGIN ... ROLLBACK} block whose writes must leave no trace. Statements are INSERTs of
 * one to four rows, UPDATEs (a column to a value, or an integer column incremented) and DELETEs,
 * each with a WHERE on a column's value or its NULLness. Everything is generated as plain values
 * so that jqwik shrinks a failure by dropping transactions and statements and by simplifying
 * values.
 */
record History(List<Tx> txs) {
    enum End { AUTOCOMMIT, COMMIT, ROLLBACK }

    record Tx(End end, List<Stmt> stmts) {
        /** The transaction as one SQL script, ending with its COMMIT or ROLLBACK. */
        String sql() {
            String body = stmts.stream().map(Stmt::sql).collect(Collectors.joining("; "));
            return switch (end) {
                case AUTOCOMMIT -> body;
                case COMMIT -> "BEGIN; " + body + "; COMMIT";
                case ROLLBACK -> "BEGIN; " + body + "; ROLLBACK";
            };
        }

        @Override
        public String toString() {
            return sql();
        }
    }

    sealed interface Stmt permits Insert, Update, Delete {
        String sql();
    }

    record Insert(Table table, List<List<Object>> rows) implements Stmt {
        @Override
        public String sql() {
            return "INSERT INTO " + table.name() + " VALUES " + rows.stream()
                    .map(r -> r.stream().map(Schema::literal).collect(Collectors.joining(", ", "(", ")")))
                    .collect(Collectors.joining(", "));
        }
    }

    /** {@code UPDATE table SET col = value} (or {@code col = col + 1} when {@code increment}) WHERE ... */
    record Update(Table table, Column set, Object value, boolean increment, Where where) implements Stmt {
        @Override
        public String sql() {
            String rhs = increment ? set.name() + " + 1" : Schema.literal(value);
            return "UPDATE " + table.name() + " SET " + set.name() + " = " + rhs + where.sql();
        }
    }

    record Delete(Table table, Where where) implements Stmt {
        @Override
        public String sql() {
            return "DELETE FROM " + table.name() + where.sql();
        }
    }

    /** {@code WHERE col = value}, or {@code WHERE col IS NULL} when value is null. */
    record Where(Column column, Object value) {
        String sql() {
            return " WHERE " + column.name() + (value == null ? " IS NULL" : " = " + Schema.literal(value));
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < txs.size(); i++) b.append("\n  tx").append(i + 1).append(": ").append(txs.get(i).sql());
        return b.toString();
    }

    /** Histories of one to {@code maxTxs} transactions over {@code tables}. */
    static Arbitrary<History> histories(List<Table> tables, int maxTxs) {
        return tx(tables).list().ofMinSize(1).ofMaxSize(maxTxs).map(History::new);
    }

    static Arbitrary<Tx> tx(List<Table> tables) {
        Arbitrary<Stmt> stmt = stmt(tables);
        return Arbitraries.frequencyOf(
                Tuple.of(6, stmt.map(s -> new Tx(End.AUTOCOMMIT, List.of(s)))),
                Tuple.of(3, stmt.list().ofMinSize(1).ofMaxSize(4).map(s -> new Tx(End.COMMIT, s))),
                Tuple.of(1, stmt.list().ofMinSize(1).ofMaxSize(3).map(s -> new Tx(End.ROLLBACK, s))));
    }

    static Arbitrary<Stmt> stmt(List<Table> tables) {
        Arbitrary<Table> table = Arbitraries.of(tables);
        return table.flatMap(t -> Arbitraries.frequencyOf(
                Tuple.of(5, insert(t)),
                Tuple.of(3, update(t)),
                Tuple.of(2, where(t).map(w -> (Stmt) new Delete(t, w)))));
    }

    static Arbitrary<Stmt> insert(Table t) {
        List<Arbitrary<Object>> cols = new ArrayList<>();
        for (Column c : t.columns()) cols.add(Schema.values(c.type()));
        Arbitrary<List<Object>> row = Combinators.combine(cols).as(ArrayList::new);
        return row.list().ofMinSize(1).ofMaxSize(4).map(rs -> new Insert(t, rs));
    }

    static Arbitrary<Stmt> update(Table t) {
        return Combinators.combine(Arbitraries.of(t.columns()), Arbitraries.integers().between(0, 3), where(t))
                .flatAs((c, mode, w) -> {
                    boolean numeric = c.type() == Type.INT || c.type() == Type.BIGINT || c.type() == Type.NUMERIC;
                    if (numeric && mode == 0) return Arbitraries.just(new Update(t, c, null, true, w));
                    return Schema.values(c.type()).map(v -> new Update(t, c, v, false, w));
                });
    }

    static Arbitrary<Where> where(Table t) {
        return Arbitraries.of(t.columns()).flatMap(c -> Schema.values(c.type()).map(v -> new Where(c, v)));
    }
}
