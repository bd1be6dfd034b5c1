package dev.tributary.sql.parser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Garbage in, SqlException out: seeded random token soup, truncations and character damage of
 * valid statements never escape as another exception type, never hang, and every error has a
 * five-character SQLSTATE and a position inside (or just past) the text. Whatever does parse
 * must format and re-parse to the same text.
 */
class FuzzTest {
    private static final List<String> TOKENS = List.of(
            "SELECT", "FROM", "WHERE", "GROUP", "BY", "ORDER", "HAVING", "LIMIT", "OFFSET", "FETCH", "FIRST", "ROWS",
            "ONLY", "UNION", "INTERSECT", "EXCEPT", "ALL", "DISTINCT", "ON", "AS", "OF", "SYSTEM", "TIME", "SINCE",
            "JOIN", "LEFT", "RIGHT", "FULL", "OUTER", "INNER", "CROSS", "NATURAL", "USING", "LATERAL", "VALUES",
            "WITH", "RECURSIVE", "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "EXISTS", "IN", "BETWEEN", "AND", "OR",
            "NOT", "IS", "NULL", "TRUE", "FALSE", "LIKE", "ILIKE", "ESCAPE", "DATE", "TIMESTAMP", "INTERVAL", "DAY",
            "EXTRACT", "SUBSTRING", "POSITION", "TRIM", "FOR", "LEADING", "CREATE", "TABLE", "VIEW", "MATERIALIZED",
            "INDEX", "DROP", "INSERT", "INTO", "UPDATE", "SET", "DELETE", "DEFAULT", "PRIMARY", "KEY", "SHOW",
            "EXPLAIN", "SUBSCRIBE", "EMIT", "CHANGES", "ADVANCE", "CLOCK", "TO", "ENVELOPE", "UPSERT", "FILTER",
            "int", "text", "varchar", "numeric", "double", "precision", "count", "sum", "now", "coalesce",
            "a", "b", "t", "u", "\"Q\"", "x.y", "*", "t.*", "(", ")", "(", ")", ",", ";", ".", "::", "[", "]", ":",
            "+", "-", "*", "/", "%", "^", "||", "=", "<>", "!=", "<", "<=", ">", ">=", "~~", "~", "@@",
            "1", "0", "42", "1.5", ".5", "1e3", "99999999999999999999", "$1", "'str'", "E'\\n'", "$$d$$", "'",
            "\"", "/*", "*/", "--", "\n", "$", "\\", "?", "#", "é");

    private static void check(String sql) {
        List<Statement> parsed;
        try {
            parsed = Parser.parse(sql);
        } catch (SqlException e) {
            assertThat(e.sqlState()).as("SQLSTATE for %s", sql).matches("[0-9A-Z]{5}");
            assertThat(e.position()).as("position for %s", sql).isBetween(0, sql.length() + 1);
            assertThat(e.getMessage()).isNotBlank();
            return;
        } catch (RuntimeException | StackOverflowError e) {
            throw new AssertionError("non-SQL failure for: " + sql, e);
        }
        for (Statement s : parsed) {
            String once = SqlFormatter.format(s);
            String twice;
            try {
                twice = SqlFormatter.format(Parser.parseStatement(once));
            } catch (SqlException e) {
                throw new AssertionError("formatted text does not parse: " + once + " (from " + sql + ")", e);
            }
            assertThat(twice).as("round trip of %s", sql).isEqualTo(once);
        }
    }

    @Test
    void randomTokenSoup() {
        Random rnd = new Random(20240601L);
        for (int i = 0; i < 20_000; i++) {
            int n = 1 + rnd.nextInt(14);
            StringBuilder b = new StringBuilder();
            for (int k = 0; k < n; k++) {
                if (k > 0 && rnd.nextInt(4) != 0) b.append(' ');
                b.append(TOKENS.get(rnd.nextInt(TOKENS.size())));
            }
            check(b.toString());
        }
    }

    @Test
    void truncationsAndDamageOfValidStatements() {
        Random rnd = new Random(7L);
        List<String> corpus = RoundTripTest.corpus().toList();
        for (String sql : corpus) {
            for (int cut = 0; cut <= sql.length(); cut++) check(sql.substring(0, cut));
            for (int k = 0; k < 30; k++) {
                StringBuilder b = new StringBuilder(sql);
                int at = rnd.nextInt(b.length() + 1);
                switch (rnd.nextInt(3)) {
                    case 0 -> {
                        if (at < b.length()) b.deleteCharAt(at);
                    }
                    case 1 -> b.insert(at, "()',;:.\"$-*/E1 ".charAt(rnd.nextInt(15)));
                    default -> b.insert(at, " " + TOKENS.get(rnd.nextInt(TOKENS.size())) + " ");
                }
                check(b.toString());
            }
        }
    }

    @Test
    void randomCharacters() {
        Random rnd = new Random(99L);
        String alphabet = "abSELCTFROMWHER ()',;:.\"$-+*/<>=!~|^%0123456789eE\n\t\\[]#?";
        for (int i = 0; i < 5_000; i++) {
            int n = rnd.nextInt(40);
            StringBuilder b = new StringBuilder();
            for (int k = 0; k < n; k++) b.append(alphabet.charAt(rnd.nextInt(alphabet.length())));
            check(b.toString());
        }
    }
}
