package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileBlobTest extends BlobContract {
    @TempDir
    Path dir;

    @Override
    protected Blob open() {
        return new FileBlob(dir.resolve("blob"));
    }

    @Test
    void objectsOutliveTheStore() {
        blob.put("s/p", new byte[] {1, 2});
        blob.close();
        blob = open();
        assertThat(blob.get("s/p")).hasValueSatisfying(v -> assertThat(v).containsExactly(1, 2));
    }

    @Test
    void aDamagedObjectIsAnErrorNamingItNotWrongBytes() throws IOException {
        blob.put("s1/part-7", new byte[] {10, 20, 30, 40});
        Path file = dir.resolve("blob/s1/part-7");
        byte[] bytes = Files.readAllBytes(file);
        bytes[2] ^= 1;
        Files.write(file, bytes);
        assertThatThrownBy(() -> blob.get("s1/part-7"))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("blob 's1/part-7'")
                .hasMessageContaining("checksum");
        assertThatThrownBy(() -> blob.getBuffer("s1/part-7"))
                .isInstanceOf(CorruptDataException.class)
                .hasMessageContaining("blob 's1/part-7'")
                .hasMessageContaining("checksum");
    }

    @Test
    void aTruncatedObjectIsAnError() throws IOException {
        blob.put("p", new byte[100]);
        Path file = dir.resolve("blob/p");
        Files.write(file, java.util.Arrays.copyOf(Files.readAllBytes(file), 60));
        assertThatThrownBy(() -> blob.get("p")).isInstanceOf(CorruptDataException.class).hasMessageContaining("blob 'p'");
        assertThatThrownBy(() -> blob.getBuffer("p")).isInstanceOf(CorruptDataException.class).hasMessageContaining("blob 'p'");
        Files.write(file, new byte[3]);
        assertThatThrownBy(() -> blob.get("p")).isInstanceOf(CorruptDataException.class).hasMessageContaining("3 bytes");
        assertThatThrownBy(() -> blob.getBuffer("p")).isInstanceOf(CorruptDataException.class).hasMessageContaining("3 bytes");
    }

    @Test
    void temporaryFilesLeftByACrashAreRemovedAndNeverListed() throws IOException {
        blob.put("s/p", new byte[] {1});
        Files.write(dir.resolve("blob/s/p~17"), new byte[] {9, 9});
        assertThat(blob.list("")).containsExactly("s/p");
        blob.close();
        blob = open();
        assertThat(Files.exists(dir.resolve("blob/s/p~17"))).isFalse();
        assertThat(blob.get("s/p")).hasValueSatisfying(v -> assertThat(v).containsExactly(1));
    }
}
