package dev.tributary.server;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.server.compute.ComputeController;
import dev.tributary.server.compute.Dataflows;
import dev.tributary.server.compute.PublishedIndexes;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.bind.ConflictUpdate;
import dev.tributary.sql.bind.Returning;
import dev.tributary.sql.bind.BoundQuery;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.expr.ScalarExprs;
import dev.tributary.sql.plan.Plan;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.row.RowDataType;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The write path of one database: INSERT, UPDATE, DELETE and COPY FROM turned into changes of a
 * table's rows, NOT NULL and primary keys checked, and the changes added to the session's open
 * transaction block or committed at one new write time: appended to the log, then queued on the
 * workers without waiting for them (at most {@link #COMMITS_IN_FLIGHT} commits in flight).
 *
 * <p>A primary key check counts the changed keys' committed rows in the key's index shards as the
 * workers last published them, plus the key changes of the commits they have not reached yet,
 * which this keeps ({@link #keyWrites}); many keys, or a commit too large to keep, are counted
 * on the workers instead.
 *
 * <p>Called with the coordinator's lock held.
 */
final class WritePath {
    private final CatalogState catalog;
    private final Binders binders;
    private final TimestampOracle oracle;
    private final ComputeController compute;
    private final PublishedIndexes published;
    private final TableFrontiers frontiers;
    private final ReadPath reads;
    private final Subscriptions subscriptions;
    private final Durability durability;
    /** Primary key checks answered from the published shards and the recent commits kept here, for tests. */
    long publishedKeyChecks;

    WritePath(CatalogState catalog, Binders binders, TimestampOracle oracle, ComputeController compute, TableFrontiers frontiers, ReadPath reads,
            Subscriptions subscriptions, Durability durability) {
        this.catalog = catalog;
        this.binders = binders;
        this.oracle = oracle;
        this.compute = compute;
        this.published = compute.published();
        this.publishedShards = new PublishedIndexes.Shard[compute.workers()];
        this.frontiers = frontiers;
        this.reads = reads;
        this.subscriptions = subscriptions;
        this.durability = durability;
        this.foreignKeys = new ForeignKeys(catalog, this, reads);
    }

    private final ForeignKeys foreignKeys;

    /** ALTER TABLE ... ADD FOREIGN KEY {@code f}: 23503 unless every row of its table (as {@code session} sees it) references a row. */
    void checkReferences(Session session, CatalogItem.ForeignKey f) {
        foreignKeys.checkExisting(session, f);
    }

    /** Whether some committed row of {@code t} makes {@code condition} true: what ALTER TABLE checks before it adds a constraint. */
    boolean anyRow(CatalogItem.Table t, dev.tributary.sql.expr.ScalarExpr condition) {
        List<SqlType> types = Binder.typesOf(t.columns());
        Plan rows = new Plan.Filter(new Plan.Get(t.id(), t.name(), types, t.insertsOnly()), List.of(condition));
        return !reads.rowsOf(new Session(), rows, types).isEmpty();
    }

    /** Forgets what is kept of table {@code id}, which is dropped. */
    void dropped(long id) {
        keyWrites.remove(id);
        uniqueKeys.remove(id);
    }

    /**
     * Ends a COPY FROM: its first {@code error}, or its rows written (at one time, or into the open
     * block) with defaults filled and constraints checked as INSERT does. {@code encoded} are the
     * rows already encoded (every column given), or null: then {@code rows} are the values of
     * {@code targets}.
     */
    Result copy(Session session, CopyIn copy, CatalogItem.Table table, int[] targets, List<Object[]> rows, BytesColumn encoded, SqlException error) {
        if (error != null) throw error;
        CatalogItem.Table t = catalog.get(table.id()) instanceof CatalogItem.Table now ? now : null;
        if (t == null || !t.columns().equals(table.columns())) {
            throw new SqlException("42P01", "relation \"" + table.name() + "\" was dropped or changed during COPY");
        }
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        BytesColumn slab = encoded != null ? encoded : encodeWithDefaults(copy, t, targets, rows, codec);
        if (!t.primaryKey().isEmpty()) {
            // the keys are checked at once, in one slab; a duplicate names the line that repeats its key
            BytesColumn keys = primaryKeys(t, codec, slab);
            int repeat = RowSlab.firstRepeat(keys);
            UniqueKey pk = uniqueKeys(t).get(0);
            Map<Row, Long> pendingKeys = pendingKeyCounts(pk, session);
            Map<Row, Long> committed = committedKeyCounts(t, pk, rowsOf(keys));
            if (repeat >= 0 || !pendingKeys.isEmpty() || !committed.isEmpty()) {
                // some key is there twice: the first line that repeats one is the error's
                Map<Row, Long> counts = new HashMap<>(pendingKeys);
                committed.forEach((k, n) -> counts.merge(k, n, Long::sum));
                for (int r = 0; r < keys.size(); r++) {
                    Row key = RowDataType.INSTANCE.get(keys, r);
                    if (counts.merge(key, 1L, Long::sum) > 1) throw pk.duplicate(key).withContext(copy.lineContext(r));
                }
            }
        }
        // every key once (a repeat was an error above); a table without a key takes repeated rows as they come
        RowSlab copied = new RowSlab(slab);
        if (session.inTransaction || encoded == null) {
            copy.discardPrewritten(); // the block's commit writes them with its other writes
        } else {
            List<dev.tributary.storage.PartMeta> written = copy.awaitPrewritten();
            if (!written.isEmpty()) copied = new RowSlab(slab, written, copy.prewrittenRows());
        }
        write(session, t, copied, !t.primaryKey().isEmpty(), null);
        return Result.command("COPY " + slab.size());
    }

    /** The rows of a COPY of some columns, with the others' defaults, encoded into one slab; NOT NULL checked. */
    private BytesColumn encodeWithDefaults(CopyIn copy, CatalogItem.Table t, int[] targets, List<Object[]> rows, RowCodec codec) {
        Instant statementTime = Instant.ofEpochMilli(oracle.readTime());
        boolean[] given = new boolean[t.columns().size()];
        for (int i : targets) given[i] = true;
        BytesColumn slab = new BytesColumn(rows.size(), Math.max(16, rows.size() * 16));
        RowCodec.Builder builder = codec.builder();
        for (int r = 0; r < rows.size(); r++) {
            Object[] row = new Object[t.columns().size()];
            try {
                for (int i = 0; i < row.length; i++) {
                    if (given[i]) continue;
                    // a default is computed per row, as INSERT does (it may be now())
                    row[i] = t.defaults().isEmpty() ? null : ScalarExprs.bindStatementTime(t.defaults().get(i), statementTime).eval(new Object[0]);
                }
                Object[] values = rows.get(r);
                for (int k = 0; k < targets.length; k++) row[targets[k]] = values[k];
                checkRow(t, row);
            } catch (SqlException e) {
                throw e.context() == null && copy != null ? e.withContext(copy.context(r)) : e;
            }
            builder.reset();
            for (Object v : row) builder.putValue(v);
            slab.add(builder.buffer(), 0, builder.length());
        }
        return slab;
    }

    /**
     * The primary key of each row of {@code rows}, in the key form of its index (see
     * {@link Dataflows#primaryKeyOf}), in one slab: a one-column key of one encoding is a byte
     * range of its row, copied as it is.
     */
    private BytesColumn primaryKeys(CatalogItem.Table t, RowCodec codec, BytesColumn rows) {
        int n = rows.size();
        BytesColumn keys = new BytesColumn(n, Math.max(16, n * 8));
        int column = t.primaryKey().size() == 1 ? t.primaryKey().get(0) : -1;
        if (column >= 0 && RowCodec.oneEncoding(t.columns().get(column).type().kind())) {
            byte[] b = rows.slab();
            for (int r = 0; r < n; r++) {
                int from = codec.columnStart(b, rows.start(r), column);
                keys.add(b, from, codec.columnEnd(b, from, column) - from);
            }
            return keys;
        }
        UniqueKey pk = uniqueKeys(t).get(0);
        for (int r = 0; r < n; r++) RowDataType.INSTANCE.append(keys, pk.keyOf().apply(RowDataType.INSTANCE.get(rows, r)));
        return keys;
    }

    /** The values of {@code column} as rows, made as they are iterated. */
    private static java.util.Collection<Row> rowsOf(BytesColumn column) {
        return new java.util.AbstractList<>() {
            @Override
            public Row get(int i) {
                return RowDataType.INSTANCE.get(column, i);
            }

            @Override
            public int size() {
                return column.size();
            }
        };
    }

    Result insert(Session session, Statement.Insert ins) {
        CatalogItem.Table t = catalog.table(ins.table(), session, ins.pos(), "insert into");
        Binder binder = binders.plain(session);
        BoundQuery q = binder.bindInsert(t, ins);
        binders.access().checkStatement(session, ins, t, binder.dependencies());
        Statement.OnConflict c = ins.onConflict();
        List<CatalogItem.Index> arbiters = arbiters(t, c);
        ConflictUpdate update = c != null && c.doUpdate() ? binder.bindConflictUpdate(t, ins.target(), c.updates(), c.where()) : null;
        return insertRows(session, t, reads.rowsOf(session, q.plan(), q.plan().types()), binder.bindReturning(t, ins.target(), ins.returning()),
                arbiters, update);
    }

    /**
     * The unique indexes ON CONFLICT {@code c} of an INSERT into {@code t} watches, as PostgreSQL
     * infers them (null without ON CONFLICT): the one named by ON CONSTRAINT; those on exactly
     * the target's columns; every one when no target is given (DO NOTHING only: DO UPDATE needs
     * a target, 42601). 42P10 when the target matches none, 42704 for an unknown constraint.
     */
    List<CatalogItem.Index> arbiters(CatalogItem.Table t, Statement.OnConflict c) {
        if (c == null) return null;
        List<CatalogItem.Index> uniques = catalog.uniqueIndexes(t);
        if (c.constraint() != null) {
            for (CatalogItem.Index ix : uniques) if (ix.constraint() && ix.name().equals(c.constraint())) return List.of(ix);
            throw new SqlException("42704", "constraint \"" + c.constraint() + "\" for table \"" + t.name() + "\" does not exist", c.pos());
        }
        if (c.columns().isEmpty()) {
            if (c.doUpdate()) {
                throw new SqlException("42601", "ON CONFLICT DO UPDATE requires inference specification or constraint name", c.pos(),
                        "For example, ON CONFLICT (column_name).");
            }
            return uniques;
        }
        Set<Integer> target = new HashSet<>();
        for (String name : c.columns()) {
            int i = CatalogState.indexOfColumn(t.columns(), name);
            if (i < 0) throw new SqlException("42703", "column \"" + name + "\" does not exist", c.pos());
            target.add(i);
        }
        List<CatalogItem.Index> out = new ArrayList<>();
        for (CatalogItem.Index ix : uniques) {
            Set<Integer> cols = new HashSet<>();
            boolean plain = true;
            for (dev.tributary.sql.expr.ScalarExpr k : ix.keys()) {
                if (k instanceof dev.tributary.sql.expr.ScalarExpr.ColumnRef col) cols.add(col.index());
                else plain = false;
            }
            if (plain && cols.equals(target)) out.add(ix);
        }
        if (out.isEmpty()) throw new SqlException("42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification", c.pos());
        return out;
    }

    /** A hash map's initial capacity for {@code n} entries, so that filling it never rehashes. */
    static int capacityFor(int n) {
        return (int) Math.min(1 << 30, n * 4L / 3 + 16);
    }

    /**
     * INSERT of {@code rows} into {@code t}. With ON CONFLICT ({@code arbiters} not null), a row
     * whose key in one of the arbiter indexes is taken (committed, written earlier in the block,
     * or by an earlier row of this INSERT) is left out (DO NOTHING, {@code update} null) or
     * updates the row that holds the key ({@code update}, one arbiter): PostgreSQL's semantics,
     * including 21000 when one INSERT would update a row twice. Every constraint is then checked
     * on what is written.
     */
    Result insertRows(Session session, CatalogItem.Table t, List<Object[]> rows, Returning returning, List<CatalogItem.Index> arbiters,
                      ConflictUpdate update) {
        if (arbiters != null) return upsertRows(session, t, rows, returning, arbiters, update);
        Map<Row, Long> changes = new LinkedHashMap<>(capacityFor(rows.size()));
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        List<Object[]> written = returning == null ? null : new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            Object[] row = fullRow(t, r);
            changes.merge(codec.encode(row), 1L, Long::sum);
            if (written != null) written.add(row);
        }
        write(session, t, changes);
        return returned("INSERT 0 " + rows.size(), returning, written);
    }

    /** {@link #insertRows} with ON CONFLICT. */
    private Result upsertRows(Session session, CatalogItem.Table t, List<Object[]> rows, Returning returning, List<CatalogItem.Index> arbiters,
                              ConflictUpdate update) {
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        if (update != null) {
            Instant now = Instant.ofEpochMilli(oracle.readTime());
            update = update.map(e -> ScalarExprs.bindStatementTime(e, now));
        }
        List<Object[]> full = new ArrayList<>(rows.size());
        List<Row> encoded = new ArrayList<>(rows.size());
        for (Object[] r : rows) {
            Object[] row = fullRow(t, r);
            full.add(row);
            encoded.add(codec.encode(row));
        }
        // per arbiter, each proposed row's key (null: it has a NULL and conflicts with nothing)
        // and the rows that hold those keys now (committed, and the block's)
        List<UniqueKey> keys = new ArrayList<>(arbiters.size());
        List<Row[]> keyOfRow = new ArrayList<>(arbiters.size());
        List<Map<Row, Map<Row, Long>>> holders = new ArrayList<>(arbiters.size());
        for (CatalogItem.Index ix : arbiters) {
            UniqueKey u = uniqueKey(t, ix);
            Row[] k = new Row[encoded.size()];
            Set<Row> wanted = new HashSet<>(capacityFor(k.length));
            for (int i = 0; i < k.length; i++) {
                k[i] = u.keyOf().apply(encoded.get(i));
                if (k[i] != null) wanted.add(k[i]);
            }
            keys.add(u);
            keyOfRow.add(k);
            holders.add(update == null ? countsAsHolders(committedKeyCounts(t, u, wanted), pendingKeyCounts(u, session)) : rowsHolding(session, t, u, wanted));
        }
        Map<Row, Long> changes = new LinkedHashMap<>(capacityFor(rows.size()));
        List<Object[]> written = returning == null ? null : new ArrayList<>();
        List<Object[]> pairs = new ArrayList<>(); // the rows updated, old then new values
        int affected = 0;
        // the keys this INSERT has written, per arbiter: a later row with one conflicts with it
        List<Set<Row>> touched = new ArrayList<>();
        for (int a = 0; a < arbiters.size(); a++) touched.add(new HashSet<>());
        for (int i = 0; i < encoded.size(); i++) {
            int conflict = -1;
            for (int a = 0; a < arbiters.size() && conflict < 0; a++) {
                Row k = keyOfRow.get(a)[i];
                if (k != null && (touched.get(a).contains(k) || holders.get(a).containsKey(k))) conflict = a;
            }
            if (conflict < 0) {
                changes.merge(encoded.get(i), 1L, Long::sum);
                for (int a = 0; a < arbiters.size(); a++) if (keyOfRow.get(a)[i] != null) touched.get(a).add(keyOfRow.get(a)[i]);
                if (written != null) written.add(full.get(i));
                affected++;
                continue;
            }
            if (update == null) continue; // DO NOTHING
            Row k = keyOfRow.get(0)[i];
            if (touched.get(0).contains(k)) {
                throw new SqlException("21000", "ON CONFLICT DO UPDATE command cannot affect row a second time", 0,
                        "Ensure that no rows proposed for insertion within the same command have duplicate constrained values.");
            }
            Row existing = holders.get(0).get(k).keySet().iterator().next();
            Object[] old = codec.decode(existing);
            Object[] both = java.util.Arrays.copyOf(old, 2 * old.length);
            System.arraycopy(full.get(i), 0, both, old.length, old.length);
            Object[] updated = update.apply(both);
            if (updated == null) continue; // its WHERE is not true: left as it is
            checkRow(t, updated);
            System.arraycopy(updated, 0, both, old.length, old.length);
            pairs.add(both);
            Row now = codec.encode(updated);
            if (changes.merge(existing, -1L, Long::sum) == 0) changes.remove(existing);
            if (changes.merge(now, 1L, Long::sum) == 0) changes.remove(now);
            holders.get(0).remove(k);
            Row newKey = keys.get(0).keyOf().apply(now);
            if (newKey != null) touched.get(0).add(newKey);
            if (written != null) written.add(updated);
            affected++;
        }
        write(session, t, changes, false, pairs);
        return returned("INSERT 0 " + affected, returning, written);
    }

    /** {@code r} with a value (NULL for the missing ones) per column of {@code t}, checked for NOT NULL. */
    private static Object[] fullRow(CatalogItem.Table t, Object[] r) {
        Object[] row = r.length == t.columns().size() ? r : java.util.Arrays.copyOf(r, t.columns().size());
        checkRow(t, row);
        return row;
    }

    /** Key counts as the keys' holders, for DO NOTHING, which only asks whether a key is taken. */
    private static Map<Row, Map<Row, Long>> countsAsHolders(Map<Row, Long> committed, Map<Row, Long> pending) {
        Map<Row, Long> counts = new HashMap<>(committed);
        pending.forEach((k, n) -> counts.merge(k, n, Long::sum));
        Map<Row, Map<Row, Long>> out = new HashMap<>();
        counts.forEach((k, n) -> {
            if (n > 0) out.put(k, Map.of());
        });
        return out;
    }

    /** The rows of {@code t} (committed, with the open block's writes) holding each of {@code keys} in unique index {@code u}, by key. */
    private Map<Row, Map<Row, Long>> rowsHolding(Session session, CatalogItem.Table t, UniqueKey u, Set<Row> keys) {
        Map<Row, Map<Row, Long>> out = committedRowsHolding(t, u, keys);
        Map<Row, Map<Row, Long>> pendingRows = session.pendingRowsByKey.getOrDefault(u.index().id(), Map.of());
        for (Row k : keys) {
            Map<Row, Long> mine = pendingRows.get(k);
            if (mine == null) continue;
            Map<Row, Long> rows = out.computeIfAbsent(k, x -> new HashMap<>());
            mine.forEach((row, n) -> {
                if (rows.merge(row, n, Long::sum) == 0) rows.remove(row);
            });
        }
        out.values().removeIf(rows -> {
            rows.values().removeIf(n -> n <= 0);
            return rows.isEmpty();
        });
        return out;
    }

    /**
     * The committed rows of {@code t} holding each of {@code keys} in unique index {@code u}, by
     * key, with their counts, as of every commit made so far: sought in the published shards for
     * a few keys when those hold every commit to {@code t} ({@link #publishedRows}), otherwise on
     * the workers, which run the lookup after every commit queued before it, each seeking its
     * share of the keys in order.
     */
    private Map<Row, Map<Row, Long>> committedRowsHolding(CatalogItem.Table t, UniqueKey u, java.util.Collection<Row> keys) {
        Map<Row, Map<Row, Long>> out = new HashMap<>();
        if (keys.isEmpty()) return out;
        long index = u.index().id();
        Map<Row, Long> found = keys.size() <= PUBLISHED_KEY_CHECKS ? publishedRows(index, keys) : null;
        if (found == null) {
            Set<Long> tables = Set.of(t.id());
            long at = frontiers.readTimeOfData(tables);
            frontiers.advanced(at + 1, tables);
            List<Row> sought = new ArrayList<>(keys);
            found = Dataflows.Answer.combine(compute.onEveryWorker(at + 1, tables, null, (d, w) -> d.lookup(w, index, sought, at)));
        }
        found.forEach((row, n) -> {
            Map<Row, Long> rows = out.computeIfAbsent(u.keyOf().apply(row), x -> new HashMap<>());
            if (rows.merge(row, n, Long::sum) == 0) rows.remove(row);
        });
        return out;
    }

    /**
     * A keyed source's changes (ENVELOPE UPSERT or DEBEZIUM) as the changes of its table
     * {@code t}, keyed by primary key {@code pk}: per key the last change wins, the rows the key
     * holds now are retracted and the last upsert's row inserted. A delete inserts nothing and a
     * key holding nothing retracts nothing, so no count ever goes below zero, and a row upserted
     * as it is changes nothing. The rows held now are sought once for all the batch's keys
     * ({@link #committedRowsHolding}); they include the source's own earlier commits, pipelined
     * or not, since the caller holds the coordinator's lock and each earlier commit was queued
     * on the workers under it.
     *
     * @throws IllegalArgumentException a row that does not fit {@code t} (a connector's bug)
     */
    Map<Row, Long> keyedChanges(CatalogItem.Table t, CatalogItem.Index pk, List<dev.tributary.server.source.SourceChange> changes) {
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        UniqueKey u = uniqueKey(t, pk);
        int width = t.columns().size();
        // each key's last change: its new row, or null for a delete
        Map<Row, Row> last = new HashMap<>(capacityFor(changes.size()));
        for (dev.tributary.server.source.SourceChange c : changes) {
            Object[] r = c.row();
            if (r.length != width) throw new IllegalArgumentException("source " + t.name() + " has " + width + " columns, not " + r.length);
            boolean upsert = c instanceof dev.tributary.server.source.SourceChange.Upsert;
            if (upsert) checkRow(t, r);
            Row row = codec.encode(r);
            last.put(u.keyOf().apply(row), upsert ? row : null);
        }
        Map<Row, Map<Row, Long>> held = committedRowsHolding(t, u, last.keySet());
        Map<Row, Long> out = new HashMap<>(capacityFor(2 * last.size()));
        for (Map.Entry<Row, Row> e : last.entrySet()) {
            Map<Row, Long> now = held.getOrDefault(e.getKey(), Map.of());
            now.forEach((row, n) -> {
                if (n > 0 && out.merge(row, -n, Long::sum) == 0) out.remove(row);
            });
            if (e.getValue() != null && out.merge(e.getValue(), 1L, Long::sum) == 0) out.remove(e.getValue());
        }
        return out;
    }

    /** The command's tag, with the rows RETURNING makes of the rows written when it has one. */
    private static Result returned(String tag, Returning returning, List<Object[]> written) {
        if (returning == null) return Result.command(tag);
        return new Result(tag, returning.names(), returning.types(), returning.apply(written));
    }

    /**
     * 23502 if {@code row} has NULL in a NOT NULL column of {@code t}, then 23514 if it makes a
     * CHECK constraint of {@code t} false, each with PostgreSQL's message and detail.
     */
    static void checkRow(CatalogItem.Table t, Object[] row) {
        for (int i = 0; i < row.length; i++) {
            if (row[i] == null && !t.columns().get(i).nullable()) {
                throw new SqlException("23502", "null value in column \"" + t.columns().get(i).name() + "\" of relation \"" + t.name() + "\" violates not-null constraint")
                        .withDetail("Failing row contains (" + failingRow(t, row) + ").");
            }
        }
        for (CatalogItem.Table.Check c : t.checks()) {
            if (Boolean.FALSE.equals(c.expr().eval(row))) {
                throw new SqlException("23514", "new row for relation \"" + t.name() + "\" violates check constraint \"" + c.name() + "\"")
                        .withDetail("Failing row contains (" + failingRow(t, row) + ").");
            }
        }
    }

    private static String failingRow(CatalogItem.Table t, Object[] row) {
        StringBuilder failing = new StringBuilder();
        for (int k = 0; k < row.length; k++) {
            if (k > 0) failing.append(", ");
            failing.append(row[k] == null ? "null" : dev.tributary.sql.types.Values.toText(row[k], t.columns().get(k).type()));
        }
        return failing.toString();
    }

    Result update(Session session, Statement.Update u) {
        CatalogItem.Table t = catalog.table(u.table(), session, u.pos(), "update");
        String alias = u.alias() != null ? u.alias() : t.name();
        Binder binder = binders.plain(session);
        Plan plan = binder.bindUpdate(t, alias, u.assignments(), u.from(), u.where());
        binders.access().checkStatement(session, u, t, binder.dependencies());
        List<Object[]> pairs = reads.rowsOf(session, plan, plan.types());
        if (!u.from().isEmpty()) pairs = oncePerRow(session, t, pairs);
        return updateRows(session, t, pairs, binder.bindReturning(t, alias, u.returning(), !u.from().isEmpty()));
    }

    /** UPDATE of {@code t} with {@code pairs}: each the old row's columns followed by the new row's. */
    Result updateRows(Session session, CatalogItem.Table t, List<Object[]> pairs, Returning returning) {
        int n = t.columns().size();
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        Map<Row, Long> changes = new LinkedHashMap<>();
        List<Object[]> written = returning == null ? null : new ArrayList<>(pairs.size());
        for (Object[] pair : pairs) {
            Object[] row = java.util.Arrays.copyOfRange(pair, n, 2 * n);
            checkRow(t, row);
            changes.merge(codec.encode(java.util.Arrays.copyOf(pair, n)), -1L, Long::sum);
            changes.merge(codec.encode(row), 1L, Long::sum);
            if (written != null) written.add(row);
        }
        write(session, t, changes, false, pairs);
        return returned("UPDATE " + pairs.size(), returning, written);
    }

    Result delete(Session session, Statement.Delete d) {
        CatalogItem.Table t = catalog.table(d.table(), session, d.pos(), d.truncate() ? "truncate" : "delete from");
        if (d.truncate()) {
            for (CatalogItem.ForeignKey f : catalog.foreignKeys(t.id(), false)) {
                if (f.table() == t.id()) continue;
                throw new SqlException("0A000", "cannot truncate a table referenced in a foreign key constraint", 0,
                        "Truncate table \"" + catalog.get(f.table()).name() + "\" at the same time, or use TRUNCATE ... CASCADE.")
                        .withDetail("Table \"" + catalog.get(f.table()).name() + "\" references \"" + t.name() + "\".");
            }
        }
        String alias = d.alias() != null ? d.alias() : t.name();
        Binder binder = binders.plain(session);
        Plan plan = binder.bindDelete(t, alias, d.using(), d.where());
        binders.access().checkStatement(session, d, t, binder.dependencies());
        List<Object[]> rows = reads.rowsOf(session, plan, plan.types());
        if (!d.using().isEmpty()) rows = oncePerRow(session, t, rows);
        Result deleted = deleteRows(session, t, rows, binder.bindReturning(t, alias, d.returning(), !d.using().isEmpty()));
        return d.truncate() ? Result.command("TRUNCATE TABLE") : deleted;
    }

    /**
     * UPDATE ... FROM's pairs or DELETE ... USING's rows, each row of {@code t} (the first
     * columns of each) once however many rows it joined with: PostgreSQL changes a row once,
     * with the first joined row's values. A row a table without a primary key holds several
     * times is taken as often as it is there (its count read from the table, when it joined more
     * than once).
     */
    List<Object[]> oncePerRow(Session session, CatalogItem.Table t, List<Object[]> rows) {
        int n = t.columns().size();
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        Map<Row, List<Object[]>> byRow = new LinkedHashMap<>(capacityFor(rows.size()));
        boolean repeats = false;
        for (Object[] r : rows) {
            List<Object[]> same = byRow.computeIfAbsent(codec.encode(r.length == n ? r : java.util.Arrays.copyOf(r, n)), k -> new ArrayList<>(1));
            same.add(r);
            repeats |= same.size() > 1;
        }
        if (!repeats) return rows;
        Map<Row, Long> counts = new HashMap<>();
        if (t.primaryKey().isEmpty()) {
            for (Object[] r : reads.rowsOf(session, new Plan.Get(t.id(), t.name(), Binder.typesOf(t.columns()), t.insertsOnly()), Binder.typesOf(t.columns()))) {
                Row key = codec.encode(r);
                List<Object[]> same = byRow.get(key);
                if (same != null && same.size() > 1) counts.merge(key, 1L, Long::sum);
            }
        }
        List<Object[]> out = new ArrayList<>(byRow.size());
        byRow.forEach((row, same) -> {
            long times = Math.min(same.size(), counts.getOrDefault(row, 1L));
            for (int i = 0; i < times; i++) out.add(same.get(i));
        });
        return out;
    }

    Result deleteRows(Session session, CatalogItem.Table t, List<Object[]> rows, Returning returning) {
        RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
        Map<Row, Long> changes = new LinkedHashMap<>();
        for (Object[] row : rows) changes.merge(codec.encode(row), -1L, Long::sum);
        write(session, t, changes);
        return returned("DELETE " + rows.size(), returning, rows);
    }

    /** Checks constraints and commits {@code changes} now, or adds them to the open transaction. */
    private void write(Session session, CatalogItem.Table t, Map<Row, Long> changes) {
        write(session, t, changes, false, null);
    }

    /**
     * {@link #write(Session, CatalogItem.Table, Map)}; {@code primaryChecked} when the caller has
     * checked the primary key. Foreign keys' actions may add changes to other tables: all are
     * checked and written together. {@code pairs}: an UPDATE's rows, old values then new, or null.
     */
    private void write(Session session, CatalogItem.Table t, Map<Row, Long> changes, boolean primaryChecked, List<Object[]> pairs) {
        if (!(changes instanceof RowSlab)) changes.values().removeIf(c -> c == 0); // a slab's rows each count 1
        Map<Long, Map<Row, Long>> all = foreignKeys.involved(t.id()) ? foreignKeys.enforce(session, t, changes, pairs) : Map.of(t.id(), changes);
        long bytes = 0;
        for (Map<Row, Long> c : all.values()) bytes += rowBytes(c);
        session.reserveWrite(bytes, session.inTransaction);
        for (Map.Entry<Long, Map<Row, Long>> e : all.entrySet()) {
            CatalogItem.Table table = e.getKey() == t.id() ? t : (CatalogItem.Table) catalog.get(e.getKey());
            Map<Row, Long> tableChanges = e.getValue();
            if (!(tableChanges instanceof RowSlab)) tableChanges.values().removeIf(c -> c == 0);
            boolean checked = primaryChecked && table == t;
            if (session.inTransaction) {
                List<UniqueKey> uniques = uniqueKeys(table);
                session.reservePending(rowBytes(tableChanges), tableChanges.size(), uniques.size());
                checkKeys(table, tableChanges, session.pendingRowsByKey, checked);
            } else {
                checkKeys(table, tableChanges, Map.of(), checked);
            }
        }
        if (!session.inTransaction) {
            commit(all);
            return;
        }
        for (Map.Entry<Long, Map<Row, Long>> e : all.entrySet()) {
            CatalogItem.Table table = e.getKey() == t.id() ? t : (CatalogItem.Table) catalog.get(e.getKey());
            Map<Row, Long> tableChanges = e.getValue();
            Map<Row, Long> pending = session.pending.computeIfAbsent(table.id(), k -> new LinkedHashMap<>());
            for (Map.Entry<Row, Long> w : tableChanges.entrySet()) {
                if (pending.merge(w.getKey(), w.getValue(), Long::sum) == 0) pending.remove(w.getKey());
            }
            for (UniqueKey u : uniqueKeys(table)) {
                Map<Row, Map<Row, Long>> rowsByKey = session.pendingRowsByKey.computeIfAbsent(u.index().id(), k -> new HashMap<>());
                for (Map.Entry<Row, Long> w : tableChanges.entrySet()) {
                    Row key = u.keyOf().apply(w.getKey());
                    if (key == null) continue;
                    Map<Row, Long> rows = rowsByKey.computeIfAbsent(key, k -> new LinkedHashMap<>(4));
                    if (rows.merge(w.getKey(), w.getValue(), Long::sum) == 0) rows.remove(w.getKey());
                    if (rows.isEmpty()) rowsByKey.remove(key);
                }
            }
        }
    }

    /** The bytes of the rows of {@code changes}, each counted once. */
    private static long rowBytes(Map<Row, Long> changes) {
        if (changes instanceof RowSlab slab) return slab.column().bytesUsed();
        long bytes = 0;
        for (Row r : changes.keySet()) bytes += r.byteLength();
        return bytes;
    }

    /**
     * 23505 if applying {@code changes} after the open block's writes, whose rows per key of each
     * unique index are {@code pendingRowsByKey} (by index id; empty outside a block), would give
     * two rows one key of a unique index of {@code t} (a key with a NULL conflicts with nothing).
     * The primary key is passed over when {@code primaryChecked}. Only keys that gain rows can
     * collide; their committed rows are counted in the index.
     */
    private void checkKeys(CatalogItem.Table t, Map<Row, Long> changes, Map<Long, Map<Row, Map<Row, Long>>> pendingRowsByKey, boolean primaryChecked) {
        if (changes.isEmpty()) return;
        for (UniqueKey u : uniqueKeys(t)) {
            if (primaryChecked && u.index().primaryKey()) continue;
            Map<Row, Long> delta = new HashMap<>(capacityFor(changes.size()));
            for (Map.Entry<Row, Long> e : changes.entrySet()) {
                Row key = u.keyOf().apply(e.getKey());
                if (key != null) delta.merge(key, e.getValue(), Long::sum);
            }
            Set<Row> rising = new HashSet<>(capacityFor(delta.size()));
            for (Map.Entry<Row, Long> e : delta.entrySet()) if (e.getValue() > 0) rising.add(e.getKey());
            if (rising.isEmpty()) continue;
            Map<Row, Long> counts = committedKeyCounts(t, u, rising);
            Map<Row, Map<Row, Long>> pending = pendingRowsByKey.getOrDefault(u.index().id(), Map.of());
            if (!pending.isEmpty()) {
                for (Row k : rising) {
                    Map<Row, Long> rows = pending.get(k);
                    if (rows != null) counts.merge(k, Session.count(rows), Long::sum);
                }
            }
            for (Row k : rising) {
                if (counts.getOrDefault(k, 0L) + delta.get(k) > 1) throw u.duplicate(k);
            }
        }
    }

    /** For each key of unique index {@code u}, how many rows the open block's writes add (only keys those touch are listed). */
    private Map<Row, Long> pendingKeyCounts(UniqueKey u, Session session) {
        Map<Row, Long> counts = new HashMap<>();
        session.pendingRowsByKey.getOrDefault(u.index().id(), Map.of()).forEach((k, rows) -> {
            long n = Session.count(rows);
            if (n != 0) counts.put(k, n);
        });
        return counts;
    }

    /** How many committed rows of {@code t} have each of {@code keys} in unique index {@code u}, read from it now (keys with none are absent). */
    Map<Row, Long> committedKeyCounts(CatalogItem.Table t, UniqueKey u, java.util.Collection<Row> keys) {
        long index = u.index().id();
        // a seek per key in the published shards: for a few keys; many (a COPY's) are sought
        // together, in key order, on the workers
        Map<Row, Long> published = keys.size() <= PUBLISHED_KEY_CHECKS ? publishedKeyCounts(index, keys) : null;
        if (published != null) {
            publishedKeyChecks++;
            return published;
        }
        Set<Long> tables = Set.of(t.id());
        long at = frontiers.readTimeOfData(tables);
        frontiers.advanced(at + 1, tables);
        Map<Row, Long> out = new HashMap<>();
        for (Map<Row, Long> part : compute.onEveryWorker(at + 1, tables, null, (d, w) -> d.keyCounts(w, index, keys, at))) {
            part.forEach((k, n) -> out.merge(k, n, Long::sum));
        }
        return out;
    }

    /**
     * {@link #committedKeyCounts} without a round trip through the workers: the primary key's
     * shards as the workers last published them, complete through some time, plus the keys of
     * the commits after it, which this keeps until the shards pass them
     * ({@link #keyWrites}). Null when that cannot be had: no shards yet, a commit after them too
     * large to have been kept, or history compacted past them.
     */
    private Map<Row, Long> publishedKeyCounts(long index, java.util.Collection<Row> keys) {
        try {
            return publishedKeyCountsThrough(index, publishedThrough(index), keys);
        } finally {
            releasePublished();
        }
    }

    private Map<Row, Long> publishedKeyCountsThrough(long index, long through, java.util.Collection<Row> keys) {
        if (through == Long.MIN_VALUE) return null;
        java.util.ArrayDeque<KeyWrite> log = keyWrites.get(index);
        if (log != null) {
            while (!log.isEmpty() && log.peek().time() <= through) log.poll();
            for (KeyWrite w : log) if (w.keys() == null) return null;
        }
        Map<Row, Long> out = new HashMap<>();
        for (Row key : keys) {
            Map<Row, Long> found = Dataflows.lookup(publishedShards, key, through);
            if (found == null) return null;
            long n = 0;
            for (long c : found.values()) n += c;
            if (log != null) for (KeyWrite w : log) n += w.keys().getOrDefault(key, 0L);
            if (n != 0) out.put(key, n);
        }
        return out;
    }

    /**
     * The rows under {@code keys} in index {@code index}'s published shards, when they hold every
     * commit to its table (no commit has come since they were published; see {@link #keyWrites});
     * null otherwise, or when a shard holds errors: an upsert of a few rows then seeks without a
     * round trip through the workers.
     */
    private Map<Row, Long> publishedRows(long index, java.util.Collection<Row> keys) {
        try {
            long through = publishedThrough(index);
            if (through == Long.MIN_VALUE) return null;
            java.util.ArrayDeque<KeyWrite> log = keyWrites.get(index);
            if (log != null) {
                while (!log.isEmpty() && log.peek().time() <= through) log.poll();
                if (!log.isEmpty()) return null;
            }
            Map<Row, Long> out = new HashMap<>();
            for (Row key : keys) {
                Map<Row, Long> rows = Dataflows.lookup(publishedShards, key, through);
                if (rows == null) return null;
                rows.forEach((r, n) -> out.merge(r, n, Long::sum));
            }
            publishedKeyChecks++;
            return out;
        } finally {
            releasePublished();
        }
    }

    private final PublishedIndexes.Shard[] publishedShards;

    /** The most keys one check seeks in the published shards (see {@link #committedKeyCounts}). */
    private static final int PUBLISHED_KEY_CHECKS = 256;

    /**
     * The time index {@code index}'s published shards are all complete and readable at, read into
     * {@link #publishedShards} (let go of them with {@link #releasePublished}); MIN_VALUE if none.
     */
    private long publishedThrough(long index) {
        return published.read(index, publishedShards) ? PublishedIndexes.readableThrough(publishedShards) : Long.MIN_VALUE;
    }

    /**
     * Forgets the shards {@link #publishedThrough} read: a snapshot holds the batches its trace
     * had then, which merges (or a DROP) would otherwise free; kept here until the next check,
     * they held a second copy of a table (90 MB of a 1M-row one, even after it was dropped).
     */
    private void releasePublished() {
        java.util.Arrays.fill(publishedShards, null);
    }

    /**
     * The key changes of one commit to a table in one of its unique indexes (key to signed
     * count), or null for a commit of more than {@link #KEY_WRITES_KEPT} rows, whose keys are not kept.
     */
    private record KeyWrite(long time, Map<Row, Long> keys) {}

    /** Per unique index, its table's commits' key changes, oldest first, until its published shards pass them. */
    private final Map<Long, java.util.ArrayDeque<KeyWrite>> keyWrites = new HashMap<>();

    private static final int KEY_WRITES_KEPT = 4096;

    /** Notes the key changes of a commit at {@code time} to {@code t} in each of its unique indexes (see {@link #publishedKeyCounts}). */
    private void keptKeys(CatalogItem.Table t, long time, Map<Row, Long> changes) {
        for (UniqueKey u : uniqueKeys(t)) {
            java.util.ArrayDeque<KeyWrite> log = keyWrites.computeIfAbsent(u.index().id(), k -> new java.util.ArrayDeque<>());
            long through = publishedThrough(u.index().id());
            releasePublished();
            while (!log.isEmpty() && log.peek().time() <= through) log.poll();
            Map<Row, Long> keys = null;
            if (changes.size() <= KEY_WRITES_KEPT) {
                keys = new HashMap<>();
                for (Map.Entry<Row, Long> e : changes.entrySet()) {
                    Row key = u.keyOf().apply(e.getKey());
                    if (key != null) keys.merge(key, e.getValue(), Long::sum);
                }
            }
            log.add(new KeyWrite(time, keys));
        }
    }

    /**
     * A unique index as writes are checked against it: a row's key in it ({@code keyOf}, in the
     * index's key form; null when the key has a NULL, which conflicts with nothing), and what
     * PostgreSQL's 23505 says of a second row with one.
     */
    record UniqueKey(CatalogItem.Index index, java.util.function.Function<Row, Row> keyOf, RowCodec keyCodec, List<String> keyNames) {
        static UniqueKey of(CatalogItem.Table t, CatalogItem.Index ix) {
            List<SqlType> types = Binder.typesOf(t.columns());
            java.util.function.Function<Row, Row> key = Dataflows.indexKeyOf(types, ix.keys());
            List<SqlType> keyTypes = new ArrayList<>();
            List<String> names = new ArrayList<>();
            List<String> columns = t.columns().stream().map(dev.tributary.sql.catalog.Column::name).toList();
            for (dev.tributary.sql.expr.ScalarExpr k : ix.keys()) {
                keyTypes.add(k.type());
                names.add(k instanceof dev.tributary.sql.expr.ScalarExpr.ColumnRef c ? columns.get(c.index()) : k.describe(columns));
            }
            RowCodec codec = new RowCodec(keyTypes);
            if (ix.primaryKey()) return new UniqueKey(ix, key, codec, names);
            UniqueKey nullable = new UniqueKey(ix, key, codec, names);
            return new UniqueKey(ix, row -> {
                Row k = key.apply(row);
                return nullable.hasNull(k) ? null : k;
            }, codec, names);
        }

        /** Whether key {@code k} (in the index's key form) holds a NULL: such a key conflicts with nothing. */
        boolean hasNull(Row k) {
            for (int i = 0; i < keyNames.size(); i++) if (keyCodec.isNull(k, i)) return true;
            return false;
        }

        /** {@code (columns)=(values)} of key {@code k}, as PostgreSQL's 23505 details say it. */
        String keyText(Row k) {
            Object[] kv = keyCodec.decode(k);
            StringBuilder vals = new StringBuilder();
            for (int i = 0; i < kv.length; i++) {
                if (i > 0) vals.append(", ");
                vals.append(kv[i] == null ? "null" : dev.tributary.sql.types.Values.toText(kv[i], keyCodec.types().get(i)));
            }
            return "(" + String.join(", ", keyNames) + ")=(" + vals + ")";
        }

        /** PostgreSQL's 23505 for a second row with key {@code k}. */
        SqlException duplicate(Row k) {
            return new SqlException("23505", "duplicate key value violates unique constraint \"" + index.name() + "\"", 0, null)
                    .withDetail("Key " + keyText(k) + " already exists.");
        }
    }

    /** Each unique index's {@link UniqueKey}, by index id; an index's keys never change under its id. */
    private final Map<Long, UniqueKey> uniqueKeys = new HashMap<>();

    /** {@code t}'s unique indexes as writes check them, its primary key's first. */
    private List<UniqueKey> uniqueKeys(CatalogItem.Table t) {
        List<CatalogItem.Index> indexes = catalog.uniqueIndexes(t);
        if (indexes.isEmpty()) return List.of();
        List<UniqueKey> out = new ArrayList<>(indexes.size());
        for (CatalogItem.Index ix : indexes) out.add(uniqueKey(t, ix));
        return out;
    }

    UniqueKey uniqueKey(CatalogItem.Table t, CatalogItem.Index ix) {
        return uniqueKeys.computeIfAbsent(ix.id(), id -> UniqueKey.of(t, ix));
    }

    /**
     * Commits a transaction block's writes, after checking their primary keys again against what
     * is committed now: another session may have committed a row with one of the keys since the
     * block wrote it (the first to commit wins; this block fails with 23505, as in PostgreSQL).
     */
    /** SET CONSTRAINTS ... IMMEDIATE: the checks deferred so far run now, over the block's writes (23503). */
    void checkDeferred(Session session) {
        foreignKeys.recheck(session.pending);
    }

    void commitBlock(Map<Long, Map<Row, Long>> changes) {
        commitBlock(changes, true);
    }

    /**
     * A job's batch: {@code rows} (values of {@code t}'s columns {@code targets}) inserted into
     * {@code t} with defaults and every constraint, as INSERT does, and {@code progress} (the
     * job's cursor moved) in the job's relation {@code jobId}, in one commit at one time.
     */
    void commitJob(CatalogItem.Table t, int[] targets, List<Object[]> rows, long jobId, Map<Row, Long> progress) {
        Session session = new Session();
        session.inTransaction = true;
        if (!rows.isEmpty()) {
            RowCodec codec = new RowCodec(Binder.typesOf(t.columns()));
            write(session, t, new RowSlab(encodeWithDefaults(null, t, targets, rows, codec)), false, null);
        }
        Map<Row, Long> moved = session.pending.computeIfAbsent(jobId, k -> new LinkedHashMap<>());
        progress.forEach((row, n) -> {
            if (moved.merge(row, n, Long::sum) == 0) moved.remove(row);
        });
        commitBlock(session.pending, false);
    }

    /**
     * {@link #commitBlock(Map)}; {@code checkKeys} false when the caller knows no commit came
     * since the block's writes were checked (they were made in the coordinator's current turn).
     */
    void commitBlock(Map<Long, Map<Row, Long>> changes, boolean checkKeys) {
        if (checkKeys) {
            for (Map.Entry<Long, Map<Row, Long>> e : changes.entrySet()) {
                if (catalog.get(e.getKey()) instanceof CatalogItem.Table t) checkKeys(t, e.getValue(), Map.of(), false);
            }
            foreignKeys.recheck(changes);
        } else if (foreignKeys.anyDeferrable(changes)) {
            // the checks a deferred foreign key left for the COMMIT
            foreignKeys.recheck(changes);
        }
        commit(changes);
    }

    /**
     * Commits that reached the log, and the row changes they held, for the metrics: written under
     * the coordinator's lock only (one writer), read at a scrape without it.
     */
    private volatile long commits;
    private volatile long committedRows;

    long commits() {
        return commits;
    }

    long committedRows() {
        return committedRows;
    }

    /**
     * Commits changes to the server's own tables ({@link Introspection}) at one new write time,
     * as any commit but for the log: they are not durable, and no key or check applies to them.
     */
    void commitUnlogged(Map<Long, Map<Row, Long>> changes) {
        commit(changes, false);
    }

    /** Commits table changes at one new write time. */
    private void commit(Map<Long, Map<Row, Long>> changes) {
        commit(changes, true);
    }

    /** Commits table changes at one new write time, to the log too if {@code logged}. */
    private void commit(Map<Long, Map<Row, Long>> changes, boolean logged) {
        boolean any = false;
        for (Map<Row, Long> c : changes.values()) any |= !c.isEmpty();
        if (!any) return;
        long inputsAt = Long.MIN_VALUE;
        for (long id : changes.keySet()) inputsAt = Math.max(inputsAt, frontiers.upper(id, Long.MIN_VALUE));
        long time = oracle.writeTime(inputsAt);
        if (logged) durability.appendCommit(time, changes);
        if (changes.containsKey(ConsumerGroups.POSITIONS)) {
            // the consumer groups' positions are durable only: no dataflow reads them
            changes = new LinkedHashMap<>(changes);
            changes.remove(ConsumerGroups.POSITIONS);
            boolean more = false;
            for (Map<Row, Long> c : changes.values()) more |= !c.isEmpty();
            if (!more) return;
        }
        for (Map.Entry<Long, Map<Row, Long>> e : changes.entrySet()) {
            if (e.getValue().isEmpty()) continue;
            oracle.wrote(e.getKey(), time);
            if (catalog.get(e.getKey()) instanceof CatalogItem.Table t) keptKeys(t, time, e.getValue());
        }
        Set<Long> tables = frontiers.advancedByWrite(changes.keySet(), subscriptions.reads());
        frontiers.advanced(time + 1, tables);
        // Queued, not waited for: every later command to the workers (a read, another write) runs
        // after it, so the commit is visible to everything that follows, and the session waits
        // neither for two thread hand-offs per write nor for a step of some large query that the
        // workers are in. At most COMMITS_IN_FLIGHT commits, or ROWS_IN_FLIGHT rows beyond one
        // commit, wait in the queues, so writers cannot run ahead of the workers without bound.
        java.util.concurrent.CompletableFuture<Void> applied = compute.commit(time, changes, tables);
        applied.whenComplete((v, failure) -> {
            if (failure != null) ServerLog.error("the commit at " + time + " failed on a worker: " + failure, failure);
        });
        long rows = 0;
        for (Map<Row, Long> c : changes.values()) rows += c.size();
        if (logged) {
            // the server's own tables' samples are not the users' commits
            commits++;
            committedRows += rows;
        }
        commitsInFlight.add(new InFlight(applied, rows));
        rowsInFlight += rows;
        while (!commitsInFlight.isEmpty()) {
            InFlight oldest = commitsInFlight.peek();
            boolean tooMany = commitsInFlight.size() > COMMITS_IN_FLIGHT || (rowsInFlight > ROWS_IN_FLIGHT && commitsInFlight.size() > 1);
            if (!oldest.applied().isDone() && !tooMany) break;
            commitsInFlight.poll();
            rowsInFlight -= oldest.rows();
            compute.awaitApplied(oldest.applied().exceptionally(failure -> null)); // a failure was logged where it happened
        }
    }

    /** A commit queued on the workers, and how many rows it changes. */
    private record InFlight(java.util.concurrent.CompletableFuture<Void> applied, long rows) {}

    /** Commits the workers may not have applied yet, oldest first (see {@link #commit}). */
    private final java.util.ArrayDeque<InFlight> commitsInFlight = new java.util.ArrayDeque<>();
    private long rowsInFlight;

    private static final int COMMITS_IN_FLIGHT = 1024;
    private static final long ROWS_IN_FLIGHT = 1L << 18;

    /**
     * Feeds table {@code t} recovered updates at their own times, as one part of several that
     * come in no time order (what a restart reads of a table: its rows as of its since, then its
     * history after the since or the checkpoint): no
     * part is held beyond the call, however much is replayed. The tables' times are the caller's
     * to advance once every part is in. The keys' changes are not kept: key checks before the
     * primary key's index has them go through the workers.
     */
    void replay(CatalogItem.Table t, dev.tributary.arrangements.Updates u) {
        int n = u.size();
        if (n == 0) return;
        long latest = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) latest = Math.max(latest, u.time(i));
        oracle.wrote(t.id(), latest);
        for (UniqueKey k : uniqueKeys(t)) keyWrites.computeIfAbsent(k.index().id(), x -> new java.util.ArrayDeque<>()).add(new KeyWrite(latest, null));
        compute.replay(t.id(), u);
    }

}
