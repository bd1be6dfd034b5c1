package dev.tributary.storage;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tributary.storage.proto.ProtoCatalogEntry;
import java.util.List;

/**
 * One object of the durable catalog: its id, kind and name, the statement that made it (bound
 * again when the server recovers, under the {@code search_path} it first ran under: empty for
 * the default) and the ids of the objects it reads. Encoded as
 * {@link ProtoCatalogEntry}; an entry's bytes are the catalog shard's record for it.
 */
public record CatalogEntry(long id, String kind, String name, String sql, List<Long> uses, String searchPath) {
    public CatalogEntry {
        if (id < 0) throw new IllegalArgumentException("a catalog id is not negative: " + id);
        if (kind == null || kind.isEmpty() || name == null || sql == null) throw new IllegalArgumentException("a catalog entry has a kind, a name and a statement");
        uses = List.copyOf(uses);
        if (searchPath == null) searchPath = "";
    }

    /** An entry whose statement runs under the default search_path. */
    public CatalogEntry(long id, String kind, String name, String sql, List<Long> uses) {
        this(id, kind, name, sql, uses, "");
    }

    byte[] encode() {
        ProtoCatalogEntry.Builder b = ProtoCatalogEntry.newBuilder().setId(id).setKind(kind).setName(name).setSql(sql);
        for (long u : uses) b.addUses(u);
        b.setSearchPath(searchPath);
        return b.build().toByteArray();
    }

    static CatalogEntry decode(byte[] bytes, String where) {
        try {
            ProtoCatalogEntry p = ProtoCatalogEntry.parseFrom(bytes);
            return new CatalogEntry(p.getId(), p.getKind(), p.getName(), p.getSql(), p.getUsesList(), p.getSearchPath());
        } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
            throw new CorruptDataException(where + " is not a catalog entry: " + e.getMessage());
        }
    }
}
