package dev.tributary.server.slt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.slt.SltOutcome.Kind;
import dev.tributary.server.slt.SltRecord.SortMode;
import dev.tributary.sql.types.SqlType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner itself, on small inline files: parsing, rendering, sorting, hashing, labels, conditions, errors, views. */
class SltRunnerTest {
    private static final String TABLE = """
            statement ok
            CREATE TABLE t (a integer, b text)

            statement ok
            INSERT INTO t VALUES (2, 'b'), (1, 'a'), (3, 'c')

            """;

    private static SltOutcome run(String script) {
        return new SltRunner(SltRunner.Options.plain(), null).runScript("inline.slt", script);
    }

    private static SltOutcome runViews(String script) {
        return new SltRunner(SltRunner.Options.withViews(), null).runScript("inline.slt", script);
    }

    private static void assertPasses(SltOutcome o, int passed) {
        assertThat(o.failures()).as(o.summary()).isEmpty();
        assertThat(o.passed()).isEqualTo(passed);
    }

    @Test
    void md5IsOverEachValueFollowedByANewline() {
        assertThat(SltValues.md5(List.of("1", "2"))).isEqualTo("6ddb4095eb719e2a9f0a3f95677d24e0");
        assertThat(SltValues.hashLine(List.of("a", "b", "c"))).isEqualTo("3 values hashing to 40c53c58fdafacc83cfff6ee3d2f6d69");
    }

    @Test
    void resultsAboveTheThresholdCompareByHash() {
        String ok = TABLE + """
                hash-threshold 2

                query T valuesort
                SELECT b FROM t
                ----
                3 values hashing to 40c53c58fdafacc83cfff6ee3d2f6d69
                """;
        assertPasses(run(ok), 3);
        SltOutcome bad = run(ok.replace("40c53c58", "00000000"));
        assertThat(bad.failures()).singleElement().satisfies(f -> assertThat(f.kind()).isEqualTo(Kind.WRONG));
    }

    @Test
    void valuesRenderByColumnLetter() {
        assertThat(SltValues.render(2.7, SqlType.DOUBLE, 'I')).isEqualTo("2");
        assertThat(SltValues.render(-2.7, SqlType.DOUBLE, 'I')).isEqualTo("-2");
        assertThat(SltValues.render(new BigDecimal("-7.9"), SqlType.NUMERIC, 'I')).isEqualTo("-7");
        assertThat(SltValues.render(1L, SqlType.INTEGER, 'R')).isEqualTo("1.000");
        assertThat(SltValues.render(1.0 / 3, SqlType.DOUBLE, 'R')).isEqualTo("0.333");
        assertThat(SltValues.render("", SqlType.TEXT, 'T')).isEqualTo("(empty)");
        assertThat(SltValues.render("tab\there", SqlType.TEXT, 'T')).isEqualTo("tab@here");
        assertThat(SltValues.render(null, SqlType.INTEGER, 'I')).isEqualTo("NULL");
        assertThat(SltValues.render(true, SqlType.BOOLEAN, 'T')).isEqualTo("1");
        assertThat(SltValues.render(false, SqlType.BOOLEAN, 'I')).isEqualTo("0");
        assertThat(SltValues.render("12abc", SqlType.TEXT, 'I')).isEqualTo("0");
        assertPasses(run("""
                query IRTTI
                SELECT 2.7::double precision, 2, '', NULL, 1 < 2
                ----
                2
                2.000
                (empty)
                NULL
                1
                """), 1);
    }

    @Test
    void sortModes() {
        List<List<String>> rows = List.of(List.of("2", "b"), List.of("1", "z"));
        assertThat(SltValues.values(rows, SortMode.NOSORT)).containsExactly("2", "b", "1", "z");
        assertThat(SltValues.values(rows, SortMode.ROWSORT)).containsExactly("1", "z", "2", "b");
        assertThat(SltValues.values(rows, SortMode.VALUESORT)).containsExactly("1", "2", "b", "z");
        assertPasses(run(TABLE + """
                query IT rowsort
                SELECT a, b FROM t
                ----
                1 a
                2 b
                3 c

                query IT nosort
                SELECT a, b FROM t ORDER BY a DESC
                ----
                3
                c
                2
                b
                1
                a
                """), 4);
        SltOutcome o = run(TABLE + """
                query I nosort
                SELECT a FROM t ORDER BY a DESC
                ----
                1
                2
                3
                """);
        assertThat(o.failed()).isEqualTo(1);
    }

    @Test
    void labelsMustHashAlike() {
        String same = TABLE + """
                query I rowsort q1
                SELECT a FROM t
                ----
                1
                2
                3

                query I rowsort q1
                SELECT a FROM t WHERE a > 0
                ----
                1
                2
                3
                """;
        assertPasses(run(same), 4);
        String different = TABLE + """
                query I rowsort q1
                SELECT a FROM t
                ----
                1
                2
                3

                query I rowsort q1
                SELECT a + 1 FROM t WHERE a < 3
                ----
                2
                3
                """;
        SltOutcome o = run(different);
        assertThat(o.failures()).singleElement().satisfies(f -> assertThat(f.what()).contains("label q1"));
    }

    @Test
    void conditionsAndHalt() {
        SltOutcome o = run("""
                onlyif sqlite
                statement ok
                THIS IS NOT SQL

                skipif postgresql
                statement ok
                NOR IS THIS

                onlyif tributary
                query I
                SELECT 1
                ----
                1

                skipif mysql
                halt

                statement ok
                NEVER RUN
                """);
        assertPasses(o, 1);
        assertThat(o.skipped()).isEqualTo(2);
    }

    @Test
    void expectedErrorsBySqlstateOrPattern() {
        SltOutcome o = run("""
                statement error 42P01
                SELECT * FROM nosuch

                statement error relation "nosuch" does not exist
                SELECT * FROM nosuch

                statement error
                SELECT 1/0

                query error 22012
                SELECT 1/0

                statement error 42703
                SELECT * FROM nosuch

                statement error
                SELECT 1
                """);
        assertThat(o.passed()).isEqualTo(4);
        assertThat(o.failures()).extracting(SltOutcome.Failure::kind).containsExactly(Kind.WRONG, Kind.WRONG);
    }

    @Test
    void failuresAreCountedByKind() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SltOutcome o = new SltRunner(SltRunner.Options.plain(), new PrintStream(bytes, true, StandardCharsets.UTF_8)).runScript("k.slt", """
                statement ok
                SELEC 1

                statement ok
                SELECT * FROM nosuch

                query I
                SELECT 1
                ----
                2

                query II
                SELECT 1
                ----
                1
                """);
        assertThat(o.failures()).extracting(SltOutcome.Failure::kind).containsExactly(Kind.PARSE, Kind.ERROR, Kind.WRONG, Kind.WRONG);
        assertThat(o.summary()).startsWith("0 passed, 4 failed, 0 skipped (parse errors 1, unsupported 0, wrong results 2");
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("k.slt:1: statement failed", "k.slt:7: wrong result", "expected: 2", "actual:   1");
    }

    @Test
    void rowPerLineResultsAreAccepted() {
        assertPasses(run("""
                query ITT
                SELECT 1, 'x y', NULL
                ----
                1 x y NULL
                """), 1);
    }

    @Test
    void viewsAreCreatedBeforeTheDataArrivesAndCompared() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SltRunner runner = new SltRunner(new SltRunner.Options(true, java.time.Duration.ofSeconds(30), true),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        SltOutcome o = runner.runScript("v.slt", TABLE + """
                query TI rowsort
                SELECT b, count(*) FROM t GROUP BY b
                ----
                a 1
                b 1
                c 1

                statement ok
                DROP TABLE t

                statement ok
                CREATE TABLE t (a integer, b text)

                query I
                SELECT count(*) FROM t
                ----
                0
                """);
        assertPasses(o, 6);
        // the first view exists right after CREATE TABLE (line 2), before the INSERT
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertThat(printed).contains("v.slt:1: created slt_v1 for the query at line 7");
        // the second query's view is made after the DROP it comes after, and not before it: the
        // DROP would drop it
        assertThat(printed).contains("v.slt:17: created slt_v2 for the query at line 20")
                .doesNotContain("v.slt:1: created slt_v2");
    }

    @Test
    void viewsOfQueriesThatOnlyReadConstantsWork() {
        assertPasses(runViews("""
                query II
                SELECT 1, 2
                ----
                1 2
                """), 1);
    }

    @Test
    void firstKeywordSkipsComments() {
        assertThat(SltRunner.firstKeyword("  -- c\n/* x */ select 1")).isEqualTo("SELECT");
        assertThat(SltRunner.firstKeyword("(SELECT 1)")).isEqualTo("(");
    }
}
