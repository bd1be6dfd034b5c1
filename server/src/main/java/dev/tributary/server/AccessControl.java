package dev.tributary.server;

import dev.tributary.server.auth.Acl;
import dev.tributary.server.auth.Privilege;
import dev.tributary.server.auth.Roles;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import dev.tributary.sql.catalog.Access;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.storage.CatalogEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Privileges as PostgreSQL has them: every table, view and materialized view has an owner (who
 * made it) and an access control list; schema public has one too (PostgreSQL 15's: only the
 * database owner may CREATE in it until granted). Statements are checked against the session's
 * {@code current_user}: reading a relation needs SELECT on it, a view's own reads are checked
 * against the view's owner, writing needs INSERT, UPDATE or DELETE (and SELECT where the
 * statement reads the table's columns), DDL on an object needs its ownership, creating one needs
 * CREATE on the schema. Superusers pass every check. Errors are PostgreSQL's, 42501 with its
 * messages.
 *
 * <p>Runs on the coordinator's thread (the coordinator's monitor held), except {@link #access},
 * whose answers are read under the same monitor when a session binds a statement.
 */
final class AccessControl {
    /** Who owns a relation, and its ACL (null: the default, the owner holding everything). */
    private record Owned(String owner, Acl acl) {}

    private final Roles roles;
    private final CatalogState catalog;
    private final Durability durability;
    private final Map<Long, Owned> relations = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Acl> schemas = new java.util.concurrent.ConcurrentHashMap<>();
    /** Who owns each schema: public the database owner, the system ones the bootstrap role, the others whoever CREATE SCHEMA named. */
    private final Map<String, String> schemaOwners = new java.util.concurrent.ConcurrentHashMap<>();
    /** Changes with every change of a role, an owner or an ACL: a prepared statement checked at this version and by the same role need not be checked again. */
    private volatile long version;

    AccessControl(Roles roles, CatalogState catalog, Durability durability) {
        this.roles = roles;
        this.catalog = catalog;
        this.durability = durability;
        schemas.put("public", Acl.initial(Roles.DATABASE_OWNER, Privilege.SCHEMA_ALL, Privilege.USAGE.bit()));
        schemaOwners.put("public", Roles.DATABASE_OWNER);
        for (String s : List.of("pg_catalog", "information_schema", "tributary_internal")) {
            schemas.put(s, Acl.initial(Roles.BOOTSTRAP, Privilege.SCHEMA_ALL, Privilege.USAGE.bit()));
            schemaOwners.put(s, Roles.BOOTSTRAP);
        }
    }

    // ------------------------------------------------------------------ checks

    /** Something a privilege check depends on changed. */
    void changed() {
        version++;
    }

    /** A number that changes whenever something a privilege check depends on does (a grant, a revoke, an owner or role change). */
    long version() {
        return version;
    }

    /** The role that owns relation {@code id} (a sink's: whose privileges it reads with). */
    String owner(long id) {
        return ownerOf(id);
    }

    /**
     * 42501 unless {@code session}'s current user is a superuser or has the privileges of
     * {@value Roles#CONNECT}: what makes the server reach another host ({@code what}, at {@code pos}).
     */
    void checkConnect(Session session, String what, int pos) {
        String user = session.currentUser();
        if (roles.isSuperuser(user) || roles.hasPrivilegesOf(user, Roles.CONNECT)) return;
        throw new SqlException("42501", "permission denied to " + what, pos,
                "Only superusers and members of " + Roles.CONNECT + " may make the server connect to other hosts; a superuser grants it: GRANT "
                        + Roles.CONNECT + " TO " + user + ".");
    }

    /** Whether {@code session}'s current user is a superuser (what reading the server's own files takes). */
    boolean superuser(Session session) {
        return roles.isSuperuser(session.currentUser());
    }

    /**
     * The privileges statement {@code st} needs: INSERT, UPDATE or DELETE on its {@code target}
     * table (and SELECT where it reads the table's columns, in WHERE or SET), and SELECT on
     * {@code reads}, the relations it reads otherwise.
     */
    void checkStatement(Session session, Statement st, CatalogItem.Table target, Collection<Long> reads) {
        String user = session.currentUser();
        if (roles.isSuperuser(user)) return;
        switch (st) {
            case Statement.Insert i -> check(user, target, Privilege.INSERT);
            case Statement.Update u -> {
                check(user, target, Privilege.UPDATE);
                if (readsColumns(u.assignments()) || readsColumns(u.where())) check(user, target, Privilege.SELECT);
            }
            case Statement.Delete d -> {
                check(user, target, Privilege.DELETE);
                if (readsColumns(d.where())) check(user, target, Privilege.SELECT);
            }
            default -> { }
        }
        checkSelect(session, reads);
    }

    /**
     * Checks prepared statement {@code p} for the session's current user, unless it passed for that
     * user since the last change of privileges; runs on the coordinator's thread.
     */
    void checkPrepared(Session session, Prepared p) {
        if (cleared(session, p)) return;
        long at = version;
        checkStatement(session, p.statement, p.table, p.reads);
        p.accessVersion = at;
        p.accessUser = session.currentUser();
    }

    /** Whether {@code p} passed its checks for the session's current user with privileges as they are now: a read may then skip the coordinator. */
    boolean cleared(Session session, Prepared p) {
        return p.accessVersion == version && session.currentUser().equals(p.accessUser);
    }

    /** Whether an expression (or list of them, or assignments) refers to any column, in subqueries too. */
    private static boolean readsColumns(Object node) {
        if (node == null) return false;
        if (node instanceof dev.tributary.sql.ast.Expr.ColumnRef) return true;
        if (node instanceof List<?> list) {
            for (Object o : list) if (readsColumns(o)) return true;
            return false;
        }
        if (node instanceof Record r) {
            for (java.lang.reflect.RecordComponent c : r.getClass().getRecordComponents()) {
                try {
                    if (readsColumns(c.getAccessor().invoke(r))) return true;
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("reading " + c + " of " + r, e);
                }
            }
        }
        return false;
    }

    /** 42501 unless the session may read every relation in {@code ids} (and each view's owner what the view reads). */
    void checkSelect(Session session, Collection<Long> ids) {
        String user = session.currentUser();
        if (roles.isSuperuser(user)) return;
        for (long id : ids) checkRead(user, id, new LinkedHashSet<>());
    }

    /** Relations every role may read, as PostgreSQL grants SELECT on its statistics views to PUBLIC (see {@link #readableByAll}). */
    private final Set<Long> readableByAll = new java.util.HashSet<>();

    /** Every role may read relation {@code id} (one of the server's own, which no GRANT reaches). */
    void readableByAll(long id) {
        readableByAll.add(id);
    }

    private void checkRead(String user, long id, Set<Long> seen) {
        CatalogItem item = catalog.get(id);
        if (item == null || item instanceof CatalogItem.Index || readableByAll.contains(id) || !seen.add(id)) return;
        check(user, item, Privilege.SELECT);
        if (item instanceof CatalogItem.View) {
            String owner = ownerOf(id);
            if (roles.isSuperuser(owner)) return;
            for (long used : catalog.usesOf(id)) checkRead(owner, used, seen);
        }
    }

    /** 42501 unless the session holds {@code privilege} on {@code item}. */
    void check(Session session, CatalogItem item, Privilege privilege) {
        check(session.currentUser(), item, privilege);
    }

    private void check(String user, CatalogItem item, Privilege privilege) {
        if ((privileges(user, item.id())[0] & privilege.bit()) == 0) throw denied(item);
    }

    /** 42501 unless the session owns {@code item} (or has the privileges of its owner). */
    void checkOwner(Session session, CatalogItem item) {
        long id = item instanceof CatalogItem.Index i ? i.on() : item.id();
        if (!roles.hasPrivilegesOf(session.currentUser(), ownerOf(id))) throw notOwner(item);
    }

    /** 42501 unless the session may create objects in schema {@code schema}. */
    void checkCreate(Session session, String schema) {
        checkCreate(session.currentUser(), schema);
    }

    private void checkCreate(String user, String schema) {
        if (!holdsOnSchema(user, schema, Privilege.CREATE.bit())) {
            throw new SqlException("42501", "permission denied for schema " + schema);
        }
    }

    /** Whether {@code role} may use schema {@code schema} (USAGE on it; a superuser always may). */
    boolean hasSchemaUsage(String role, String schema) {
        return !schemas.containsKey(schema) || holdsOnSchema(role, schema, Privilege.USAGE.bit());
    }

    /** The role that owns schema {@code name}. */
    String schemaOwner(String name) {
        return schemaOwners.getOrDefault(name, Roles.BOOTSTRAP);
    }

    /** 42501 unless the session has the privileges of schema {@code name}'s owner. */
    void checkSchemaOwner(Session session, String name) {
        if (!roles.hasPrivilegesOf(session.currentUser(), schemaOwner(name))) throw new SqlException("42501", "must be owner of schema " + name);
    }

    /** CREATE SCHEMA: 42501 unless the session may create schemas in the database (a superuser, or the database owner's privileges). */
    void checkCreateSchema(Session session, String owner) {
        String user = session.currentUser();
        if (!roles.isSuperuser(user) && !roles.hasPrivilegesOf(user, Roles.DATABASE_OWNER)) {
            throw new SqlException("42501", "permission denied for database " + dev.tributary.sql.catalog.SystemCatalog.DATABASE_NAME);
        }
        if (roles.find(owner).isEmpty()) throw Roles.notFound(owner);
        if (!roles.isSuperuser(user) && !roles.isMemberOf(user, owner)) throw new SqlException("42501", "must be able to SET ROLE \"" + owner + "\"");
    }

    /** Schema {@code name} was made, owned by {@code owner} (who holds every privilege on it). */
    void schemaCreated(String name, String owner) {
        schemas.put(name, Acl.initial(owner, Privilege.SCHEMA_ALL, 0));
        schemaOwners.put(name, owner);
        recordSchema(name);
    }

    /** Schema {@code name} is gone, and with it its owner and ACL. */
    void schemaDropped(String name) {
        version++;
        schemas.remove(name);
        schemaOwners.remove(name);
        durability.recordPrivileges("schema " + name, null, catalog::newId);
    }

    /** The privileges (0) and grant options (1) {@code user} holds on relation {@code id}: all for a superuser; every grant option for its owner. */
    private int[] privileges(String user, long id) {
        if (roles.isSuperuser(user)) return new int[] {Privilege.RELATION_ALL, Privilege.RELATION_ALL};
        String owner = ownerOf(id);
        int[] held = aclOf(id).held(g -> g.equals(Acl.PUBLIC) || roles.hasPrivilegesOf(user, g));
        if (roles.hasPrivilegesOf(user, owner)) held[1] = Privilege.RELATION_ALL;
        return held;
    }

    private boolean holdsOnSchema(String user, String schema, int bits) {
        if (roles.isSuperuser(user)) return true;
        int held = schemas.get(schema).held(g -> g.equals(Acl.PUBLIC) || roles.hasPrivilegesOf(user, g))[0];
        return (held & bits) == bits;
    }

    private String ownerOf(long id) {
        Owned o = relations.get(id);
        return o == null ? Roles.BOOTSTRAP : o.owner();
    }

    private Acl aclOf(long id) {
        Owned o = relations.get(id);
        if (o == null) return Acl.initial(Roles.BOOTSTRAP, Privilege.RELATION_ALL, 0);
        return o.acl() != null ? o.acl() : Acl.initial(o.owner(), Privilege.RELATION_ALL, 0);
    }

    static SqlException denied(CatalogItem item) {
        return new SqlException("42501", "permission denied for " + item.kind() + " " + item.name());
    }

    private static SqlException notOwner(CatalogItem item) {
        return new SqlException("42501", "must be owner of " + item.kind() + " " + item.name());
    }

    // ------------------------------------------------------------------ objects come and go

    /** {@code item} was made by the session: its owner is the session's current user (an index's, its relation's owner). */
    void created(Session session, CatalogItem item) {
        if (item instanceof CatalogItem.Index) return;
        // a view replaced (or an object made again when the catalog is replayed) keeps its owner
        if (relations.containsKey(item.id())) return;
        String owner = session.currentUser();
        relations.put(item.id(), new Owned(owner, null));
        if (!owner.equals(Roles.BOOTSTRAP)) record(item.id());
    }

    /** Object {@code id} is gone, and with it its owner and ACL. */
    void dropped(long id) {
        version++;
        if (relations.remove(id) != null) durability.recordPrivileges(key(id), null, catalog::newId);
    }

    /** Restores what a {@link dev.tributary.server.storage.CatalogRecorder#PRIVILEGES} entry recorded. */
    void restore(CatalogEntry e) {
        String[] parts = e.sql().split("\n", 2);
        Acl acl = parts.length > 1 && !parts[1].equals("DEFAULT") ? Acl.decode(parts[1]) : null;
        if (e.name().startsWith("schema ")) {
            String name = e.name().substring("schema ".length());
            schemas.put(name, acl);
            schemaOwners.put(name, Acl.unescape(parts[0]));
        } else {
            relations.put(Long.parseLong(e.name().substring("relation ".length())), new Owned(Acl.unescape(parts[0]), acl));
        }
    }

    private static String key(long id) {
        return "relation " + id;
    }

    /** Relation {@code id}'s owner and ACL as the durable catalog keeps them; null when it has none. */
    private String text(long id) {
        Owned o = relations.get(id);
        return o == null ? null : Acl.escape(o.owner()) + "\n" + (o.acl() == null ? "DEFAULT" : o.acl().encode());
    }

    /** Schema {@code name}'s owner and ACL as the durable catalog keeps them; null when it has none. */
    private String schemaText(String name) {
        Acl acl = schemas.get(name);
        return acl == null ? null : Acl.escape(schemaOwner(name)) + "\n" + acl.encode();
    }

    private void record(long id) {
        version++;
        durability.recordPrivileges(key(id), text(id), catalog::newId);
    }

    private void recordSchema(String name) {
        version++;
        durability.recordPrivileges("schema " + name, schemaText(name), catalog::newId);
    }

    private static final String ROLE = "role ";

    /**
     * Every owner, ACL and role as the durable catalog keeps them, by key ({@code relation id},
     * {@code schema name}, {@code role name}): what a transaction block's GRANT, OWNER TO or role
     * statement changed is the keys whose text differs after it (see {@link CatalogChange.Access}).
     */
    Map<String, String> snapshot() {
        Map<String, String> out = new java.util.HashMap<>();
        for (long id : relations.keySet()) out.put(key(id), text(id));
        for (String name : schemas.keySet()) out.put("schema " + name, schemaText(name));
        for (Roles.Role r : roles.all()) out.put(ROLE + r.name(), roles.encode(r.name()));
        return out;
    }

    /** The keys of {@link #snapshot} whose text is not what it was in {@code before}, with the text they had (null: none). */
    Map<String, String> changedSince(Map<String, String> before) {
        Map<String, String> now = snapshot();
        Map<String, String> out = new java.util.TreeMap<>();
        for (Map.Entry<String, String> e : before.entrySet()) if (!e.getValue().equals(now.get(e.getKey()))) out.put(e.getKey(), e.getValue());
        for (String key : now.keySet()) if (!before.containsKey(key)) out.put(key, null);
        return out;
    }

    /** Gives {@code key} of {@link #snapshot} the text {@code text} again (null: none), durably: a rolled-back block's change taken back. */
    void restore(String key, String text) {
        version++;
        if (key.startsWith(ROLE)) {
            String name = key.substring(ROLE.length());
            if (text == null) roles.drop(name);
            else roles.restore(name, text);
            durability.recordRole(name, text, catalog::newId);
            return;
        }
        if (text != null) {
            restore(new CatalogEntry(0, dev.tributary.server.storage.CatalogRecorder.PRIVILEGES, key, text, List.of(), ""));
        } else if (key.startsWith("schema ")) {
            schemas.remove(key.substring("schema ".length()));
            schemaOwners.remove(key.substring("schema ".length()));
        } else {
            relations.remove(Long.parseLong(key.substring("relation ".length())));
        }
        durability.recordPrivileges(key, text, catalog::newId);
    }

    // ------------------------------------------------------------------ GRANT, REVOKE, OWNER TO

    /** GRANT/REVOKE privileges ON tables or schemas. */
    Result grant(Session session, Statement.Grant g) {
        String tag = g.grant() ? "GRANT" : "REVOKE";
        List<String> grantees = new ArrayList<>();
        for (String r : g.grantees()) {
            if (r.equals("public")) {
                if (g.grant() && g.grantOption()) throw new SqlException("0LP01", "grant options can only be granted to roles");
                grantees.add(Acl.PUBLIC);
            } else {
                if (roles.find(r).isEmpty() && !r.equals(Roles.DATABASE_OWNER)) throw Roles.notFound(r);
                grantees.add(r);
            }
        }
        Result result = Result.command(tag);
        String user = session.currentUser();
        switch (g.target()) {
            case SCHEMA -> {
                int bits = bits(g.privileges(), Privilege.SCHEMA_ALL, "schema");
                for (List<String> name : g.objects()) {
                    String schema = name.get(0);
                    Acl acl = schemas.get(schema);
                    if (acl == null) throw new SqlException("3F000", "schema \"" + schema + "\" does not exist");
                    String owner = schemaOwner(schema);
                    int[] held = roles.hasPrivilegesOf(user, owner) ? new int[] {Privilege.SCHEMA_ALL, Privilege.SCHEMA_ALL}
                            : acl.held(x -> x.equals(Acl.PUBLIC) || roles.hasPrivilegesOf(user, x));
                    String grantor = roles.hasPrivilegesOf(user, owner) ? owner : user;
                    Acl changed = apply(g, acl, grantor, grantees, bits, held, "schema " + schema, "schema \"" + schema + "\"");
                    if (changed == null) continue;
                    result = withWarnings(result, g, bits, held[1], schema);
                    schemas.put(schema, changed);
                    recordSchema(schema);
                }
            }
            case TABLE, ALL_TABLES_IN_SCHEMA -> {
                int bits = bits(g.privileges(), Privilege.RELATION_ALL, "table");
                List<CatalogItem> items = new ArrayList<>();
                if (g.target() == Statement.GrantTarget.TABLE) {
                    for (List<String> name : g.objects()) {
                        CatalogState.rejectSystemRelation(name, g.grant() ? "grant on" : "revoke on", g.pos());
                        String n = String.join(".", name);
                        CatalogItem item = catalog.find(name, session, g.pos());
                        if (item == null) throw new SqlException("42P01", "relation \"" + n + "\" does not exist");
                        if (item instanceof CatalogItem.Index) throw new SqlException("42809", "\"" + n + "\" is an index");
                        items.add(item);
                    }
                } else {
                    for (List<String> name : g.objects()) {
                        if (!schemas.containsKey(name.get(0))) throw new SqlException("3F000", "schema \"" + name.get(0) + "\" does not exist");
                        for (CatalogItem item : catalog.inSchema(name.get(0))) {
                            if (!(item instanceof CatalogItem.Index) && !(item instanceof CatalogItem.ForeignKey)) items.add(item);
                        }
                    }
                }
                for (CatalogItem item : items) {
                    String owner = ownerOf(item.id());
                    int[] held = privileges(user, item.id());
                    String grantor = roles.isSuperuser(user) || roles.hasPrivilegesOf(user, owner) ? owner : user;
                    Acl changed = apply(g, aclOf(item.id()), grantor, grantees, bits, held, item.kind() + " " + item.name(), null);
                    if (changed == null) continue;
                    result = withWarnings(result, g, bits, held[1], item.name());
                    relations.put(item.id(), new Owned(owner, changed));
                    record(item.id());
                }
            }
        }
        return result;
    }

    /** The ACL after {@code g}, or 42501 when the user holds nothing at all on the object; null when nothing changes. */
    private static Acl apply(Statement.Grant g, Acl acl, String grantor, List<String> grantees, int bits, int[] held, String what, String quoted) {
        if (held[0] == 0 && held[1] == 0) throw new SqlException("42501", "permission denied for " + what);
        int effective = bits & held[1];
        for (String grantee : grantees) {
            if (g.grant()) {
                if (effective != 0) acl = acl.grant(grantor, grantee, effective, g.grantOption());
            } else if (effective != 0) {
                acl = acl.revoke(grantor, grantee, effective, g.grantOption(), g.cascade());
            }
        }
        return acl;
    }

    /** PostgreSQL's warnings when the grant options held cover none or not all of the privileges named. */
    private static Result withWarnings(Result r, Statement.Grant g, int bits, int options, String name) {
        int effective = bits & options;
        boolean all = g.privileges().isEmpty();
        if (effective == 0) {
            return r.withNotice(g.grant() ? new Notice("WARNING", "01007", "no privileges were granted for \"" + name + "\"")
                    : new Notice("WARNING", "01006", "no privileges could be revoked for \"" + name + "\""));
        }
        if (!all && effective != bits) {
            return r.withNotice(g.grant() ? new Notice("WARNING", "01007", "not all privileges were granted for \"" + name + "\"")
                    : new Notice("WARNING", "01006", "not all privileges could be revoked for \"" + name + "\""));
        }
        return r;
    }

    /** The privileges named (empty: ALL), each one an object of {@code kind} can have (0LP01 otherwise). */
    private static int bits(List<String> words, int allowed, String kind) {
        if (words.isEmpty()) return allowed;
        int bits = 0;
        for (String w : words) {
            Privilege p = Privilege.named(w);
            if ((p.bit() & allowed) == 0) throw new SqlException("0LP01", "invalid privilege type " + p.name() + " for " + kind);
            bits |= p.bit();
        }
        return bits;
    }

    /** ALTER TABLE|VIEW|MATERIALIZED VIEW name OWNER TO role. */
    Result alterOwner(Session session, Statement.AlterOwner a) {
        CatalogState.rejectSystemRelation(a.name(), "alter", a.pos());
        String name = a.name().get(a.name().size() - 1);
        CatalogItem item = catalog.find(a.name(), session, a.pos());
        String kind = a.kind().sql().toLowerCase(Locale.ROOT);
        if (item == null || (item instanceof CatalogItem.Index) != (a.kind() == Statement.ObjectKind.INDEX)) {
            throw new SqlException("42P01", "relation \"" + name + "\" does not exist");
        }
        if (a.kind() == Statement.ObjectKind.INDEX) {
            return Result.command("ALTER INDEX").withNotice(new Notice("WARNING", "42809", "cannot change owner of index \"" + name + "\"")
                   );
        }
        if (a.kind() != Statement.ObjectKind.TABLE && !item.kind().equals(kind)) {
            throw new SqlException("42809", "\"" + name + "\" is not a " + kind, a.pos(), "Use ALTER " + item.kind().toUpperCase(Locale.ROOT) + " instead.");
        }
        if (roles.find(a.owner()).isEmpty()) throw Roles.notFound(a.owner());
        String old = ownerOf(item.id());
        String tag = "ALTER " + a.kind().sql();
        if (old.equals(a.owner())) return Result.command(tag);
        String user = session.currentUser();
        if (!roles.isSuperuser(user)) {
            if (!roles.hasPrivilegesOf(user, old)) throw notOwner(item);
            if (!roles.isMemberOf(user, a.owner())) throw new SqlException("42501", "must be member of role \"" + a.owner() + "\"");
            checkCreate(a.owner(), catalog.schemaOf(item.id()));
        }
        Owned o = relations.get(item.id());
        Acl acl = o == null || o.acl() == null ? null : o.acl().renamed(old, a.owner());
        relations.put(item.id(), new Owned(a.owner(), acl));
        record(item.id());
        return Result.command(tag);
    }

    /** ALTER SCHEMA name OWNER TO role: by its owner, who must be a member of the new owner (superusers aside), as PostgreSQL. */
    Result alterSchemaOwner(Session session, Statement.AlterSchemaOwner a) {
        if (!schemas.containsKey(a.name())) throw new SqlException("3F000", "schema \"" + a.name() + "\" does not exist", a.pos());
        if (roles.find(a.owner()).isEmpty() && !a.owner().equals(Roles.DATABASE_OWNER)) throw Roles.notFound(a.owner());
        String old = schemaOwner(a.name());
        if (old.equals(a.owner())) return Result.command("ALTER SCHEMA");
        String user = session.currentUser();
        if (!roles.isSuperuser(user)) {
            if (!roles.hasPrivilegesOf(user, old)) throw new SqlException("42501", "must be owner of schema " + a.name());
            if (!roles.isMemberOf(user, a.owner())) throw new SqlException("42501", "must be able to SET ROLE \"" + a.owner() + "\"");
        }
        if (catalog.schemaId(a.name()) < 0) throw new SqlException("0A000", "the owner of system schema " + a.name() + " cannot be changed", a.pos());
        schemas.put(a.name(), schemas.get(a.name()).renamed(old, a.owner()));
        schemaOwners.put(a.name(), a.owner());
        recordSchema(a.name());
        return Result.command("ALTER SCHEMA");
    }

    /** REASSIGN OWNED BY roles TO role: by a role with the privileges of all of them (42501 otherwise). */
    Result reassignOwned(Session session, Statement.ReassignOwned r) {
        String user = session.currentUser();
        for (String from : r.from()) {
            if (roles.find(from).isEmpty()) throw Roles.notFound(from);
            if (!roles.hasPrivilegesOf(user, from)) throw new SqlException("42501", "permission denied to reassign objects");
        }
        if (roles.find(r.to()).isEmpty()) throw Roles.notFound(r.to());
        if (!roles.hasPrivilegesOf(user, r.to())) throw new SqlException("42501", "permission denied to reassign objects");
        for (CatalogItem item : catalog.inIdOrder()) {
            if (item instanceof CatalogItem.Index) continue;
            String owner = ownerOf(item.id());
            if (!r.from().contains(owner) || owner.equals(r.to())) continue;
            Owned o = relations.get(item.id());
            Acl acl = o == null || o.acl() == null ? null : o.acl().renamed(owner, r.to());
            relations.put(item.id(), new Owned(r.to(), acl));
            record(item.id());
        }
        return Result.command("REASSIGN OWNED");
    }

    /**
     * The relations DROP OWNED BY {@code names} drops, newest first (what reads another was made
     * after it), once the session may (it has the privileges of each role; 42501 otherwise).
     */
    List<CatalogItem> ownedBy(Session session, List<String> names) {
        String user = session.currentUser();
        for (String name : names) {
            if (roles.find(name).isEmpty()) throw Roles.notFound(name);
            if (!roles.hasPrivilegesOf(user, name)) throw new SqlException("42501", "permission denied to drop objects");
        }
        List<CatalogItem> owned = new ArrayList<>();
        for (CatalogItem item : catalog.inIdOrder()) {
            if (!(item instanceof CatalogItem.Index) && names.contains(ownerOf(item.id()))) owned.add(0, item);
        }
        return owned;
    }

    /** What DROP OWNED does after dropping the objects: every privilege granted to {@code names} is revoked. */
    void revokeAllFrom(List<String> names) {
        for (Map.Entry<Long, Owned> e : List.copyOf(relations.entrySet())) {
            Acl acl = e.getValue().acl();
            if (acl == null) continue;
            Acl less = acl;
            for (String name : names) less = new Acl(less.items().stream().filter(i -> !i.grantee().equals(name)).toList());
            if (!less.equals(acl)) {
                relations.put(e.getKey(), new Owned(e.getValue().owner(), less));
                record(e.getKey());
            }
        }
        for (Map.Entry<String, Acl> e : List.copyOf(schemas.entrySet())) {
            Acl less = e.getValue();
            for (String name : names) less = new Acl(less.items().stream().filter(i -> !i.grantee().equals(name)).toList());
            if (!less.equals(e.getValue())) {
                schemas.put(e.getKey(), less);
                recordSchema(e.getKey());
            }
        }
    }

    // ------------------------------------------------------------------ roles

    /** CREATE ROLE: a superuser may make any role, a CREATEROLE role any but superusers (and REPLICATION and BYPASSRLS ones). */
    void checkCreateRole(Session session, Roles.Attributes a) {
        String user = session.currentUser();
        if (a.superuser()) {
            if (!roles.isSuperuser(user)) throw new SqlException("42501", "must be superuser to create superusers");
        } else if (a.replication()) {
            if (!roles.isSuperuser(user)) throw new SqlException("42501", "must be superuser to create replication users");
        } else if (a.bypassRls()) {
            if (!roles.isSuperuser(user)) throw new SqlException("42501", "must be superuser to create bypassrls users");
        } else if (!roles.mayCreateRoles(user)) {
            throw new SqlException("42501", "permission denied to create role");
        }
    }

    /**
     * ALTER ROLE: superusers, and the SUPERUSER, REPLICATION and BYPASSRLS attributes, only by a
     * superuser; other roles by a CREATEROLE role; a role without it may only change its own
     * password. The bootstrap role keeps SUPERUSER, so there is always a superuser.
     */
    void checkAlterRole(Session session, String name, Roles.Role target, List<Statement.RoleOption> options) {
        String user = session.currentUser();
        boolean superuser = roles.isSuperuser(user);
        boolean onlyPassword = true;
        String attribute = null;
        for (Statement.RoleOption o : options) {
            switch (o) {
                case Statement.RoleOption.Password p -> { }
                case Statement.RoleOption.Login l -> onlyPassword = false;
                case Statement.RoleOption.Attribute at -> {
                    onlyPassword = false;
                    if (attribute == null || at.name().equals("superuser")) attribute = at.name();
                    if (name.equals(Roles.BOOTSTRAP) && at.name().equals("superuser") && !at.value()) {
                        throw new SqlException("42501", "permission denied to alter role").withDetail("The bootstrap user must have the SUPERUSER attribute.");
                    }
                }
            }
        }
        if (target.attributes().superuser() || "superuser".equals(attribute)) {
            if (!superuser) throw new SqlException("42501", "must be superuser to alter superuser roles or change superuser attribute");
        } else if (target.attributes().replication() || "replication".equals(attribute)) {
            if (!superuser) throw new SqlException("42501", "must be superuser to alter replication roles or change replication attribute");
        } else if ("bypassrls".equals(attribute)) {
            if (!superuser) throw new SqlException("42501", "must be superuser to change bypassrls attribute");
        } else if (!roles.mayCreateRoles(user)) {
            if (!(onlyPassword && name.equals(user))) throw new SqlException("42501", "permission denied");
        }
    }

    /**
     * DROP ROLE of {@code name}: by a CREATEROLE role (a superuser for superusers); never the
     * current or session user, the bootstrap role, or a role that owns objects or holds privileges.
     */
    void checkDropRole(Session session, String name) {
        String user = session.currentUser();
        if (name.equals(user)) throw new SqlException("55006", "current user cannot be dropped");
        if (name.equals(session.sessionUser())) throw new SqlException("55006", "session user cannot be dropped");
        if (roles.isSuperuser(name) && !roles.isSuperuser(user)) throw new SqlException("42501", "must be superuser to drop superusers");
        if (name.equals(Roles.BOOTSTRAP) || name.equals(Roles.CONNECT)) {
            throw new SqlException("2BP01", "cannot drop role " + name + " because it is required by the database system");
        }
        List<String> uses = new ArrayList<>();
        for (Map.Entry<String, Acl> s : schemas.entrySet()) {
            if (schemaOwner(s.getKey()).equals(name)) uses.add("owner of schema " + s.getKey());
            else if (s.getValue().mentions(name)) uses.add("privileges for schema " + s.getKey());
        }
        for (CatalogItem item : catalog.inIdOrder()) {
            if (item instanceof CatalogItem.Index) continue;
            if (ownerOf(item.id()).equals(name)) uses.add("owner of " + item.kind() + " " + item.name());
            else if (aclOf(item.id()).mentions(name)) uses.add("privileges for " + item.kind() + " " + item.name());
        }
        if (!uses.isEmpty()) {
            throw new SqlException("2BP01", "role \"" + name + "\" cannot be dropped because some objects depend on it").withDetail(String.join("\n", uses));
        }
    }

    /** 42501 unless the session may drop roles at all. */
    void checkMayDropRoles(Session session) {
        if (!roles.mayCreateRoles(session.currentUser())) throw new SqlException("42501", "permission denied to drop role");
    }

    /** GRANT/REVOKE role TO/FROM member: by a superuser (for a superuser role), a CREATEROLE role or one with ADMIN OPTION on the role. */
    Result grantRole(Session session, Statement.GrantRole g) {
        String user = session.currentUser();
        Result result = Result.command(g.grant() ? "GRANT ROLE" : "REVOKE ROLE");
        List<String> changed = new ArrayList<>();
        for (String role : g.roles()) {
            if (roles.find(role).isEmpty() && !role.equals(Roles.DATABASE_OWNER)) throw Roles.notFound(role);
            if (role.equals(Roles.DATABASE_OWNER)) throw new SqlException("0LP01", "role \"" + role + "\" cannot have explicit members");
            if (roles.isSuperuser(role)) {
                if (!roles.isSuperuser(user)) throw new SqlException("42501", "must be superuser to alter superusers");
            } else if (!roles.mayCreateRoles(user) && !roles.isAdminOf(user, role)) {
                throw new SqlException("42501", "must have admin option on role \"" + role + "\"");
            }
            for (String member : g.members()) {
                if (member.equals("public")) throw new SqlException("0LP01", "role \"public\" cannot have explicit members");
                if (roles.find(member).isEmpty()) throw Roles.notFound(member);
                if (g.grant()) {
                    if (member.equals(role) || roles.isMemberOf(role, member, false)) {
                        throw new SqlException("0LP01", "role \"" + role + "\" is a member of role \"" + member + "\"");
                    }
                    if (roles.addMember(role, member, roles.isSuperuser(user) ? Roles.BOOTSTRAP : user, g.adminOption())) changed.add(member);
                    else result = result.withNotice(Notice.notice("00000", "role \"" + member + "\" is already a member of role \"" + role + "\""));
                } else if (roles.removeMember(role, member, g.adminOption())) {
                    changed.add(member);
                } else {
                    result = result.withNotice(new Notice("WARNING", "01000", "role \"" + member + "\" is not a member of role \"" + role + "\""));
                }
            }
        }
        for (String member : new LinkedHashSet<>(changed)) recordRole(member);
        return result;
    }

    /** SET ROLE name / NONE, SET SESSION AUTHORIZATION name / DEFAULT. */
    Result setRole(Session session, Statement.SetRole s) {
        if (s.session()) {
            if (s.role() == null) {
                session.settings.put("session_authorization", session.authenticatedUser);
            } else {
                if (roles.find(s.role()).isEmpty()) throw new SqlException("22023", "role \"" + s.role() + "\" does not exist");
                if (!roles.isSuperuser(session.authenticatedUser) && !s.role().equals(session.authenticatedUser)) {
                    throw new SqlException("42501", "permission denied to set session authorization");
                }
                session.settings.put("session_authorization", s.role());
            }
            session.settings.remove("role");
            return Result.command(s.reset() ? "RESET" : "SET");
        }
        if (s.role() == null) {
            session.settings.remove("role");
            return Result.command(s.reset() ? "RESET" : "SET");
        }
        if (roles.find(s.role()).isEmpty()) throw new SqlException("22023", "role \"" + s.role() + "\" does not exist");
        if (!roles.isMemberOf(session.sessionUser(), s.role())) {
            throw new SqlException("42501", "permission denied to set role \"" + s.role() + "\"");
        }
        session.settings.put("role", s.role());
        return Result.command("SET");
    }

    /** Role {@code name} as it is now (or its removal), durably. */
    void recordRole(String name) {
        version++;
        durability.recordRole(name, roles.encode(name), catalog::newId);
    }

    /** Everything a role was granted or granted to others is gone with it: the roles that were its members are recorded again. */
    void roleDropped(String name, List<String> formerMembers) {
        recordRole(name);
        for (String m : formerMembers) recordRole(m);
    }

    // ------------------------------------------------------------------ as the system catalogs show it

    /** What {@code session}'s system catalogs and privilege inquiry functions see. */
    Access access(Session session) {
        String current = session.currentUser();
        String sessionUser = session.sessionUser();
        return new Access() {
            @Override
            public String currentUser() {
                return current;
            }

            @Override
            public String sessionUser() {
                return sessionUser;
            }

            @Override
            public List<RoleInfo> roles() {
                List<RoleInfo> out = new ArrayList<>();
                for (Roles.Role r : roles.all()) {
                    Roles.Attributes a = r.attributes();
                    out.add(new RoleInfo(r.name(), a.superuser(), a.inherit(), a.createRole(), a.createDb(), a.login(), a.replication(), a.bypassRls(),
                            r.verifier() != null));
                }
                return out;
            }

            @Override
            public List<Membership> memberships() {
                return roles.memberships().stream().map(m -> new Membership(m.role(), m.member(), m.grantor(), m.admin())).toList();
            }

            @Override
            public String owner(long id) {
                CatalogItem item = catalog.get(id);
                return ownerOf(item instanceof CatalogItem.Index i ? i.on() : id);
            }

            @Override
            public List<String> acl(long id) {
                Owned o = relations.get(id);
                return o == null || o.acl() == null ? null : o.acl().texts();
            }

            @Override
            public List<String> schemaAcl(String name) {
                Acl acl = schemas.get(name);
                return acl == null ? null : acl.texts();
            }

            @Override
            public boolean hasTablePrivilege(String role, long id, String list) {
                int[] asked = Privilege.inquiry(list, Privilege.RELATION_ALL);
                int[] held = role.equals("public") ? aclOf(id).held(g -> g.equals(Acl.PUBLIC)) : privileges(role, id);
                return (held[0] & asked[0]) == asked[0] && (held[1] & asked[1]) == asked[1];
            }

            @Override
            public boolean hasSchemaPrivilege(String role, String name, String list) {
                int[] asked = Privilege.inquiry(list, Privilege.SCHEMA_ALL);
                Acl acl = schemas.get(name);
                if (acl == null) return false;
                if (!role.equals("public") && roles.isSuperuser(role)) return true;
                int[] held = acl.held(g -> g.equals(Acl.PUBLIC) || (!role.equals("public") && roles.hasPrivilegesOf(role, g)));
                return (held[0] & asked[0]) == asked[0] && (held[1] & asked[1]) == asked[1];
            }

            @Override
            public boolean hasRole(String role, String target, String mode) {
                String m = mode.strip().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ");
                return switch (m) {
                    case "member", "set" -> roles.isMemberOf(role, target);
                    case "usage" -> roles.hasPrivilegesOf(role, target);
                    case "member with admin option", "usage with admin option", "set with admin option", "member with grant option",
                         "usage with grant option" -> roles.isAdminOf(role, target);
                    default -> throw new SqlException("22023", "unrecognized privilege type: \"" + mode + "\"");
                };
            }
        };
    }
}
