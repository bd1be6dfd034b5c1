package dev.tributary.server.slt;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every {@code .slt} file of the corpus ({@code src/test/resources/slt}), once as written
 * and once with {@code --views}, with the default skip list active (which must skip none of it);
 * a test fails with the runner's failure lines.
 */
class SltCorpusTest {

    @TestFactory
    Stream<DynamicTest> corpus() throws IOException, URISyntaxException {
        Path dir = Path.of(SltCorpusTest.class.getResource("/slt").toURI());
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".slt")).sorted().toList();
        }
        assertThat(files).isNotEmpty();
        return files.stream().flatMap(f -> Stream.of(
                DynamicTest.dynamicTest(f.getFileName().toString(), () -> check(f, SltRunner.Options.plain())),
                DynamicTest.dynamicTest(f.getFileName() + " --views", () -> check(f, SltRunner.Options.withViews()))));
    }

    private static void check(Path file, SltRunner.Options options) {
        SltOutcome o = new SltRunner(options, null).runFile(file);
        String failures = o.failures().stream().map(SltOutcome.Failure::render).collect(Collectors.joining());
        assertThat(o.failed()).as("%s\n%s", o.summary(), failures).isZero();
        assertThat(o.passed()).isPositive();
        // our own corpus expects PostgreSQL's behaviour: the SQLite-only skip list must not touch it
        assertThat(o.skipReasons().keySet()).as("skipped by the skip list").noneMatch(r -> r.startsWith("skip list: "));
    }
}
