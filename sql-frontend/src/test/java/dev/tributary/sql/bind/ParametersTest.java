package dev.tributary.sql.bind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.Catalog;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.parser.Parser;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Parameters of prepared statements: {@code $n} take a declared type or the one their context
 * gives them, as PostgreSQL infers them (the expected types below are what PostgreSQL 15 reports
 * in pg_prepared_statements for the same statements), and a bound plan runs with values put in.
 */
class ParametersTest {
    private static final CatalogItem.Table T = new CatalogItem.Table(1, "t",
            List.of(new Column("id", SqlType.INTEGER, false), new Column("s", SqlType.varchar(10), true), new Column("n", SqlType.numeric(10, 2), true)),
            List.of(0), List.of(new ScalarExpr.Literal(null, SqlType.INTEGER), new ScalarExpr.Literal(null, SqlType.varchar(10)),
                    new ScalarExpr.Literal(null, SqlType.numeric(10, 2))), "");
    private static final Catalog CATALOG = (schema, name) -> schema.equals("public") && name.equals("t") ? Optional.of(T) : Optional.empty();

    private static List<SqlType> types(String sql, SqlType... declared) {
        Statement st = Parser.parseStatement(sql);
        Binder b = new Binder(CATALOG, Arrays.asList(declared));
        Plan plan = switch (st) {
            case Statement.QueryStatement q -> b.bindQuery(q.query()).plan();
            case Statement.Insert i -> b.bindInsert(T, i).plan();
            case Statement.Update u -> b.bindUpdate(T, "t", u.assignments(), u.where());
            case Statement.Delete d -> b.bindDelete(T, "t", d.where());
            default -> throw new IllegalArgumentException(sql);
        };
        return b.parameterTypes(List.of(plan));
    }

    @Test
    void typesComeFromContextAsInPostgresql() {
        assertThat(types("SELECT * FROM t WHERE id = $1")).containsExactly(SqlType.INTEGER);
        assertThat(types("SELECT $1")).containsExactly(SqlType.TEXT);
        assertThat(types("SELECT $1 + 1")).containsExactly(SqlType.INTEGER);
        assertThat(types("SELECT $1::int, $1::text")).containsExactly(SqlType.INTEGER);
        assertThat(types("INSERT INTO t VALUES ($1, $2, $3)")).containsExactly(SqlType.INTEGER, SqlType.VARCHAR, SqlType.NUMERIC);
        assertThat(types("SELECT * FROM t WHERE s = $1 AND n > $2")).containsExactly(SqlType.TEXT, SqlType.NUMERIC);
        assertThat(types("SELECT * FROM t WHERE id = $1 OR $1 IS NULL")).containsExactly(SqlType.INTEGER);
        assertThat(types("UPDATE t SET n = $2 WHERE id = $1")).containsExactly(SqlType.INTEGER, SqlType.NUMERIC);
        assertThat(types("DELETE FROM t WHERE id IN ($1, $2)")).containsExactly(SqlType.INTEGER, SqlType.INTEGER);
    }

    @Test
    void declaredTypesStand() {
        assertThat(types("SELECT * FROM t WHERE id = $1", SqlType.BIGINT)).containsExactly(SqlType.BIGINT);
        assertThat(types("SELECT $1", SqlType.DATE)).containsExactly(SqlType.DATE);
        // declared but unused: still a parameter of the statement
        assertThat(types("SELECT 1", SqlType.INTEGER, SqlType.TEXT)).containsExactly(SqlType.INTEGER, SqlType.TEXT);
        // declared as unspecified (null): inferred
        assertThat(types("SELECT * FROM t WHERE id = $1 AND s = $2", null, SqlType.VARCHAR)).containsExactly(SqlType.INTEGER, SqlType.VARCHAR);
    }

    @Test
    void undeterminedAndInconsistentParametersAreErrors() {
        assertThatThrownBy(() -> types("SELECT $2::int"))
                .isInstanceOfSatisfying(SqlException.class, e -> {
                    assertThat(e.sqlState()).isEqualTo("42P18");
                    assertThat(e.getMessage()).isEqualTo("could not determine data type of parameter $1");
                });
        assertThatThrownBy(() -> types("SELECT ($1 = 1) AND ($1 = 'x'::text)"))
                .isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isIn("42P08", "42883"));
        // without a parameter context (a view, the simple protocol) there is no $1
        assertThatThrownBy(() -> new Binder(CATALOG).bindQuery(Parser.parseQuery("SELECT $1")))
                .isInstanceOfSatisfying(SqlException.class, e -> {
                    assertThat(e.sqlState()).isEqualTo("42P02");
                    assertThat(e.getMessage()).isEqualTo("there is no parameter $1");
                    assertThat(e.position()).isEqualTo(8);
                });
    }

    @Test
    void valuesAreBoundIntoThePlanNotTheText() {
        Binder b = new Binder(CATALOG, List.of());
        var q = b.bindQuery(Parser.parseQuery("SELECT $1 + 1, $2 || 'x', $2"));
        List<SqlType> types = b.parameterTypes(List.of(q.plan()));
        assertThat(types).containsExactly(SqlType.INTEGER, SqlType.TEXT);
        // the plan holds parameters, not values; each run puts its own in
        assertThat(Plans.parameters(q.plan())).extracting(ScalarExpr.Param::index).contains(1, 2);
        for (long v : new long[] {1, 41}) {
            Plan p = Plans.withParameters(q.plan(), new Object[] {v, "it's"}, types);
            assertThat(Plans.parameters(p)).isEmpty();
            Plan.Map m = (Plan.Map) find(p, Plan.Map.class);
            List<Object> out = new ArrayList<>();
            for (ScalarExpr e : m.exprs()) out.add(e.eval(new Object[0]));
            assertThat(out).containsExactly(v + 1, "it'sx", "it's");
        }
    }

    private static Plan find(Plan p, Class<?> kind) {
        if (kind.isInstance(p)) return p;
        Plan[] found = {null};
        Plans.withInputs(p, in -> {
            if (found[0] == null) found[0] = find(in, kind);
            return in;
        });
        return found[0];
    }
}
