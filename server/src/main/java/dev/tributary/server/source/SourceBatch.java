package dev.tributary.server.source;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The records a connector gathers for one commit: an append-only source's rows, or a keyed
 * source's changes ({@link Decoder#keyed}), so that a connector reads either kind of source the
 * same way. Not thread-safe: one connector's thread.
 */
final class SourceBatch {
    private final Decoder decoder;
    private final boolean keyed;
    private List<Object[]> rows = new ArrayList<>();
    private List<SourceChange> changes = new ArrayList<>();

    SourceBatch(Decoder decoder) {
        this.decoder = decoder;
        this.keyed = decoder.keyed();
    }

    /** Decodes the record {@code b[off, off + len)}, which has no message key, into the batch (a record that holds nothing adds nothing). */
    void decode(byte[] b, int off, int len) throws DecodeException {
        if (keyed) {
            SourceChange c = decoder.change(null, b, off, len);
            if (c != null) changes.add(c);
        } else {
            Object[] row = decoder.decode(b, off, len);
            if (row != null) rows.add(row);
        }
    }

    /** Adds an append-only source's row. */
    void add(Object[] row) {
        rows.add(row);
    }

    /** Adds a keyed source's change. */
    void add(SourceChange change) {
        changes.add(change);
    }

    /** The records gathered. */
    int size() {
        return keyed ? changes.size() : rows.size();
    }

    /** Drops the records after the first {@code size} (those of a message refused whole). */
    void truncate(int size) {
        if (keyed) changes.subList(size, changes.size()).clear();
        else rows.subList(size, rows.size()).clear();
    }

    /**
     * Commits the records with {@code positions} ({@link SourceContext#commit} or, when
     * {@code pipelined}, {@link SourceContext#commitPipelined}, or their keyed forms) and starts
     * an empty batch: the lists handed over are not touched again.
     */
    void commit(SourceContext ctx, Map<String, String> positions, boolean pipelined) {
        if (keyed) {
            List<SourceChange> c = changes;
            changes = new ArrayList<>();
            if (pipelined) ctx.commitChangesPipelined(c, positions);
            else ctx.commitChanges(c, positions);
        } else {
            List<Object[]> r = rows;
            rows = new ArrayList<>();
            if (pipelined) ctx.commitPipelined(r, positions);
            else ctx.commit(r, positions);
        }
    }
}
