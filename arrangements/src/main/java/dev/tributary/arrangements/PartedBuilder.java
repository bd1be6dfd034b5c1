package dev.tributary.arrangements;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds a merge's result like {@link BatchBuilder}, in {@linkplain Paging parts} where the
 * result is large and paging is on: each part is sealed at a key boundary once it holds about
 * {@link Paging#partBytes()}, written to its file and left to paging, so that a merge of batches
 * larger than the heap holds one part of its result at a time.
 */
final class PartedBuilder {
    private final Column keyProto;
    private final Column valProto;
    private final int arity;
    private final Description description;
    /** Updates per part (MAX_VALUE: one plain batch). */
    private final long perPart;
    private final int partCapacity;
    private final long partKeyBytes;
    private final long partValBytes;
    private BatchBuilder current;
    private final List<Part> parts = new ArrayList<>();
    private Column bounds;

    /** A builder for the merge of {@code inputs} (any of them parted), the result described by {@code description}. */
    PartedBuilder(Batch[] inputs, Description description) {
        this.keyProto = inputs[0].keyProto();
        this.valProto = inputs[0].valProto();
        this.arity = inputs[0].arity;
        this.description = description;
        long updates = 0;
        long keyBytes = 0;
        long valBytes = 0;
        long encoded = 0;
        for (Batch b : inputs) {
            updates += b.updateCount();
            keyBytes += b.keyBytes();
            valBytes += b.valBytes();
            encoded += b.encodedBytes();
        }
        if (!Paging.parts(encoded) || updates == 0 || !BatchCodec.encodable(keyProto, valProto)) {
            int u = (int) Math.min(updates, Integer.MAX_VALUE - 8);
            // at most all the inputs' keys and values: sized once, not grown by doubling
            current = new BatchBuilder(keyProto, valProto, arity, u, u, u, keyBytes, valBytes);
            perPart = Long.MAX_VALUE;
            partCapacity = 0;
            partKeyBytes = 0;
            partValBytes = 0;
        } else {
            double share = (double) Paging.partBytes() / encoded;
            perPart = Math.max(1, (long) (updates * share));
            // a little over a part's share, so that a part seldom grows before it is sealed
            partCapacity = (int) Math.min(Integer.MAX_VALUE - 8, perPart + perPart / 4 + 16);
            partKeyBytes = (long) (keyBytes * share * 1.25) + 64;
            partValBytes = (long) (valBytes * share * 1.25) + 64;
            current = newPart();
            bounds = keyProto.emptyLike(16);
        }
    }

    private BatchBuilder newPart() {
        return new BatchBuilder(keyProto, valProto, arity, partCapacity, partCapacity, partCapacity, partKeyBytes, partValBytes);
    }

    /**
     * Appends an update, told whether it starts a new key and a new value ({@link
     * BatchBuilder#push(Column, int, Column, int, long[], int, long, boolean, boolean)}); the
     * caller guarantees order and consolidation. A part is sealed only where a key begins.
     */
    void push(Column kc, int ki, Column vc, int vi, long[] t, int toff, long diff, boolean newKey, boolean newVal) {
        if (newKey && current.updates() >= perPart) seal();
        current.push(kc, ki, vc, vi, t, toff, diff, newKey, newVal);
    }

    private void seal() {
        Batch plain = current.build(description);
        parts.add(Paging.spill(plain));
        bounds.append(plain.keys, plain.keys.size() - 1);
        current = newPart();
    }

    /** The batch built: plain if small (or nothing was parted), else parted. */
    Batch build() {
        if (parts.isEmpty()) return current.build(description);
        if (current.updates() > 0) seal();
        return new Batch(parts.toArray(new Part[0]), bounds, keyProto, valProto, arity, description);
    }
}
