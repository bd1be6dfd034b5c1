package dev.tributary.propertytests.timely;

import java.util.ArrayList;
import java.util.List;

/**
 * What the workers' programs do with their input handles, as a value.
 *
 * <p>Each command belongs to one worker, which carries it out on its own thread in script order;
 * the workers run concurrently, so their commands interleave differently on every run. A worker's
 * handles start at time 0 and move only by {@link Advance}; records go in at the handle's current
 * time, so several records per time, gaps and multi-step advances all come from the script.
 *
 * <p>Generated as {@link RawCmd raw commands} read modulo the worker and input counts; commands
 * for a handle that was closed are dropped when resolving, so every raw list is a valid script.
 */
final class Script {
    private Script() {}

    sealed interface Cmd permits Send, SendContainer, Advance, Step, Close {
        int worker();
    }

    /** Appends {@code value} to the handle's staged container. */
    record Send(int worker, int input, long value) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + " sends " + value + " to input " + input;
        }
    }

    /** Hands the handle a whole container with {@code values}. */
    record SendContainer(int worker, int input, List<Long> values) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + " sends container " + values + " to input " + input;
        }
    }

    /** Moves the handle {@code by} >= 1 steps forward. */
    record Advance(int worker, int input, long by) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + " advances input " + input + " by " + by;
        }
    }

    /** Runs {@code times} worker steps in the middle of the program. */
    record Step(int worker, int times) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + " steps " + times + "x";
        }
    }

    /** Closes the handle: no more records from this worker on this input. */
    record Close(int worker, int input) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + " closes input " + input;
        }
    }

    enum Kind { SEND, ADVANCE, SEND_CONTAINER, STEP, CLOSE }

    record RawCmd(Kind kind, int worker, int input, int x, int y) {
        @Override
        public String toString() {
            return kind + "(" + worker + "," + input + "," + x + "," + y + ")";
        }
    }

    /**
     * The commands of {@code raw} for {@code workers} workers and {@code inputs} inputs. With a
     * {@code ceiling}, handles never advance to it or past it (the caller advances them there
     * itself), and closing is not allowed; {@code times[w][i]} is each handle's time, updated.
     */
    static List<Cmd> resolve(List<RawCmd> raw, int workers, int inputs, long[][] times, long ceiling, boolean[][] closed) {
        List<Cmd> out = new ArrayList<>();
        for (RawCmd r : raw) {
            int w = Math.floorMod(r.worker(), workers);
            int i = Math.floorMod(r.input(), inputs);
            if (r.kind() != Kind.STEP && closed[w][i]) continue;
            switch (r.kind()) {
                case SEND -> out.add(new Send(w, i, r.x()));
                case SEND_CONTAINER -> {
                    List<Long> values = new ArrayList<>();
                    for (int k = 0; k <= Math.floorMod(r.y(), 4); k++) values.add((long) r.x() + k);
                    out.add(new SendContainer(w, i, values));
                }
                case ADVANCE -> {
                    long by = 1 + Math.floorMod(r.y(), 3);
                    if (ceiling != Long.MAX_VALUE) by = Math.min(by, ceiling - 1 - times[w][i]);
                    if (by > 0) {
                        times[w][i] += by;
                        out.add(new Advance(w, i, by));
                    }
                }
                case STEP -> out.add(new Step(w, 1 + Math.floorMod(r.y(), 3)));
                case CLOSE -> {
                    if (ceiling == Long.MAX_VALUE) {
                        closed[w][i] = true;
                        out.add(new Close(w, i));
                    }
                }
            }
        }
        return out;
    }

    /** A whole-run script: no ceiling, closing allowed. */
    static List<Cmd> resolve(List<RawCmd> raw, int workers, int inputs) {
        return resolve(raw, workers, inputs, new long[workers][inputs], Long.MAX_VALUE, new boolean[workers][inputs]);
    }
}
