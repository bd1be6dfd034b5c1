package dev.tributary.propertytests.sqlgrammar;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A generated schema: two to five tables {@code t1 ... t5} of one to five nullable columns each.
 *
 * <p>A column's name says its type ({@code i} int, {@code b} bigint, {@code s} text, {@code n}
 * numeric(10,2), {@code f} boolean) and its position, so {@code t2.s1} is t2's second column, a
 * text; a repro reads without the DDL. Every type's values come from a small {@link #domain
 * domain}, shared across the numeric types (0, 1, 2 and -1 are ints, bigints and numerics alike),
 * so that joins match across types and groups collide.
 */
record Schema(List<Table> tables) {

    /** What a value can be compared with, unioned with and joined to: types of a kind mix freely. */
    enum Kind { NUM, TEXT, BOOL }

    enum Type {
        INT("int", "i", Kind.NUM), BIGINT("bigint", "b", Kind.NUM), TEXT("text", "s", Kind.TEXT),
        NUMERIC("numeric(10,2)", "n", Kind.NUM), BOOLEAN("boolean", "f", Kind.BOOL);

        final String sql;
        final String prefix;
        final Kind kind;

        Type(String sql, String prefix, Kind kind) {
            this.sql = sql;
            this.prefix = prefix;
            this.kind = kind;
        }
    }

    record Column(String name, Type type) {}

    record Table(String name, List<Column> columns) {
        String ddl() {
            return "CREATE TABLE " + name + " ("
                    + columns.stream().map(c -> c.name() + " " + c.type().sql).collect(Collectors.joining(", ")) + ")";
        }
    }

    /** The schema whose table {@code i} has a column of type {@code Type.values()[t]} per entry {@code t} of {@code shape.get(i)}. */
    static Schema of(List<List<Integer>> shape) {
        List<Table> tables = new ArrayList<>();
        for (int i = 0; i < shape.size(); i++) {
            List<Column> cols = new ArrayList<>();
            for (int j = 0; j < shape.get(i).size(); j++) {
                Type t = Type.values()[shape.get(i).get(j)];
                cols.add(new Column(t.prefix + j, t));
            }
            tables.add(new Table("t" + (i + 1), cols));
        }
        return new Schema(tables);
    }

    /**
     * The values a column of {@code type} takes, simplest first (a shrunk value moves towards the
     * first). Numbers stay small, but for one bigint that makes {@code b * b} overflow (22003).
     */
    static List<Object> domain(Type type) {
        return switch (type) {
            case INT -> List.of(0L, 1L, 2L, -1L, 3L);
            case BIGINT -> List.of(0L, 1L, 2L, -1L, 4000000000L);
            case TEXT -> List.of("a", "b", "", "ab", "c");
            case NUMERIC -> List.of(new BigDecimal("0"), new BigDecimal("1.5"), new BigDecimal("2"),
                    new BigDecimal("-1.25"), new BigDecimal("0.10"), new BigDecimal("10.99"));
            case BOOLEAN -> List.of(false, true);
        };
    }

    /** {@code v} as a SQL literal; NULL as itself (only where its type is fixed by context). */
    static String literal(Object v) {
        return switch (v) {
            case null -> "NULL";
            case String s -> "'" + s.replace("'", "''") + "'";
            case Boolean b -> b ? "TRUE" : "FALSE";
            case BigDecimal d -> d.toPlainString();
            default -> v.toString();
        };
    }
}
