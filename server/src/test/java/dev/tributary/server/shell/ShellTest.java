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

    /** psql's combined short flags, and its exit status for -c: 1 when the last -c failed (a statement or a backslash command). */
    @Test
    void combinedShortFlagsAndTheStatusOfTheLastCommand() {
        assertThat(run("-Atc", "SELECT 1, 'x'").out()).isEqualTo("1|x\n");
        assertThat(run("-Atq", "-F,", "-c", "SELECT 1, 2").out()).isEqualTo("1,2\n");
        assertThat(run("-qAtcSELECT 7").out()).isEqualTo("7\n");
        assertThat(Shell.expandShortFlags(new String[] {"-Atc", "SELECT 1", "-p5432", "--workers", "2", "-vON_ERROR_STOP=1"}))
                .containsExactly("-A", "-t", "-c", "SELECT 1", "-p", "5432", "--workers", "2", "-v", "ON_ERROR_STOP=1");
        assertThat(run("-c", "SELEC 1").status()).isEqualTo(1);
        assertThat(run("-c", "SELEC 1", "-c", "SELECT 1").status()).isZero();
        Run invalid = run("-c", "\\bogus");
        assertThat(invalid.status()).isEqualTo(1);
        assertThat(invalid.err()).contains("invalid command \\bogus");
        Run tables = run("-c", "CREATE TABLE t (a int)", "-c", "\\dt");
        assertThat(tables.status()).isZero();
        assertThat(tables.out()).contains("\n t\n");
    }

    /** At the prompt, a backslash command reaches the shell with its backslash (the line editor once took it for an escape). */
    @Test
    void backslashCommandsWorkAtThePrompt() throws Exception {
        java.io.ByteArrayInputStream typed = new java.io.ByteArrayInputStream("CREATE TABLE t (a int);\n\\dt\nSELECT 'a\\b' AS s;\n\\q\n".getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream screen = new ByteArrayOutputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (dev.tributary.server.Tributary db = dev.tributary.server.Tributary.inMemory(dev.tributary.server.Clock.manual(0));
             org.jline.terminal.Terminal terminal = new org.jline.terminal.impl.DumbTerminal(typed, screen)) {
            Shell shell = new Shell(new Embedded(db), ShellOutput.DEFAULT, false, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertThat(shell.interactive(terminal)).isZero();
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).as(screen.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(out.toString(StandardCharsets.UTF_8)).as(screen.toString(StandardCharsets.UTF_8)).contains("CREATE TABLE").contains("\n t\n").contains("a\\b");
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

    /** psql's expanded output (compared with psql 15's): a record per row under a title over the name/value rule. */
    @Test
    void expandedOutputAsPsqlPrintsIt() {
        Run r = run("-x", "-c", "SELECT 1 AS a, 'one' AS b UNION ALL SELECT 22, 'twenty two' ORDER BY 1");
        assertThat(r.out()).isEqualTo("-[ RECORD 1 ]-\na | 1\nb | one\n-[ RECORD 2 ]-\na | 22\nb | twenty two\n\n");
        assertThat(run("-x", "-c", "SELECT 1 AS abcdefghijklmnopq, 'x' AS b").out()).isEqualTo("-[ RECORD 1 ]-----+--\nabcdefghijklmnopq | 1\nb                 | x\n\n");
        assertThat(run("-x", "-c", "SELECT 1 AS a WHERE false").out()).isEqualTo("(0 rows)\n\n");
        assertThat(run("-x", "-A", "-c", "SELECT 1 AS a, 2 AS b UNION ALL SELECT 3, 4 ORDER BY 1").out()).isEqualTo("a|1\nb|2\n\na|3\nb|4\n");
        assertThat(run("-x", "-t", "-c", "SELECT 1 AS a, 2 AS b UNION ALL SELECT 3, 4 ORDER BY 1").out()).isEqualTo("a | 1\nb | 2\n--+--\na | 3\nb | 4\n\n");
        Run toggled = run("-c", "\\x", "-c", "SELECT 1 AS a", "-c", "\\x off", "-c", "SELECT 2 AS a");
        assertThat(toggled.out()).isEqualTo("Expanded display is on.\n-[ RECORD 1 ]\na | 1\n\nExpanded display is off.\n a \n---\n 2\n(1 row)\n\n");
    }

    /** {@code \timing} prints each statement's time after its result, as psql; {@code \x auto} expands only what is wider than the terminal (none here). */
    @Test
    void timingAndAutoExpansion() {
        Run r = run("-c", "\\timing on", "-c", "SELECT 1 AS a", "-c", "\\timing off", "-c", "SELECT 2 AS a", "-c", "\\x auto", "-c", "SELECT 3 AS a",
                "-c", "\\timing maybe");
        assertThat(r.out().replaceAll("Time: [0-9]+\\.[0-9]{3} ms", "Time: T ms")).isEqualTo("""
                Timing is on.
                 a\s
                ---
                 1
                (1 row)

                Time: T ms
                Timing is off.
                 a\s
                ---
                 2
                (1 row)

                Expanded display is used automatically.
                 a\s
                ---
                 3
                (1 row)

                """);
        assertThat(r.err()).contains("unrecognized value \"maybe\" for \"timing\": Boolean expected");
        assertThat(r.status()).as("the last -c failed").isEqualTo(1);
    }

    /** Variables from -v and \\set, interpolated into a file's statements as :name, :'name' and :"name" (not in quotes, casts or -c strings), and echoed. */
    @Test
    void variablesAreInterpolatedAsPsqlDoes(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("v.sql");
        Files.writeString(f, "\\set who 'it''s me'\nSELECT :n::int + 1 AS next, :'who' AS w, ':n' AS literal, 1 AS :\"who\";\n\\echo :who :n\nSELECT :undefined;\n");
        Run r = run("-v", "n=41", "-A", "-f", f.toString());
        assertThat(r.out()).startsWith("next|w|literal|it's me\n42|it's me|:n|1\n(1 row)\nit's me 41\n");
        assertThat(r.err()).as("an unset variable stays as written").contains("syntax error");
        Run c = run("-v", "n=41", "-A", "-t", "-c", "SELECT ':n' AS x", "-c", "\\echo :n");
        assertThat(c.out()).isEqualTo(":n\n41\n");
        assertThat(run("-v", "bad-name=1", "-c", "SELECT 1").status()).isEqualTo(1);
    }

    /** {@code \watch} runs the last statement again every interval, here twice (psql 16's c=COUNT), under a title naming the interval. */
    @Test
    void watchRunsTheLastStatementAgain() {
        Run r = run("-A", "-t", "-c", "SELECT 7", "-c", "\\watch i=0 c=2", "-c", "\\watch c=0");
        assertThat(r.out()).matches("(?s)7\n[A-Z][a-z]{2} [A-Z][a-z]{2} \\d+ [0-9:]{8} \\d{4} \\(every 0s\\)\n\n7\n[A-Z].*\\(every 0s\\)\n\n7\n");
        assertThat(r.err()).contains("\\watch: incorrect argument \"c=0\"");
    }
}
