package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.source.SourceRunner;
import dev.tributary.server.storage.StorageController;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A source FROM DIRECTORY: files read in name order as they appear (hidden and {@code _} files
 * left alone), records as COPY reads them, positions committed with the rows, decode errors
 * counted and skipped or stopping the source, the source's tables closed to users' writes, and
 * exactly once across a restart and a crash.
 */
class DirectorySourceTest {
    private static final long WAIT_MS = 60_000;

    @TempDir
    Path dir;

    private static void write(Path file, String text) throws IOException {
        // written beside, then moved in whole, as a writer into a followed directory should
        Path tmp = file.resolveSibling("_" + file.getFileName());
        Files.writeString(tmp, text);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    }

    private static SourceRunner.Status await(Tributary db, String source, Predicate<SourceRunner.Status> condition) throws InterruptedException {
        SourceRunner r = db.sourceRunner(source);
        assertThat(r).as("source " + source + " runs").isNotNull();
        boolean met = r.awaitStatus(condition, WAIT_MS);
        assertThat(met).as("source " + source + ": " + r.status()).isTrue();
        return r.status();
    }

    @Test
    void csvFilesAreReadInNameOrderAsTheyAppearAndAViewFollows() throws Exception {
        Path in = Files.createDirectory(dir.resolve("in"));
        write(in.resolve("b.csv"), "id,name\n3,cherry\n4,\"da\nte\"\n");
        write(in.resolve("a.csv"), "id,name\n1,apple\n2,banana\n");
        Files.writeString(in.resolve(".hidden.csv"), "id,name\n9,hidden\n");
        Files.writeString(in.resolve("_partial.csv"), "id,name\n9,partial\n");
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE fruit (id int NOT NULL, name text) FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT CSV (HEADER)");
            db.execute("CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n, sum(id) AS s FROM fruit");
            await(db, "fruit", s -> s.rows() == 4);
            // every file's header skipped; a quoted newline inside a field
            assertThat(rows(db, "SELECT * FROM fruit ORDER BY id")).containsExactly("1|apple", "2|banana", "3|cherry", "4|da\nte");
            assertThat(rows(db, "SELECT * FROM fruit_progress ORDER BY part"))
                    .containsExactly("a.csv|" + Files.size(in.resolve("a.csv")), "b.csv|" + Files.size(in.resolve("b.csv")));
            // a new file, which then grows: its last record, without a newline, once it stops growing
            write(in.resolve("c.csv"), "id,name\n5,elder\n");
            Files.writeString(in.resolve("c.csv"), "6,fig\n7,grape", StandardOpenOption.APPEND);
            await(db, "fruit", s -> s.rows() == 7);
            assertThat(rows(db, "SELECT * FROM n")).containsExactly("7|28");
            assertThat(rows(db, "SELECT position FROM fruit_progress WHERE part = 'c.csv'")).containsExactly(String.valueOf(Files.size(in.resolve("c.csv"))));
            assertThat(rows(db, "SHOW SOURCES")).singleElement().asString().startsWith("fruit|directory|none|waiting for files|7|0|NULL|NULL|a.csv=");
        }
    }

    @Test
    void jsonLinesFillColumnsOrWholeDocumentsAndTextLinesAreRows() throws Exception {
        Path in = Files.createDirectory(dir.resolve("json"));
        write(in.resolve("1.json"), "{\"id\": 1, \"tags\": [\"a\"], \"extra\": true}\n\n{\"id\": 2, \"name\": \"b\\u00e9\"}\n");
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE cols (id bigint, name text, tags jsonb) FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT JSON");
            db.execute("CREATE SOURCE docs FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT JSON");
            db.execute("CREATE SOURCE lines FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT TEXT");
            await(db, "cols", s -> s.rows() == 2);
            await(db, "docs", s -> s.rows() == 2);
            await(db, "lines", s -> s.rows() == 3);
            assertThat(rows(db, "SELECT * FROM cols ORDER BY id")).containsExactly("1|NULL|[\"a\"]", "2|bé|NULL");
            assertThat(rows(db, "SELECT data->>'id', data FROM docs ORDER BY 1"))
                    .containsExactly("1|{\"id\": 1, \"tags\": [\"a\"], \"extra\": true}", "2|{\"id\": 2, \"name\": \"bé\"}");
            assertThat(rows(db, "SELECT length(text) FROM lines ORDER BY 1")).containsExactly("0", "28", "39");
        }
    }

    @Test
    void decodeErrorsAreCountedAndSkippedOrStopTheSource() throws Exception {
        Path in = Files.createDirectory(dir.resolve("bad"));
        write(in.resolve("a.csv"), "1,one\nbad,two\n3\n4,four\n");
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE skips (id int, name text) FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT CSV");
            db.execute("CREATE SOURCE stops (id int, name text) FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT CSV ON DECODE ERROR STOP");
            SourceRunner.Status skipped = await(db, "skips", s -> s.rows() == 2);
            assertThat(skipped.decodeErrors()).isEqualTo(2);
            assertThat(skipped.lastError()).isEqualTo("missing data for column \"name\"");
            assertThat(skipped.lastErrorPosition()).isEqualTo("a.csv at byte 14");
            assertThat(rows(db, "SELECT * FROM skips ORDER BY id")).containsExactly("1|one", "4|four");
            SourceRunner.Status stopped = await(db, "stops", s -> s.state().startsWith("stopped"));
            assertThat(stopped.state()).isEqualTo("stopped: decode error at a.csv at byte 6: column id: invalid input syntax for type integer: \"bad\"");
            // nothing of the batch the error stopped was committed: the file is read again, whole, after a restart
            assertThat(rows(db, "SELECT count(*) FROM stops")).containsExactly("0");
            assertThat(rows(db, "SELECT count(*) FROM stops_progress")).containsExactly("0");
        }
    }

    @Test
    void onlyTheConnectorWritesASourceAndItsProgress() throws Exception {
        Path in = Files.createDirectory(dir.resolve("w"));
        try (Tributary db = Tributary.inMemory()) {
            db.execute("CREATE SOURCE s (id int) FROM DIRECTORY (PATH '" + in + "') FORMAT CSV");
            for (String t : List.of("s", "s_progress")) {
                fails("42809", () -> db.execute("INSERT INTO " + t + " SELECT * FROM " + t));
                fails("42809", () -> db.execute("UPDATE " + t + " SET " + (t.equals("s") ? "id = 1" : "part = 'x'")));
                fails("42809", () -> db.execute("DELETE FROM " + t));
            }
            fails("42809", "\"s\" is not a table", () -> db.execute("DROP TABLE s"));
            fails("2BP01", "cannot drop table s_progress because source s requires it", () -> db.execute("DROP TABLE s_progress"));
            fails("25001", () -> db.execute("BEGIN; CREATE SOURCE t (id int) FROM DIRECTORY (PATH '" + in + "') FORMAT CSV"));
            db.execute("ROLLBACK");
            fails("25001", () -> db.execute("BEGIN; DROP SOURCE s"));
            db.execute("ROLLBACK");
            fails("42P07", () -> db.execute("CREATE SOURCE s (id int) FROM DIRECTORY (PATH '" + in + "') FORMAT CSV"));
            fails("42704", () -> db.execute("CREATE SOURCE t FROM NOWHERE (PATH 'x') FORMAT JSON"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH 'x', DEPTH 3) FORMAT JSON"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (POLL INTERVAL 5) FORMAT JSON"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH 'x') FORMAT CSV"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH 'x')"));
            fails("0A000", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH 'x') FORMAT PROTOBUF"));
            // a keyed envelope needs its key
            fails("42P16", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH 'x') FORMAT JSON ENVELOPE DEBEZIUM"));
            fails("42P16", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH 'x') FORMAT JSON ENVELOPE UPSERT"));
            fails("42601", () -> db.execute("CREATE SOURCE t FROM DIRECTORY (PATH 'x') FORMAT JSON ENVELOPE SIDEWAYS"));
            fails("42P16", () -> db.execute("CREATE SOURCE t (a int) FROM DIRECTORY (PATH 'x') FORMAT TEXT"));
            db.execute("CREATE ROLE bob LOGIN; GRANT CREATE ON SCHEMA public TO bob");
            Tributary.Connection bob = db.session();
            bob.execute("SET SESSION AUTHORIZATION bob");
            fails("42501", () -> bob.execute("CREATE SOURCE t FROM DIRECTORY (PATH '" + in + "') FORMAT JSON"));
            db.execute("CREATE SOURCE plain FROM DIRECTORY (PATH '" + in + "') FORMAT JSON ENVELOPE NONE");
            db.execute("DROP SOURCE plain");
            db.execute("CREATE MATERIALIZED VIEW v AS SELECT count(*) FROM s");
            fails("2BP01", () -> db.execute("DROP SOURCE s"));
            db.execute("DROP SOURCE s CASCADE");
            assertThat(rows(db, "SELECT count(*) FROM pg_class WHERE relname IN ('s', 's_progress', 'v')")).containsExactly("0");
            assertThat(db.sourceRunner("s")).isNull();
        }
    }

    /** {@code files} files of {@code rows} rows each, ids 0 .. files * rows - 1, into {@code in}. */
    private static void files(Path in, int files, int rows, int firstFile) throws IOException {
        for (int f = firstFile; f < firstFile + files; f++) {
            StringBuilder b = new StringBuilder();
            for (int r = 0; r < rows; r++) {
                long id = (long) f * rows + r;
                b.append(id).append(",row ").append(id).append('\n');
            }
            write(in.resolve(String.format("part-%04d.csv", f)), b.toString());
        }
    }

    private static void checkExactlyOnce(Tributary db, long n) {
        assertThat(rows(db, "SELECT count(*), count(DISTINCT id), sum(id) FROM big")).containsExactly(n + "|" + n + "|" + n * (n - 1) / 2);
    }

    @Test
    void aRestartResumesAtTheCommittedPositions() throws Exception {
        Path in = Files.createDirectory(dir.resolve("restart"));
        Path data = dir.resolve("data");
        files(in, 3, 1000, 0);
        try (Tributary db = Tributary.open(data, Clock.manual(1_000), 1)) {
            db.execute("CREATE SOURCE big (id bigint, name text) FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT CSV");
            await(db, "big", s -> s.rows() == 3000);
            checkExactlyOnce(db, 3000);
        }
        // files written while the server was down, and a restart in between
        files(in, 2, 1000, 3);
        try (Tributary db = Tributary.open(data, Clock.manual(0), 1)) {
            await(db, "big", s -> s.rows() == 2000);
            checkExactlyOnce(db, 5000);
            assertThat(rows(db, "SELECT count(*) FROM big_progress")).containsExactly("5");
        }
    }

    @Test
    void aCrashLosesNothingAndRepeatsNothing() throws Exception {
        Path in = Files.createDirectory(dir.resolve("crash"));
        int files = 4, perFile = 100_000; // commits every 65,536 rows: crashes come inside files too
        files(in, files, perFile, 0);
        Map<String, String> ends = new java.util.TreeMap<>();
        try (var listed = Files.list(in)) {
            for (Path f : listed.toList()) ends.put(f.getFileName().toString(), String.valueOf(Files.size(f)));
        }
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Tributary first = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(1_000), 2);
        first.execute("CREATE SOURCE big (id bigint, name text) FROM DIRECTORY (PATH '" + in + "', POLL INTERVAL 10) FORMAT CSV");
        List<Tributary> crashed = new java.util.ArrayList<>(List.of(first));
        try {
            // crashes at three moments of the reading: each server is never closed before the
            // next opens the same stores (which fences it), as far as the stores know a crash;
            // its source's thread ends as a killed process's would
            for (int crash = 1; crash <= 3; crash++) {
                Tributary last = crashed.get(crashed.size() - 1);
                // each server commits at least one batch (65,536 rows) before it crashes
                await(last, "big", s -> s.durableRows() >= 65_536);
                Tributary next = Tributary.open(StorageController.open(blob, consensus, m -> {}), Clock.manual(crash * 1_000L), 2);
                last.sourceRunner("big").stop(WAIT_MS);
                crashed.add(next);
            }
            Tributary db = crashed.get(crashed.size() - 1);
            await(db, "big", s -> s.positions().equals(ends));
            checkExactlyOnce(db, (long) files * perFile);
            assertThat(rows(db, "SELECT count(*) FROM big_progress")).containsExactly(String.valueOf(files));
        } finally {
            // the newest first, which closes the stores they share: the older ones were fenced and
            // write nothing more, and their close may find the stores closed
            crashed.get(crashed.size() - 1).close();
            for (int k = crashed.size() - 2; k >= 0; k--) {
                try {
                    crashed.get(k).close();
                } catch (IllegalStateException storesClosed) {
                    // as expected: nothing more to do
                }
            }
        }
    }
}
