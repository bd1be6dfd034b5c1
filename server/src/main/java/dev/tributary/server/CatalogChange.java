package dev.tributary.server;

import dev.tributary.sql.catalog.CatalogItem;
import java.util.Set;

/**
 * One change a transaction block's DDL made to the catalog, kept so that the block's ROLLBACK (or
 * a ROLLBACK TO SAVEPOINT before it) can take it back, newest first, and its COMMIT can finish
 * it: DDL is transactional, as in PostgreSQL.
 *
 * <p>Creations and alterations take effect at once (other sessions see them, as they see
 * nothing else of an open block, except that the names are taken). A drop only takes the
 * object off the catalog: its dataflow, data and privileges stay until the block commits, so that
 * a rollback can list it again as it was, and its name stays taken for other sessions.
 */
sealed interface CatalogChange {

    /** Object (or schema) {@code id} was made: a rollback drops it. */
    record Created(long id) implements CatalogChange {}

    /** An object was dropped: a rollback lists it again; the commit lets go of its dataflow and data. */
    record Dropped(CatalogState.Detached detached) implements CatalogChange {}

    /** Schema {@code name} (object {@code id}) was dropped, its objects before it. */
    record SchemaDropped(String name, long id) implements CatalogChange {}

    /** An object was defined again in place (ALTER TABLE, CREATE OR REPLACE VIEW): a rollback lists {@code before} again. */
    record Replaced(CatalogItem before, String schema, Set<Long> uses) implements CatalogChange {}

    /** The description of object {@code id}'s column {@code column} (0: the object) was {@code before} (null: none). */
    record Commented(long id, int column, String before) implements CatalogChange {}

    /** Object {@code id}'s history policy was {@code before} (null: none). */
    record Retained(long id, HistoryPolicy before) implements CatalogChange {}

    /**
     * The privileges or role that the durable catalog keeps under {@code key} ({@code relation
     * id}, {@code schema name}, {@code role name}) were {@code before} (null: none).
     */
    record Access(String key, String before) implements CatalogChange {}
}
