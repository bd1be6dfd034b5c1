package dev.tributary.server;

import dev.tributary.sql.catalog.Catalog;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.EngineRows;
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
 * {@code statement_log}, {@code streams}, and the engine's {@code hydration_progress},
 * {@code arrangement_sizes}, {@code subscriptions}, {@code dataflows}, {@code operators},
 * {@code channels} and {@code arrangements}): each is a table of the server's own, which the
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
 * <p>A sample writes only what changed: each table's rows are held by their values with their
 * encoded form, so a row that stays the same is looked up once and neither encoded again nor
 * written. An operator's activations and time, and a dataflow's time, are quiet
 * columns: they move whenever a frontier does, so they alone do not make a row change; they come
 * along when its records do. Otherwise an idle server with thousands of operators would rewrite
 * every operator's row every second. And the engine's relations are sampled only while something
 * reads their tables ({@link #ENGINE_TABLES}): a one-off query computes them itself.
 *
 * <p>Not thread-safe: called with the coordinator's lock held.
 */
final class Introspection {
    /** The first internal table's id: beyond any a database hands out (ids count objects from 1). */
    static final long FIRST_ID = 1L << 40;

    /**
     * The relations, in id order: {@code FIRST_ID + k} is the k-th. Only ever appended to: a
     * durable view over one names its table by id.
     */
    private static final List<String> NAMES = List.of("objects", "statement_log", "streams", "hydration_progress", "arrangement_sizes",
            "subscriptions", "dataflows", "operators", "channels", "arrangements", "server_metrics");
    private static final long OBJECTS = FIRST_ID;
    private static final long STATEMENT_LOG = FIRST_ID + 1;
    private static final long STREAMS = FIRST_ID + 2;
    private static final long HYDRATION_PROGRESS = FIRST_ID + 3;
    private static final long ARRANGEMENT_SIZES = FIRST_ID + 4;
    private static final long SUBSCRIPTIONS = FIRST_ID + 5;
    private static final long DATAFLOWS = FIRST_ID + 6;
    private static final long OPERATORS = FIRST_ID + 7;
    private static final long CHANNELS = FIRST_ID + 8;
    private static final long ARRANGEMENTS = FIRST_ID + 9;
    private static final long SERVER_METRICS = FIRST_ID + 10;

    /**
     * A maintained relation: the system relation users name, the table holding its rows, that
     * table's row codec, and its quiet columns (see the type's comment).
     */
    private record Maintained(CatalogItem.SystemRelation relation, CatalogItem.Table table, RowCodec codec, int[] quiet) {}

    /**
     * A row's values as a key: equal to another row's when they differ in quiet columns alone
     * ({@code quiet}), its hash computed once, since a sample looks every row up.
     */
    private static final class Key {
        private final Object[] values;
        private final int[] quiet;
        private final int hash;

        Key(Object[] values, int[] quiet) {
            this.values = values;
            this.quiet = quiet;
            int h = 1;
            for (int i = 0; i < values.length; i++) h = 31 * h + (isQuiet(i) ? 0 : java.util.Objects.hashCode(values[i]));
            this.hash = h;
        }

        private boolean isQuiet(int column) {
            for (int q : quiet) if (q == column) return true;
            return false;
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key k) || k.hash != hash || k.values.length != values.length) return false;
            for (int i = 0; i < values.length; i++) {
                if (!isQuiet(i) && !java.util.Objects.equals(values[i], k.values[i])) return false;
            }
            return true;
        }
    }

    /**
     * A row a table holds: its encoded form and how many times; {@code seen} and {@code now} are
     * the sample that last had it and how many times that sample had it.
     */
    private static final class Held {
        final Row row;
        long count;
        long seen = -1;
        long now;

        Held(Row row) {
            this.row = row;
        }
    }

    private final Map<Long, Maintained> byId = new HashMap<>();
    /** Per system relation OID, the table holding its rows. */
    private final Map<Long, Long> tableOf = new HashMap<>();
    /**
     * What each table holds (but the statement log), by the row's values with its quiet columns
     * left out: what a sample is compared with.
     */
    private final Map<Long, Map<Key, Held>> held = new HashMap<>();
    /** The samples taken so far: marks the rows a sample had ({@link Held#seen}). */
    private long samples;
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
            byId.put(id, new Maintained(r, t, new RowCodec(dev.tributary.sql.bind.Binder.typesOf(r.columns())), quiet(r)));
            tableOf.put(r.id(), id);
            held.put(id, new HashMap<>());
        }
    }

    /** The columns of {@code r} that change without its row changing (see the type's comment). */
    private static int[] quiet(CatalogItem.SystemRelation r) {
        List<String> names = switch (r.name()) {
            case "operators" -> List.of("activations", "elapsed_ns");
            case "dataflows" -> List.of("elapsed_ns");
            default -> List.of();
        };
        int[] out = new int[names.size()];
        for (int i = 0; i < out.length; i++) {
            int k = 0;
            while (!r.columns().get(k).name().equals(names.get(i))) k++;
            out[i] = k;
        }
        return out;
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
     * objects with their frontiers ({@code frontiers}: id to {@code {since, upper}}), the builds
     * under way, the running subscriptions (as {@code streams} and as {@code subscriptions} show
     * them), what each relation's dataflow holds, the running dataflows, the logged
     * statements, and the server's counters (null when {@code server_metrics} is not read).
     */
    record Sample(long now, java.util.Collection<CatalogItem> objects, java.util.function.LongFunction<String> schemaOf, Map<Long, long[]> frontiers,
                  List<Catalog.HydrationProgress> hydrations, List<Subscriptions.Live> subscriptions, List<Catalog.SubscriptionState> subscriptionStates,
                  List<Catalog.ArrangementPart> arrangementSizes, List<Catalog.DataflowInfo> dataflows, StatementLog statements,
                  Catalog.ServerMetrics serverMetrics) {}

    /**
     * The engine relations' tables ({@code hydration_progress} on): each is sampled only while
     * something reads it (a view, a materialized view, a subscription), since a one-off query
     * computes these relations itself; unread, they are empty and cost a sample nothing.
     */
    static final List<Long> ENGINE_TABLES = List.of(HYDRATION_PROGRESS, ARRANGEMENT_SIZES, SUBSCRIPTIONS, DATAFLOWS, OPERATORS, CHANNELS, ARRANGEMENTS,
            SERVER_METRICS);

    /** Whether {@code tables} (some engine tables) need the running dataflows read from the workers. */
    static boolean needsDataflows(Set<Long> tables) {
        return tables.contains(DATAFLOWS) || tables.contains(OPERATORS) || tables.contains(CHANNELS) || tables.contains(ARRANGEMENTS);
    }

    /** Whether {@code tables} (some engine tables) need the server's counters (which read every relation's parts). */
    static boolean needsServerMetrics(Set<Long> tables) {
        return tables.contains(SERVER_METRICS);
    }

    /** Whether {@code tables} (some engine tables) need the relations' parts read from the workers. */
    static boolean needsArrangementSizes(Set<Long> tables) {
        return tables.contains(ARRANGEMENT_SIZES);
    }

    /** The engine tables the previous sample wrote (the others are empty). */
    private Set<Long> sampled = Set.of();

    /** Whether engine table {@code id} is being sampled (always true of the other internal tables). */
    boolean sampling(long id) {
        return !ENGINE_TABLES.contains(id) || sampled.contains(id);
    }

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
     * same), noting them as held: the caller must commit them. Of the engine tables only those in
     * {@code read} are filled, the others emptied. With {@code sample} null, the changes that
     * empty every table (introspection turned off).
     */
    Map<Long, Map<Row, Long>> changes(Sample sample, Set<Long> read) {
        Map<Long, Map<Row, Long>> out = new HashMap<>();
        boolean off = sample == null;
        sampled = off ? Set.of() : Set.copyOf(read);
        out.put(OBJECTS, diff(OBJECTS, off ? List.of() : objectRows(sample)));
        out.put(STATEMENT_LOG, statementChanges(off ? new StatementLog.Since(Long.MAX_VALUE, List.of())
                : sample.statements().since(heldStatements.isEmpty() ? 0 : heldStatements.lastKey())));
        out.put(STREAMS, diff(STREAMS, off ? List.of() : streamRows(sample)));
        out.put(HYDRATION_PROGRESS, diff(HYDRATION_PROGRESS, !sampled.contains(HYDRATION_PROGRESS) ? List.of() : EngineRows.hydrationProgress(sample.hydrations())));
        out.put(ARRANGEMENT_SIZES, diff(ARRANGEMENT_SIZES, !sampled.contains(ARRANGEMENT_SIZES) ? List.of() : EngineRows.arrangementSizes(sample.arrangementSizes())));
        out.put(SUBSCRIPTIONS, diff(SUBSCRIPTIONS, !sampled.contains(SUBSCRIPTIONS) ? List.of() : EngineRows.subscriptions(sample.subscriptionStates())));
        out.put(DATAFLOWS, diff(DATAFLOWS, !sampled.contains(DATAFLOWS) ? List.of() : EngineRows.dataflows(sample.dataflows())));
        out.put(OPERATORS, diff(OPERATORS, !sampled.contains(OPERATORS) ? List.of() : EngineRows.operators(sample.dataflows())));
        out.put(CHANNELS, diff(CHANNELS, !sampled.contains(CHANNELS) ? List.of() : EngineRows.channels(sample.dataflows())));
        out.put(ARRANGEMENTS, diff(ARRANGEMENTS, !sampled.contains(ARRANGEMENTS) ? List.of() : EngineRows.arrangements(sample.dataflows())));
        // sampled_at moves with each sample: a reader sees the one row replaced at every sample
        out.put(SERVER_METRICS, diff(SERVER_METRICS, !sampled.contains(SERVER_METRICS) ? List.of()
                : EngineRows.serverMetrics(sample.serverMetrics(), Instant.ofEpochMilli(sample.now()))));
        return out;
    }

    /**
     * The changes from what table {@code id} holds to {@code rows}, which it then holds. A row
     * whose values but its quiet columns are held already stays as held: it is not encoded, and
     * nothing is written for it.
     */
    private Map<Row, Long> diff(long id, List<Object[]> rows) {
        Maintained m = byId.get(id);
        Map<Key, Held> holds = held.get(id);
        long sample = ++samples;
        for (Object[] values : rows) {
            Key key = new Key(values, m.quiet());
            Held h = holds.get(key);
            if (h == null) {
                h = new Held(m.codec().encode(values));
                holds.put(key, h);
            }
            if (h.seen != sample) {
                h.seen = sample;
                h.now = 0;
            }
            h.now++;
        }
        Map<Row, Long> changes = new HashMap<>();
        for (var it = holds.values().iterator(); it.hasNext(); ) {
            Held h = it.next();
            long now = h.seen == sample ? h.now : 0;
            if (now != h.count) changes.merge(h.row, now - h.count, Long::sum);
            h.count = now;
            if (now == 0) it.remove();
        }
        return changes;
    }

    private static List<Object[]> objectRows(Sample s) {
        List<Object[]> out = new ArrayList<>();
        Set<Long> hydrating = new java.util.HashSet<>();
        for (Catalog.HydrationProgress h : s.hydrations()) hydrating.add(h.id());
        for (CatalogItem item : s.objects()) {
            String kind = switch (item) {
                case CatalogItem.Table t -> t.kind();
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
                // a build that has completed no time yet has no upper to speak of (its frontier is
                // still at its start, or the epoch): NULL, not a lag of fifty years
                boolean complete = f[1] > f[0];
                upper = complete ? instant(f[1]) : null;
                lag = !complete ? null : f[1] == Long.MAX_VALUE ? 0L : Math.max(0, s.now() + 1 - f[1]);
                hydrated = !hydrating.contains(item.id()) && complete;
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
