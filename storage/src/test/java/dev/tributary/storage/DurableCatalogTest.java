package dev.tributary.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableCatalogTest {
    @TempDir
    Path dir;

    private static CatalogEntry table(long id, String name) {
        return new CatalogEntry(id, "table", name, "CREATE TABLE " + name + " (id int PRIMARY KEY)", List.of());
    }

    @Test
    void ddlIsDurableAtomicAndRecoveredInIdOrder() {
        CatalogEntry orders = table(3, "orders");
        CatalogEntry index = new CatalogEntry(4, "index", "orders_pkey", "CREATE INDEX ...", List.of(3L));
        CatalogEntry view = new CatalogEntry(5, "materialized view", "totals", "CREATE MATERIALIZED VIEW totals AS SELECT count(*) FROM orders", List.of(3L));
        try (DataDirectory d = DataDirectory.open(dir)) {
            DurableCatalog c = DurableCatalog.open(d.blob(), d.consensus());
            assertThat(c.entries()).isEmpty();
            assertThat(c.commit(List.of(orders, index), List.of())).isZero();
            assertThat(c.commit(List.of(view), List.of())).isEqualTo(1);
            assertThat(c.commit(List.of(table(6, "scratch")), List.of())).isEqualTo(2);
            // DROP TABLE scratch
            c.commit(List.of(), List.of(table(6, "scratch")));
        }
        try (DataDirectory d = DataDirectory.open(dir)) {
            DurableCatalog c = DurableCatalog.open(d.blob(), d.consensus());
            assertThat(c.entries()).containsExactly(orders, index, view);
            assertThat(c.upper()).isEqualTo(4);
            // the drop of a table with its dependants is one change: all or nothing
            c.commit(List.of(), List.of(orders, index, view));
            assertThat(c.entries()).isEmpty();
            c.compact();
            assertThat(c.entries()).isEmpty();
            assertThat(StorageCheck.check(d).problems()).isEmpty();
        }
    }

    @Test
    void aSecondServerOnTheSameStoresFencesTheFirst() {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        DurableCatalog first = DurableCatalog.open(blob, consensus);
        first.commit(List.of(table(1, "a")), List.of());
        DurableCatalog second = DurableCatalog.open(blob, consensus);
        assertThatThrownBy(() -> first.commit(List.of(table(2, "b")), List.of()))
                .isInstanceOf(DurableCatalog.FencedException.class).hasMessageContaining("taken over by another server");
        second.commit(List.of(table(2, "c")), List.of());
        assertThat(second.entries()).extracting(CatalogEntry::name).containsExactly("a", "c");
    }

    @Test
    void aDamagedEntryIsCorruptDataNamingIt() {
        MemoryBlob blob = new MemoryBlob();
        MemoryConsensus consensus = new MemoryConsensus();
        Shard s = Shard.open(blob, consensus, "catalog", 1);
        s.openWriter().compareAndAppend(ShardTest.rows(0, "not a catalog entry \u0007", 1), dev.tributary.timely.Antichain.of(0), dev.tributary.timely.Antichain.of(1));
        DurableCatalog c = DurableCatalog.open(blob, consensus);
        assertThatThrownBy(c::entries).isInstanceOf(CorruptDataException.class).hasMessageContaining("catalog record 0");
    }
}
