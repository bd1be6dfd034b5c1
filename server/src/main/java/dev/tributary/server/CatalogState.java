package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.Column;
import dev.tributary.sql.catalog.SystemCatalog;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.plan.Plans;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The catalog of one database as the coordinator holds it in memory: its objects by name and by
 * id, what depends on what, the history policies, the id allocator, and a version bumped by every
 * change. What it makes durable is the coordinator's business ({@code CatalogRecorder}); what runs
 * is the compute controller's.
 *
 * <p>Invariant: {@code byName} and {@code byId} list the same objects but foreign keys, which
 * are not relations and are in {@code byId} only, and the server's own internal tables, likewise
 * (and except while CREATE OR REPLACE VIEW swaps one, see {@link #unlist}); {@code dependents}
 * names only listed objects.
 *
 * <p>Not thread-safe: called with the coordinator's lock held. Only {@link #version} is read
 * without it, by point reads on the client's thread.
 */
final class CatalogState {
    private final Map<Name, CatalogItem> byName = new TreeMap<>();
    /** The schema of each listed object but those of {@code public}. */
    private final Map<Long, String> schemaOf = new HashMap<>();
    /** The user schemas by name: {@code public} (id 0, made with the database) and those CREATE SCHEMA made, by their catalog ids. */
    private final Map<String, Long> schemas = new TreeMap<>(Map.of(PUBLIC, 0L));
    /**
     * While a restart makes an object again from its statement: the largest id that statement
     * may see. Objects and schemas made after it did not exist when it first ran, so they must
     * not capture its names.
     */
    private long replayHorizon = Long.MAX_VALUE;
    /** What the statement being replayed has made so far (ids past the horizon, a table's index and sequences): seen. */
    private final Set<Long> madeByReplay = new HashSet<>();

    /** Schema {@code public}'s name. */
    static final String PUBLIC = "public";

    /** An object's name in its schema: what must be unique among relations (tables, views, indexes, sequences). */
    record Name(String schema, String name) implements Comparable<Name> {
        @Override
        public int compareTo(Name o) {
            int c = schema.compareTo(o.schema);
            return c != 0 ? c : name.compareTo(o.name);
        }
    }
    private final Map<Long, CatalogItem> byId = new HashMap<>();
    /** For each item, the items that depend on it (views over it, indexes on it). */
    private final Map<Long, Set<Long>> dependents = new HashMap<>();
    /** What each object reads directly (a view's relations, whose privileges its owner needs). */
    private final Map<Long, Set<Long>> uses = new HashMap<>();
    /** The history policies of the objects that have one (the rest keep no history behind the present). */
    private final Map<Long, HistoryPolicy> retention = new HashMap<>();
    private long nextId = 1;
    /** Bumped by every catalog change, so prepared statements know to bind and plan again; read without the lock by point reads. */
    private volatile long version;
    /** The indexes of the catalog at {@link #indexesVersion}, kept so a point lookup need not collect them per call. */
    private List<CatalogItem.Index> indexList = List.of();
    private long indexesVersion = -1;
    private final Map<Long, Set<Long>> baseTablesCache = new HashMap<>();
    private long baseTablesVersion = -1;

    /** See {@link #version}; safe to read without the coordinator's lock. */
    long version() {
        return version;
    }

    /** The object named {@code name} in schema {@code schema}, or null. */
    CatalogItem get(String schema, String name) {
        CatalogItem item = byName.get(new Name(schema, name));
        return item == null || (item.id() > replayHorizon && !madeByReplay.contains(item.id())) ? null : item;
    }

    CatalogItem get(long id) {
        return byId.get(id);
    }

    /**
     * Whether schema {@code schema} has a relation named {@code name}, or an open block other than
     * {@link #acting}'s dropped one by that name: the name is not free until that block commits,
     * since its rollback brings the object back.
     */
    boolean contains(String schema, String name) {
        if (get(schema, name) != null) return true;
        Session holder = reserved.get(new Name(schema, name));
        return holder != null && holder != acting;
    }

    /** The names open blocks dropped, until they commit or roll back, by the session whose block it is. */
    private final Map<Name, Session> reserved = new HashMap<>();
    /** The schema names open blocks dropped, likewise. */
    private final Map<String, Session> reservedSchemas = new HashMap<>();
    /** The session whose statement the coordinator runs (null between statements): see {@link #contains(String, String)}. */
    private Session acting;

    /** Statements of {@code session} run now (null: none). */
    void acting(Session session) {
        acting = session;
    }

    /**
     * An object taken off the catalog by a DROP in a transaction block, with everything needed to
     * list it again if the block rolls back: its schema, what it reads, its descriptions and its
     * history policy (null when none). Its dataflow, data and privileges are untouched until the
     * block commits.
     */
    record Detached(CatalogItem item, String schema, Set<Long> uses, Map<Integer, String> comments, HistoryPolicy policy) {}

    /**
     * Takes object {@code id} off the catalog as {@link #remove} does, keeping what lists it again
     * ({@link #attach}); null if it is not there. With {@code holder} non-null its name stays
     * taken for every other session until {@link #released}.
     */
    Detached detach(long id, Session holder) {
        CatalogItem item = byId.get(id);
        if (item == null) return null;
        Detached d = new Detached(item, schemaOf(id), usesOf(id), Map.copyOf(commentsOf(id)), retention.get(id));
        remove(id);
        if (holder != null && !(item instanceof CatalogItem.ForeignKey)) reserved.put(new Name(d.schema(), item.name()), holder);
        return d;
    }

    /** Lists a detached object again, as it was (its schema must be there). */
    void attach(Detached d, Session holder) {
        released(d, holder);
        register(d.item(), d.schema(), d.uses());
        d.comments().forEach((sub, text) -> setComment(d.item().id(), sub, text));
        if (d.policy() != null) retention.put(d.item().id(), d.policy());
    }

    /** A detached object's name is free again: its block committed (the object is gone) or rolled back. */
    void released(Detached d, Session holder) {
        reserved.remove(new Name(d.schema(), d.item().name()), holder);
    }

    /** Whether schema name {@code name} is held by an open block other than the acting session's that dropped it. */
    boolean schemaReserved(String name) {
        Session holder = reservedSchemas.get(name);
        return holder != null && holder != acting;
    }

    /** Takes schema {@code name} off the list for {@code holder}'s block, keeping its name taken for others; its id. */
    long detachSchema(String name, Session holder) {
        long id = schemas.get(name);
        removeSchema(name);
        reservedSchemas.put(name, holder);
        return id;
    }

    /** Lists schema {@code name} (object {@code id}) again: the block that dropped it rolled back. */
    void attachSchema(String name, long id) {
        reservedSchemas.remove(name);
        addSchema(name, id);
    }

    /** Schema name {@code name} is free: the block that dropped it committed. */
    void releaseSchema(String name) {
        reservedSchemas.remove(name);
    }

    /**
     * Lists {@code before} under its id again in place of its current version (an ALTER or CREATE
     * OR REPLACE that a rollback takes back), reading {@code uses} again; what depends on it stays.
     */
    void relist(CatalogItem before, String schema, Set<Long> uses) {
        CatalogItem now = byId.get(before.id());
        if (now != null) {
            unlist(now);
            for (long u : usesOf(before.id())) {
                Set<Long> of = dependents.get(u);
                if (of != null) of.remove(before.id());
            }
        }
        register(before, schema, uses);
    }

    /** Object {@code id}'s history policy, or null when it keeps no history. */
    HistoryPolicy policyOf(long id) {
        return retention.get(id);
    }

    boolean contains(long id) {
        return byId.containsKey(id);
    }

    /** Every object, in name order (what SHOW lists). */
    Collection<CatalogItem> inNameOrder() {
        return byName.values();
    }

    /** Every object, in id order (a copy); the server's own internal tables are not objects of the database. */
    Collection<CatalogItem> inIdOrder() {
        TreeMap<Long, CatalogItem> out = new TreeMap<>(byId);
        out.keySet().removeAll(internal);
        return out.values();
    }

    /**
     * The server's own tables (see {@link Introspection}): known by id, so what reads them is
     * planned, advanced and dropped as over any table, but listed under no name and made again
     * by no restart: the server makes them itself, with the same ids, before it recovers.
     */
    private final Set<Long> internal = new HashSet<>();

    /** Lists {@code t}, one of the server's own tables, by id only. */
    void registerInternal(CatalogItem.Table t) {
        version++;
        byId.put(t.id(), t);
        internal.add(t.id());
    }

    /** Whether {@code id} is one of the server's own tables. */
    boolean isInternal(long id) {
        return internal.contains(id);
    }

    /** A fresh object id. */
    long newId() {
        return nextId++;
    }

    /** The id {@link #newId} gives next. */
    long peekNextId() {
        return nextId;
    }

    /** Ids are handed out from {@code id} on (recovery makes each object again with its own id). */
    void idsFrom(long id) {
        nextId = id;
    }

    /** Ids are handed out from no earlier than {@code id} on. */
    void idsFromAtLeast(long id) {
        nextId = Math.max(nextId, id);
    }

    /** Lists {@code item}, which is in schema {@code schema} and reads {@code uses}. */
    void register(CatalogItem item, String schema, Set<Long> uses) {
        version++;
        if (!schemas.containsKey(schema)) throw new IllegalStateException("no schema " + schema + " for " + item.name());
        // a constraint's name is its table's, not a relation's
        if (!(item instanceof CatalogItem.ForeignKey)) byName.put(new Name(schema, item.name()), item);
        if (replayHorizon != Long.MAX_VALUE) madeByReplay.add(item.id());
        if (schema.equals(PUBLIC)) schemaOf.remove(item.id());
        else schemaOf.put(item.id(), schema);
        byId.put(item.id(), item);
        for (long u : uses) dependents.computeIfAbsent(u, k -> new HashSet<>()).add(item.id());
        this.uses.put(item.id(), Set.copyOf(uses));
    }

    /** Takes {@code item} off the lists, keeping what depends on it, for CREATE OR REPLACE VIEW to list its new version under its id. */
    void unlist(CatalogItem item) {
        byName.remove(new Name(schemaOf(item.id()), item.name()));
        byId.remove(item.id());
    }

    /** Descriptions (COMMENT ON) by object id, then column number (0: the object). */
    private final Map<Long, java.util.TreeMap<Integer, String>> comments = new java.util.TreeMap<>();

    /** Sets (text null: removes) the description of object {@code id}, or of its column {@code sub} (1 on). */
    void setComment(long id, int sub, String text) {
        if (text == null) {
            java.util.TreeMap<Integer, String> of = comments.get(id);
            if (of != null && of.remove(sub) != null && of.isEmpty()) comments.remove(id);
        } else {
            comments.computeIfAbsent(id, k -> new java.util.TreeMap<>()).put(sub, text);
        }
        version++;
    }

    /** The descriptions of object {@code id} by column number (0: the object); empty when none. */
    Map<Integer, String> commentsOf(long id) {
        Map<Integer, String> of = comments.get(id);
        return of == null ? Map.of() : java.util.Collections.unmodifiableMap(of);
    }

    /** Every description, a copy. */
    Map<Long, Map<Integer, String>> comments() {
        Map<Long, Map<Integer, String>> out = new java.util.TreeMap<>();
        comments.forEach((id, of) -> out.put(id, Map.copyOf(of)));
        return out;
    }

    /** Removes object {@code id} and its history policy; null if it was not there. */
    CatalogItem remove(long id) {
        CatalogItem item = byId.remove(id);
        if (item == null) return null;
        comments.remove(id);
        version++;
        byName.remove(new Name(schemaOf(id), item.name()), item);
        schemaOf.remove(id);
        dependents.remove(id);
        uses.remove(id);
        for (Set<Long> s : dependents.values()) s.remove(id);
        retention.remove(id);
        return item;
    }

    /** The objects {@code id} reads directly. */
    Set<Long> usesOf(long id) {
        return uses.getOrDefault(id, Set.of());
    }

    /** The objects that read {@code id} directly. */
    Set<Long> dependentsOf(long id) {
        return dependents.getOrDefault(id, Set.of());
    }

    /** Adds {@code id} and everything that depends on it, transitively, to {@code order} (each after what it depends on), skipping {@code seen}. */
    void collect(long id, Set<Long> seen, List<Long> order) {
        if (!seen.add(id)) return;
        order.add(id);
        // in the order they were made, as PostgreSQL lists them
        for (long dep : new java.util.TreeSet<>(dependentsOf(id))) collect(dep, seen, order);
    }

    /** Sets (or, with null, clears) object {@code id}'s history policy. */
    void setPolicy(long id, HistoryPolicy policy) {
        if (policy == null) retention.remove(id);
        else retention.put(id, policy);
    }

    /** What each object's history policy keeps at time {@code now}: object id to the earliest time it must stay readable at. */
    Map<Long, Long> holds(long now) {
        Map<Long, Long> h = new HashMap<>();
        retention.forEach((id, policy) -> h.put(id, policy.since(now)));
        Map<Long, Long> jobs = jobHolds.get();
        if (jobs == null) {
            for (CatalogItem item : byId.values()) if (item instanceof CatalogItem.Table || item instanceof CatalogItem.MaterializedView) h.put(item.id(), 0L);
        } else {
            jobs.forEach((id, since) -> h.merge(id, since, Math::min));
        }
        // a source's progress keeps the history its rows keep: a cursor of positions is read in it
        for (CatalogItem item : byId.values()) {
            if (item instanceof CatalogItem.Table t && t.isSource() && h.containsKey(t.id())) {
                CatalogItem progress = get(schemaOf(t.id()), t.name() + "_progress");
                if (progress != null) h.merge(progress.id(), h.get(t.id()), Math::min);
            }
        }
        return Map.copyOf(h);
    }

    /** What the catalog entry being replayed reads, as recorded (empty when none is). */
    private Set<Long> replayingUses = Set.of();

    Set<Long> replayingUses() {
        return replayingUses;
    }

    /** What running jobs must still read, by stored collection: the earliest time each must keep. */
    private java.util.function.Supplier<Map<Long, Long>> jobHolds = Map::of;

    void jobHolds(java.util.function.Supplier<Map<Long, Long>> holds) {
        this.jobHolds = holds;
    }

    /** The catalog's indexes. */
    List<CatalogItem.Index> indexes() {
        if (indexesVersion != version) {
            List<CatalogItem.Index> out = new ArrayList<>();
            for (CatalogItem item : byId.values()) if (item instanceof CatalogItem.Index ix) out.add(ix);
            indexList = List.copyOf(out);
            indexesVersion = version;
        }
        return indexList;
    }

    /**
     * {@code t}'s unique indexes (its primary key's first, then the others in the order they
     * were made): what every write to it is checked against.
     */
    List<CatalogItem.Index> uniqueIndexes(CatalogItem.Table t) {
        if (uniquesVersion != version) {
            uniques.clear();
            uniquesVersion = version;
        }
        return uniques.computeIfAbsent(t.id(), id -> {
            List<CatalogItem.Index> out = new ArrayList<>();
            for (CatalogItem.Index ix : indexes()) if (ix.on() == id && ix.unique()) out.add(ix);
            out.sort(java.util.Comparator.comparing((CatalogItem.Index ix) -> !ix.primaryKey()).thenComparingLong(CatalogItem.Index::id));
            return List.copyOf(out);
        });
    }

    private final Map<Long, List<CatalogItem.Index>> uniques = new HashMap<>();
    private long uniquesVersion = -1;

    /** The foreign keys of table {@code table} (those it holds, {@code referencing}) or of other tables (or itself) that reference it; in the order they were made. */
    List<CatalogItem.ForeignKey> foreignKeys(long table, boolean referencing) {
        if (foreignKeysVersion != version) {
            foreignKeysFrom.clear();
            foreignKeysTo.clear();
            for (CatalogItem item : byId.values()) {
                if (!(item instanceof CatalogItem.ForeignKey f)) continue;
                foreignKeysFrom.computeIfAbsent(f.table(), k -> new ArrayList<>()).add(f);
                foreignKeysTo.computeIfAbsent(f.refTable(), k -> new ArrayList<>()).add(f);
            }
            for (List<CatalogItem.ForeignKey> l : foreignKeysFrom.values()) l.sort(java.util.Comparator.comparingLong(CatalogItem.ForeignKey::id));
            for (List<CatalogItem.ForeignKey> l : foreignKeysTo.values()) l.sort(java.util.Comparator.comparingLong(CatalogItem.ForeignKey::id));
            foreignKeysVersion = version;
        }
        return (referencing ? foreignKeysFrom : foreignKeysTo).getOrDefault(table, List.of());
    }

    private final Map<Long, List<CatalogItem.ForeignKey>> foreignKeysFrom = new HashMap<>();
    private final Map<Long, List<CatalogItem.ForeignKey>> foreignKeysTo = new HashMap<>();
    private long foreignKeysVersion = -1;

    /** The id of {@code t}'s primary key index ({@code <table>_pkey}). */
    long primaryKeyIndex(CatalogItem.Table t) {
        for (long dep : dependentsOf(t.id())) {
            if (byId.get(dep) instanceof CatalogItem.Index ix && ix.primaryKey()) return ix.id();
        }
        throw new IllegalStateException("table " + t.name() + " has a primary key but no primary key index");
    }

    /** The tables stored collection, view or index {@code id} is computed from (itself for a table). */
    Set<Long> baseTablesOf(long id) {
        if (baseTablesVersion != version) {
            baseTablesCache.clear();
            baseTablesVersion = version;
        }
        Set<Long> known = baseTablesCache.get(id);
        if (known != null) return known;
        CatalogItem item = byId.get(id);
        Set<Long> out = switch (item) {
            case null -> Set.of();
            case CatalogItem.Table t -> Set.of(t.id());
            case CatalogItem.View v -> baseTables(v.plan());
            case CatalogItem.MaterializedView m -> baseTables(m.plan());
            case CatalogItem.Index i -> baseTablesOf(i.on());
            case CatalogItem.ForeignKey f -> Set.of();
            case CatalogItem.Sequence q -> Set.of();
            case CatalogItem.SystemRelation r -> Set.of();
        };
        baseTablesCache.put(id, out);
        return out;
    }

    /** The tables {@code plan} reads, through the views and indexes it reads. */
    Set<Long> baseTables(Plan plan) {
        Set<Long> out = new HashSet<>();
        Plans.mapGets(plan, g -> {
            out.addAll(baseTablesOf(g.id()));
            return null;
        });
        if (plan instanceof Plan.IndexedGet g) out.addAll(baseTablesOf(g.source()));
        return out;
    }

    /** Whether stored collection {@code id}'s contents may change without a write: it or a view it reads has a temporal filter or uses the time. */
    boolean changesWithTime(long id) {
        CatalogItem item = byId.get(id);
        Plan plan = item instanceof CatalogItem.MaterializedView m ? m.plan() : item instanceof CatalogItem.View v ? v.plan() : null;
        if (plan == null) return false;
        boolean[] found = {Plans.usesStatementTime(plan) || Plans.anyNode(plan, p -> p instanceof Plan.TemporalFilter)};
        Plans.mapGets(plan, g -> {
            found[0] |= changesWithTime(g.id());
            return null;
        });
        return found[0];
    }

    /** How EXPLAIN names stored collection {@code id}. */
    String describeStored(long id) {
        CatalogItem item = byId.get(id);
        return item == null ? "#" + id : item.kind() + " " + item.name();
    }

    // ------------------------------------------------------------------ names

    /** The schema object {@code id} is in. */
    String schemaOf(long id) {
        return schemaOf.getOrDefault(id, PUBLIC);
    }

    /** The schema {@code name}'s catalog id (0 for public), or -1 when there is none. */
    long schemaId(String name) {
        Long id = schemas.get(name);
        return id == null || id > replayHorizon ? -1 : id;
    }

    /** The user schemas by name, with their catalog ids. */
    Map<String, Long> schemas() {
        Map<String, Long> out = new TreeMap<>();
        schemas.forEach((name, id) -> {
            if (id <= replayHorizon) out.put(name, id);
        });
        return out;
    }

    /** Lists schema {@code name}, made as object {@code id}. */
    void addSchema(String name, long id) {
        version++;
        schemas.put(name, id);
    }

    /** The name of the schema made as object {@code id}, or null when {@code id} is no schema's. */
    String schemaNamed(long id) {
        for (Map.Entry<String, Long> e : schemas.entrySet()) if (e.getValue() == id && id > 0) return e.getKey();
        return null;
    }

    /** Takes schema {@code name} off the list (its objects must be gone already). */
    void removeSchema(String name) {
        version++;
        schemas.remove(name);
    }

    /** The objects of schema {@code name}, in id order. */
    List<CatalogItem> inSchema(String name) {
        List<CatalogItem> out = new ArrayList<>();
        for (CatalogItem item : inIdOrder()) if (schemaOf(item.id()).equals(name)) out.add(item);
        return out;
    }

    /** While a restart replays the statement that made object {@code id} (reading {@code uses}): only what existed then is seen; {@code -1} ends it. */
    void replaying(long id, java.util.Collection<Long> uses) {
        replayingUses = Set.copyOf(uses);
        long horizon = id;
        for (long u : uses) horizon = Math.max(horizon, u);
        replayHorizon = id < 0 ? Long.MAX_VALUE : horizon;
        madeByReplay.clear();
    }

    /**
     * The schemas a session's unqualified names are looked for in: its {@code search_path}
     * setting ({@code setting}, PostgreSQL's default when null) with {@code $user} as
     * {@code user}, the schemas that do not exist and the system ones left out, as PostgreSQL's
     * {@code current_schemas(false)} (but for pg_catalog, which is always searched first).
     */
    List<String> searchPath(String setting, String user) {
        List<String> out = new ArrayList<>();
        for (String part : dev.tributary.sql.catalog.Settings.schemas(setting == null ? "\"$user\", public" : setting)) {
            String schema = part.equals("$user") ? user : part;
            if (schemaId(schema) >= 0 && !out.contains(schema)) out.add(schema);
        }
        return List.copyOf(out);
    }

    /** Whether a role may use a schema (USAGE on it), as access control says; see {@link #usage(java.util.function.BiPredicate)}. */
    private java.util.function.BiPredicate<String, String> usage = (role, schema) -> true;

    /** Access control's answer to whether role (first) may use schema (second). */
    void usage(java.util.function.BiPredicate<String, String> usage) {
        this.usage = usage;
    }

    /** {@code session}'s search path ({@link #searchPath(String, String)}), without the schemas its role may not use, as PostgreSQL leaves them out. */
    List<String> searchPath(Session session) {
        List<String> path = searchPath(session.settings.get("search_path"), session.currentUser());
        for (String schema : path) {
            if (!usage.test(session.currentUser(), schema)) {
                List<String> usable = new ArrayList<>(path);
                usable.removeIf(s -> !usage.test(session.currentUser(), s));
                return List.copyOf(usable);
            }
        }
        return path;
    }

    /** {@link #find(List, List, int)} for {@code session}: along its search path; 42501 for a schema it names that its role may not use. */
    CatalogItem find(List<String> parts, Session session, int pos) {
        checkUsage(parts, session, pos);
        return find(parts, searchPath(session), pos);
    }

    /** {@link #target(List, List, int)} along {@code session}'s search path (creating in a named schema needs CREATE on it, checked by the caller). */
    Name target(List<String> parts, Session session, int pos) {
        return target(parts, searchPath(session), pos);
    }

    /** 42501 when {@code parts} names a user schema {@code session}'s role has no USAGE on. */
    private void checkUsage(List<String> parts, Session session, int pos) {
        if (parts.size() < 2 || parts.size() > 3) return;
        String schema = parts.get(parts.size() - 2);
        if (schemaId(schema) >= 0 && !usage.test(session.currentUser(), schema)) {
            throw new SqlException("42501", "permission denied for schema " + schema, pos);
        }
    }

    /**
     * The object {@code parts} names ({@code name}, {@code schema.name} or
     * {@code database.schema.name}), bare names looked for along {@code path}; null when there is
     * none. 3F000 for a schema that does not exist, 42601 for too many dots.
     */
    CatalogItem find(List<String> parts, List<String> path, int pos) {
        Name qualified = qualified(parts, pos);
        if (qualified.schema() != null) return get(qualified.schema(), qualified.name());
        for (String schema : path) {
            CatalogItem item = get(schema, qualified.name());
            if (item != null) return item;
        }
        return null;
    }

    /** {@code parts} as a name with its schema (null when it names none), the schema checked to exist. */
    Name qualified(List<String> parts, int pos) {
        dev.tributary.sql.catalog.QualifiedName q = dev.tributary.sql.catalog.QualifiedName.of(parts, pos);
        String name = q.name(), schema = q.schema();
        if (schema == null) return new Name(null, name);
        if (schemaId(schema) < 0 && !SystemCatalog.isSystemSchema(schema)) throw new SqlException("3F000", "schema \"" + schema + "\" does not exist", pos);
        return new Name(schema, name);
    }

    /**
     * Where a CREATE of {@code parts} puts its object: the schema it names, or the first of
     * {@code path} (3F000 when there is none, as PostgreSQL says); 42501 for a system schema.
     */
    Name target(List<String> parts, List<String> path, int pos) {
        Name q = qualified(parts, pos);
        if (q.schema() != null && SystemCatalog.isSystemSchema(q.schema())) {
            throw new SqlException("42501", "permission denied to create \"" + q.schema() + "." + q.name() + "\"", pos)
                    .withDetail("System catalog modifications are currently disallowed.");
        }
        if (q.schema() != null) return q;
        if (path.isEmpty()) throw new SqlException("3F000", "no schema has been selected to create in", pos);
        return new Name(path.get(0), q.name());
    }

    /** 42P07 if {@code name} is taken in its schema (unless {@code ifNotExists}). */
    void checkNew(Name name, boolean ifNotExists, int pos) {
        if (contains(name.schema(), name.name()) && !ifNotExists) {
            throw new SqlException("42P07", "relation \"" + name.name() + "\" already exists", pos);
        }
    }

    /** The source that alone writes a table, by the table's id (null: none; users write it). */
    private java.util.function.LongFunction<String> writtenOnlyBy = id -> null;

    /** Tells which tables only a source's connector writes: {@code source} gives the source's name for such a table's id, null for others. */
    void writtenOnlyBy(java.util.function.LongFunction<String> source) {
        this.writtenOnlyBy = source;
    }

    /** The table {@code parts} names, for a statement that writes to it ({@code verb} says how), with PostgreSQL's errors for anything else. */
    CatalogItem.Table table(List<String> parts, Session session, int pos, String verb) {
        Optional<CatalogItem.SystemRelation> sys = systemRelation(parts);
        if (sys.isPresent()) {
            // as PostgreSQL answers a user who is not allowed to change the catalogs
            CatalogItem.SystemRelation r = sys.get();
            if (!r.view()) throw new SqlException("42501", "permission denied for table " + r.name());
            throw new SqlException("55000", "cannot " + verb + " view \"" + r.name() + "\"")
                    .withDetail("Views that do not select from a single table or view are not automatically updatable.");
        }
        // a write names its table as a query does: a schema that does not exist is no such relation (PostgreSQL's 42P01)
        boolean schemaExists = parts.size() < 2 || parts.size() > 3 || schemaId(parts.get(parts.size() - 2)) >= 0;
        CatalogItem item = schemaExists ? find(parts, session, pos) : null;
        String name = parts.get(parts.size() - 1);
        if (item == null) throw new SqlException("42P01", "relation \"" + String.join(".", parts) + "\" does not exist", pos);
        if (item instanceof CatalogItem.Table t) {
            String source = writtenOnlyBy.apply(t.id());
            if (source != null) {
                if (t.isSink()) {
                    throw new SqlException("42809", "cannot " + verb + " sink \"" + name + "\": only the sink writes it", pos,
                            "A sink's table is its progress (a Kafka sink's cursor, an HTTP sink's last acknowledged time); "
                                    + "ALTER SINK pauses and resumes a Kafka sink; DROP SINK and CREATE SINK start either over.");
                }
                if (t.isJob()) throw new SqlException("42809", "cannot " + verb + " job \"" + name + "\": its cursor is the job's own", pos, "ALTER JOB pauses and resumes it.");
                throw new SqlException("42809", "cannot " + verb + " " + (t.isSource() ? "source" : "table") + " \"" + name + "\": only source " + source + "'s connector writes it", pos,
                        "A source's rows, and its progress, come from its connector; copy them into a table to change them.");
            }
            if (t.appendOnly() && !verb.equals("insert into")) {
                throw new SqlException("55000", "cannot " + verb + " table \"" + name + "\": it is append-only", pos,
                        "An APPEND ONLY table takes INSERT and COPY FROM only: its rows are never changed or deleted once written.");
            }
            return t;
        }
        throw new SqlException("42809", "cannot change " + item.kind() + " \"" + name + "\"", pos, "Only tables can be written to; views are maintained from them.");
    }

    /**
     * The system relation {@code parts} names, if it does: a {@code pg_catalog.} or
     * {@code information_schema.} name, or a bare name of pg_catalog's (searched first).
     */
    static Optional<CatalogItem.SystemRelation> systemRelation(List<String> parts) {
        if (parts.size() == 2 && SystemCatalog.isSystemSchema(parts.get(0))) return SystemCatalog.relation(parts.get(0), parts.get(1));
        if (parts.size() == 1) return SystemCatalog.relation("pg_catalog", parts.get(0));
        return Optional.empty();
    }

    /** 0A000 if {@code parts} names a system relation, which a statement cannot {@code verb}. */
    static void rejectSystemRelation(List<String> parts, String verb, int pos) {
        Optional<CatalogItem.SystemRelation> sys = systemRelation(parts);
        if (sys.isPresent()) {
            String what = Introspection.maintains(sys.get()) ? "a system relation, maintained by the server" : "a system catalog, computed from the catalog when read";
            throw new SqlException("0A000", "cannot " + verb + " \"" + sys.get().name() + "\": it is " + what, pos);
        }
    }

    /** The position of column {@code name} in {@code columns}, or -1. */
    static int indexOfColumn(List<Column> columns, String name) {
        for (int i = 0; i < columns.size(); i++) if (columns.get(i).name().equals(name)) return i;
        return -1;
    }
}
