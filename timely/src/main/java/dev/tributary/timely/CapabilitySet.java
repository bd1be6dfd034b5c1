package dev.tributary.timely;

import java.util.ArrayList;
import java.util.List;

/**
 * Owned capabilities of one operator whose times form an antichain: what an operator holds for
 * work it has buffered. Invariant: no held time is {@code <=} another; inserting a capability
 * covered by a held one keeps nothing, and one that covers held ones replaces them.
 */
public final class CapabilitySet {
    private final List<Capability> caps = new ArrayList<>();
    /** Scratch of {@link #downgradeTo}; empty between calls. */
    private final List<Capability> next = new ArrayList<>();

    /** Holds a copy of {@code cap} (borrowed or owned) unless a held capability is at or before it. */
    public void insert(Capability cap) {
        // Index loops and an in-place compaction: operators insert per message, and neither an
        // iterator nor a capturing removeIf predicate should cost an allocation each time.
        int n = caps.size();
        for (int i = 0; i < n; i++) {
            if (Timestamps.lessEqual(caps.get(i).time(), cap.time())) return;
        }
        int w = 0;
        for (int i = 0; i < n; i++) {
            Capability c = caps.get(i);
            if (Timestamps.lessEqual(cap.time(), c.time())) c.drop();
            else caps.set(w++, c);
        }
        for (int i = n - 1; i >= w; i--) caps.remove(i);
        caps.add(cap.retain());
    }

    /** A held capability at or before {@code t}, or {@code null}. */
    public Capability holder(long[] t) {
        for (int i = 0; i < caps.size(); i++) {
            Capability c = caps.get(i);
            if (Timestamps.lessEqual(c.time(), t)) return c;
        }
        return null;
    }

    /** The held capabilities in lexicographic time order (a time's predecessors come first); do not modify. */
    public List<Capability> sorted() {
        caps.sort((x, y) -> Timestamps.compare(x.time(), y.time()));
        return caps;
    }

    /**
     * Replaces the held capabilities by one at each time of {@code times}, each made from a held
     * capability at or before it; an empty antichain drops them all.
     *
     * @throws IllegalStateException naming {@code operator} if some time has no held capability before it
     */
    public void downgradeTo(Antichain times, String operator) {
        // Operators downgrade every step; the new capabilities are collected in a reused list.
        List<Capability> next = this.next;
        for (int e = 0; e < times.size(); e++) {
            long[] t = times.get(e);
            Capability holder = holder(t);
            if (holder == null) {
                for (int i = 0; i < next.size(); i++) next.get(i).drop();
                next.clear();
                throw new IllegalStateException("operator '" + operator + "' holds no capability at or before " + Timestamps.toString(t) + " (holds " + caps + ")");
            }
            next.add(holder.delayed(t));
        }
        for (int i = 0; i < caps.size(); i++) caps.get(i).drop();
        caps.clear();
        for (int i = 0; i < next.size(); i++) caps.add(next.get(i));
        next.clear();
    }

    public boolean isEmpty() {
        return caps.isEmpty();
    }

    @Override
    public String toString() {
        return caps.toString();
    }
}
