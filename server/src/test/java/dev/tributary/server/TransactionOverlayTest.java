package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A transaction block reads its own writes: its uncommitted rows are fed into each read's
 * dataflow beside the committed tables. Found by the realistic workload (issue 23): after 600
 * updates in one block, the block's own insert was invisible, because the first thousand of its
 * rows were sent before the read's dataflow was connected and were lost.
 */
class TransactionOverlayTest {
    @Test
    void aBlockSeesItsOwnInsertAfterManyUpdates() {
        try (Tributary db = Tributary.inMemory(Clock.manual(0), 2)) {
            db.execute("CREATE TABLE t (id bigint PRIMARY KEY, qty int)");
            db.execute("INSERT INTO t SELECT g, 1 FROM generate_series(1, 1000) g");
            Tributary.Connection s = db.session();
            s.execute("BEGIN");
            s.execute("INSERT INTO t VALUES (1001, 3)");
            for (int j = 0; j < 600; j++) s.execute("UPDATE t SET qty = qty + 1 WHERE id = " + (1 + j * 7 % 1000));
            assertThat(s.execute("SELECT qty FROM t WHERE id = 1001").get(0).rows()).hasSize(1);
            assertThat(s.execute("UPDATE t SET qty = qty + 1 WHERE id = 1001").get(0).tag()).isEqualTo("UPDATE 1");
            assertThat(s.execute("SELECT count(*), sum(qty) FROM t").get(0).rows().get(0))
                    .containsExactly(1001L, 1000L + 600 + 4);
            s.execute("ROLLBACK");
            assertThat(db.query("SELECT count(*), sum(qty) FROM t").text()).containsExactly(java.util.List.of("1000", "1000"));
        }
    }
}
