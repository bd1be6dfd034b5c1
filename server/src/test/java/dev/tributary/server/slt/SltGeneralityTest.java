package dev.tributary.server.slt;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * What the rest of the public corpus (select3 to select5, evidence/, index/, random/) uses and
 * select1/select2 do not: hash-threshold changing mid-file, conditions for other engines (with
 * trailing comments), halting for one engine only, labels matched across records and across
 * engines, multi-line SQL, comments everywhere a record may start, large hashed results.
 */
class SltGeneralityTest {
    private static final String TABLE = """
            statement ok
            CREATE TABLE t (a integer, b text)

            statement ok
            INSERT INTO t VALUES (2, 'b'), (1, 'a'), (3, 'c')

            """;

    private static SltOutcome run(String script) {
        return new SltRunner(SltRunner.Options.plain(), null).runScript("g.test", script);
    }

    private static void assertPasses(SltOutcome o, int passed, int skipped) {
        String failures = o.failures().stream().map(SltOutcome.Failure::render).collect(Collectors.joining());
        assertThat(o.failures()).as("%s\n%s", o.summary(), failures).isEmpty();
        assertThat(o.passed()).as(o.summary()).isEqualTo(passed);
        assertThat(o.skipped()).as(o.summary()).isEqualTo(skipped);
    }

    @Test
    void hashThresholdChangesMidFile() {
        assertPasses(run(TABLE + """
                hash-threshold 2

                query T valuesort
                SELECT b FROM t
                ----
                3 values hashing to 40c53c58fdafacc83cfff6ee3d2f6d69

                hash-threshold 0

                query T valuesort
                SELECT b FROM t
                ----
                a
                b
                c

                hash-threshold 100

                query IT rowsort
                SELECT a, b FROM t
                ----
                1
                a
                2
                b
                3
                c
                """), 5, 0);
    }

    @Test
    void conditionsForOtherEnginesWithTrailingComments() {
        assertPasses(run(TABLE + """
                onlyif mysql # DIV for integer division:
                query I rowsort
                SELECT a DIV 2 FROM t
                ----
                0
                1
                1

                skipif mysql # not compatible
                query I rowsort
                SELECT a / 2 FROM t
                ----
                0
                1
                1

                onlyif mssql
                statement ok
                IF EXISTS (SELECT 1) DROP TABLE t

                onlyif oracle
                statement ok
                SELECT 1 FROM DUAL

                skipif sqlite
                skipif mysql
                query I
                SELECT count(*) FROM t
                ----
                3

                skipif mssql
                skipif postgresql # PostgreSQL requires AS when renaming output columns
                query I
                SELECT a b FROM t

                onlyif sqlite
                onlyif mysql
                statement ok
                NOT SQL AT ALL

                onlyif tributary
                query I
                SELECT 7
                ----
                7
                """), 5, 5);
    }

    @Test
    void haltForAnotherEngineDoesNotStopTheFileButOursDoes() {
        assertPasses(run("""
                # skip this file if ms sql server
                onlyif mssql
                halt

                # skip this file if oracle
                onlyif oracle
                halt

                query I
                SELECT 1
                ----
                1

                onlyif postgresql
                halt

                query I
                SELECT 2
                ----
                3
                """), 1, 2);
        assertPasses(run("""
                query I
                SELECT 1
                ----
                1

                halt

                statement ok
                NOT SQL
                """), 1, 0);
    }

    @Test
    void statementErrorWithoutAMessage() {
        SltOutcome o = run(TABLE + """
                # already dropped
                statement error
                DROP VIEW nosuch

                statement error
                INSERT INTO nosuch VALUES (1)

                statement error
                SELECT a FROM t WHERE a = 1
                """);
        assertThat(o.passed()).isEqualTo(4);
        assertThat(o.failures()).singleElement().satisfies(f -> {
            assertThat(f.location()).isEqualTo("g.test:14");
            assertThat(f.what()).contains("an error was expected");
        });
    }

    @Test
    void labelsMatchAcrossRecordsAndEngines() {
        String script = TABLE + """
                hash-threshold 2

                onlyif sqlite
                query I nosort label-1
                SELECT 1 IN t
                ----
                0

                query I rowsort label-1
                SELECT a FROM t
                ----
                3 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0

                skipif mysql # not compatible
                query I rowsort label-1
                SELECT a FROM t WHERE a IS NOT NULL UNION ALL SELECT a FROM t WHERE a IS NULL
                ----
                3 values hashing to 6ddb4095eb719e2a9f0a3f95677d24e0

                query I rowsort label-2
                SELECT a FROM t WHERE a > 5
                ----

                query I rowsort label-2
                SELECT a FROM t WHERE NOT a <= 5
                ----
                """;
        // 1, 2, 3 each followed by a newline
        script = script.replace("6ddb4095eb719e2a9f0a3f95677d24e0", SltValues.md5(List.of("1", "2", "3")));
        assertPasses(run(script), 6, 1);
        SltOutcome o = run(script + """

                query I rowsort label-2
                SELECT a FROM t WHERE a > 2
                ----
                3
                """);
        assertThat(o.failures()).singleElement().satisfies(f -> assertThat(f.what()).contains("label label-2 hashes differently from g.test:"));
    }

    @Test
    void multiLineSqlAndComments() {
        assertPasses(run("""
                # a comment before anything
                hash-threshold 8

                # a comment right before a record
                statement ok
                CREATE TABLE m (
                  a integer,
                  b text
                )

                    # an indented comment
                skipif mysql
                # a comment between a condition and its record
                statement ok
                INSERT INTO m
                VALUES (1, 'x'),
                       (2, 'y')

                query IT rowsort
                SELECT a,
                       b
                  FROM m
                 WHERE a
                       > 0
                ----
                1
                x
                2
                y

                query T nosort
                SELECT '# not a comment'
                ----
                # not a comment
                """), 4, 0);
    }

    @Test
    void windowsLineEndings() {
        assertPasses(run("query I\r\nSELECT 1\r\n----\r\n1\r\n\r\nstatement ok\r\nCREATE TABLE w (a integer)\r\n"), 2, 0);
    }

    @Test
    void largeResultsAreHashed() {
        StringBuilder insert = new StringBuilder("INSERT INTO n VALUES ");
        for (int k = 0; k < 10; k++) insert.append(k == 0 ? "" : ", ").append('(').append(k).append(')');
        List<List<String>> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) for (int j = 0; j < 10; j++) rows.add(List.of(Integer.toString(i), Integer.toString(j * 10)));
        rows.sort(SltValues.ROW_ORDER);
        List<String> rowValues = rows.stream().flatMap(List::stream).toList();
        List<String> sortedValues = rowValues.stream().sorted().toList();
        String script = """
                statement ok
                CREATE TABLE n (x integer)

                statement ok
                %s

                query II rowsort
                SELECT a.x, b.x * 10 FROM n AS a, n AS b
                ----
                %s

                query II valuesort
                SELECT b.x * 10, a.x FROM n AS a CROSS JOIN n AS b
                ----
                %s

                query I nosort
                SELECT a.x * 10 + b.x FROM n AS a, n AS b ORDER BY 1 DESC
                ----
                %s
                """.formatted(insert, SltValues.hashLine(rowValues), SltValues.hashLine(sortedValues),
                SltValues.hashLine(IntStream.range(0, 100).map(k -> 99 - k).mapToObj(Integer::toString).toList()));
        assertThat(script).contains("200 values hashing to", "100 values hashing to");
        assertPasses(run(script), 5, 0);
        SltOutcome bad = run(script.replace("ORDER BY 1 DESC", "ORDER BY 1"));
        assertThat(bad.failures()).singleElement().satisfies(f -> {
            assertThat(f.what()).isEqualTo("wrong result");
            assertThat(f.actual()).startsWith("100 values hashing to ");
        });
    }
}
