package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.timely.Antichain;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageCheckTest {
    @TempDir
    Path dir;

    @Test
    void aWholeDirectoryChecksWholeAndEachKindOfDamageIsNamed() throws Exception {
        String firstPart;
        try (DataDirectory d = DataDirectory.open(dir)) {
            for (String id : new String[] {"a", "b"}) {
                Shard s = Shard.open(d.blob(), d.consensus(), id, 1);
                Shard.Writer w = s.openWriter();
                w.compareAndAppend(ShardTest.rows(0, "x", 1), Antichain.of(0), Antichain.of(1));
                w.compareAndAppend(ShardTest.rows(1, "y", 1), Antichain.of(1), Antichain.of(2));
            }
            StorageCheck.Report r = StorageCheck.check(d);
            assertThat(r.whole()).isTrue();
            assertThat(r.shards()).isEqualTo(2);
            assertThat(r.parts()).isEqualTo(4);
            assertThat(r.unreferenced()).isEmpty();
            firstPart = d.blob().list("shards/a/").get(0);
            d.blob().put("shards/a/e9-stray", new byte[] {1});
        }
        // damage on disk, as a bad sector or a careless hand leaves it
        Path file = dir.resolve("blob").resolve(firstPart);
        byte[] bytes = Files.readAllBytes(file);
        bytes[5] ^= 1;
        Files.write(file, bytes);
        try (DataDirectory d = DataDirectory.open(dir)) {
            String missing = d.blob().list("shards/b/").get(1);
            d.blob().delete(missing);
            StorageCheck.Report r = StorageCheck.check(d);
            assertThat(r.whole()).isFalse();
            assertThat(r.problems()).hasSize(2);
            assertThat(r.problems()).anySatisfy(p -> assertThat(p).contains("blob '" + firstPart + "'").contains("checksum"));
            assertThat(r.problems()).anySatisfy(p -> assertThat(p).contains("shard 'b'").contains(missing).contains("missing"));
            assertThat(r.unreferenced()).containsExactly("shards/a/e9-stray");
        }
    }
}
