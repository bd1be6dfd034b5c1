package dev.tributary.sql.parser;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.ast.Statement.CopyHeader;
import dev.tributary.sql.ast.Statement.CopyOptions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** COPY, DECLARE, FETCH and CLOSE: what they parse to, PostgreSQL's errors, and a round trip through the formatter. */
class CopyCursorParserTest {
    private static Statement.Copy copy(String sql) {
        return (Statement.Copy) Parser.parseStatement(sql);
    }

    private static void roundTrips(String sql) {
        Statement once = Parser.parseStatement(sql);
        assertThat(Parser.parseStatement(SqlFormatter.format(once))).isEqualTo(once);
    }

    private static void fails(String sql, String state, String message, int position) {
        assertThatThrownBy(() -> Parser.parseStatement(sql)).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).isEqualTo(state);
            assertThat(e.getMessage()).isEqualTo(message);
            assertThat(e.position()).isEqualTo(position);
        });
    }

    @Test
    void copyOptionsResolveToPostgresDefaults() {
        Statement.Copy c = copy("COPY public.t (a, b) FROM STDIN");
        assertThat(c.table()).containsExactly("public", "t");
        assertThat(c.columns()).containsExactly("a", "b");
        assertThat(c.from()).isTrue();
        assertThat(c.options()).isEqualTo(CopyOptions.TEXT);
        assertThat(c.file()).isNull();
        Statement.Copy file = copy("COPY t FROM '/data/orders.csv' (FORMAT csv)");
        assertThat(file.file()).isEqualTo("/data/orders.csv");
        assertThat(file.from()).isTrue();
        assertThat(copy("COPY (SELECT 1) TO 'out.txt'").file()).isEqualTo("out.txt");
        assertThat(copy("COPY t FROM STDIN (FORMAT json)").options()).isEqualTo(CopyOptions.JSON);
        assertThat(copy("COPY t FROM '/x.jsonl' WITH (FORMAT 'json')").options().json()).isTrue();
        assertThat(dev.tributary.sql.parser.SqlFormatter.format(file)).startsWith("COPY t FROM '/data/orders.csv' WITH (FORMAT csv");
        assertThat(copy("COPY t FROM STDIN WITH (FORMAT csv, HEADER)").options())
                .isEqualTo(new CopyOptions(true, ',', "", CopyHeader.SKIP, '"', '"'));
        assertThat(copy("COPY t FROM STDIN (FORMAT 'csv', DELIMITER ';', NULL 'NA', QUOTE '''', ESCAPE '\\', HEADER match)").options())
                .isEqualTo(new CopyOptions(true, ';', "NA", CopyHeader.MATCH, '\'', '\\'));
        // the spelling of PostgreSQL before 9.0, which psql users still type
        assertThat(copy("COPY t FROM STDIN WITH CSV HEADER DELIMITER AS '|' NULL AS '-'").options())
                .isEqualTo(new CopyOptions(true, '|', "-", CopyHeader.SKIP, '"', '"'));
        assertThat(copy("COPY t TO STDOUT DELIMITER ','").options()).isEqualTo(new CopyOptions(false, ',', "\\N", CopyHeader.NONE, '"', '"'));
        Statement.Copy sub = copy("COPY (SUBSCRIBE t) TO STDOUT");
        assertThat(sub.query()).isInstanceOf(Statement.Subscribe.class);
        assertThat(sub.table()).isEmpty();
        assertThat(((Statement.QueryStatement) copy("COPY (SELECT * FROM t EMIT CHANGES) TO STDOUT").query()).emitChanges()).isTrue();
    }

    @Test
    void copyErrorsAsPostgresReportsThem() {
        fails("COPY t FROM STDIN WITH (FORMAT xml)", "22023", "COPY format \"xml\" not recognized", 25);
        fails("COPY t FROM STDIN (DELIMITER ',', DELIMITER ';')", "42601", "conflicting or redundant options", 35);
        fails("COPY t FROM STDIN (COLOUR 'red')", "42601", "option \"colour\" not recognized", 20);
        fails("COPY t FROM STDIN (QUOTE '\"')", "0A000", "COPY quote available only in CSV mode", 0);
        fails("COPY t FROM STDIN (DELIMITER '||')", "0A000", "COPY delimiter must be a single one-byte character", 0);
        fails("COPY t FROM STDIN (FORMAT csv, DELIMITER '\"')", "22023", "COPY delimiter and quote must be different", 0);
        fails("COPY t FROM STDIN (DELIMITER 'a')", "22023", "COPY delimiter cannot be \"a\"", 0);
        fails("COPY t FROM STDIN (FORMAT csv, NULL 'a,b')", "22023", "COPY delimiter must not appear in the NULL specification", 0);
        fails("COPY t TO STDOUT (HEADER match)", "0A000", "cannot use \"match\" with HEADER in COPY TO", 0);
        fails("COPY t FROM PROGRAM 'cat /etc/passwd'", "0A000", "COPY FROM a program is not supported", 13);
        fails("COPY t FROM STDIN (FORMAT json, DELIMITER ',')", "42601", "cannot specify DELIMITER in JSON mode", 33);
        fails("COPY t TO STDOUT (FORMAT json)", "0A000", "COPY TO with FORMAT json is not supported", 19);
        fails("COPY (SUBSCRIBE t) TO '/tmp/s'", "0A000", "COPY (SUBSCRIBE ...) TO a file is not supported", 1);
        fails("COPY (SELECT 1) FROM STDIN", "42601", "syntax error at or near \"FROM\"", 17);
    }

    @Test
    void cursorStatements() {
        Statement.DeclareCursor d = (Statement.DeclareCursor) Parser.parseStatement("DECLARE c NO SCROLL CURSOR WITHOUT HOLD FOR SUBSCRIBE t");
        assertThat(d.name()).isEqualTo("c");
        assertThat(d.query()).isInstanceOf(Statement.Subscribe.class);
        assertThat(((Statement.DeclareCursor) Parser.parseStatement("DECLARE q CURSOR FOR SELECT 1")).query()).isInstanceOf(Statement.QueryStatement.class);
        assertThat(Parser.parseStatement("FETCH c")).isEqualTo(new Statement.Fetch(1, "c", 1, null));
        assertThat(Parser.parseStatement("FETCH 10 c")).isEqualTo(new Statement.Fetch(1, "c", 10, null));
        assertThat(Parser.parseStatement("FETCH ALL FROM c")).isEqualTo(new Statement.Fetch(1, "c", Statement.Fetch.ALL, null));
        assertThat(Parser.parseStatement("FETCH FORWARD 3 IN c")).isEqualTo(new Statement.Fetch(1, "c", 3, null));
        assertThat(Parser.parseStatement("FETCH NEXT FROM c")).isEqualTo(new Statement.Fetch(1, "c", 1, null));
        Statement.Fetch timed = (Statement.Fetch) Parser.parseStatement("FETCH 5 c WITH (timeout = '1s')");
        assertThat(timed.timeout()).isNotNull();
        assertThat(Parser.parseStatement("CLOSE c")).isEqualTo(new Statement.CloseCursor(1, "c"));
        assertThat(Parser.parseStatement("CLOSE ALL")).isEqualTo(new Statement.CloseCursor(1, null));
        fails("FETCH BACKWARD 1 c", "55000", "cursor can only scan forward", 7);
        fails("DECLARE c CURSOR WITH HOLD FOR SELECT 1", "0A000", "DECLARE ... WITH HOLD is not supported", 18);
        fails("FETCH 1 c WITH (wait = '1s')", "42601", "unrecognized FETCH option \"wait\"", 17);
    }

    @Test
    void formattedStatementsParseBackToThemselves() {
        for (String sql : List.of("COPY t FROM STDIN", "COPY t (a, \"B\") FROM STDIN WITH (FORMAT csv, HEADER match, NULL 'x', QUOTE '''', ESCAPE '\\')",
                "COPY (SUBSCRIBE t WITH (PROGRESS)) TO STDOUT", "COPY (SELECT a FROM t WHERE a > 1) TO STDOUT WITH CSV HEADER",
                "COPY t TO STDOUT (DELIMITER '|', NULL '')", "DECLARE c CURSOR FOR SUBSCRIBE (SELECT 1)", "DECLARE c CURSOR FOR SELECT * FROM t EMIT CHANGES",
                "FETCH ALL c", "FETCH 3 FROM c WITH (TIMEOUT = '250ms')", "CLOSE ALL", "CLOSE \"C\"")) {
            roundTrips(sql);
        }
    }
}
