package dev.tributary.server;

import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.SystemCatalog;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The maintained introspection relations of {@code tributary_internal} ({@code objects},
 * {@code statement_log}, {@code streams}): each is a table of the server's own, which the
 * coordinator writes, on a period, the difference between the engine's state now and what the
 * table holds (its previous sample), as one ordinary commit at a system time. So a query, a
 * view, a materialized view or a SUBSCRIBE reads them as it reads any table, at consistent
 * times, and sees each change as a retraction and an insertion. This is how Materialize feeds
 * its {@code mz_internal} relations; here the sampler runs on the coordinator's clock thread.
 *
 * <p>The tables are not durable: the log never has their writes and no checkpoint restores them,
 * so a restart starts them empty and the first sample fills them. They have fixed ids far above
 * any the database hands out, so a view over one, recorded in the durable catalog, finds the same
 * table again when a restart makes it anew.
 *
 * <p>Not thread-safe: called with the coordinator's lock held.
 */
final class Introspection {
    /** The first internal table's id: beyond any a database hands out (ids count objects from 1). */
    static final long FIRST_ID = 1L << 40;

    /** The relations, in id order: {@code FIRST_ID + k} is the k-th. */
    private static final List<String> NAMES = List.of("objects", "statement_log", "streams");
    private static final long OBJECTS = FIRST_ID;
    private static final long STATEMENT_LOG = FIRST_ID + 1;
    private static final long STREAMS = FIRST_ID + 2;

    /** A maintained relation: the system relation users name, the table holding its rows, and that table's row codec. */
    private record Maintained(CatalogItem.SystemRelation relation, CatalogItem.Table table, RowCodec codec) {}

    private final Map<Long, Maintained> byId = new HashMap<>();
    /** Per system relation OID, the table holding its rows. */
    private final Map<Long, Long> tableOf = new HashMap<>();
    /** What each table holds: its previous sample, rows with their multiplicities (but the statement log's). */
    private final Map<Long, Map<Row, Long>> held = new HashMap<>();
    /**
     * The statement log's rows the table holds, by entry id: entries never change, so a sample
     * encodes only the new ones and retracts those that fell out.
     */
    private final java.util.TreeMap<Long, Row> heldStatements = new java.util.TreeMap<>();

    Introspection() {
        for (int k = 0; k < NAMES.size(); k++) {
            CatalogItem.SystemRelation r = SystemCatalog.relation("tributary_internal", NAMES.get(k)).orElseThrow();
            long id = FIRST_ID + k;
            CatalogItem.Table t = new CatalogItem.Table(id, r.name(), r.columns(), List.of(), new ArrayList<>(Collections.nCopies(r.columns().size(), null)),
                    "", false);
            byId.put(id, new Maintained(r, t, new RowCodec(dev.tributary.sql.bind.Binder.typesOf(r.columns()))));
            tableOf.put(r.id(), id);
            held.put(id, new HashMap<>());
        }
    }

    /** The internal tables, to be made (by id) before anything that reads them. */
    List<CatalogItem.Table> tables() {
        List<CatalogItem.Table> out = new ArrayList<>();
        for (long id = FIRST_ID; id < FIRST_ID + NAMES.size(); id++) out.add(byId.get(id).table());
        return out;
    }

    /** The table that holds system relation {@code r}'s rows, if it is a maintained one. */
    OptionalLong tableOf(CatalogItem.SystemRelation r) {
        Long id = tableOf.get(r.id());
        return id == null ? OptionalLong.empty() : OptionalLong.of(id);
    }

    /** Whether system relation {@code r} is one of the maintained ones. */
    static boolean maintains(CatalogItem.SystemRelation r) {
        return r.schema().equals("tributary_internal") && NAMES.contains(r.name());
    }

    /** Whether {@code id} is one of the internal tables. */
    static boolean isInternal(long id) {
        return id >= FIRST_ID && id < FIRST_ID + NAMES.size();
    }

    /**
     * The engine's state as the relations show it, at clock time {@code now}: the catalog's
     * objects with their frontiers ({@code frontiers}: id to {@code {since, upper}}),
     * {@code hydrating} the objects still being built, the running subscriptions and the logged
     * statements.
     */
    record Sample(long now, java.util.Collection<CatalogItem> objects, java.util.function.LongFunction<String> schemaOf, Map<Long, long[]> frontiers,
                  Set<Long> hydrating, List<Subscriptions.Live> subscriptions, StatementLog statements) {}

    /** The ids whose frontiers a sample needs: every object with a dataflow of its own. */
    static List<Long> stored(java.util.Collection<CatalogItem> objects) {
        List<Long> out = new ArrayList<>();
        for (CatalogItem item : objects) {
            if (item instanceof CatalogItem.Table || item instanceof CatalogItem.MaterializedView || item instanceof CatalogItem.Index) out.add(item.id());
        }
        return out;
    }

    /**
     * The changes that make the tables hold {@code sample} (empty maps for tables that stay the
     * same), noting them as held: the caller must commit them. With {@code sample} null, the
     * changes that empty every table (introspection turned off).
     */
    Map<Long, Map<Row, Long>> changes(Sample sample) {
        Map<Long, Map<Row, Long>> out = new HashMap<>();
        out.put(OBJECTS, diff(OBJECTS, sample == null ? List.of() : objectRows(sample)));
        out.put(STATEMENT_LOG, statementChanges(sample == null ? new StatementLog.Since(Long.MAX_VALUE, List.of())
                : sample.statements().since(heldStatements.isEmpty() ? 0 : heldStatements.lastKey())));
        out.put(STREAMS, diff(STREAMS, sample == null ? List.of() : streamRows(sample)));
        return out;
    }

    /** The changes from what table {@code id} holds to {@code rows}, which it then holds. */
    private Map<Row, Long> diff(long id, List<Object[]> rows) {
        RowCodec codec = byId.get(id).codec();
        Map<Row, Long> now = new HashMap<>();
        for (Object[] r : rows) now.merge(codec.encode(r), 1L, Long::sum);
        Map<Row, Long> before = held.get(id);
        Map<Row, Long> changes = new HashMap<>();
        now.forEach((row, n) -> {
            long d = n - before.getOrDefault(row, 0L);
            if (d != 0) changes.put(row, d);
        });
        before.forEach((row, n) -> {
            if (!now.containsKey(row)) changes.put(row, -n);
        });
        held.put(id, now);
        return changes;
    }

    private static List<Object[]> objectRows(Sample s) {
        List<Object[]> out = new ArrayList<>();
        for (CatalogItem item : s.objects()) {
            String kind = switch (item) {
                case CatalogItem.Table t -> "table";
                case CatalogItem.View v -> "view";
                case CatalogItem.MaterializedView m -> "materialized view";
                case CatalogItem.Index i -> "index";
                // not relations with contents of their own
                case CatalogItem.ForeignKey f -> null;
                case CatalogItem.Sequence q -> null;
                case CatalogItem.SystemRelation r -> null;
            };
            if (kind == null) continue;
            long[] f = s.frontiers().get(item.id());
            // a primary key's index is its table's own arrangement: the table's frontiers
            if (f == null && item instanceof CatalogItem.Index ix && ix.primaryKey()) f = s.frontiers().get(ix.on());
            Instant since = null, upper = null;
            Long lag = null;
            Boolean hydrated = null;
            if (f != null) {
                since = instant(f[0]);
                upper = instant(f[1]);
                lag = f[1] == Long.MAX_VALUE ? 0L : Math.max(0, s.now() + 1 - f[1]);
                hydrated = !s.hydrating().contains(item.id()) && f[1] > f[0];
            }
            out.add(new Object[] {SystemCatalog.oid(item.id()), s.schemaOf().apply(item.id()), item.name(), kind, since, upper, lag, hydrated});
        }
        for (Subscriptions.Live l : s.subscriptions()) {
            Instant upper = l.upper() < 0 ? null : instant(l.upper());
            Long lag = l.upper() < 0 ? null : Math.max(0, s.now() + 1 - l.upper());
            out.add(new Object[] {l.id(), null, l.query(), "subscription", null, upper, lag, l.upper() >= 0});
        }
        return out;
    }

    /** The changes that make the statement log's table hold the log as {@code now} tells it, noting them as held. */
    private Map<Row, Long> statementChanges(StatementLog.Since now) {
        RowCodec codec = byId.get(STATEMENT_LOG).codec();
        Map<Row, Long> changes = new HashMap<>();
        Map<Long, Row> gone = heldStatements.headMap(now.oldest(), false);
        for (Row r : gone.values()) changes.merge(r, -1L, Long::sum);
        gone.clear();
        for (StatementLog.Entry e : now.newer()) {
            Row r = codec.encode(e.id(), (long) e.pid(), e.user(), e.query(), Instant.ofEpochMilli(e.startedMillis()), e.durationNanos() / 1e6, e.rows(),
                    e.sqlState(), e.error());
            heldStatements.put(e.id(), r);
            changes.merge(r, 1L, Long::sum);
        }
        changes.values().removeIf(n -> n == 0);
        return changes;
    }

    private static List<Object[]> streamRows(Sample s) {
        List<Object[]> out = new ArrayList<>();
        for (Subscriptions.Live l : s.subscriptions()) out.add(new Object[] {l.id(), (long) l.pid(), l.query(), l.lateRows(), l.watermark(), l.cursor()});
        return out;
    }

    /** A system time as a timestamptz; null for the empty frontier. */
    private static Instant instant(long t) {
        return t == Long.MAX_VALUE ? null : Instant.ofEpochMilli(t);
    }
}
