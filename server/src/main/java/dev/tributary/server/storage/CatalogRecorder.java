package dev.tributary.server.storage;

import dev.tributary.storage.CatalogEntry;
import dev.tributary.storage.CorruptDataException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The coordinator's catalog as durable entries: each object (by id, with the statement that
 * made it and the ids it reads), each history policy as resolved, each role; what one statement
 * changes is gathered here and committed as one append of the durable catalog when the
 * statement ends ({@link #commit}), so DDL lands whole or not at all.
 *
 * <p>Kinds: the catalog's own names for objects ({@code table}, {@code view},
 * {@code materialized view}, {@code index}), {@link #PRIMARY_KEY} (made again with its table),
 * {@link #HISTORY} (a policy, reading the object it holds), {@link #ROLE} and {@link #PRIVILEGES}
 * (an object's owner and access control list, by a key such as {@code relation 12}).
 */
public final class CatalogRecorder {
    public static final String PRIMARY_KEY = "primary key", HISTORY = "history", ROLE = "role", PRIVILEGES = "privileges";
    /**
     * A sequence a serial or identity column owns (made again with its table), and how far a
     * sequence's values may have been given (its id as the name, the value as the text).
     */
    public static final String OWNED_SEQUENCE = "owned sequence", SEQUENCE_VALUE = "sequence value";
    /** An object's or column's description (COMMENT ON), by {@code id/column} (column 0: the object). */
    public static final String COMMENT = "comment";
    /** A schema (CREATE SCHEMA), made again before what is in it. */
    public static final String SCHEMA = "schema";

    private final StorageController storage;
    /** The entries as last committed (and being changed by the current statement), by entry id. */
    private final Map<Long, CatalogEntry> entries = new HashMap<>();
    private final Map<Long, CatalogEntry> historyOf = new HashMap<>();
    private final Map<String, CatalogEntry> roles = new HashMap<>();
    private final Map<String, CatalogEntry> privileges = new HashMap<>();
    private final Map<String, CatalogEntry> sequenceValues = new HashMap<>();
    private final Map<String, CatalogEntry> comments = new HashMap<>();
    private final Map<Long, CatalogEntry> added = new LinkedHashMap<>();
    private final Map<Long, CatalogEntry> removed = new LinkedHashMap<>();

    public CatalogRecorder(StorageController storage) {
        this.storage = storage;
    }

    /** The entries the stores hold, in id order, now also this recorder's. */
    public List<CatalogEntry> recover() {
        List<CatalogEntry> all = storage.catalog();
        for (CatalogEntry e : all) {
            entries.put(e.id(), e);
            switch (e.kind()) {
                case HISTORY -> historyOf.put(e.uses().get(0), e);
                case ROLE -> roles.put(e.name(), e);
                case PRIVILEGES -> privileges.put(e.name(), e);
                case SEQUENCE_VALUE -> sequenceValues.put(e.name(), e);
                case COMMENT -> comments.put(e.name(), e);
                default -> { }
            }
        }
        return all;
    }

    /** Records object {@code id} as made (or made again, under the same id) by {@code sql}, run under {@code searchPath} (empty: the default). */
    public void object(long id, String kind, String name, String sql, Set<Long> uses, String searchPath) {
        put(new CatalogEntry(id, kind, name, sql, List.copyOf(new TreeSet<>(uses)), searchPath));
    }

    /** Object {@code id} is gone, and with it its history policy. */
    public void dropped(long id) {
        remove(id);
        CatalogEntry h = historyOf.remove(id);
        if (h != null) remove(h.id());
    }

    /**
     * Object {@code id}'s history policy is now {@code policy} ({@link #history(CatalogEntry)}'s
     * text: {@code FOR ms} or {@code PIN AT t}), or none (null); a new entry's id from {@code ids}.
     */
    public void history(long id, String policy, LongSupplier ids) {
        CatalogEntry old = historyOf.remove(id);
        if (policy == null) {
            if (old != null) remove(old.id());
            return;
        }
        CatalogEntry e = new CatalogEntry(old != null ? old.id() : ids.getAsLong(), HISTORY, "", policy, List.of(id));
        historyOf.put(id, e);
        put(e);
    }

    /** The policy a {@link #HISTORY} entry records: {forMillis, -1} or {-1, pinAt}. */
    public static long[] history(CatalogEntry e) {
        String sql = e.sql();
        try {
            if (sql.startsWith("FOR ")) return new long[] {Long.parseLong(sql.substring(4)), -1};
            if (sql.startsWith("PIN AT ")) return new long[] {-1, Long.parseLong(sql.substring(7))};
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new CorruptDataException("catalog entry " + e.id() + " is not a history policy: '" + sql + "'");
    }

    /** The description of object {@code id}'s column {@code column} (0: the object) is now {@code text}, or none (null). */
    public void comment(long id, int column, String text, LongSupplier ids) {
        keyed(comments, COMMENT, id + "/" + column, text, ids);
    }

    /** Role {@code name} is now as {@code state} says ({@link dev.tributary.server.auth.Roles#encode}), or gone (null). */
    public void role(String name, String state, LongSupplier ids) {
        keyed(roles, ROLE, name, state, ids);
    }

    /** Values up to {@code through} of sequence {@code id} may have been given (null: the sequence is gone). */
    public void sequenceValue(long id, Long through, LongSupplier ids) {
        keyed(sequenceValues, SEQUENCE_VALUE, String.valueOf(id), through == null ? null : String.valueOf(through), ids);
    }

    /** The owner and ACL of the object {@code key} names are now as {@code state} says, or the defaults (null). */
    public void privileges(String key, String state, LongSupplier ids) {
        keyed(privileges, PRIVILEGES, key, state, ids);
    }

    /** The entry of {@code kind} for {@code key} is now {@code state} (under the id it had, or a new one), or gone (null). */
    private void keyed(Map<String, CatalogEntry> byKey, String kind, String key, String state, LongSupplier ids) {
        CatalogEntry old = byKey.remove(key);
        if (state == null) {
            if (old != null) remove(old.id());
            return;
        }
        CatalogEntry e = new CatalogEntry(old != null ? old.id() : ids.getAsLong(), kind, key, state, List.of());
        byKey.put(key, e);
        put(e);
    }

    private void put(CatalogEntry e) {
        CatalogEntry old = entries.put(e.id(), e);
        if (old != null && !added.containsKey(old.id())) removed.put(old.id(), old);
        added.put(e.id(), e);
    }

    private void remove(long id) {
        CatalogEntry old = entries.remove(id);
        if (old == null) return;
        if (added.remove(id) == null) removed.put(id, old);
    }

    /** Commits the current statement's changes in one durable append (58030 if the store refuses); whether there were any. */
    public boolean commit() {
        if (added.isEmpty() && removed.isEmpty()) return false;
        List<CatalogEntry> a = new ArrayList<>(added.values());
        List<CatalogEntry> r = new ArrayList<>(removed.values());
        added.clear();
        removed.clear();
        storage.commitCatalog(a, r);
        return true;
    }
}
