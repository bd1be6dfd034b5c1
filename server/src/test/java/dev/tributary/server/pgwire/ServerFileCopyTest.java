package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.util.PSQLException;

/**
 * COPY to and from a file on the server's machine, over JDBC as a client sends it: the file
 * parsed as COPY FROM STDIN would be (all or nothing, errors naming the line), superusers only,
 * and PostgreSQL's errors for a missing file, a directory, a relative path to write, another role.
 */
@Timeout(60)
class ServerFileCopyTest extends LocalServerTest {
    @TempDir
    Path dir;

    private Connection connect(String user) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=" + user + "&prepareThreshold=0");
    }

    private static void fails(Statement s, String sql, String state, String message) {
        assertThatThrownBy(() -> s.execute(sql)).as(sql).isInstanceOfSatisfying(PSQLException.class, e -> {
            assertThat(e.getSQLState()).isEqualTo(state);
            assertThat(e.getServerErrorMessage().getMessage()).isEqualTo(message);
        });
    }

    @Test
    void aFileIsCopiedInAsTheClientWouldSendItAndOutAsItWouldReceiveIt() throws Exception {
        Path text = Files.writeString(dir.resolve("t.txt"), "1\tone\t10\n2\ttwo\\ttab\t\\N\n");
        Path csv = Files.writeString(dir.resolve("t.csv"), "id,name\n3,\"three, quoted\"\n4,\"four \"\"q\"\"\"\n");
        try (Connection c = connect("tributary"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY, name text NOT NULL, score double precision DEFAULT 1.5)");
            assertThat(s.executeUpdate("COPY t FROM '" + text + "'")).isEqualTo(2);
            assertThat(s.executeUpdate("COPY t (id, name) FROM '" + csv + "' WITH (FORMAT csv, HEADER)")).isEqualTo(2);
            assertThat(JdbcRows.rows(s, "SELECT id, name, score FROM t ORDER BY id"))
                    .containsExactly("1|one|10", "2|two\ttab|null", "3|three, quoted|1.5", "4|four \"q\"|1.5");

            // line 2 is bad: the error names it, and line 1 is not written either
            Path bad = Files.writeString(dir.resolve("bad.txt"), "5\tfive\t1\n6\tsix\tlots\n");
            assertThatThrownBy(() -> s.execute("COPY t FROM '" + bad + "'")).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("22P02");
                assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY t, line 2, column score: \"lots\"");
            });
            assertThat(JdbcRows.rows(s, "SELECT count(*) FROM t")).containsExactly("4");

            // many chunks, lines across their boundaries: every row, at one time
            StringBuilder many = new StringBuilder();
            for (int i = 100; i < 60_100; i++) many.append(i).append(",name ").append(i).append(",").append(i % 7).append('\n');
            Path big = Files.writeString(dir.resolve("big.csv"), many);
            assertThat(Files.size(big)).isGreaterThan(4 << 16);
            assertThat(s.executeUpdate("COPY t FROM '" + big + "' (FORMAT csv)")).isEqualTo(60_000);
            assertThat(JdbcRows.rows(s, "SELECT count(*), sum(id), min(name), sum(score) FROM t WHERE id >= 100"))
                    .containsExactly("60000|1805970000|name 100|180000");

        }
        try (Connection c = connect("tributary"); Statement s = c.createStatement()) {
            // in a block that rolls back, the rows go with it
            Path more = Files.writeString(dir.resolve("more.txt"), "7\tseven\t7\n");
            c.setAutoCommit(false);
            assertThat(s.executeUpdate("COPY t FROM '" + more + "'")).isEqualTo(1);
            assertThat(JdbcRows.rows(s, "SELECT name FROM t WHERE id = 7")).containsExactly("seven");
            c.rollback();
            c.setAutoCommit(true);
            assertThat(JdbcRows.rows(s, "SELECT count(*) FROM t WHERE id = 7")).containsExactly("0");

            // out: a query's rows and a table's, in the format asked for, with a header
            Path out = dir.resolve("out.csv");
            assertThat(s.executeUpdate("COPY (SELECT id, name FROM t WHERE id <= 3 ORDER BY id) TO '" + out + "' (FORMAT csv, HEADER)")).isEqualTo(3);
            assertThat(Files.readString(out, StandardCharsets.UTF_8)).isEqualTo("id,name\n1,one\n2,two\ttab\n3,\"three, quoted\"\n");
            Path table = dir.resolve("table.txt");
            s.execute("CREATE TABLE small (a int, b text)");
            s.execute("INSERT INTO small VALUES (1, NULL)");
            assertThat(s.executeUpdate("COPY small TO '" + table + "'")).isEqualTo(1);
            assertThat(Files.readString(table)).isEqualTo("1\t\\N\n");
            // and back in
            assertThat(s.executeUpdate("COPY small FROM '" + table + "'")).isEqualTo(1);
            assertThat(JdbcRows.rows(s, "SELECT a, b FROM small")).containsExactly("1|null", "1|null");
        }
    }

    /**
     * JSON lines: each line an object whose keys name the columns, taken as
     * {@code jsonb_populate_record} takes them (PostgreSQL 15 gives the same rows for each line).
     */
    @Test
    void jsonLinesFillColumnsByKey() throws Exception {
        Path lines = Files.writeString(dir.resolve("events.jsonl"), String.join("\n",
                "{\"id\": 1, \"name\": \"one\", \"score\": 1.5, \"tags\": {\"x\": [1, 2]}, \"ok\": true}",
                "",
                "{\"name\": \"two\", \"id\": \"2\", \"unknown\": 3, \"ok\": null}",
                "  {\"id\": 3e0, \"name\": \"caf\u00e9 \\u263a\", \"tags\": [\"a\"], \"score\": -0}  ") + "\n");
        try (Connection c = connect("tributary"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE ev (id int PRIMARY KEY, name text, score numeric, tags jsonb, ok boolean DEFAULT false)");
            assertThat(s.executeUpdate("COPY ev FROM '" + lines + "' (FORMAT json)")).isEqualTo(3);
            assertThat(JdbcRows.rows(s, "SELECT id, name, score, tags, ok FROM ev ORDER BY id")).containsExactly(
                    "1|one|1.5|{\"x\": [1, 2]}|t", "2|two|null|null|null", "3|caf\u00e9 \u263a|0|[\"a\"]|null");
            // the COPY's columns: the others take their defaults
            Path more = Files.writeString(dir.resolve("more.jsonl"), "{\"id\": 4, \"ok\": true}\n{\"id\": 5}\n");
            assertThat(s.executeUpdate("COPY ev (id, name) FROM '" + more + "' WITH (FORMAT json)")).isEqualTo(2);
            assertThat(JdbcRows.rows(s, "SELECT id, ok FROM ev WHERE id >= 4 ORDER BY id")).containsExactly("4|f", "5|f");

            Path notObject = Files.writeString(dir.resolve("array.jsonl"), "{\"id\": 6}\n[1, 2]\n");
            assertThatThrownBy(() -> s.execute("COPY ev FROM '" + notObject + "' (FORMAT json)")).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("22023");
                assertThat(e.getServerErrorMessage().getMessage()).isEqualTo("COPY FROM with FORMAT json takes an object per line, not an array");
                assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY ev, line 2: \"[1, 2]\"");
            });
            Path bad = Files.writeString(dir.resolve("bad.jsonl"), "{\"id\": 7}\n{\"id\": 8,}\n");
            assertThatThrownBy(() -> s.execute("COPY ev FROM '" + bad + "' (FORMAT json)")).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("22P02");
                assertThat(e.getServerErrorMessage().getWhere()).isEqualTo("COPY ev, line 2: \"{\"id\": 8,}\"");
            });
            Path wrongType = Files.writeString(dir.resolve("type.jsonl"), "{\"id\": 1.5}\n");
            assertThatThrownBy(() -> s.execute("COPY ev FROM '" + wrongType + "' (FORMAT json)")).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("22P02");
                assertThat(e.getServerErrorMessage().getMessage()).isEqualTo("invalid input syntax for type integer: \"1.5\"");
            });
            assertThat(JdbcRows.rows(s, "SELECT count(*) FROM ev")).containsExactly("5");
            fails(s, "COPY ev FROM '" + lines + "' (FORMAT json, HEADER)", "42601", "cannot specify HEADER in JSON mode");
            fails(s, "COPY ev TO '" + dir.resolve("out.jsonl") + "' (FORMAT json)", "0A000", "COPY TO with FORMAT json is not supported");
        }
    }

    @Test
    void badFilesAndOtherRolesGetPostgresErrors() throws Exception {
        try (Connection c = connect("tributary"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (a int, b text)");
            Path missing = dir.resolve("missing.csv");
            fails(s, "COPY t FROM '" + missing + "'", "58P01", "could not open file \"" + missing + "\" for reading: No such file or directory");
            fails(s, "COPY t FROM '" + dir + "'", "42809", "\"" + dir + "\" is a directory");
            // the table is checked before the file is opened, as in PostgreSQL
            fails(s, "COPY nope FROM '" + missing + "'", "42P01", "relation \"nope\" does not exist");
            fails(s, "COPY t TO 'relative.csv'", "42602", "relative path not allowed for COPY to file");
            fails(s, "COPY t TO '" + dir + "'", "42809", "\"" + dir + "\" is a directory");
            Path noDir = dir.resolve("no/such/dir.csv");
            fails(s, "COPY t TO '" + noDir + "'", "58P01", "could not open file \"" + noDir + "\" for writing: No such file or directory");
            fails(s, "COPY t FROM PROGRAM 'cat /etc/passwd'", "0A000", "COPY FROM a program is not supported");
            fails(s, "COPY (SUBSCRIBE t) TO '" + dir.resolve("s") + "'", "0A000", "COPY (SUBSCRIBE ...) TO a file is not supported");
            s.execute("CREATE ROLE loader LOGIN");
            s.execute("GRANT SELECT, INSERT ON t TO loader");
        }
        Path file = Files.writeString(dir.resolve("f.txt"), "1\tx\n");
        try (Connection c = connect("loader"); Statement s = c.createStatement()) {
            fails(s, "COPY t FROM '" + file + "'", "42501", "must be superuser or have privileges of the pg_read_server_files role to COPY from a file");
            fails(s, "COPY t TO '" + dir.resolve("o.txt") + "'", "42501", "must be superuser or have privileges of the pg_write_server_files role to COPY to a file");
            assertThat(Files.exists(dir.resolve("o.txt"))).isFalse();
            assertThat(JdbcRows.rows(s, "SELECT count(*) FROM t")).isEqualTo(List.of("0"));
        }
    }
}
