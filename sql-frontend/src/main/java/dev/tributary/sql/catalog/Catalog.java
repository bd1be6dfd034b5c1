package dev.tributary.sql.catalog;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the binder needs of the catalog: objects by (already case-folded) name, and, for the
 * system catalogs ({@link SystemCatalog}), all of them and the session's settings.
 */
public interface Catalog {
    Optional<CatalogItem> lookup(String name);

    /** Every user object (tables, views, materialized views, indexes), in creation order. */
    default Collection<CatalogItem> items() {
        return List.of();
    }

    /** The roles, by name, and whether each may log in (pg_roles, pg_user). */
    default Map<String, Boolean> roleLogins() {
        return Map.of(SystemCatalog.OWNER_NAME, true);
    }

    /** The session's settings that differ from their defaults, by lower-case name. */
    default Map<String, String> settings() {
        return Map.of();
    }

    /**
     * A materialized view or index being built over the data that existed when it was created,
     * while its CREATE waits: {@code rowsDone} of {@code rowsTotal} input updates read so far;
     * {@code phase} is {@code reading}, then {@code computing} once all are read.
     */
    record HydrationProgress(long id, String kind, String name, String phase, long rowsDone, long rowsTotal, long startedMillis) {}

    /** The builds under way (tributary_internal.hydration_progress), by object id. */
    default List<HydrationProgress> hydrationProgress() {
        return List.of();
    }
}
