package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataDirectoryTest {
    @TempDir
    Path dir;

    @Test
    void aNewDirectoryIsMadeAndWhatIsWrittenIsThereAfterReopening() throws Exception {
        Path data = dir.resolve("tributary-data");
        try (DataDirectory d = DataDirectory.open(data)) {
            d.blob().put("shards/t/p", new byte[] {1, 2});
            d.consensus().compareAndSet("shard/t", Consensus.NO_VERSION, new byte[] {3});
        }
        assertThat(Files.readString(data.resolve("FORMAT")).strip()).isEqualTo(DataDirectory.FORMAT_LINE);
        try (DataDirectory d = DataDirectory.open(data)) {
            assertThat(d.blob().get("shards/t/p")).hasValueSatisfying(v -> assertThat(v).containsExactly(1, 2));
            assertThat(d.consensus().head("shard/t").orElseThrow().seqNo()).isZero();
        }
    }

    @Test
    void aSecondHolderIsRefusedInThisProcessAndInAnother() throws Exception {
        try (DataDirectory d = DataDirectory.open(dir)) {
            assertThatThrownBy(() -> DataDirectory.open(dir)).isInstanceOf(StorageException.class).hasMessageContaining("in use by this process");
            assertThatThrownBy(() -> DataDirectory.open(dir.resolve("."))).isInstanceOf(StorageException.class).hasMessageContaining("in use");
            Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                    Child.class.getName(), dir.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).isEqualTo(3);
            assertThat(out).contains("in use by process " + ProcessHandle.current().pid());
            // the holder is unaffected
            d.consensus().compareAndSet("k", Consensus.NO_VERSION, new byte[] {1});
        }
        try (DataDirectory again = DataDirectory.open(dir)) {
            assertThat(again.consensus().head("k")).isPresent();
        }
    }

    /** The other process of {@link #aSecondHolderIsRefusedInThisProcessAndInAnother}. */
    public static final class Child {
        public static void main(String[] args) {
            try (DataDirectory d = DataDirectory.open(Path.of(args[0]))) {
                System.exit(0);
            } catch (StorageException e) {
                System.out.println(e.getMessage());
                System.exit(3);
            }
        }
    }

    @Test
    void aDirectoryOfSomethingElseIsNeverWrittenInto() throws Exception {
        Files.writeString(dir.resolve("notes.txt"), "mine");
        assertThatThrownBy(() -> DataDirectory.open(dir)).isInstanceOf(StorageException.class).hasMessageContaining("not a Tributary data directory");
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("notes.txt");
        }
    }

    @Test
    void openingAnExistingDirectoryNeverMakesOne() {
        assertThatThrownBy(() -> DataDirectory.openExisting(dir.resolve("nothing"))).isInstanceOf(StorageException.class)
                .hasMessageContaining("there is no Tributary data directory");
        assertThat(Files.exists(dir.resolve("nothing"))).isFalse();
        assertThatThrownBy(() -> DataDirectory.openExisting(dir)).isInstanceOf(StorageException.class).hasMessageContaining("no FORMAT");
        DataDirectory.open(dir).close();
        DataDirectory.openExisting(dir).close();
    }

    @Test
    void aFirstOpenThatCrashedBeforeItsFormatWasInPlaceIsFinishedNextTime() throws Exception {
        Files.writeString(dir.resolve("LOCK"), "123\n");
        Files.writeString(dir.resolve("FORMAT~"), "tribu");
        try (DataDirectory d = DataDirectory.open(dir)) {
            assertThat(Files.readString(dir.resolve("FORMAT")).strip()).isEqualTo(DataDirectory.FORMAT_LINE);
        }
    }

    @Test
    void anotherFormatIsRefused() throws Exception {
        Files.writeString(dir.resolve("FORMAT"), "tributary-data 99\n");
        assertThatThrownBy(() -> DataDirectory.open(dir)).isInstanceOf(StorageException.class).hasMessageContaining("tributary-data 99");
        // and it can be opened once the right format is there (the refusal released everything)
        Files.writeString(dir.resolve("FORMAT"), DataDirectory.FORMAT_LINE + "\n");
        try (DataDirectory d = DataDirectory.open(dir)) {
            assertThat(d.path()).isEqualTo(dir.toAbsolutePath().normalize());
            assertThat(List.of(d.blob(), d.consensus())).doesNotContainNull();
        }
    }
}
