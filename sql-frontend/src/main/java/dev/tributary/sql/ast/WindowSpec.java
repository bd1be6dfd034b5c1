package dev.tributary.sql.ast;

import java.util.List;

/**
 * A window as written after OVER or in a WINDOW clause: {@code [base] [PARTITION BY ...] [ORDER BY
 * ...] [frame]}. {@code base} names a window of the query's WINDOW clause this one starts from
 * (null when none); a bare {@code OVER w} is a spec with only a base. {@code frame} is null when
 * none is written (PostgreSQL's default then applies: with ORDER BY, RANGE BETWEEN UNBOUNDED
 * PRECEDING AND CURRENT ROW; without, the whole partition).
 */
public record WindowSpec(int pos, String base, List<Expr> partitionBy, List<OrderItem> orderBy, Frame frame) implements Node {
    public WindowSpec {
        partitionBy = List.copyOf(partitionBy);
        orderBy = List.copyOf(orderBy);
    }

    /** {@code mode BETWEEN start AND end [EXCLUDE exclusion]} ({@code mode start} has end CURRENT ROW). */
    public record Frame(int pos, Mode mode, Bound start, Bound end, Exclusion exclusion) {}

    /** How a frame's offsets count: rows, values of the one ORDER BY column, or peer groups. */
    public enum Mode { ROWS, RANGE, GROUPS }

    /** A frame's edge; {@code offset} is set for PRECEDING and FOLLOWING with an offset, else null. */
    public record Bound(BoundKind kind, Expr offset) {}

    public enum BoundKind {
        UNBOUNDED_PRECEDING("UNBOUNDED PRECEDING"), PRECEDING("PRECEDING"), CURRENT_ROW("CURRENT ROW"), FOLLOWING("FOLLOWING"),
        UNBOUNDED_FOLLOWING("UNBOUNDED FOLLOWING");

        private final String sql;

        BoundKind(String sql) {
            this.sql = sql;
        }

        public String sql() {
            return sql;
        }
    }

    /** Which rows of its frame a row leaves out: none, itself, its peer group, or its peers but itself. */
    public enum Exclusion {
        NO_OTHERS("NO OTHERS"), CURRENT_ROW("CURRENT ROW"), GROUP("GROUP"), TIES("TIES");

        private final String sql;

        Exclusion(String sql) {
            this.sql = sql;
        }

        public String sql() {
            return sql;
        }
    }

    /** {@code name AS (spec)} of a SELECT's WINDOW clause. */
    public record Named(int pos, String name, WindowSpec spec) implements Node {}
}
