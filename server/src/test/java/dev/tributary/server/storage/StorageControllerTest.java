package dev.tributary.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The store locations `serve --blob ... --consensus ...` takes, and the errors for bad ones. */
class StorageControllerTest {
    @Test
    void postgresLocationsBecomeJdbcUrlsWithTheirTable() {
        assertThat(StorageController.jdbc("postgres://alice:s%40cret@db.example:5433/meta?table=tb_consensus"))
                .containsExactly("jdbc:postgresql://db.example:5433/meta?user=alice&password=s%40cret", "tb_consensus");
        assertThat(StorageController.jdbc("postgresql://db/meta")).containsExactly("jdbc:postgresql://db/meta", "tributary_consensus");
        assertThat(StorageController.jdbc("jdbc:postgresql://h/d?user=u")).containsExactly("jdbc:postgresql://h/d?user=u", "tributary_consensus");
    }

    @Test
    void badLocationsSayWhatIsExpected() {
        assertThatThrownBy(() -> StorageController.jdbc("mysql://h/d")).hasMessageContaining("postgres://[USER[:PASSWORD]@]HOST[:PORT]/DATABASE");
        assertThatThrownBy(() -> StorageController.jdbc("postgres://h/")).hasMessageContaining("DATABASE");
        assertThatThrownBy(() -> StorageController.jdbc("postgres://h/d?table=Robert');DROP")).hasMessageContaining("lower-case SQL identifier");
        assertThatThrownBy(() -> StorageController.jdbc("postgres://h/d?table")).hasMessageContaining("NAME=VALUE");
        assertThatThrownBy(() -> StorageController.s3("file:///tmp/x")).hasMessageContaining("s3://BUCKET[/PREFIX]");
        assertThatThrownBy(() -> StorageController.s3("s3://bucket/p?endpoint=%zz")).isInstanceOf(IllegalArgumentException.class);
    }
}
