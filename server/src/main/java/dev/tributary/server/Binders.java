package dev.tributary.server;

import dev.tributary.server.auth.Roles;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.bind.Binder;
import dev.tributary.sql.catalog.Catalog;
import dev.tributary.sql.catalog.CatalogItem;
import dev.tributary.sql.catalog.SystemCatalog;
import dev.tributary.sql.types.SqlType;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The catalog statements are bound against: the database's objects and system relations (the
 * coordinator as a {@link Catalog}) and, for a session's queries, its roles and settings, which
 * the system catalogs show and {@code asof_join} reads.
 */
final class Binders {
    private final Catalog database;
    private final AccessControl access;

    /** Where a session's pg_cancel_backend and pg_terminate_backend go (it yields null without a wire server). */
    private final java.util.function.Supplier<Tributary.Backends> backends;
    /** A session's search path, as the catalog now has the schemas it names. */
    private final java.util.function.Function<Session, List<String>> searchPath;

    Binders(Catalog database, AccessControl access, java.util.function.Supplier<Tributary.Backends> backends,
            java.util.function.Function<Session, List<String>> searchPath) {
        this.backends = backends;
        this.searchPath = searchPath;
        this.database = database;
        this.access = access;
    }

    /** The privileges statements are checked against. */
    AccessControl access() {
        return access;
    }

    /** A binder over the database's objects alone, bare names found in schema public: for constants, keys and CHECKs, which name no relation. */
    Binder plain() {
        return new Binder(database);
    }

    /** A binder over the database's objects, bare names found along {@code session}'s search path: for defaults, DML and CREATE TABLE AS. */
    Binder plain(Session session) {
        return new Binder(catalogFor(session));
    }

    /** A binder for {@code session}'s statements, planning AS OF SYSTEM TIME as its {@code asof_join} setting says. */
    Binder of(Session session) {
        return new Binder(catalogFor(session)).desugarAsOfSystemTime(desugarsAsOf(session));
    }

    /** Like {@link #of(Session)}, with parameters {@code $i} of {@code declared.get(i - 1)} where given. */
    Binder of(Session session, List<SqlType> declared) {
        return new Binder(catalogFor(session), declared).desugarAsOfSystemTime(desugarsAsOf(session));
    }

    /** Whether {@code session} plans AS OF SYSTEM TIME as a join of its own ({@code asof_join = desugared}). */
    static boolean desugarsAsOf(Session session) {
        return "desugared".equals(session.settings.get("asof_join"));
    }

    /** 0A000: a maintained object ({@code what}) cannot read the system catalogs. */
    static SqlException systemCatalogIn(String what, int pos) {
        return new SqlException("0A000", "system catalogs cannot be read by " + what + ": their rows are computed when a query is planned, not maintained", pos,
                "Query pg_catalog and information_schema directly.");
    }

    /** The catalog as {@code session} sees it: the database's objects and the session's settings. */
    private Catalog catalogFor(Session session) {
        Catalog self = database;
        Map<String, String> settings = Map.copyOf(session.settings);
        List<String> path = searchPath.apply(session);
        return new Catalog() {
            @Override
            public Optional<CatalogItem> lookup(String schema, String name) {
                // the search path holds only schemas the role may use; a named one must be too
                if (!access.hasSchemaUsage(session.currentUser(), schema) && self.schemaExists(schema)) {
                    throw new SqlException("42501", "permission denied for schema " + schema);
                }
                return self.lookup(schema, name);
            }

            @Override
            public List<String> searchPath() {
                return path;
            }

            @Override
            public List<Namespace> schemas() {
                return self.schemas();
            }

            @Override
            public String schemaOf(long id) {
                return self.schemaOf(id);
            }

            @Override
            public long sourceCursor(long source, String positions, int pos) {
                return self.sourceCursor(source, positions, pos);
            }

            @Override
            public Collection<CatalogItem> items() {
                return self.items();
            }

            @Override
            public dev.tributary.sql.catalog.Access access() {
                return access.access(session);
            }

            @Override
            public dev.tributary.sql.catalog.Sequences sequences() {
                return self.sequences();
            }

            @Override
            public Map<Long, Map<Integer, String>> comments() {
                return self.comments();
            }

            @Override
            public Map<String, String> settings() {
                return settings;
            }

            @Override
            public int backendPid() {
                return session.backendPid;
            }

            @Override
            public boolean signalBackend(int pid, boolean terminate) {
                Tributary.Backends b = backends.get();
                return b != null && b.signal(pid, terminate, session.currentUser());
            }

            @Override
            public List<Activity> activity() {
                Tributary.Backends b = backends.get();
                return b == null ? List.of() : b.activity();
            }

            @Override
            public List<HydrationProgress> hydrationProgress() {
                return self.hydrationProgress();
            }

            @Override
            public List<ArrangementPart> arrangementSizes() {
                return self.arrangementSizes();
            }

            @Override
            public List<DataflowInfo> dataflows() {
                return self.dataflows();
            }

            @Override
            public List<SubscriptionState> runningSubscriptions() {
                return self.runningSubscriptions();
            }

            @Override
            public ServerMetrics serverMetrics() {
                return self.serverMetrics();
            }

            @Override
            public java.util.OptionalLong maintained(CatalogItem.SystemRelation r) {
                return self.maintained(r);
            }
        };
    }
}
