package dev.tributary.arrangements;

import dev.tributary.timely.Antichain;

/**
 * What a batch covers: every update at a time {@code t} with {@code lower <= t} and
 * {@code !(upper <= t)}, with its time advanced by {@code since} (so times before {@code since}
 * are no longer distinguished from each other; reads at times {@code >= since} are exact).
 */
public record Description(Antichain lower, Antichain upper, Antichain since) {
    @Override
    public String toString() {
        return "[" + lower + ", " + upper + ") since " + since;
    }
}
