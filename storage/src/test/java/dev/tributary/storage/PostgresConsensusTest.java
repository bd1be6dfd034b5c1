package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The consensus contract against a real PostgreSQL 15 server (see {@link TestPostgres}). */
class PostgresConsensusTest extends ConsensusContract {
    private static final AtomicInteger TABLES = new AtomicInteger();

    @Override
    protected Consensus open() throws Exception {
        // a table of its own per test: a fresh, empty store
        return new PostgresConsensus(TestPostgres.url(), "consensus_" + TABLES.incrementAndGet());
    }

    @Test
    void versionsAreThereForAnotherStoreOnTheSameTable() throws Exception {
        String table = "consensus_shared_" + TABLES.incrementAndGet();
        try (PostgresConsensus a = new PostgresConsensus(TestPostgres.url(), table); PostgresConsensus b = new PostgresConsensus(TestPostgres.url(), table)) {
            assertThat(a.compareAndSet("shard/x", Consensus.NO_VERSION, bytes(1))).isEqualTo(new CasResult.Committed(0));
            // another process: sees it, and is fenced when it expects an older version
            assertThat(value(b.head("shard/x").orElseThrow())).isEqualTo(1);
            assertThat(b.compareAndSet("shard/x", Consensus.NO_VERSION, bytes(2))).isInstanceOf(CasResult.Mismatch.class);
            assertThat(b.compareAndSet("shard/x", 0, bytes(2))).isEqualTo(new CasResult.Committed(1));
            assertThat(a.compareAndSet("shard/x", 0, bytes(3))).isInstanceOfSatisfying(CasResult.Mismatch.class,
                    m -> assertThat(m.current().orElseThrow().seqNo()).isEqualTo(1));
        }
    }

    @Test
    void aServerItCannotReachIsAStorageErrorNamingTheStore() {
        assertThatThrownBy(() -> new PostgresConsensus("jdbc:postgresql://127.0.0.1:1/none?user=postgres&connectTimeout=2", "consensus_unreachable"))
                .isInstanceOf(StorageException.class).hasMessageContaining("consensus_unreachable").hasMessageContaining("SQLSTATE");
        assertThatThrownBy(() -> new PostgresConsensus("jdbc:postgresql://127.0.0.1:1/none", "Robert'); DROP TABLE x; --"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
