package dev.tributary.nexmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.tributary.nexmark.NexmarkGenerator.Kind;
import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Tributary's Nexmark results against Flink's own on the same events: each {@code qK.out} in the
 * folder {@code -Dtributary.flink.results} names is the changelog the Flink harness printed with
 * {@code run --query qK --data DIR --collect N} (N at least its row count) over the events
 * {@code -Dtributary.flink.events} (default 100,000) that {@code gen} wrote; the changelog summed
 * ({@code +I}/{@code +U} add a row, {@code -U}/{@code -D} take one away; an upsert changelog,
 * {@code +U} without {@code -U}, replaces the row of its first column) must be the rows of the
 * query run once in Tributary over the same events (our generator writes them byte for byte).
 * Values are compared in one form: times as {@link LocalDateTime}s, numbers without trailing
 * zeros. One difference is by design: Flink's {@code AVG} of a BIGINT is a BIGINT (truncated),
 * PostgreSQL's (ours) a numeric, so q4's average is compared truncated. Not part of the build
 * (it needs Flink's output); {@code jmh/nexmark-flink-check.sh} runs both sides.
 */
@EnabledIfSystemProperty(named = "tributary.flink.results", matches = ".+")
@org.junit.jupiter.api.TestInstance(org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS)
class FlinkResultTest {
    private Tributary db;

    @org.junit.jupiter.api.AfterAll
    void close() {
        if (db != null) db.close();
    }

    private static final Path RESULTS = Path.of(System.getProperty("tributary.flink.results", "."));
    private static final long EVENTS = Long.getLong("tributary.flink.events", 100_000);

    @TestFactory
    Stream<DynamicTest> eachQueryEqualsFlinksResultOnTheSameEvents() throws IOException {
        List<Path> outputs;
        try (Stream<Path> files = Files.list(RESULTS)) {
            outputs = files.filter(f -> f.getFileName().toString().matches("q\\d+\\.out")).sorted().toList();
        }
        assertThat(outputs).as("Flink's outputs in %s", RESULTS).isNotEmpty();
        db = Tributary.inMemory(Clock.manual(0), 2);
        NexmarkLoader.createTables(db);
        NexmarkGenerator generator = new NexmarkGenerator();
        Tributary.Connection session = db.session();
        for (NexmarkGenerator.Lines chunk : NexmarkLoader.chunks(generator, EVENTS, 20_000)) NexmarkLoader.load(session, chunk, EnumSet.allOf(Kind.class));
        return outputs.stream().map(f -> dynamicTest(f.getFileName().toString(), () -> {
            String name = f.getFileName().toString().replace(".out", "");
            List<String> lines = Files.readAllLines(f);
            // a retracting changelog (-U before each +U) sums; an upsert one (+U alone: q9's
            // top-1 per auction) replaces the row of its key, the first column
            boolean upsert = lines.stream().anyMatch(l -> l.startsWith("+U[")) && lines.stream().noneMatch(l -> l.startsWith("-U["));
            Map<List<String>, Long> flink = new HashMap<>();
            Map<String, List<String>> byKey = new HashMap<>();
            for (String line : lines) {
                if (line.length() < 4 || line.charAt(2) != '[') continue;
                List<String> row = new ArrayList<>();
                for (String v : line.substring(3, line.length() - 1).split(", ", -1)) row.add(normal(v, name));
                if (upsert) {
                    List<String> old = line.startsWith("-D") ? byKey.remove(row.get(0)) : byKey.put(row.get(0), row);
                    if (old != null) flink.merge(old, -1L, Long::sum);
                    if (!line.startsWith("-D")) flink.merge(row, 1L, Long::sum);
                } else {
                    flink.merge(row, line.startsWith("+") ? 1L : -1L, Long::sum);
                }
            }
            flink.values().removeIf(n -> n == 0);
            Map<List<String>, Long> ours = new HashMap<>();
            for (List<String> r : db.query(NexmarkQueries.get(name).sql()).text()) {
                List<String> row = new ArrayList<>();
                for (String v : r) row.add(normal(v == null ? "null" : v, name));
                ours.merge(row, 1L, Long::sum);
            }
            assertThat(flink).as("%s: Flink's changelog sums to rows", name).allSatisfy((row, n) -> assertThat(n).isPositive());
            assertThat(ours).as("%s against Flink's result on the same %d events", name, EVENTS).isEqualTo(flink);
            assertThat(ours).as("%s has rows", name).isNotEmpty();
        }));
    }

    /** A value in one form for both engines. */
    static String normal(String v, String query) {
        if (v.equals("null")) return "null";
        if (v.length() >= 16 && v.charAt(4) == '-' && v.charAt(7) == '-' && (v.charAt(10) == 'T' || v.charAt(10) == ' ')) {
            return LocalDateTime.parse(v.replace(' ', 'T')).toString();
        }
        try {
            BigDecimal d = new BigDecimal(v);
            if (query.equals("q4")) d = d.setScale(0, RoundingMode.DOWN);
            return d.stripTrailingZeros().toPlainString();
        } catch (NumberFormatException e) {
            return v;
        }
    }
}
