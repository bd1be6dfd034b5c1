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

    @Test
    void partsTheTablesLogNamesAreCheckedAndNotReportedAsStray() throws Exception {
        String part;
        try (DataDirectory d = DataDirectory.open(dir)) {
            TxnLog log = TxnLog.open(d.blob(), d.consensus(), m -> {});
            log.append(3, java.util.Map.of(1L, TxnLogTest.manyRows(50_000, 3))).join();
            // not closed: the part is named by the log only, as after a crash
            part = d.blob().list("shards/table-1/").get(0);
            StorageCheck.Report r = StorageCheck.check(d);
            assertThat(r.whole()).as(r.problems().toString()).isTrue();
            assertThat(r.unreferenced()).isEmpty();
            assertThat(r.parts()).isEqualTo(1);
            byte[] bytes = d.blob().get(part).orElseThrow();
            d.blob().delete(part);
            d.blob().put(part, java.util.Arrays.copyOf(bytes, bytes.length - 100));
            StorageCheck.Report damaged = StorageCheck.check(d);
            assertThat(damaged.problems()).singleElement().satisfies(p -> assertThat(p).contains("the tables' log").contains(part));
        }
    }

    @Test
    void theLatestCheckpointsPartsAreCheckedAndOldOnesReportedAsStray() throws Exception {
        try (DataDirectory d = DataDirectory.open(dir)) {
            dev.tributary.arrangements.Batcher batcher = new dev.tributary.arrangements.Batcher(new dev.tributary.arrangements.BytesColumn(),
                    new dev.tributary.arrangements.UnitColumn(), 1);
            batcher.push(ShardTest.rows(3, "x", 1));
            dev.tributary.arrangements.Batch batch = batcher.seal(Antichain.of(6));
            Checkpoints checkpoints = new Checkpoints(d.blob(), d.consensus(), m -> {});
            checkpoints.write(5, 1, java.util.List.of(new Checkpoints.Captured(7, java.util.List.of(),
                    java.util.List.of(java.util.List.of(new dev.tributary.arrangements.Seed.TraceSeed("bySelf", java.util.List.of(batch)))))));
            StorageCheck.Report r = StorageCheck.check(d);
            assertThat(r.whole()).as(r.problems().toString()).isTrue();
            assertThat(r.parts()).isEqualTo(1);
            assertThat(r.unreferenced()).isEmpty();
            String part = d.blob().list(Checkpoints.PREFIX).get(0);
            d.blob().put(Checkpoints.PREFIX + "1-left-by-a-crash", new byte[] {1});
            byte[] bytes = d.blob().get(part).orElseThrow();
            d.blob().put(part, java.util.Arrays.copyOf(bytes, bytes.length - 3));
            StorageCheck.Report damaged = StorageCheck.check(d);
            assertThat(damaged.problems()).singleElement().satisfies(p -> assertThat(p).contains("checkpoint at 5").contains(part).contains("does not decode"));
            assertThat(damaged.unreferenced()).containsExactly(Checkpoints.PREFIX + "1-left-by-a-crash");
        }
    }
}
