package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.timely.Antichain;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Faults at the blob and consensus interfaces: a shard never reports as appended what is not
 * durable, says what failed, and carries on once the store is back, without losing or doubling
 * an append whose outcome the writer could not see.
 */
class ShardFaultTest {
    @TempDir
    Path dir;
    private FaultyStores.Blob blob;
    private FaultyStores.Consensus consensus;
    private Shard shard;
    private Shard.Writer writer;

    @BeforeEach
    void open() {
        blob = new FaultyStores.Blob(new FileBlob(dir.resolve("blob")));
        consensus = new FaultyStores.Consensus(new FileConsensus(dir.resolve("consensus")));
        shard = Shard.open(blob, consensus, "t", 1);
        writer = shard.openWriter();
        assertThat(writer.compareAndAppend(ShardTest.rows(0, "a", 1), Antichain.of(0), Antichain.of(1))).isInstanceOf(Shard.AppendResult.Appended.class);
    }

    @AfterEach
    void close() {
        blob.close();
        consensus.close();
    }

    private Map<String, Long> contents() {
        return ShardTest.contents(shard.snapshot(new long[] {shard.state().upper().get(0)[0] - 1}));
    }

    @Test
    void aFailedPartWriteIsAnErrorAndNothingIsAppended() {
        blob.failPuts = 1;
        assertThatThrownBy(() -> writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2)))
                .isInstanceOf(StorageException.class).hasMessageContaining("no space left");
        assertThat(shard.state().upper()).isEqualTo(Antichain.of(1));
        // the store has room again: the same append goes through, once
        assertThat(writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2))).isInstanceOf(Shard.AppendResult.Appended.class);
        assertThat(contents()).isEqualTo(Map.of("a", 1L, "b", 1L));
    }

    @Test
    void aCompareAndSetThatFailsBeforeLandingAppendsNothingAndTheRetryDoes() {
        consensus.failBefore = 1;
        assertThatThrownBy(() -> writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2)))
                .isInstanceOf(StorageException.class).hasMessageContaining("fsync failed");
        assertThat(shard.state().upper()).isEqualTo(Antichain.of(1));
        assertThat(writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2))).isInstanceOf(Shard.AppendResult.Appended.class);
        assertThat(contents()).isEqualTo(Map.of("a", 1L, "b", 1L));
        // the first try's part is named by no state: garbage once its writer is fenced
        shard.openWriter();
        assertThat(shard.collectGarbage()).isEqualTo(1);
        assertThat(contents()).isEqualTo(Map.of("a", 1L, "b", 1L));
    }

    /**
     * The reply is lost after the compare-and-set landed: the writer cannot tell, and retrying
     * finds the upper already where its append put it, which tells it the append is in. The
     * rows are there once, not twice.
     */
    @Test
    void anAppendWhoseReplyWasLostIsFoundInByItsUpperNotAppendedTwice() {
        consensus.failAfter = 1;
        assertThatThrownBy(() -> writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2)))
                .isInstanceOf(StorageException.class).hasMessageContaining("connection reset");
        assertThat(writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2)))
                .isEqualTo(new Shard.AppendResult.UpperMismatch(Antichain.of(2)));
        assertThat(contents()).isEqualTo(Map.of("a", 1L, "b", 1L));
        assertThat(StorageCheck.check(blob, consensus).problems()).isEmpty();
    }

    @Test
    void whileAStoreIsDownEveryCallSaysSoAndAfterwardsTheShardCarriesOn() {
        consensus.down = true;
        assertThatThrownBy(() -> writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2)))
                .isInstanceOf(StorageException.class).hasMessageContaining("consensus store unreachable");
        assertThatThrownBy(() -> shard.snapshot(new long[] {0})).isInstanceOf(StorageException.class).hasMessageContaining("unreachable");
        consensus.down = false;
        blob.down = true;
        assertThatThrownBy(() -> shard.snapshot(new long[] {0})).isInstanceOf(StorageException.class).hasMessageContaining("blob store unreachable");
        assertThatThrownBy(() -> writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2)))
                .isInstanceOf(StorageException.class).hasMessageContaining("blob store unreachable");
        blob.down = false;
        assertThat(writer.compareAndAppend(ShardTest.rows(1, "b", 1), Antichain.of(1), Antichain.of(2))).isInstanceOf(Shard.AppendResult.Appended.class);
        assertThat(contents()).isEqualTo(Map.of("a", 1L, "b", 1L));
        assertThat(shard.compact()).isPositive();
        assertThat(contents()).isEqualTo(Map.of("a", 1L, "b", 1L));
    }
}
