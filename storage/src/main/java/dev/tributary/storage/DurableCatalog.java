package dev.tributary.storage;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.arrangements.UnitColumn;
import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Antichain;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The catalog as a shard ({@code catalog}): a collection of {@link CatalogEntry} records, one
 * per object, changed by appends. A DDL statement's changes (an object made with its index, a
 * drop that takes its dependants) are one append at the catalog's next time, so they land
 * together or not at all, and recovery reads the catalog as of its last time, with everything
 * else. The shard's writer is opened with the catalog, so a second server on the same stores
 * fences this one: its changes are refused from then on ({@link FencedException}).
 */
public final class DurableCatalog {
    private final Shard shard;
    private final Shard.Writer writer;

    /** A server's catalog was taken over by another server on the same stores. */
    public static final class FencedException extends StorageException {
        FencedException(String message) {
            super(message);
        }
    }

    private DurableCatalog(Shard shard) {
        this.shard = shard;
        this.writer = shard.openWriter();
    }

    /** The catalog in these stores (empty if there is none yet), opened for writing by this process. */
    public static DurableCatalog open(Blob blob, Consensus consensus) {
        return new DurableCatalog(Shard.open(blob, consensus, "catalog", 1));
    }

    /** The catalog's next time: one more than the time of its last change (0: never changed). */
    public long upper() {
        return shard.state().upper().get(0)[0];
    }

    /** The objects, in id order. */
    public List<CatalogEntry> entries() {
        long upper = upper();
        List<CatalogEntry> out = new ArrayList<>();
        if (upper == 0) return out;
        Updates u = shard.snapshot(new long[] {upper - 1});
        for (int i = 0; i < u.size(); i++) {
            String where = "catalog record " + i + " as of " + (upper - 1);
            if (u.diff(i) != 1) throw new CorruptDataException(where + " is counted " + u.diff(i) + " times, not once");
            out.add(CatalogEntry.decode(((BytesColumn) u.keys()).getBytes(i), where));
        }
        out.sort(Comparator.comparingLong(CatalogEntry::id));
        for (int i = 1; i < out.size(); i++) {
            if (out.get(i).id() == out.get(i - 1).id()) throw new CorruptDataException("the catalog has object " + out.get(i).id() + " twice");
        }
        return out;
    }

    /**
     * Makes {@code added} and drops {@code removed} (entries as they are in the catalog), in one
     * durable append; returns the time it took effect at.
     */
    public long commit(List<CatalogEntry> added, List<CatalogEntry> removed) {
        long time = upper();
        Updates u = new Updates(new BytesColumn(), new UnitColumn(), 1);
        for (CatalogEntry e : removed) add(u, e, time, -1);
        for (CatalogEntry e : added) add(u, e, time, 1);
        Shard.AppendResult r = writer.compareAndAppend(u, Antichain.of(time), Antichain.of(time + 1));
        return switch (r) {
            case Shard.AppendResult.Appended a -> time;
            case Shard.AppendResult.Fenced f -> throw new FencedException("the catalog was taken over by another server (writer " + f.current()
                    + "); this one may change nothing more: stop it");
            case Shard.AppendResult.UpperMismatch m -> throw new FencedException("the catalog changed under this server (at " + m.current()
                    + ", expected " + time + "): another server is writing it; stop this one");
        };
    }

    private static void add(Updates u, CatalogEntry e, long time, long diff) {
        ((BytesColumn) u.keys()).add(e.encode());
        ((UnitColumn) u.vals()).add();
        u.push(time, diff);
    }

    /** Folds the catalog's history (every change before its last time) and merges its batches. */
    public void compact() {
        long upper = upper();
        if (upper > 0) shard.advanceSince(Antichain.of(upper - 1));
        shard.compact();
    }
}
