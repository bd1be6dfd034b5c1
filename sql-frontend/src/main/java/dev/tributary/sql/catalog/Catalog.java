package dev.tributary.sql.catalog;

import java.util.Optional;

/** What the binder needs of the catalog: objects by (already case-folded) name. */
public interface Catalog {
    Optional<CatalogItem> lookup(String name);
}
