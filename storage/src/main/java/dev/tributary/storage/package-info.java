/**
 * Durable collections: shards of immutable batch parts in a {@link dev.tributary.storage.Blob}
 * store, listed by a state changed only by compare-and-set in a
 * {@link dev.tributary.storage.Consensus} store.
 *
 * <p>The public API: {@link dev.tributary.storage.DataDirectory} (a data directory held by one
 * process: file blob and consensus stores), {@link dev.tributary.storage.Shard} (append fenced by
 * writer epoch, snapshot at a time, readers' holds and since, spine compaction, garbage
 * collection), {@link dev.tributary.storage.ShardState} and its parts, and the two store
 * contracts with file and in-memory implementations. Errors: {@link
 * dev.tributary.storage.StorageException} (a store could not do it) and {@link
 * dev.tributary.storage.CorruptDataException} (stored bytes are not what was written; names the
 * object). Not yet wired into the server: tables, views and the catalog are still in memory.
 */
package dev.tributary.storage;
