package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.concurrent.CompletableFuture;
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

    /**
     * Regression (CI, session 27): a compare-and-set whose snapshot predates another writer's
     * version that was then truncated landed on the stale head, as the version it would have
     * collided with was gone. Here the other writer's transaction (holding the key's lock, as
     * every writer of this store does) writes versions 1 and 2 and truncates below 2 while the
     * compare-and-set expecting 0 waits; it must fail, naming version 2.
     */
    @Test
    void aCompareAndSetRacingAnotherWriterAndATruncateDoesNotLandOnAStaleHead() throws Exception {
        String table = "consensus_race_" + TABLES.incrementAndGet();
        try (PostgresConsensus store = new PostgresConsensus(TestPostgres.url(), table);
             Connection other = DriverManager.getConnection(TestPostgres.url());
             Connection watch = DriverManager.getConnection(TestPostgres.url())) {
            assertThat(store.compareAndSet("k", Consensus.NO_VERSION, bytes(0))).isEqualTo(new CasResult.Committed(0));
            other.setAutoCommit(false);
            try (var st = other.createStatement()) {
                st.execute("SELECT pg_advisory_xact_lock(hashtextextended('" + table + "/k', 0))");
                st.execute("INSERT INTO " + table + " VALUES ('k', 1, '\\x01'), ('k', 2, '\\x02')");
                st.execute("DELETE FROM " + table + " WHERE key = 'k' AND seqno < 2");
            }
            CompletableFuture<CasResult> stale = CompletableFuture.supplyAsync(() -> store.compareAndSet("k", 0, bytes(9)));
            // wait (no sleeping) until the compare-and-set is blocked behind the other writer
            try (PreparedStatement waiting = watch.prepareStatement("SELECT count(*) FROM pg_locks WHERE NOT granted")) {
                while (!stale.isDone()) {
                    try (ResultSet rs = waiting.executeQuery()) {
                        rs.next();
                        if (rs.getLong(1) > 0) break;
                    }
                    Thread.onSpinWait();
                }
            }
            other.commit();
            assertThat(stale.get()).isInstanceOfSatisfying(CasResult.Mismatch.class, m -> assertThat(m.current().orElseThrow().seqNo()).isEqualTo(2));
            assertThat(store.head("k").orElseThrow().seqNo()).isEqualTo(2);
        }
    }
}
