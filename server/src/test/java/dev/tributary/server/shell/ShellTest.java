package dev.tributary.server.shell;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tributary sql} with psql's flags: what it prints, and its exit status. */
class ShellTest {
    private record Run(int status, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Shell.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void commandsPrintTagsAndAlignedTablesAsPsqlDoes() {
        Run r = run("--clock", "manual", "-c", "CREATE TABLE t (a int, b text); INSERT INTO t VALUES (1, 'x'), (22, NULL); SELECT * FROM t ORDER BY a");
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo("""
                CREATE TABLE
                INSERT 0 2
                 a  | b\s
                ----+---
                  1 | x
                 22 |\s
                (2 rows)

                """);
    }

    @Test
    void unalignedTuplesOnlyQuietWithASeparator() {
        Run r = run("-A", "-t", "-q", "-F", ",", "-c", "CREATE TABLE t (a int, b text); INSERT INTO t VALUES (1, 'x'); SELECT a, b FROM t");
        assertThat(r.out()).isEqualTo("1,x\n");
    }

    @Test
    void aFileRunsStatementByStatementAndErrorsGoToStandardError(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("s.sql");
        Files.writeString(f, "CREATE TABLE t (a int);\n-- a comment; with a semicolon\nINSERT INTO t VALUES (1);\nSELECT nope FROM t;\nSELECT count(*) FROM t;\n");
        Run r = run("-A", "-t", "-f", f.toString());
        assertThat(r.status()).as("without ON_ERROR_STOP the script goes on").isZero();
        assertThat(r.out()).endsWith("1\n");
        assertThat(r.err()).contains("ERROR:  42703: column \"nope\" does not exist").contains("LINE 1: SELECT nope FROM t;");

        Run stopped = run("-v", "ON_ERROR_STOP=1", "-q", "-A", "-t", "-f", f.toString());
        assertThat(stopped.status()).isEqualTo(3);
        assertThat(stopped.out()).as("the statement after the error never ran").isEmpty();
    }

    @Test
    void badFlagsAreRefusedWithStatusOne() {
        assertThat(run("--bogus").status()).isEqualTo(1);
        assertThat(run("--clock", "sundial").err()).contains("--clock takes 'manual' or 'wall'");
        assertThat(run("--workers", "0").status()).isEqualTo(1);
        assertThat(run("-c").err()).contains("needs an argument");
        assertThat(run("-f", "/nonexistent/file.sql").status()).isEqualTo(1);
    }

    @Test
    void severalWorkersGiveTheSameAnswers() {
        Run r = run("--workers", "2", "-A", "-t", "-q", "-c",
                "CREATE TABLE t (a int); INSERT INTO t SELECT * FROM (VALUES (1), (2), (3), (4)) v; SELECT sum(a), count(*) FROM t");
        assertThat(r.out()).isEqualTo("10|4\n");
    }
}
