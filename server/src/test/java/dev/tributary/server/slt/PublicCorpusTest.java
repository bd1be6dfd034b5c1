package dev.tributary.server.slt;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * SQLite's select1.test and select2.test pass every record, unchanged and with no skip, both as
 * one-off queries and with every query also maintained as a materialized view created before
 * the file's data arrives.
 */
class PublicCorpusTest {
    private static void passes(SltRunner.Options options) {
        for (String name : List.of("select1.test", "select2.test")) {
            Path f = SkipListTest.publicCorpus().resolve(name);
            SltOutcome o = new SltRunner(options, null).runFile(f);
            String failures = o.failures().stream().limit(5).map(SltOutcome.Failure::render).collect(Collectors.joining());
            assertThat(o.failed()).as("%s: %s\n%s", name, o.summary(), failures).isZero();
            assertThat(o.skipped()).as("%s: %s %s", name, o.summary(), o.skipReasons()).isZero();
            assertThat(o.passed()).isEqualTo(1031);
        }
    }

    @Test
    void everyRecordPassesAsMaintainedViewsToo() {
        passes(SltRunner.Options.withViews());
    }
}
