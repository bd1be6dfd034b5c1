package dev.tributary.server.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.BuildProgress;
import dev.tributary.server.Notice;
import dev.tributary.sql.SqlException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A long statement in {@code tributary sql}: a build's progress NOTICEs drawn as one redrawn line
 * at the prompt (and printed as psql prints notices otherwise), and Ctrl-C cancelling the
 * statement while the shell goes on.
 */
class ShellProgressTest {
    /** A database whose one statement reports a build's progress, then answers. */
    private static final class Building implements Database {
        final CountDownLatch cancelled = new CountDownLatch(1);
        boolean waitForCancel;
        Shell shell;

        @Override
        public void execute(String sql, Consumer<Answer> each) {
            execute(sql, each, n -> {});
        }

        @Override
        public void execute(String sql, Consumer<Answer> each, Consumer<Notice> notices) {
            if (waitForCancel) {
                // Ctrl-C while the statement runs (what the shell's SIGINT handler calls: a real
                // signal would reach whichever handler another test running meanwhile installed)
                shell.interrupted();
                try {
                    assertThat(cancelled.await(20, TimeUnit.SECONDS)).as("cancel() called").isTrue();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                throw new SqlException("57014", "canceling statement due to user request");
            }
            notices.accept(Notice.notice("00000", new BuildProgress("materialized view", "v", 250_000, 1_000_000, 2_000).message()));
            notices.accept(Notice.notice("00000", new BuildProgress("materialized view", "v", 1_000_000, 1_000_000, 7_300).message()));
            notices.accept(Notice.notice("00000", "something else"));
            each.accept(new Answer("CREATE MATERIALIZED VIEW", List.of(), List.of(), List.of(), List.of(), ""));
        }

        @Override
        public void cancel() {
            cancelled.countDown();
        }

        @Override
        public AutoCloseable subscribe(String sql, Consumer<Answer> onBatch, Consumer<SqlException> onEnd) {
            throw new AssertionError("these tests run no subscription: " + sql);
        }

        @Override
        public String description() {
            return "test";
        }

        @Override
        public void close() {}
    }

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private Shell shell(Database db) {
        return new Shell(db, ShellOutput.DEFAULT, false, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void atThePromptABuildsProgressIsOneRedrawnLineWithAnEstimate() {
        Shell s = shell(new Building());
        s.progressBars = true;
        assertThat(s.runStatement("CREATE MATERIALIZED VIEW v AS SELECT 1")).isTrue();
        String e = err.toString(StandardCharsets.UTF_8);
        // a quarter of the bar filled, then all of it; each drawing fits the terminal's line
        assertThat(e).containsPattern("\rbuilding v \\[(#+)(\\.+)\\] 25% of 1000000 rows \\(2\\.0 s, about 6\\.0 s left\\)\033\\[K");
        assertThat(e).containsPattern("\rbuilding v \\[#+\\] 1000000 rows read, computing \\(7\\.3 s\\)\033\\[K");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[(#+)(\\.+)\\] 25%").matcher(e);
        assertThat(m.find()).isTrue();
        assertThat(m.group(1).length() * 4).isCloseTo(m.group(1).length() + m.group(2).length(), org.assertj.core.data.Offset.offset(3));
        for (String drawn : e.split("\r")) assertThat(drawn.replace("\033[K", "").length()).isLessThanOrEqualTo(80);
        // the bar is taken off before anything else is printed
        assertThat(e).contains("\r\033[KNOTICE:  something else\n");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("CREATE MATERIALIZED VIEW\n");
    }

    @Test
    void inAScriptProgressNoticesArePrintedAsPsqlPrintsThem() {
        Shell s = shell(new Building());
        assertThat(s.runStatement("CREATE MATERIALIZED VIEW v AS SELECT 1")).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo("""
                NOTICE:  building materialized view "v": 250000 of 1000000 rows read (25%), 2.0 s
                NOTICE:  building materialized view "v": all 1000000 rows read, computing, 7.3 s
                NOTICE:  something else
                """);
    }

    @Test
    void ctrlCCancelsTheRunningStatementAndTheShellGoesOn() {
        Building db = new Building();
        db.waitForCancel = true;
        Shell s = shell(db);
        db.shell = s;
        assertThat(s.runStatement("CREATE MATERIALIZED VIEW v AS SELECT 1")).isFalse();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("57014");
        db.waitForCancel = false;
        assertThat(s.runStatement("CREATE MATERIALIZED VIEW v AS SELECT 1")).as("the next statement runs").isTrue();
    }

    @Test
    void aProgressNoticeReadsBackAsItWasMade() {
        BuildProgress p = new BuildProgress("index", "by \"g\"", 5, 9, 61_250);
        assertThat(BuildProgress.parse(p.message())).isEqualTo(new BuildProgress("index", "by \"g\"", 5, 9, 61_200));
        assertThat(BuildProgress.parse("building index \"x\": soon")).isNull();
        assertThat(p.bar(200)).endsWith("55% of 9 rows (1 min 01 s, about 49.0 s left)");
        assertThat(new BuildProgress("index", "x", 1, 100, 1_000).bar(80)).as("no estimate before a tenth is read").endsWith("1% of 100 rows (1.0 s)");
    }
}
