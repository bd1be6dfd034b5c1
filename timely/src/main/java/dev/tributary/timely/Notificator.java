package dev.tributary.timely;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Tells an operator when its input frontiers have passed times it asked about: the standard way
 * to act once a time is complete (emit a window, a count per time, ...).
 *
 * <p>{@link #notifyAt} keeps a capability; {@link #forEachReady} hands back, in time order, each
 * one whose time no given frontier can still reach, then drops it. Requests at the same time are
 * delivered once.
 */
public final class Notificator {
    private final List<Capability> pending = new ArrayList<>();

    /** Asks to be told when the frontiers pass {@code capability}'s time; takes ownership of it. */
    public void notifyAt(Capability capability) {
        if (capability.borrowed) capability = capability.retain();
        for (int i = 0; i < pending.size(); i++) {
            if (java.util.Arrays.equals(pending.get(i).time, capability.time)) {
                capability.drop();
                return;
            }
        }
        pending.add(capability);
    }

    /** Whether any notification is outstanding. */
    public boolean isEmpty() {
        return pending.isEmpty();
    }

    /** Delivers the capabilities whose times none of {@code frontiers} can reach, earliest first, dropping each afterwards. */
    public void forEachReady(Consumer<Capability> action, Antichain... frontiers) {
        if (pending.isEmpty()) return;
        List<Capability> ready = null;
        for (int i = 0; i < pending.size(); i++) {
            Capability c = pending.get(i);
            if (reachable(c.time, frontiers)) continue;
            if (ready == null) ready = new ArrayList<>();
            ready.add(c);
        }
        if (ready == null) return; // the common case: nothing is complete yet, and nothing is allocated
        pending.removeAll(ready);
        ready.sort((a, b) -> Timestamps.compare(a.time, b.time));
        for (Capability c : ready) {
            try {
                action.accept(c);
            } finally {
                if (c.isValid()) c.drop();
            }
        }
    }

    private static boolean reachable(long[] time, Antichain[] frontiers) {
        for (Antichain f : frontiers) {
            if (f.lessEqual(time)) return true;
        }
        return false;
    }
}
