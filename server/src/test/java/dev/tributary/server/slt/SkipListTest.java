package dev.tributary.server.slt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The skip list of SQLite-only records: its format, each entry of the default list skipping what
 * it should and nothing else, the runner skipping by it, and the two public files it must not touch.
 */
class SkipListTest {
    private static final SkipList DEFAULTS = SkipList.defaults();
    private static final String EVIDENCE = "../shared/sqllogictest/test/evidence/slt_lang_x.test";
    private static final String INDEX = "../shared/sqllogictest/test/index/random/10/slt_good_0.test";
    private static final String RANDOM = "../shared/sqllogictest/test/random/select/slt_good_0.test";

    /** The reason the default list skips {@code sql} as a {@code statement ok} of {@code file}, or null. */
    private static String reason(String file, String sql) {
        SltRecord r = SltParser.parse("statement ok\n" + sql + "\n").get(0);
        SkipList.Entry e = DEFAULTS.match(file, r, Map.of());
        return e == null ? null : e.reason();
    }

    private static void assertSkipped(String file, String sql, String reasonPart) {
        assertThat(reason(file, sql)).as(sql).isNotNull().contains(reasonPart);
    }

    private static void assertRun(String file, String sql) {
        assertThat(reason(file, sql)).as(sql).isNull();
    }

    @Test
    void theDefaultListHasAReasonForEveryEntry() {
        assertThat(DEFAULTS.entries()).hasSizeGreaterThanOrEqualTo(7);
        assertThat(DEFAULTS.entries()).allSatisfy(e -> {
            assertThat(e.reason()).hasSizeGreaterThan(20);
            assertThat(e.origin()).startsWith("classpath:/slt/sqlite-only.txt:");
        });
    }

    @Test
    void triggers() {
        assertSkipped(EVIDENCE, "CREATE TRIGGER t1r1 UPDATE ON t1 BEGIN SELECT 1; END;", "trigger");
        assertSkipped(EVIDENCE, "CREATE TEMP TRIGGER t1r2 AFTER INSERT ON t1\nBEGIN\n  DELETE FROM t2;\nEND", "trigger");
        assertSkipped(EVIDENCE, "DROP TRIGGER t1r1", "DROP TRIGGER");
        assertSkipped(EVIDENCE, "DROP TRIGGER IF EXISTS t1r1;", "DROP TRIGGER");
        // PostgreSQL's own forms are not SQLite-only
        assertRun(EVIDENCE, "CREATE TRIGGER trg AFTER INSERT ON t1 FOR EACH ROW EXECUTE FUNCTION f()");
        assertRun(EVIDENCE, "DROP TRIGGER trg ON t1");
        assertRun(EVIDENCE, "SELECT 'CREATE TRIGGER x BEGIN' FROM t1");
        assertRun(EVIDENCE, "CREATE TABLE triggers (begin_at integer)");
    }

    @Test
    void replace() {
        assertSkipped(EVIDENCE, "REPLACE INTO t1 VALUES(2, 'replace')", "REPLACE");
        assertSkipped(EVIDENCE, "INSERT OR REPLACE INTO t1 VALUES(2, 'insert or replace')", "REPLACE");
        assertSkipped(EVIDENCE, "insert or replace into t1 values(3, 'x')", "REPLACE");
        assertRun(EVIDENCE, "SELECT replace(y, 'a', 'b') FROM t1");
        assertRun(EVIDENCE, "INSERT INTO t1 VALUES(1, 'replace into')");
        assertRun(EVIDENCE, "CREATE OR REPLACE VIEW v AS SELECT 1");
        assertRun(EVIDENCE, "INSERT INTO t1 VALUES(1, 'a') ON CONFLICT (x) DO UPDATE SET y = excluded.y");
    }

    @Test
    void emptyInList() {
        assertSkipped(EVIDENCE, "SELECT 1 FROM t1 WHERE a IN ()", "empty IN list");
        assertSkipped(EVIDENCE, "SELECT 1 FROM t1 WHERE NULL NOT IN ( )", "empty IN list");
        assertSkipped(EVIDENCE, "SELECT 1 in()", "empty IN list");
        assertRun(EVIDENCE, "SELECT 1 FROM t1 WHERE a IN (1)");
        assertRun(EVIDENCE, "SELECT 1 FROM t1 WHERE a NOT IN (SELECT x FROM t2)");
        assertRun(EVIDENCE, "SELECT 1 FROM t1 WHERE a IN ( NULL, 1 )");
        assertRun(EVIDENCE, "SELECT count() FROM t1");
        assertRun(EVIDENCE, "SELECT min(x) FROM t1 WHERE x IN (1, 2)");
    }

    @Test
    void unaryPlusOnTextLiterals() {
        assertSkipped(RANDOM, "SELECT + 'abc'", "unary +");
        assertSkipped(RANDOM, "SELECT ALL col0 FROM tab0 WHERE col1 = + 'x'", "unary +");
        assertSkipped(RANDOM, "SELECT + '' FROM tab0", "unary +");
        // a number in quotes is what PostgreSQL reads it as: + '1' is 1 (double precision)
        assertRun(RANDOM, "SELECT -(+'1')");
        assertRun(RANDOM, "SELECT + ' 2.5 ', + '-1e3', + 'Infinity'");
        assertRun(RANDOM, "SELECT + 5, - + 7");
        assertRun(RANDOM, "SELECT 1 + 2 FROM tab0");
        assertRun(RANDOM, "SELECT '+', 'a + b', ' + '");
        assertRun(RANDOM, "SELECT 'a' || 'b' FROM tab0 WHERE col0 + col1 > 2");
    }

    @Test
    void unaryPlusOnTheTextColumnsOfIndexFiles() {
        assertSkipped(INDEX, "SELECT + col2 FROM tab0 AS cor0 WHERE col3 IS NOT NULL", "unary + on col2 or col5");
        assertSkipped(INDEX, "SELECT + col5 AS col3 FROM tab0 WHERE NOT col0 IS NULL", "unary + on col2 or col5");
        assertSkipped(INDEX, "SELECT ALL + cor0.col5 FROM tab1 cor0", "unary + on col2 or col5");
        assertSkipped(INDEX, "SELECT col0 FROM tab2 WHERE col2 = + col5", "unary + on col2 or col5");
        // numeric columns, binary plus, other column names
        assertRun(INDEX, "SELECT ALL + col1 FROM tab0 WHERE ( NOT - col0 IS NOT NULL )");
        assertRun(INDEX, "SELECT col0 + + col0 AS col4 FROM tab0 AS cor0 WHERE NULL IS NULL");
        assertRun(INDEX, "SELECT * FROM tab0 WHERE NULL <= + col3");
        assertRun(INDEX, "SELECT + col25 FROM tab0");
        assertRun(INDEX, "SELECT col2 FROM tab0 WHERE + col3 > 5");
        // in random/ files col2 is an INTEGER: the same SQL runs there
        assertRun(RANDOM, "SELECT + col2 FROM tab0 AS cor0 WHERE col1 IS NOT NULL");
    }

    @Test
    void droppingAViewThatOthersRead() {
        Map<String, String> views = new HashMap<>();
        SkipList.track("CREATE VIEW view1 AS SELECT x FROM t1 WHERE x > 0", views);
        SkipList.track("CREATE VIEW view10 AS SELECT x FROM t1", views);
        assertThat(SkipList.dropsViewWithDependents("DROP VIEW view1", views)).isFalse();
        SkipList.track("CREATE VIEW view3 AS SELECT x FROM view1", views);
        assertThat(views).containsOnlyKeys("view1", "view10", "view3");
        assertThat(SkipList.dropsViewWithDependents("DROP VIEW view1", views)).isTrue();
        assertThat(SkipList.dropsViewWithDependents("drop view if exists VIEW1", views)).isTrue();
        assertThat(SkipList.dropsViewWithDependents("DROP VIEW view1 CASCADE", views)).isFalse();
        assertThat(SkipList.dropsViewWithDependents("DROP VIEW view1, view3", views)).isFalse();
        assertThat(SkipList.dropsViewWithDependents("DROP VIEW view10", views)).isFalse();
        assertThat(SkipList.dropsViewWithDependents("DROP VIEW view3", views)).isFalse();
        assertThat(SkipList.dropsViewWithDependents("DROP TABLE view1", views)).isFalse();
        SkipList.track("DROP VIEW view3", views);
        assertThat(SkipList.dropsViewWithDependents("DROP VIEW view1", views)).isFalse();
    }

    @Test
    void theRunnerSkipsADropOfAViewOthersReadAndNothingElse() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        SltRunner runner = new SltRunner(new SltRunner.Options(false, Duration.ofSeconds(30), true),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        SltOutcome o = runner.runScript("dv.test", """
                statement ok
                CREATE TABLE t1 (x integer)

                statement ok
                CREATE VIEW view1 AS SELECT x FROM t1 WHERE x > 0

                statement ok
                CREATE VIEW view3 AS SELECT x FROM view1

                statement ok
                DROP VIEW view1

                statement error 2BP01
                DROP VIEW view1

                statement ok
                DROP VIEW view3

                statement ok
                DROP VIEW view1
                """);
        assertThat(o.failures()).as(o.summary()).isEmpty();
        assertThat(o.passed()).isEqualTo(6);
        assertThat(o.skipped()).isEqualTo(1);
        assertThat(o.skipReasons()).containsOnlyKeys(
                "skip list: " + DEFAULTS.entries().stream().filter(e -> e.reason().contains("CASCADE")).findFirst().orElseThrow().reason());
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("dv.test:10: skipped by classpath:/slt/sqlite-only.txt:");
    }

    @Test
    void skippedStatementsDoNotRun() {
        // were the REPLACE run (and refused), the file would fail; were it run and accepted, the count would be 2
        SltOutcome o = new SltRunner(SltRunner.Options.plain(), null).runScript("r.test", """
                statement ok
                CREATE TABLE t1 (x integer PRIMARY KEY, y text)

                statement ok
                INSERT INTO t1 VALUES (1, 'a')

                statement ok
                REPLACE INTO t1 VALUES (2, 'b')

                query I
                SELECT count(*) FROM t1
                ----
                1

                query I
                SELECT 1 FROM t1 WHERE x IN ()
                ----
                """);
        assertThat(o.failures()).as(o.summary()).isEmpty();
        assertThat(o.passed()).isEqualTo(3);
        assertThat(o.skipped()).isEqualTo(2);
        assertThat(o.skipReasons().keySet()).allSatisfy(r -> assertThat(r).startsWith("skip list: "));
    }

    @Test
    void withoutTheListEverythingRuns() {
        SltOutcome o = new SltRunner(SltRunner.Options.plain().withSkipList(SkipList.none()), null).runScript("n.test", """
                statement error
                SELECT 1 WHERE 1 IN ()
                """);
        assertThat(o.passed()).isEqualTo(1);
        assertThat(o.skipped()).isZero();
    }

    @Test
    void formatScopesAndErrors() {
        SkipList l = SkipList.parse("test", """
                # a comment

                at evidence/in1.test:30 the thirtieth line
                in evidence/* sql /^SELECT\\s+'a\\/b'/ a slash in the regex
                """);
        assertThat(l.entries()).extracting(SkipList.Entry::origin).containsExactly("test:3", "test:4");
        SltRecord at30 = new SltRecord.Statement(30, List.of(), false, null, "SELECT 1");
        SltRecord at31 = new SltRecord.Statement(31, List.of(), false, null, "SELECT 1");
        assertThat(l.match("/x/test/evidence/in1.test", at30, Map.of())).isNotNull();
        assertThat(l.match("evidence/in1.test", at30, Map.of())).isNotNull();
        assertThat(l.match("/x/test/evidence/in1.test", at31, Map.of())).isNull();
        assertThat(l.match("/x/test/evidence/xin1.test", at30, Map.of())).isNull();
        assertThat(l.match("/x/test/other/in1.test", at30, Map.of())).isNull();
        SltRecord slash = new SltRecord.Query(5, List.of(), "T", SltRecord.SortMode.NOSORT, null, false, null, "select 'a/b'", List.of());
        assertThat(l.match("t/evidence/in2.test", slash, Map.of())).extracting(SkipList.Entry::reason).isEqualTo("a slash in the regex");
        assertThat(l.match("t/index/in2.test", slash, Map.of())).isNull();
        assertThat(l.match("t/evidence/in2.test", new SltRecord.Halt(5, List.of()), Map.of())).isNull();

        assertThatThrownBy(() -> SkipList.parse("bad", "sql /IN \\(\\)/")).hasMessageContaining("bad:1").hasMessageContaining("no reason");
        assertThatThrownBy(() -> SkipList.parse("bad", "\nsql /(/ broken")).hasMessageContaining("bad:2");
        assertThatThrownBy(() -> SkipList.parse("bad", "at in1.test reason")).hasMessageContaining("GLOB:LINE");
        assertThatThrownBy(() -> SkipList.parse("bad", "regex /x/ reason")).hasMessageContaining("unknown matcher");
    }

    @Test
    void aSkipListFileReplacesTheDefault(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path f = dir.resolve("mine.txt");
        Files.writeString(f, "sql /^SELECT 2$/ two is not wanted here\n");
        SkipList mine = SkipList.load(f);
        SltOutcome o = new SltRunner(SltRunner.Options.plain().withSkipList(mine), null).runScript("m.test", """
                query I
                SELECT 2
                ----
                3

                statement error
                SELECT 1 IN ()
                """);
        assertThat(o.failures()).isEmpty();
        assertThat(o.passed()).isEqualTo(1);
        assertThat(o.skipReasons()).containsOnlyKeys("skip list: two is not wanted here");
    }

    // ---- the public files: select1 and select2 pass every record, and the list skips none of them

    static Path publicCorpus() {
        String prop = System.getProperty("tributary.slt.public");
        if (prop != null) return Path.of(prop);
        // the copy kept in the repository, so any checkout checks them
        Path kept = Path.of("src/test/resources/sqllogictest");
        if (Files.isRegularFile(kept.resolve("select1.test"))) return kept;
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            for (Path c : List.of(d.resolve("../shared/sqllogictest"), d.resolve("shared/sqllogictest"))) {
                if (Files.isRegularFile(c.resolve("select1.test"))) return c.normalize();
            }
        }
        return fail("the public sqllogictest files (select1.test, select2.test) are not in ../shared/sqllogictest/ beside the "
                + "repository nor beside any directory above " + Path.of("").toAbsolutePath()
                + "; set -Dtributary.slt.public=DIR to say where they are");
    }

    @Test
    void theListMatchesNoRecordOfSelect1OrSelect2() throws IOException {
        for (String name : List.of("select1.test", "select2.test")) {
            Path f = publicCorpus().resolve(name);
            List<SltRecord> records = SltParser.parse(Files.readString(f));
            assertThat(records).hasSizeGreaterThan(1000);
            Map<String, String> views = new HashMap<>();
            for (SltRecord r : records) {
                assertThat(DEFAULTS.match(f.toString(), r, views)).as("%s:%d", name, r.line()).isNull();
            }
        }
    }

    @Test
    void select1AndSelect2PassEveryRecordWithTheListActiveAndNothingSkipped() {
        for (String name : List.of("select1.test", "select2.test")) {
            Path f = publicCorpus().resolve(name);
            SltOutcome o = new SltRunner(SltRunner.Options.plain(), null).runFile(f);
            String failures = o.failures().stream().limit(5).map(SltOutcome.Failure::render).collect(Collectors.joining());
            assertThat(o.failed()).as("%s: %s\n%s", name, o.summary(), failures).isZero();
            assertThat(o.skipped()).as("%s: %s %s", name, o.summary(), o.skipReasons()).isZero();
            assertThat(o.passed()).isGreaterThan(1000);
        }
    }
}
