package dev.tributary.server;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Each table's input upper on the workers (the same on each), as the coordinator mirrors it: a
 * table's later writes come at or after its upper, and its contents are final before it; and
 * when reads last let history go.
 *
 * <p>Inputs move on their own: a write moves the tables whose changes meet its own in some
 * dataflow ({@link #advancedByWrite}), a read the tables it reads, and only the clock's ticks
 * move them all; so a statement's work does not grow with the dataflows over tables it does not
 * touch (200 views over two tables made every SELECT 1 and every write elsewhere take 15 ms).
 * This only records where the inputs are; moving them is the compute controller's.
 *
 * <p>Not thread-safe: called with the coordinator's lock held.
 */
final class TableFrontiers {
    /**
     * Reads let history go at most once per this much system time (the clock's ticks do it too):
     * moving every trace's since on each read made the workers re-merge the same batches for
     * every point query.
     */
    private static final long COMPACTION_INTERVAL_MS = 1_000;

    private final CatalogState catalog;
    private final TimestampOracle oracle;
    private final Map<Long, Long> tableUpper = new HashMap<>();
    /** The greatest upper of any table: where a new table's input starts. */
    private long maxUpper;
    private long lastCompaction = Long.MIN_VALUE / 2;

    TableFrontiers(CatalogState catalog, TimestampOracle oracle) {
        this.catalog = catalog;
        this.oracle = oracle;
    }

    /** The greatest upper of any table. */
    long maxUpper() {
        return maxUpper;
    }

    /** Table {@code id}'s upper, or {@code otherwise} for an unknown table. */
    long upper(long id, long otherwise) {
        return tableUpper.getOrDefault(id, otherwise);
    }

    /** A new table's input starts where the others are. */
    void created(long id) {
        tableUpper.put(id, maxUpper);
    }

    void dropped(long id) {
        tableUpper.remove(id);
    }

    /** Notes that {@code tables} were moved to {@code time} (see {@link dev.tributary.server.compute.Dataflows#advance(long, Set)}). */
    void advanced(long time, Set<Long> tables) {
        maxUpper = Math.max(maxUpper, time);
        for (long id : tables) tableUpper.merge(id, time, Math::max);
    }

    /** Notes that every table was moved to {@code time}. */
    void advancedAll(long time) {
        maxUpper = Math.max(maxUpper, time);
        tableUpper.replaceAll((id, u) -> Math.max(u, time));
    }

    /**
     * The holds to let history go with after a read at {@code now}, or null when that is not due
     * (see {@link #COMPACTION_INTERVAL_MS}).
     */
    Map<Long, Long> compactionDue(long now) {
        if (now - lastCompaction < COMPACTION_INTERVAL_MS) return null;
        lastCompaction = now;
        return catalog.holds(now);
    }

    /** The holds to let history go with now, at {@code now}: for a build that starts from its inputs as of {@code now}. */
    Map<Long, Long> compactionNow(long now) {
        lastCompaction = now;
        return catalog.holds(now);
    }

    /** Notes that the clock's tick let history go up to {@code now}. */
    void compacted(long now) {
        lastCompaction = now;
    }

    /**
     * A time to read {@code tables} at whose answer is the same as now, for reads whose answer
     * cannot change without a write: the latest time any of them is complete through. Every write
     * to them committed so far is at or before it (a write moves its table past it), and so is
     * every time their arrangements were compacted to; the tables behind it are moved to it.
     */
    long readTimeOfData(Set<Long> tables) {
        if (tables.isEmpty()) return oracle.readTimeOfData();
        // not before the latest compaction, which every trace may have reached: a read of a table
        // nothing moved since (one restored at a restart, say) sees the same rows there
        long t = Math.max(0, lastCompaction);
        for (long id : tables) t = Math.max(t, tableUpper.getOrDefault(id, 0L) - 1);
        return t;
    }

    /**
     * The tables a write to {@code written} moves forward with them: those, and every table some
     * dataflow (a materialized view, an index, a subscription reading {@code subscribed}) reads
     * together with one of them, so that what the write changes is complete at once, and no
     * dataflow away from it does any work.
     */
    Set<Long> advancedByWrite(Set<Long> written, Collection<Set<Long>> subscribed) {
        if (catalog.version() != closuresVersion) {
            closures.clear();
            closuresVersion = catalog.version();
        }
        // the same for every write to these tables until the catalog changes: worked out once (a walk of the catalog per commit)
        Set<Long> closure = closures.get(written);
        if (closure == null) {
            closure = Set.copyOf(closureOf(written));
            if (closures.size() < 1024) closures.put(Set.copyOf(written), closure);
        }
        if (subscribed.isEmpty()) return closure;
        Set<Long> out = new HashSet<>(closure);
        for (Set<Long> ids : subscribed) {
            Set<Long> reads = new HashSet<>();
            for (long id : ids) reads.addAll(catalog.baseTablesOf(id));
            if (!java.util.Collections.disjoint(reads, written)) out.addAll(reads);
        }
        return out;
    }

    /** Per set of tables written, the tables a write to them moves (see {@link #advancedByWrite}), as of catalog version {@link #closuresVersion}. */
    private final java.util.Map<Set<Long>, Set<Long>> closures = new java.util.HashMap<>();
    private long closuresVersion = -1;

    /** {@code written} and the tables of every view, index or materialized view over them. */
    private Set<Long> closureOf(Set<Long> written) {
        Set<Long> out = new HashSet<>(written);
        ArrayDeque<Long> todo = new ArrayDeque<>(written);
        Set<Long> seen = new HashSet<>(written);
        while (!todo.isEmpty()) {
            for (long dep : catalog.dependentsOf(todo.poll())) {
                if (!seen.add(dep)) continue;
                out.addAll(catalog.baseTablesOf(dep));
                todo.add(dep);
            }
        }
        return out;
    }
}
