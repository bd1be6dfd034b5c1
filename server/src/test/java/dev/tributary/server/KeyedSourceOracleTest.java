package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.source.SourceRunner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A keyed source against a model: a random sequence of upserts and deletes over a few keys,
 * cut at random into commits, leaves the source holding exactly what a map applying the same
 * sequence holds, and never a key twice. The records are Debezium events in files of a
 * directory source, one file a commit (its records are read together and committed at the
 * file's end), so the batches go through the connector, the decoder and the coordinator's
 * commit, pipelined one after the other as a real source's are; a materialized view over the
 * source stays equal to its query computed afresh.
 */
class KeyedSourceOracleTest {
    private static final long WAIT_MS = 60_000;
    private static Tributary db;
    private static Path root;
    private static int tries;

    @BeforeContainer
    static void open() throws IOException {
        db = Tributary.inMemory();
        root = Files.createTempDirectory("keyed-source-oracle");
    }

    @AfterContainer
    static void close() throws IOException {
        if (db != null) db.close();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    /**
     * One file of 150,000 CSV upserts over 40,000 keys: commits of 65,536 records, each
     * seeking its tens of thousands of keys at once (sorted, on the workers), the later ones
     * right after the earlier, pipelined, and each finding the rows the earlier ones wrote.
     */
    @Example
    void largeCommitsSeekTheirKeysTogetherAndSeeTheCommitsBefore() throws Exception {
        int n = 150_000, keys = 40_000;
        Path dir = Files.createDirectory(root.resolve("large"));
        StringBuilder file = new StringBuilder();
        for (int i = 0; i < n; i++) file.append(i % keys).append(',').append(i).append('\n');
        byte[] bytes = file.toString().getBytes(StandardCharsets.UTF_8);
        Files.write(dir.resolve("all.csv"), bytes);
        db.execute("CREATE SOURCE large (k int, v int, PRIMARY KEY (k)) FROM DIRECTORY (PATH '" + dir + "', POLL INTERVAL 5) FORMAT CSV ENVELOPE UPSERT");
        try {
            SourceRunner r = db.sourceRunner("large");
            assertThat(r.awaitStatus(s -> s.positions().equals(Map.of("all.csv", Long.toString(bytes.length))), WAIT_MS)).as(r.status().toString()).isTrue();
            // each key's last value: the last of the n records with it
            long sum = 0;
            for (int k = 0; k < keys; k++) sum += k + (long) ((n - 1 - k) / keys) * keys;
            assertThat(rows(db, "SELECT count(*), count(DISTINCT k), sum(v) FROM large")).containsExactly(keys + "|" + keys + "|" + sum);
        } finally {
            db.execute("DROP SOURCE large");
        }
    }

    /** One record: key {@code key} set to {@code value}, or deleted ({@code value} null); {@code endsCommit} closes the commit (the file). */
    record Op(int key, Integer value, boolean endsCommit) {}

    @Provide
    Arbitrary<List<Op>> histories() {
        Arbitrary<Op> op = Combinators.combine(
                Arbitraries.integers().between(0, 5),
                Arbitraries.integers().between(0, 999).injectNull(0.3),
                Arbitraries.of(true, false, false, false)).as(Op::new);
        return op.list().ofMinSize(1).ofMaxSize(60);
    }

    @Property(seed = "2929", edgeCases = EdgeCasesMode.NONE)
    void aKeyedSourceHoldsWhatAMapApplyingTheSameChangesHolds(@ForAll("histories") List<Op> history) throws Exception {
        String name = "s" + (++tries);
        Path dir = Files.createDirectory(root.resolve(name));
        Map<Integer, Integer> model = new TreeMap<>();
        Map<String, String> ends = new TreeMap<>();
        StringBuilder file = new StringBuilder();
        int files = 0;
        for (int i = 0; i < history.size(); i++) {
            Op op = history.get(i);
            if (op.value() == null) {
                model.remove(op.key());
                file.append("{\"before\": {\"id\": ").append(op.key()).append(", \"v\": -1}, \"after\": null, \"op\": \"d\"}\n");
            } else {
                model.put(op.key(), op.value());
                file.append("{\"before\": null, \"after\": {\"id\": ").append(op.key()).append(", \"v\": ").append(op.value()).append("}, \"op\": \"u\"}\n");
            }
            if (op.endsCommit() || i == history.size() - 1) {
                String part = String.format("f%04d.json", files++);
                byte[] bytes = file.toString().getBytes(StandardCharsets.UTF_8);
                Files.write(dir.resolve(part), bytes);
                ends.put(part, Long.toString(bytes.length));
                file.setLength(0);
            }
        }
        db.execute("CREATE SOURCE " + name + " (id int PRIMARY KEY, v int) FROM DIRECTORY (PATH '" + dir + "', POLL INTERVAL 5) FORMAT JSON ENVELOPE DEBEZIUM");
        // maintained as the changes come, against the same query computed afresh at the end
        db.execute("CREATE MATERIALIZED VIEW " + name + "_totals AS SELECT count(*) AS n, sum(v) AS total, max(v) AS top FROM " + name);
        try {
            SourceRunner r = db.sourceRunner(name);
            assertThat(r.awaitStatus(s -> s.positions().equals(ends), WAIT_MS)).as(r.status().toString()).isTrue();
            assertThat(r.status().decodeErrors()).isZero();
            List<String> expected = new ArrayList<>();
            model.forEach((k, v) -> expected.add(k + "|" + v));
            assertThat(rows(db, "SELECT id, v FROM " + name + " ORDER BY id")).isEqualTo(expected);
            // a count below or above one would not show in the rows above
            assertThat(rows(db, "SELECT count(*) FROM " + name)).containsExactly(String.valueOf(model.size()));
            assertThat(rows(db, "SELECT * FROM " + name + "_totals")).isEqualTo(rows(db, "SELECT count(*), sum(v), max(v) FROM " + name));
        } finally {
            db.execute("DROP SOURCE " + name + " CASCADE");
        }
    }
}
