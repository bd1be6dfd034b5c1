package dev.tributary.propertytests.differential;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the workers' programs do with their input sessions, as a value: the input of a property.
 *
 * <p>Every worker has one {@code InputSession<Long>} per input, all at the worker's own time,
 * which starts at 0. Each command belongs to one worker, which carries it out on its own thread
 * in script order, so the workers' commands interleave differently on every run (the reference
 * does not care: it only reads the updates). An update goes in at the worker's time or up to
 * four later ({@code updateAt}), so updates arrive out of time order; some take back an earlier
 * update; advances jump by one or more; flushes and steps split the updates into containers and
 * batches at random. After its
 * last command a worker closes its sessions.
 *
 * <p>Generated as {@link Raw raw commands} read modulo the worker and input counts (see
 * {@link #resolve}), so every raw list is a valid script and jqwik shrinks a failure by deleting
 * commands and zeroing their numbers.
 */
record Script(int workers, int inputs, List<Cmd> commands) {
    sealed interface Cmd permits Update, Advance, Flush, Step {
        int worker();
    }

    /** {@code updateAt(data, time, diff)} on input {@code input}. */
    record Update(int worker, int input, long data, long time, long diff) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + ": in" + input + " " + (diff >= 0 ? "+" : "") + diff + " x " + data + " @" + time;
        }
    }

    /** {@code advanceTo(to)} on every session of the worker. */
    record Advance(int worker, long to) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + ": advance to " + to;
        }
    }

    /** {@code flush()} on every session of the worker. */
    record Flush(int worker) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + ": flush";
        }
    }

    /** {@code worker.step()}, {@code times} times. */
    record Step(int worker, int times) implements Cmd {
        @Override
        public String toString() {
            return "w" + worker + ": step x" + times;
        }
    }

    enum Kind { UPDATE, RETRACT, ADVANCE, FLUSH, STEP }

    /**
     * A command as jqwik generates it: {@code data} is the datum, {@code offset} how far after the
     * worker's time an update lands (or, for an advance, {@code 1 + offset} is the jump), and
     * {@code diff} the update's diff. A retraction is an update that takes back an earlier update
     * of the same input (the {@code data}-th latest, from any worker): its datum with the diff
     * negated, at a later time, so that data really leave rather than only go negative.
     */
    record Raw(Kind kind, int worker, int input, int data, int offset, long diff) {
        @Override
        public String toString() {
            return kind + "(w" + worker + ",in" + input + "," + data + ",+" + offset + "," + diff + ")";
        }
    }

    /** The script of {@code raw} for {@code workers} workers and {@code inputs} inputs. */
    static Script resolve(int workers, int inputs, List<Raw> raw) {
        long[] now = new long[workers];
        List<Cmd> out = new ArrayList<>();
        List<List<Update>> earlier = new ArrayList<>();
        for (int i = 0; i < inputs; i++) earlier.add(new ArrayList<>());
        for (Raw r : raw) {
            int w = Math.floorMod(r.worker(), workers);
            int input = Math.floorMod(r.input(), inputs);
            switch (r.kind()) {
                case UPDATE -> {
                    Update u = new Update(w, input, r.data(), now[w] + r.offset(), r.diff());
                    earlier.get(input).add(u);
                    out.add(u);
                }
                case RETRACT -> {
                    List<Update> e = earlier.get(input);
                    if (e.isEmpty()) continue;
                    Update taken = e.get(e.size() - 1 - Math.floorMod(r.data(), e.size()));
                    out.add(new Update(w, input, taken.data(), Math.max(now[w], taken.time() + 1) + r.offset(), -taken.diff()));
                }
                case ADVANCE -> {
                    now[w] += 1 + r.offset();
                    out.add(new Advance(w, now[w]));
                }
                case FLUSH -> out.add(new Flush(w));
                case STEP -> out.add(new Step(w, 1 + Math.floorMod(r.offset(), 3)));
            }
        }
        return new Script(workers, inputs, out);
    }

    /** The updates of input {@code input}, in script order. */
    List<Upd<Long>> updates(int input) {
        List<Upd<Long>> out = new ArrayList<>();
        for (Cmd c : commands) {
            if (c instanceof Update u && u.input() == input) out.add(new Upd<>(u.data(), u.time(), u.diff()));
        }
        return out;
    }

    /** The accumulation of every input at {@code time}. */
    List<Map<Long, Long>> accumulated(long time) {
        List<Map<Long, Long>> out = new ArrayList<>();
        for (int i = 0; i < inputs; i++) out.add(Multisets.accumulate(updates(i), time));
        return out;
    }

    /** One past the latest time the script names: every input is constant from here on. */
    long horizon() {
        long h = 0;
        for (Cmd c : commands) {
            if (c instanceof Update u) h = Math.max(h, u.time());
            if (c instanceof Advance a) h = Math.max(h, a.to());
        }
        return h + 1;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(workers).append(workers == 1 ? " worker, " : " workers, ").append(inputs).append(inputs == 1 ? " input" : " inputs");
        if (commands.isEmpty()) return sb.append(", no commands").toString();
        sb.append(":");
        for (Cmd c : commands) sb.append("\n    ").append(c);
        return sb.toString();
    }
}
