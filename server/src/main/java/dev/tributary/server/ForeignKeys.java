package dev.tributary.server;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement.ReferentialAction;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.expr.Casts;
import dev.tributary.sql.expr.ScalarExpr;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import dev.tributary.sql.types.Values;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Referential integrity: FOREIGN KEY constraints enforced on a statement's changes, as
 * PostgreSQL enforces them at the end of a statement. A referenced key that goes away takes its
 * action (CASCADE deletes the referencing rows, SET NULL / SET DEFAULT changes them, each in
 * turn a change whose own foreign keys act), then every written row must reference a row that
 * is there after the statement, and no key that went away may still be referenced (NO ACTION and
 * RESTRICT, 23503). "There" is what is committed, plus the open block's writes, plus the
 * statement's: a block's changes are checked again at COMMIT against what is committed then, so
 * a referenced row another session deleted meanwhile fails the commit (the first to commit wins).
 *
 * <p>A statement is an UPDATE for the actions (ON UPDATE rather than ON DELETE) when it both
 * removes and adds rows of a table; the rows SET NULL or SET DEFAULT change are updates too.
 * Referencing rows are found by reading the referencing table (through an index on the
 * referencing columns when there is one, as PostgreSQL advises); referenced keys are counted in
 * the referenced unique index.
 *
 * <p>Called with the coordinator's lock held.
 */
final class ForeignKeys {
    private final CatalogState catalog;
    private final WritePath writes;
    private final ReadPath reads;

    ForeignKeys(CatalogState catalog, WritePath writes, ReadPath reads) {
        this.catalog = catalog;
        this.writes = writes;
        this.reads = reads;
    }

    /** Whether a foreign key's columns of types {@code referencing} and {@code referenced} can be compared. */
    static boolean comparable(SqlType referencing, SqlType referenced) {
        // as PostgreSQL: types of one operator family (the integers, the floats, text and varchar)
        if (referencing.kind() == referenced.kind()) return true;
        if (referencing.isInteger() && referenced.isInteger()) return true;
        if (floating(referencing) && floating(referenced)) return true;
        return text(referencing) && text(referenced);
    }

    private static boolean floating(SqlType t) {
        return t.kind() == SqlType.Kind.REAL || t.kind() == SqlType.Kind.DOUBLE;
    }

    private static boolean text(SqlType t) {
        return t.kind() == SqlType.Kind.TEXT || t.kind() == SqlType.Kind.VARCHAR;
    }

    /** Whether a write to table {@code t} has foreign keys to enforce. */
    boolean involved(long t) {
        return !catalog.foreignKeys(t, true).isEmpty() || !catalog.foreignKeys(t, false).isEmpty();
    }

    /**
     * The changes a statement makes by changing {@code t}'s rows by {@code changes}: those, and
     * what its foreign keys' actions add (rows of other tables, or more of {@code t}'s), with
     * every foreign key they touch checked (23503; 23502 or 23514 for a row SET NULL or SET
     * DEFAULT makes). {@code session}'s open block's writes are there before the statement.
     * {@code pairs}: an UPDATE's rows, each the old row's values then the new row's (ON UPDATE
     * CASCADE moves the referencing rows to the key their row moved to), or null.
     */
    Map<Long, Map<Row, Long>> enforce(Session session, CatalogItem.Table t, Map<Row, Long> changes, List<Object[]> pairs) {
        Map<Long, Map<Row, Long>> all = new LinkedHashMap<>();
        all.put(t.id(), changes);
        State s = new State(session, session.pending, all, new HashMap<>());
        if (pairs != null) s.pairs().put(t.id(), pairs);
        boolean removes = false;
        boolean adds = false;
        for (long c : changes.values()) {
            removes |= c < 0;
            adds |= c > 0;
        }
        if (removes) act(s, t.id(), adds);
        check(s);
        return all;
    }

    /** At COMMIT: a block's writes {@code block} checked again against what is committed now (23503). */
    void recheck(Map<Long, Map<Row, Long>> block) {
        for (long id : block.keySet()) {
            if (involved(id)) {
                check(new State(null, Map.of(), block, Map.of()));
                return;
            }
        }
    }

    /** ALTER TABLE ... ADD FOREIGN KEY: every row of its table (committed and in {@code session}'s block) references a row (23503). */
    void checkExisting(Session session, CatalogItem.ForeignKey f) {
        CatalogItem.Table child = table(f.table());
        Map<Row, Long> rows = new LinkedHashMap<>();
        RowCodec codec = codec(child);
        for (Object[] r : reads.rowsOf(new Session(), new Plan.Get(child.id(), child.name(), Binder.typesOf(child.columns()), child.insertsOnly()),
                Binder.typesOf(child.columns()))) {
            rows.merge(codec.encode(r), 1L, Long::sum);
        }
        session.pending.getOrDefault(child.id(), Map.of()).forEach((r, c) -> rows.merge(r, c, Long::sum));
        rows.values().removeIf(c -> c <= 0);
        checkReferencing(new State(session, session.pending, Map.of(), Map.of()), f, child, rows);
    }

    /**
     * What is there: committed rows, then {@code before} (the open block's writes, when a
     * statement is checked), then {@code changes}; {@code pairs} are the old and new values of
     * the rows an UPDATE (or an action) changed, per table; {@code acted} the keys whose foreign
     * key's action changed every row that referenced them, per foreign key.
     */
    private record State(Session session, Map<Long, Map<Row, Long>> before, Map<Long, Map<Row, Long>> changes, Map<Long, List<Object[]>> pairs,
                         Map<Long, Set<Row>> acted) {
        State(Session session, Map<Long, Map<Row, Long>> before, Map<Long, Map<Row, Long>> changes, Map<Long, List<Object[]>> pairs) {
            this(session, before, changes, pairs, new HashMap<>());
        }
    }

    /**
     * Takes the ON DELETE / ON UPDATE actions of every foreign key referencing a table whose
     * changes remove a key, table by table until no action adds more; {@code start} is the
     * statement's table, an UPDATE's when {@code updated}.
     */
    private void act(State s, long start, boolean updated) {
        Set<Long> updates = new HashSet<>();
        if (updated) updates.add(start);
        Map<Long, Set<Row>> acted = new HashMap<>();
        ArrayDeque<Long> work = new ArrayDeque<>(List.of(start));
        while (!work.isEmpty()) {
            long parentId = work.poll();
            CatalogItem.Table parent = table(parentId);
            for (CatalogItem.ForeignKey f : catalog.foreignKeys(parentId, false)) {
                ReferentialAction action = updates.contains(parentId) ? f.onUpdate() : f.onDelete();
                if (action == ReferentialAction.NO_ACTION || action == ReferentialAction.RESTRICT) continue;
                // an UPDATE's action is taken for every key a row moved off, as PostgreSQL's row
                // triggers are, even when another row takes that key; a DELETE's for the keys it
                // leaves with no row
                Map<Row, Object[]> gone = updates.contains(parentId) && s.pairs().containsKey(parentId) ? changedKeys(s, f, parent) : removedKeys(s, f, parent);
                gone.keySet().removeAll(acted.getOrDefault(f.id(), Set.of()));
                if (gone.isEmpty()) continue;
                acted.computeIfAbsent(f.id(), k -> new HashSet<>()).addAll(gone.keySet());
                // SET DEFAULT may point a row back at the key that went: those keys are checked again after
                if (action != ReferentialAction.SET_DEFAULT) s.acted().computeIfAbsent(f.id(), k -> new HashSet<>()).addAll(gone.keySet());
                CatalogItem.Table child = table(f.table());
                Map<Row, Long> referencing = referencingRows(s, f, child, parent, gone.values());
                if (referencing.isEmpty()) continue;
                Map<Row, Long> childChanges = s.changes().computeIfAbsent(child.id(), k -> new LinkedHashMap<>());
                if (childChanges instanceof RowSlab) {
                    childChanges = new LinkedHashMap<>(childChanges);
                    s.changes().put(child.id(), childChanges);
                }
                RowCodec codec = codec(child);
                Instant now = Instant.now();
                // ON UPDATE CASCADE: the values each key moved to, by the referencing columns' values it had
                boolean moves = action == ReferentialAction.CASCADE && updates.contains(parentId);
                Map<List<Object>, Object[]> movedTo = moves ? movedKeys(s, f, parent, child, gone.keySet()) : Map.of();
                int width = child.columns().size();
                for (Map.Entry<Row, Long> e : referencing.entrySet()) {
                    childChanges.merge(e.getKey(), -e.getValue(), Long::sum);
                    if (action == ReferentialAction.CASCADE && !moves) continue;
                    Object[] old = codec.decode(e.getKey());
                    Object[] row = old.clone();
                    if (moves) {
                        Object[] to = movedTo.get(tupleOf(row, f));
                        if (to == null) {
                            // the new key has no value of the referencing columns' types (a bigint past an integer's range)
                            throw new SqlException("22003", "the key referenced through foreign key \"" + f.name() + "\" of table \"" + child.name()
                                    + "\" moved to a value its columns cannot hold");
                        }
                        for (int i = 0; i < to.length; i++) row[f.referencing().get(i)] = to[i];
                    } else {
                        for (int c : f.referencing()) {
                            row[c] = action == ReferentialAction.SET_NULL || child.defaults().isEmpty() ? null
                                    : ScalarExprs.bindStatementTime(child.defaults().get(c), now).eval(new Object[0]);
                        }
                    }
                    WritePath.checkRow(child, row);
                    childChanges.merge(codec.encode(row), e.getValue(), Long::sum);
                    Object[] pair = java.util.Arrays.copyOf(old, 2 * width);
                    System.arraycopy(row, 0, pair, width, width);
                    s.pairs().computeIfAbsent(child.id(), k -> new ArrayList<>()).add(pair);
                }
                childChanges.values().removeIf(c -> c == 0);
                if (action != ReferentialAction.CASCADE || moves) updates.add(child.id());
                work.add(child.id());
            }
        }
    }

    /**
     * For ON UPDATE CASCADE of {@code f}: the keys {@code gone} of {@code parent}'s referenced
     * index that an UPDATE moved, as the referencing columns' values (of {@code child}'s types)
     * they had, to the values they have now.
     */
    private Map<List<Object>, Object[]> movedKeys(State s, CatalogItem.ForeignKey f, CatalogItem.Table parent, CatalogItem.Table child, Set<Row> gone) {
        Map<List<Object>, Object[]> out = new HashMap<>();
        WritePath.UniqueKey u = writes.uniqueKey(parent, index(f.refIndex()));
        RowCodec codec = codec(parent);
        int width = parent.columns().size();
        int n = f.referenced().size();
        for (Object[] pair : s.pairs().getOrDefault(parent.id(), List.of())) {
            Object[] old = java.util.Arrays.copyOf(pair, width);
            Row key = u.keyOf().apply(codec.encode(old));
            if (key == null || !gone.contains(key)) continue;
            List<Object> from = new ArrayList<>(n);
            Object[] to = new Object[n];
            boolean matchable = true;
            for (int i = 0; i < n; i++) {
                int p = f.referenced().get(i);
                SqlType pt = parent.columns().get(p).type();
                SqlType ct = child.columns().get(f.referencing().get(i)).type();
                Object was = convert(old[p], pt, ct);
                to[i] = convert(pair[width + p], pt, ct);
                matchable &= was != NO_MATCH && to[i] != NO_MATCH;
                from.add(normal(was));
            }
            if (matchable) out.put(from, to);
        }
        return out;
    }

    /**
     * The checks at the end of a statement: every row it adds to a table with foreign keys
     * references a row that is there, and no key of a referenced table that went away is still
     * referenced.
     */
    private void check(State s) {
        for (Map.Entry<Long, Map<Row, Long>> e : List.copyOf(s.changes().entrySet())) {
            CatalogItem.Table t = table(e.getKey());
            List<CatalogItem.ForeignKey> from = catalog.foreignKeys(t.id(), true);
            if (!from.isEmpty()) {
                Map<Row, Long> added = new LinkedHashMap<>();
                e.getValue().forEach((r, c) -> {
                    if (c > 0) added.put(r, c);
                });
                for (CatalogItem.ForeignKey f : from) if (!deferred(s, f)) checkReferencing(s, f, t, added);
            }
            for (CatalogItem.ForeignKey f : catalog.foreignKeys(t.id(), false)) {
                // RESTRICT is checked at once even in a deferrable constraint, as in PostgreSQL
                if (deferred(s, f) && (s.pairs().containsKey(t.id()) ? f.onUpdate() : f.onDelete()) == ReferentialAction.NO_ACTION) continue;
                Map<Row, Object[]> gone = removedKeys(s, f, t);
                // an action changed every row that referenced these; a row the statement added is checked above
                gone.keySet().removeAll(s.acted().getOrDefault(f.id(), Set.of()));
                if (gone.isEmpty()) continue;
                CatalogItem.Table child = table(f.table());
                Map<Row, Long> still = referencingRows(s, f, child, t, gone.values());
                if (still.isEmpty()) continue;
                Object[] row = codec(child).decode(still.keySet().iterator().next());
                Object[] key = new Object[f.referencing().size()];
                for (int i = 0; i < key.length; i++) key[i] = row[f.referencing().get(i)];
                throw new SqlException("23503", "update or delete on table \"" + t.name() + "\" violates foreign key constraint \"" + f.name()
                        + "\" on table \"" + child.name() + "\"").withDetail("Key " + keyText(t, f.referenced(), key, child, f.referencing())
                        + " is still referenced from table \"" + child.name() + "\".");
            }
        }
    }

    /** Whether {@code f}'s checks wait for the COMMIT of the session {@code s} checks a statement of (a COMMIT's own check has none). */
    private static boolean deferred(State s, CatalogItem.ForeignKey f) {
        return s.session() != null && s.session().deferred(f);
    }

    /** Whether a deferrable foreign key is of or references a table {@code block} writes: its checks may have waited for the COMMIT. */
    boolean anyDeferrable(Map<Long, Map<Row, Long>> block) {
        for (long id : block.keySet()) {
            for (CatalogItem.ForeignKey f : catalog.foreignKeys(id, true)) if (f.deferrable()) return true;
            for (CatalogItem.ForeignKey f : catalog.foreignKeys(id, false)) if (f.deferrable()) return true;
        }
        return false;
    }

    /** 23503 unless each of {@code rows} (of {@code child}, which holds {@code f}) references a row that is there. */
    private void checkReferencing(State s, CatalogItem.ForeignKey f, CatalogItem.Table child, Map<Row, Long> rows) {
        if (rows.isEmpty()) return;
        CatalogItem.Table parent = table(f.refTable());
        RowCodec codec = codec(child);
        RowCodec parentCodec = codec(parent);
        WritePath.UniqueKey u = writes.uniqueKey(parent, index(f.refIndex()));
        Map<Row, Object[]> wanted = new LinkedHashMap<>();
        // only the referencing columns are read of each row (a COPY's million rows are not decoded whole)
        Object[] row = new Object[child.columns().size()];
        for (Row r : rows.keySet()) {
            int nulls = 0;
            for (int c : f.referencing()) {
                row[c] = codec.get(r, c);
                if (row[c] == null) nulls++;
            }
            if (nulls > 0) {
                if (f.matchFull() && nulls < f.referencing().size()) {
                    throw new SqlException("23503", "insert or update on table \"" + child.name() + "\" violates foreign key constraint \"" + f.name() + "\"")
                            .withDetail("MATCH FULL does not allow mixing of null and nonnull key values.");
                }
                continue; // MATCH SIMPLE: a key with a NULL references nothing and needs nothing
            }
            Object[] parentRow = new Object[parent.columns().size()];
            boolean matchable = true;
            for (int i = 0; i < f.referencing().size(); i++) {
                int c = f.referencing().get(i);
                int p = f.referenced().get(i);
                Object v = convert(row[c], child.columns().get(c).type(), parent.columns().get(p).type());
                if (v == NO_MATCH) matchable = false;
                parentRow[p] = v;
            }
            if (!matchable) throw notPresent(child, parent, f, row);
            Row key = u.keyOf().apply(parentCodec.encode(parentRow));
            if (key != null && !wanted.containsKey(key)) wanted.put(key, row.clone());
        }
        if (wanted.isEmpty()) return;
        Map<Row, Long> counts = keyCounts(s, parent, u, wanted.keySet());
        for (Map.Entry<Row, Object[]> w : wanted.entrySet()) {
            if (counts.getOrDefault(w.getKey(), 0L) <= 0) throw notPresent(child, parent, f, w.getValue());
        }
    }

    private static SqlException notPresent(CatalogItem.Table child, CatalogItem.Table parent, CatalogItem.ForeignKey f, Object[] row) {
        Object[] key = new Object[f.referencing().size()];
        for (int i = 0; i < key.length; i++) key[i] = row[f.referencing().get(i)];
        return new SqlException("23503", "insert or update on table \"" + child.name() + "\" violates foreign key constraint \"" + f.name() + "\"")
                .withDetail("Key " + keyText(child, f.referencing(), key, child, f.referencing()) + " is not present in table \"" + parent.name() + "\".");
    }

    /** {@code (a, b)=(1, 2)}: columns {@code columns} of {@code t} with values {@code key} (of {@code valueTable}'s columns {@code valueColumns}). */
    private static String keyText(CatalogItem.Table t, List<Integer> columns, Object[] key, CatalogItem.Table valueTable, List<Integer> valueColumns) {
        StringBuilder names = new StringBuilder();
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) {
                names.append(", ");
                values.append(", ");
            }
            names.append(t.columns().get(columns.get(i)).name());
            values.append(key[i] == null ? "null" : Values.toText(key[i], valueTable.columns().get(valueColumns.get(i)).type()));
        }
        return "(" + names + ")=(" + values + ")";
    }

    /**
     * The keys of {@code f}'s referenced index that the statement's changes to {@code parent}
     * take away (some row with the key removed, none left with it), each with the values of the
     * referenced columns (in {@code f}'s order).
     */
    private Map<Row, Object[]> removedKeys(State s, CatalogItem.ForeignKey f, CatalogItem.Table parent) {
        Map<Row, Long> changes = s.changes().getOrDefault(parent.id(), Map.of());
        WritePath.UniqueKey u = writes.uniqueKey(parent, index(f.refIndex()));
        RowCodec codec = codec(parent);
        Map<Row, Object[]> candidates = new LinkedHashMap<>();
        for (Map.Entry<Row, Long> e : changes.entrySet()) {
            if (e.getValue() >= 0) continue;
            Row key = u.keyOf().apply(e.getKey());
            if (key == null || candidates.containsKey(key)) continue;
            Object[] row = codec.decode(e.getKey());
            Object[] values = new Object[f.referenced().size()];
            for (int i = 0; i < values.length; i++) values[i] = row[f.referenced().get(i)];
            candidates.put(key, values);
        }
        if (candidates.isEmpty()) return candidates;
        Map<Row, Long> counts = keyCounts(s, parent, u, candidates.keySet());
        candidates.keySet().removeIf(k -> counts.getOrDefault(k, 0L) > 0);
        return candidates;
    }

    /** The keys of {@code f}'s referenced index that the rows an UPDATE changed in {@code parent} had before and not after, with the referenced columns' values. */
    private Map<Row, Object[]> changedKeys(State s, CatalogItem.ForeignKey f, CatalogItem.Table parent) {
        WritePath.UniqueKey u = writes.uniqueKey(parent, index(f.refIndex()));
        RowCodec codec = codec(parent);
        int width = parent.columns().size();
        Map<Row, Object[]> out = new LinkedHashMap<>();
        for (Object[] pair : s.pairs().get(parent.id())) {
            Object[] old = java.util.Arrays.copyOf(pair, width);
            Row key = u.keyOf().apply(codec.encode(old));
            if (key == null || key.equals(u.keyOf().apply(codec.encode(java.util.Arrays.copyOfRange(pair, width, 2 * width))))) continue;
            Object[] values = new Object[f.referenced().size()];
            for (int i = 0; i < values.length; i++) values[i] = old[f.referenced().get(i)];
            out.putIfAbsent(key, values);
        }
        return out;
    }

    /** How many rows of {@code t} are there with each of {@code keys} of its unique index {@code u}. */
    private Map<Row, Long> keyCounts(State s, CatalogItem.Table t, WritePath.UniqueKey u, Set<Row> keys) {
        Map<Row, Long> counts = new HashMap<>(writes.committedKeyCounts(t, u, keys));
        if (s.session() != null) {
            Map<Row, Map<Row, Long>> pending = s.session().pendingRowsByKey.getOrDefault(u.index().id(), Map.of());
            if (!pending.isEmpty()) {
                for (Row k : keys) {
                    Map<Row, Long> rows = pending.get(k);
                    if (rows != null) counts.merge(k, Session.count(rows), Long::sum);
                }
            }
        }
        for (Map.Entry<Row, Long> e : s.changes().getOrDefault(t.id(), Map.of()).entrySet()) {
            Row k = u.keyOf().apply(e.getKey());
            if (k != null && keys.contains(k)) counts.merge(k, e.getValue(), Long::sum);
        }
        return counts;
    }

    /**
     * The rows of {@code child} that are there and reference one of {@code keys} (values of
     * {@code parent}'s referenced columns, in {@code f}'s order) through {@code f}, with their counts.
     */
    private Map<Row, Long> referencingRows(State s, CatalogItem.ForeignKey f, CatalogItem.Table child, CatalogItem.Table parent, java.util.Collection<Object[]> keys) {
        int n = f.referencing().size();
        Set<List<Object>> wanted = new HashSet<>();
        List<List<Object>> perColumn = new ArrayList<>();
        for (int i = 0; i < n; i++) perColumn.add(new ArrayList<>());
        for (Object[] key : keys) {
            List<Object> tuple = new ArrayList<>(n);
            boolean matchable = true;
            for (int i = 0; i < n; i++) {
                Object v = convert(key[i], parent.columns().get(f.referenced().get(i)).type(), child.columns().get(f.referencing().get(i)).type());
                if (v == NO_MATCH) matchable = false;
                tuple.add(normal(v));
            }
            if (!matchable || !wanted.add(tuple)) continue;
            for (int i = 0; i < n; i++) perColumn.get(i).add(tuple.get(i));
        }
        Map<Row, Long> out = new LinkedHashMap<>();
        if (wanted.isEmpty()) return out;
        RowCodec codec = codec(child);
        List<SqlType> types = Binder.typesOf(child.columns());
        Plan plan = new Plan.Get(child.id(), child.name(), types, child.insertsOnly());
        if (wanted.size() <= Peek.MAX_KEYS) {
            // column IN (values) per referencing column: sought in an index on them when there is one
            List<ScalarExpr> filters = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int c = f.referencing().get(i);
                SqlType type = types.get(c);
                List<ScalarExpr> values = new ArrayList<>();
                for (Object v : new java.util.LinkedHashSet<>(perColumn.get(i))) values.add(new ScalarExpr.Literal(v, type));
                filters.add(new ScalarExpr.InList(new ScalarExpr.ColumnRef(c, type), values, false));
            }
            plan = new Plan.Filter(plan, filters);
        }
        for (Object[] r : reads.rowsOf(new Session(), plan, types)) {
            if (wanted.contains(tupleOf(r, f))) out.merge(codec.encode(r), 1L, Long::sum);
        }
        for (Map<Long, Map<Row, Long>> layer : List.of(s.before(), s.changes())) {
            for (Map.Entry<Row, Long> e : layer.getOrDefault(child.id(), Map.of()).entrySet()) {
                if (wanted.contains(tupleOf(codec.decode(e.getKey()), f))) out.merge(e.getKey(), e.getValue(), Long::sum);
            }
        }
        out.values().removeIf(c -> c <= 0);
        return out;
    }

    private static List<Object> tupleOf(Object[] row, CatalogItem.ForeignKey f) {
        List<Object> t = new ArrayList<>(f.referencing().size());
        for (int c : f.referencing()) t.add(normal(row[c]));
        return t;
    }

    /** A value as keys compare it: numerics without trailing zeros (1.50 is 1.5). */
    private static Object normal(Object v) {
        return v instanceof java.math.BigDecimal d ? (d.signum() == 0 ? java.math.BigDecimal.ZERO : d.stripTrailingZeros()) : v;
    }

    /** Stands for a value that no value of the other type equals (1.5 for an integer key). */
    private static final Object NO_MATCH = new Object();

    /** {@code v} of type {@code from} as a value of type {@code to}, or {@link #NO_MATCH} when none equals it. */
    private static Object convert(Object v, SqlType from, SqlType to) {
        if (v == null || from.kind() == to.kind()) return v;
        try {
            Object out = Casts.cast(v, from, to);
            Object back = Casts.cast(out, to, from);
            if (back instanceof Comparable<?> && v instanceof java.math.BigDecimal a && back instanceof java.math.BigDecimal b) return a.compareTo(b) == 0 ? out : NO_MATCH;
            return java.util.Objects.equals(normal(back), normal(v)) ? out : NO_MATCH;
        } catch (SqlException e) {
            return NO_MATCH; // out of the other type's range: equal to none of its values
        }
    }

    private CatalogItem.Table table(long id) {
        return (CatalogItem.Table) catalog.get(id);
    }

    private CatalogItem.Index index(long id) {
        return (CatalogItem.Index) catalog.get(id);
    }

    private final Map<Long, RowCodec> codecs = new HashMap<>();

    private RowCodec codec(CatalogItem.Table t) {
        RowCodec c = codecs.get(t.id());
        if (c == null || !c.types().equals(Binder.typesOf(t.columns()))) {
            c = new RowCodec(Binder.typesOf(t.columns()));
            codecs.put(t.id(), c);
        }
        return c;
    }
}
