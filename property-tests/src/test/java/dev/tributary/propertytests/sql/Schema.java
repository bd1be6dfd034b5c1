package dev.tributary.propertytests.sql;

import java.math.BigDecimal;
import java.util.List;
import java.util.stream.Collectors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/**
 * The tables every oracle run starts from: three, every column nullable, over small value domains
 * so that joins match, groups collide and updates hit rows.
 *
 * <p>The schema is fixed because the view catalogue ({@link Shapes}) is written against it; the
 * randomness is in the data and the transactions. Text values are lowercase ASCII (and the empty
 * string), so that Tributary's and DuckDB's orderings of text agree; numbers stay small, so no
 * sum or {@code a + 1} overflows.
 */
final class Schema {
    private Schema() {}

    enum Type {
        INT("int"), BIGINT("bigint"), TEXT("text"), NUMERIC("numeric(10,2)"), BOOLEAN("boolean");

        final String sql;

        Type(String sql) {
            this.sql = sql;
        }
    }

    record Column(String name, Type type) {}

    record Table(String name, List<Column> columns) {
        String ddl() {
            return "CREATE TABLE " + name + " (" + columns.stream().map(c -> c.name() + " " + c.type().sql).collect(Collectors.joining(", ")) + ")";
        }

        Column column(int i) {
            return columns.get(Math.floorMod(i, columns.size()));
        }
    }

    static final Table T1 = new Table("t1", List.of(
            new Column("k", Type.INT), new Column("a", Type.INT), new Column("b", Type.BIGINT),
            new Column("s", Type.TEXT), new Column("n", Type.NUMERIC), new Column("f", Type.BOOLEAN)));
    static final Table T2 = new Table("t2", List.of(
            new Column("k", Type.INT), new Column("x", Type.INT), new Column("s", Type.TEXT),
            new Column("n", Type.NUMERIC), new Column("f", Type.BOOLEAN)));
    static final Table T3 = new Table("t3", List.of(
            new Column("k", Type.INT), new Column("y", Type.BIGINT), new Column("s", Type.TEXT)));

    static final List<Table> TABLES = List.of(T1, T2, T3);

    /** Values of a column of {@code type}, NULL about one time in six; shrinks towards the first. */
    static Arbitrary<Object> values(Type type) {
        Arbitrary<Object> some = switch (type) {
            case INT -> Arbitraries.integers().between(-2, 5).map(i -> (Object) (long) i);
            case BIGINT -> Arbitraries.of(0L, 1L, 3L, -1L, 5L, 4000000000L).map(v -> (Object) v);
            case TEXT -> Arbitraries.of("a", "b", "ab", "", "c").map(v -> (Object) v);
            case NUMERIC -> Arbitraries.of("0", "1.5", "-1.25", "2", "0.10", "10.99").map(v -> (Object) new BigDecimal(v));
            case BOOLEAN -> Arbitraries.of(true, false).map(v -> (Object) v);
        };
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(5, some),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(null)));
    }

    /** A value as a SQL literal both engines read the same way. */
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
