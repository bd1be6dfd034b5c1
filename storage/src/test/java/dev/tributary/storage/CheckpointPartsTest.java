package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.BatchCodec;
import dev.tributary.arrangements.Batcher;
import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.Cursor;
import dev.tributary.arrangements.Seed;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.timely.Antichain;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A batch held in parts (paging) goes into a checkpoint part by part, with its time range, comes
 * back as the same parted batch, and a part already written is not written again.
 */
class CheckpointPartsTest {
    @TempDir
    Path dir;

    private static Batch sealed(String... keys) {
        Batcher b = new Batcher(new BytesColumn(), new UnitColumn(), 1);
        Object[] rows = new Object[keys.length * 2];
        for (int i = 0; i < keys.length; i++) {
            rows[2 * i] = keys[i];
            rows[2 * i + 1] = 1;
        }
        b.push(ShardTest.rows(3, rows));
        return b.seal(Antichain.of(6));
    }

    private static List<String> keys(Batch b) {
        List<String> out = new ArrayList<>();
        for (Cursor c = b.cursor(); c.keyValid(); c.stepKey()) out.add(new String(((BytesColumn) c.keyColumn()).getBytes(c.keyIndex()), StandardCharsets.UTF_8));
        return out;
    }

    @Test
    void aPartedBatchIsWrittenPartByPartAndReadBackWithItsRange() throws Exception {
        List<ByteBuffer> encodings = List.of(ByteBuffer.wrap(BatchCodec.encode(sealed("a", "b"))), ByteBuffer.wrap(BatchCodec.encode(sealed("c", "d", "e"))));
        // spanning wider than its parts, as a batch spanned over an empty neighbour is
        Batch parted = BatchCodec.decodeParts(encodings, Antichain.of(0), Antichain.of(9));
        assertThat(parted.isParted()).isTrue();
        try (DataDirectory d = DataDirectory.open(dir)) {
            Checkpoints checkpoints = new Checkpoints(d.blob(), d.consensus(), m -> {});
            long written = checkpoints.write(8, 1, List.of(new Checkpoints.Captured(7, List.of(),
                    List.of(List.of(new Seed.TraceSeed("byKey", List.of(parted)))))));
            assertThat(written).isPositive();
            assertThat(d.blob().list(Checkpoints.PREFIX)).hasSize(2);
            assertThat(StorageCheck.check(d).whole()).isTrue();

            Checkpoints.Manifest m = checkpoints.latest().orElseThrow();
            Batch back = checkpoints.seed(m, m.objects().get(7L), 0).traces().get(0).batches().get(0);
            assertThat(back.isParted()).isTrue();
            assertThat(back.parts()).hasSize(2);
            assertThat(back.description()).isEqualTo(parted.description());
            assertThat(keys(back)).containsExactly("a", "b", "c", "d", "e");

            // the same parts again (the restored batch names them): nothing new is written
            assertThat(checkpoints.write(9, 1, List.of(new Checkpoints.Captured(7, List.of(),
                    List.of(List.of(new Seed.TraceSeed("byKey", List.of(back)))))))).isZero();
            assertThat(d.blob().list(Checkpoints.PREFIX)).hasSize(2);
        }
    }

    @Test
    void aBatchOfOnePartKeepsItsWiderRange() throws Exception {
        // a paged batch of a single part, spanned over an empty neighbour: its range is not its part's
        Batch one = BatchCodec.decodeParts(List.of(ByteBuffer.wrap(BatchCodec.encode(sealed("a", "b")))), Antichain.of(0), Antichain.of(9));
        try (DataDirectory d = DataDirectory.open(dir)) {
            Checkpoints checkpoints = new Checkpoints(d.blob(), d.consensus(), m -> {});
            checkpoints.write(8, 1, List.of(new Checkpoints.Captured(7, List.of(), List.of(List.of(new Seed.TraceSeed("byKey", List.of(one)))))));
            Checkpoints.Manifest m = checkpoints.latest().orElseThrow();
            Batch back = checkpoints.seed(m, m.objects().get(7L), 0).traces().get(0).batches().get(0);
            assertThat(back.description()).isEqualTo(one.description());
            assertThat(keys(back)).containsExactly("a", "b");
        }
    }

    @Test
    void partsOutOfOrderOrOutsideTheRangeAreRefused() {
        ByteBuffer ab = ByteBuffer.wrap(BatchCodec.encode(sealed("a", "b")));
        ByteBuffer bc = ByteBuffer.wrap(BatchCodec.encode(sealed("b", "c")));
        assertThatThrownBy(() -> BatchCodec.decodeParts(List.of(ab, bc), Antichain.of(0), Antichain.of(6)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("part 1 starts at or before the last key of part 0");
        assertThatThrownBy(() -> BatchCodec.decodeParts(List.of(ab), Antichain.of(1), Antichain.of(6)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not within");
    }
}
