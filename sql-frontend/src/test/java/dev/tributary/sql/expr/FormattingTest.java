package dev.tributary.sql.expr;

import static dev.tributary.sql.expr.Sql.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * to_char, to_number, to_date and to_timestamp against PostgreSQL 15: each row of
 * {@code formatting/cases.tsv} is a call whose result (or SQLSTATE and message) was taken from a
 * real PostgreSQL 15 with {@code psql -At}.
 */
class FormattingTest {

    /** One call and PostgreSQL's answer: {@code [text]}, {@code NULL} or {@code ERROR sqlstate message}. */
    record Case(String function, String type, String argument, String template, String expected) {
        @Override
        public String toString() {
            return function + "('" + argument + "'::" + type + ", '" + template + "') = " + expected;
        }
    }

    static Stream<Case> cases() throws IOException {
        List<Case> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(
                Objects.requireNonNull(FormattingTest.class.getResourceAsStream("/formatting/cases.tsv")), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("#") || line.isBlank()) continue;
                String[] f = line.split("\t", -1);
                out.add(new Case(f[0], f[1], f[2], f[3], f[4]));
            }
        }
        return out.stream();
    }

    private static SqlType type(String name) {
        return switch (name) {
            case "smallint" -> SqlType.SMALLINT;
            case "integer" -> SqlType.INTEGER;
            case "bigint" -> SqlType.BIGINT;
            case "numeric" -> SqlType.NUMERIC;
            case "real" -> SqlType.REAL;
            case "double precision" -> SqlType.DOUBLE;
            case "text" -> SqlType.TEXT;
            case "date" -> SqlType.DATE;
            case "timestamp without time zone" -> SqlType.TIMESTAMP;
            case "timestamp with time zone" -> SqlType.TIMESTAMPTZ;
            case "interval" -> SqlType.INTERVAL;
            default -> throw new IllegalArgumentException(name);
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void matchesPostgres(Case c) {
        ScalarExpr call = fn(c.function(), lit(c.argument(), type(c.type())), text(c.template()));
        if (c.expected().startsWith("ERROR ")) {
            SqlException e = error(() -> eval(call));
            assertThat("ERROR " + e.sqlState() + " " + e.getMessage()).isEqualTo(c.expected());
        } else {
            String shown = show(call);
            assertThat(shown.equals("NULL") ? shown : "[" + shown + "]").isEqualTo(c.expected());
        }
    }

    @Test
    void resolvesPostgresOverloads() {
        assertThat(fn("to_char", i4(5), text("9")).type()).isEqualTo(SqlType.TEXT);
        assertThat(((ScalarExpr.Call) fn("to_char", lit("2024-01-02", SqlType.DATE), text("TZ"))).args().get(0).type()).isEqualTo(SqlType.TIMESTAMPTZ);
        assertThat(fn("to_number", text("12"), text("99")).type()).isEqualTo(SqlType.NUMERIC);
        assertThat(fn("to_date", text("2024-01-02"), text("YYYY-MM-DD")).type()).isEqualTo(SqlType.DATE);
        assertThat(fn("to_timestamp", text("2024"), text("YYYY")).type()).isEqualTo(SqlType.TIMESTAMPTZ);
        assertThat(show(fn("to_char", nul(SqlType.NUMERIC), text("999")))).isEqualTo("NULL");
        assertThat(show(fn("to_char", num("5"), nul(SqlType.TEXT)))).isEqualTo("NULL");
    }

    @Test
    void aTemplateIsCompiledOnce() {
        assertThat(NumberFormat.of("FM9,999.99")).isSameAs(NumberFormat.of("FM9,999.99"));
        assertThat(DateTimeFormat.of("YYYY-MM-DD")).isSameAs(DateTimeFormat.of("YYYY-MM-DD"));
    }
}
