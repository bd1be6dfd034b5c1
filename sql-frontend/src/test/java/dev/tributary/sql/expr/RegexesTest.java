package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.assertError;
import static dev.tributary.sql.expr.Sql.eval;
import static dev.tributary.sql.expr.Sql.i4;
import static dev.tributary.sql.expr.Sql.nul;
import static dev.tributary.sql.expr.Sql.text;
import static dev.tributary.sql.expr.Sql.unknown;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.types.SqlType;
import org.junit.jupiter.api.Test;

class RegexesTest {
    @Test
    void matchesAnywhereWithCaseAndNegation() {
        assertThat(eval(Regexes.match("~", text("pg_toast_1"), unknown("^pg_toast"), 1))).isEqualTo(true);
        assertThat(eval(Regexes.match("~", text("my pg_toast"), unknown("^pg_toast"), 1))).isEqualTo(false);
        assertThat(eval(Regexes.match("~", text("orders"), unknown("der"), 1))).isEqualTo(true);
        assertThat(eval(Regexes.match("~*", text("ORDERS"), unknown("^ord"), 1))).isEqualTo(true);
        assertThat(eval(Regexes.match("!~", text("orders"), unknown("^ord"), 1))).isEqualTo(false);
        assertThat(eval(Regexes.match("!~*", text("ORDERS"), unknown("^x"), 1))).isEqualTo(true);
        assertThat(eval(Regexes.match("~", text("a1"), unknown("[[:digit:]]"), 1))).isEqualTo(true);
        assertThat(eval(Regexes.match("~", unknown("abc"), unknown("^a.c$"), 1))).isEqualTo(true);
    }

    @Test
    void nullsAndErrors() {
        assertThat(eval(Regexes.match("~", nul(SqlType.TEXT), unknown("a"), 1))).isNull();
        assertThat(eval(Regexes.match("~", text("a"), nul(SqlType.TEXT), 1))).isNull();
        assertError(() -> Regexes.match("~", text("a"), unknown("("), 1), "2201B", null);
        // a pattern known only when evaluated is checked then
        ScalarExpr pattern = Regexes.match("~", text("a"), Sql.col(0, SqlType.TEXT), 1);
        assertThat(pattern.eval(new Object[] {"^a"})).isEqualTo(true);
        assertError(() -> pattern.eval(new Object[] {"["}), "2201B", null);
        assertError(() -> Regexes.match("~", i4(1), unknown("a"), 1), "42883", null);
    }
}
