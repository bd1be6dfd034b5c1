package dev.tributary.server;

import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.storage.StorageController;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.storage.MemoryBlob;
import dev.tributary.storage.MemoryConsensus;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Materialized views' outputs as shards: every checkpoint appends each view's output to its
 * shard, and the shard read at the checkpoint's time is the view, and read at any time its
 * history policy keeps, the view AS OF that time; after a restart from the checkpoint the
 * appends go on with only what is new, after a restart that builds the views again (another
 * number of workers) each shard is rebased once, and a dropped view's shard is gone.
 */
class OutputShardTest {
    private static final List<String> VIEWS = List.of("per_customer", "kinds", "regions", "top_orders", "with_constant", "hist");

    @Test
    void everyCheckpointAppendsEachViewsOutputAndRestartsGoOnFromThere() throws Exception {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        StorageController stores = CheckpointTest.stores(blob, consensus);
        Tributary db = Tributary.open(stores, Clock.manual(1_000), 2);
        CheckpointTest.populate(db);
        db.execute("CREATE MATERIALIZED VIEW hist WITH (RETAIN HISTORY FOR '1 hour') AS SELECT kind, sum(n) AS total, count(*) AS n FROM events GROUP BY kind");
        long first = checkpoint(db);
        shardsAreTheViews(db, first);
        CheckpointTest.churn(db, new Random(3), 120);
        long second = checkpoint(db);
        shardsAreTheViews(db, second);
        historyIsTheViews(db, first, second);
        assertThat(stores.outputs().rebases()).as("a running server appends only what is new").isZero();

        // a crash after more writes: the next server restores the views from the checkpoint and goes on
        CheckpointTest.churn(db, new Random(4), 60);
        StorageController restarted = CheckpointTest.stores(blob, consensus);
        Tributary again = Tributary.open(restarted, Clock.manual(0), 2);
        assertThat(again.coordinator().restoredFromCheckpoint()).contains("hist", "per_customer");
        CheckpointTest.churn(again, new Random(5), 60);
        long third = checkpoint(again);
        shardsAreTheViews(again, third);
        historyIsTheViews(again, second, third);
        assertThat(restarted.outputs().rebases()).as("restored views append only what is new").isZero();

        // one worker: the views are built again, and each shard is rebased once
        StorageController rebuilt = CheckpointTest.stores(blob, consensus);
        Tributary one = Tributary.open(rebuilt, Clock.manual(0), 1);
        CheckpointTest.churn(one, new Random(6), 40);
        long fourth = checkpoint(one);
        shardsAreTheViews(one, fourth);
        assertThat(rebuilt.outputs().rebases()).isEqualTo(VIEWS.size());
        CheckpointTest.churn(one, new Random(7), 40);
        long fifth = checkpoint(one);
        shardsAreTheViews(one, fifth);
        historyIsTheViews(one, fourth, fifth);
        assertThat(rebuilt.outputs().rebases()).as("then only what is new").isEqualTo(VIEWS.size());

        long id = one.coordinator().catalogItem("top_orders").id();
        assertThat(rebuilt.outputs().outputs()).contains(id);
        one.execute("DROP MATERIALIZED VIEW top_orders");
        assertThat(rebuilt.outputs().outputs()).doesNotContain(id);
        assertThat(blob.list("shards/output-" + id + "/")).isEmpty();
        one.close();
    }

    private static long checkpoint(Tributary db) throws Exception {
        return db.coordinator().checkpoint().get(60, TimeUnit.SECONDS);
    }

    /** Each view's shard read at {@code at} (the latest checkpoint, nothing written since) is the view. */
    private static void shardsAreTheViews(Tributary db, long at) {
        for (String v : VIEWS) {
            assertThat(sorted(db.coordinator().outputShard(v, at))).as("%s's shard at %d", v, at).isEqualTo(sorted(rows(db, "SELECT * FROM " + v)));
        }
    }

    /** The retained view's shard at every time from {@code from} to {@code to} is the view AS OF that time. */
    private static void historyIsTheViews(Tributary db, long from, long to) {
        for (long t = from; t <= to; t++) {
            assertThat(sorted(db.coordinator().outputShard("hist", t))).as("hist at %d", t).isEqualTo(sorted(rows(db, "SELECT * FROM hist AS OF " + t)));
        }
    }

    private static List<String> sorted(Result r) {
        List<String> out = new ArrayList<>();
        for (List<String> row : r.text()) out.add(String.join("|", row.stream().map(v -> v == null ? "NULL" : v).toList()));
        out.sort(null);
        return out;
    }

    private static List<String> sorted(List<String> rows) {
        List<String> out = new ArrayList<>(rows);
        out.sort(null);
        return out;
    }
}
