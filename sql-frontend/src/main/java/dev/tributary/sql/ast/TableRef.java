package dev.tributary.sql.ast;

import java.util.List;

/** An item of a FROM clause. {@code alias} is null when none was written. */
public sealed interface TableRef extends Node {

    /** A table, view or CTE by (possibly qualified) name. */
    record NamedTable(int pos, List<String> name, Alias alias) implements TableRef {
        public NamedTable {
            name = List.copyOf(name);
        }
    }

    /** {@code [LATERAL] (query) [AS alias]}. */
    record DerivedTable(int pos, boolean lateral, Query query, Alias alias) implements TableRef {}

    /** {@code (VALUES ...) [AS alias]}. */
    record ValuesTable(int pos, QueryBody.Values values, Alias alias) implements TableRef {}

    /** A set-returning function call in FROM, e.g. {@code generate_series(1, 3) AS g(n)}. */
    record FunctionTable(int pos, boolean lateral, Expr.FunctionCall call, Alias alias, boolean ordinality) implements TableRef {
        public FunctionTable(int pos, boolean lateral, Expr.FunctionCall call, Alias alias) {
            this(pos, lateral, call, alias, false);
        }
    }

    /**
     * A windowing table function: {@code TUMBLE(input, time_col, size [, offset])},
     * {@code HOP(input, time_col, slide, size [, offset])}, {@code CUMULATE(input, time_col, step,
     * size [, offset])} or {@code SESSION(input [PARTITION BY cols], time_col, gap)}, also in
     * Flink's spelling {@code TABLE(TUMBLE(TABLE input, DESCRIPTOR(time_col), size))}.
     * {@code function} is the function's name in lower case; {@code input} a {@link NamedTable}, a
     * {@link Stream} or a {@link DerivedTable}; {@code partitionBy} empty but for a partitioned
     * SESSION.
     */
    record WindowTable(int pos, String function, TableRef input, List<Expr.ColumnRef> partitionBy, Expr.ColumnRef timeColumn, List<Expr> args,
            Alias alias) implements TableRef {
        public WindowTable {
            partitionBy = List.copyOf(partitionBy);
            args = List.copyOf(args);
        }
    }

    /**
     * {@code table STREAM [FROM BEGINNING | FROM NOW] [WATERMARK FOR col AS expr] [TUMBLE INTERVAL
     * size | HOP INTERVAL size EVERY slide | SESSION GAP gap [PARTITION BY cols]]}: a table's rows as a stream in event time, in the
     * order they commit. {@code cursor} is the read position of {@code FROM CURSOR}, null for none;
     * {@code watermark} is null where the table's declared one applies, {@code window} null for none.
     */
    record Stream(int pos, NamedTable input, boolean fromNow, Expr cursor, Watermark watermark, StreamWindow window, Alias alias, String group)
            implements TableRef {
        /** A STREAM read by no consumer group. */
        public Stream(int pos, NamedTable input, boolean fromNow, Expr cursor, Watermark watermark, StreamWindow window, Alias alias) {
            this(pos, input, fromNow, cursor, watermark, window, alias, null);
        }
    }

    /**
     * A STREAM's window clause: {@code function} "tumble" with args (size), "hop" with (slide,
     * size) or "session" with (gap) and its {@code partitionBy} columns (empty for the others).
     */
    record StreamWindow(int pos, String function, List<Expr> args, List<Expr.ColumnRef> partitionBy) {
        public StreamWindow {
            args = List.copyOf(args);
            partitionBy = List.copyOf(partitionBy);
        }
    }

    /** How a join keeps rows; {@code ASOF} and {@code ASOF_LEFT} match each left row with its nearest right row in time. */
    enum JoinKind { INNER, LEFT, RIGHT, FULL, CROSS, ASOF, ASOF_LEFT }

    /** How a join matches rows: ON, USING, NATURAL, or nothing (CROSS JOIN). */
    sealed interface JoinCondition {}
    record On(Expr condition) implements JoinCondition {}
    record Using(List<String> columns) implements JoinCondition {
        public Using {
            columns = List.copyOf(columns);
        }
    }
    record Natural() implements JoinCondition {}
    record NoCondition() implements JoinCondition {}

    /** {@code left [kind] JOIN right condition}; a CROSS JOIN has {@link NoCondition}. */
    record Join(int pos, JoinKind kind, TableRef left, TableRef right, JoinCondition condition) implements TableRef {}

    /** {@code name AS OF SYSTEM TIME asOf SINCE since [AS alias]}: the table as it was at a time. */
    /**
     * {@code name AS OF SYSTEM TIME asOf [SINCE since]}; {@code since} null: as far back as the
     * table's history is readable when the query starts (what Flink's {@code FOR SYSTEM_TIME AS
     * OF} becomes).
     */
    record AsOfSystemTime(int pos, List<String> name, Expr asOf, Expr since, Alias alias) implements TableRef {
        public AsOfSystemTime {
            name = List.copyOf(name);
        }
    }

    /** {@code CHANGES(name AS OF asOf) [AS alias]}: the change log of a relation since a time. */
    record Changes(int pos, List<String> name, Expr asOf, Alias alias) implements TableRef {
        public Changes {
            name = List.copyOf(name);
        }
    }
}
