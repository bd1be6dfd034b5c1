package dev.tributary.propertytests.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.DataType;
import dev.tributary.differential.KeyedProcess;
import dev.tributary.propertytests.differential.EventTimeTest.Upd;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * {@link KeyedProcess} against recomputation: a logic that numbers each key's data in order
 * (output {@code data * 100 + position}, as row_number would) and emits only the numbers that
 * move. At every time the changes delivered must be the difference of the numbering of the
 * accumulated input at that time and just before: so the logic must see each key's updates at
 * a time together, consolidated (an insertion and a retraction of one datum at one time cancel),
 * in data order, and times in order. Random insertions and later retractions at random times,
 * one to three workers.
 */
class KeyedProcessTest {
    private static final DataType<Long> L = DataType.longs();

    /** Numbers a key's data: its state is the data in order, with multiplicities. */
    static final class Numbering implements KeyedProcess.Logic<Long, Long, TreeMap<Long, Long>, Long> {
        @Override
        public TreeMap<Long, Long> create(Long key) {
            return new TreeMap<>();
        }

        @Override
        public boolean apply(Long key, TreeMap<Long, Long> state, Object[] data, long[] diffs, int count, KeyedProcess.Output<Long> out) {
            for (int i = 1; i < count; i++) assertThat((Long) data[i - 1]).as("data in order, distinct").isLessThan((Long) data[i]);
            for (int i = 0; i < count; i++) assertThat(diffs[i]).as("consolidated").isNotZero();
            List<Long> before = positions(state);
            for (int i = 0; i < count; i++) {
                long n = state.merge((Long) data[i], diffs[i], Long::sum);
                if (n == 0) state.remove((Long) data[i]);
            }
            List<Long> after = positions(state);
            // what moved: positions whose datum differs
            for (int p = 0; p < Math.max(before.size(), after.size()); p++) {
                Long b = p < before.size() ? before.get(p) : null;
                Long a = p < after.size() ? after.get(p) : null;
                if (b != null && b.equals(a)) continue;
                if (b != null) out.emit(b * 100 + p, -1);
                if (a != null) out.emit(a * 100 + p, 1);
            }
            return state.isEmpty();
        }

        @Override
        public long bytes(TreeMap<Long, Long> state) {
            return state.size() * 48L;
        }

        private static List<Long> positions(TreeMap<Long, Long> state) {
            List<Long> out = new ArrayList<>();
            state.forEach((d, n) -> {
                for (long c = 0; c < n; c++) out.add(d);
            });
            return out;
        }
    }

    /** Insertions, each retracted again at a later time when its last field says so. */
    @Provide
    Arbitrary<List<Upd>> updates() {
        Arbitrary<List<long[]>> inserts = Combinators.combine(Arbitraries.longs().between(0, 30), Arbitraries.longs().between(0, 15),
                Arbitraries.longs().between(-4, 5)).as((d, t, r) -> new long[] {d, t, r}).list().ofMaxSize(40);
        return inserts.map(list -> {
            List<Upd> out = new ArrayList<>();
            for (long[] x : list) {
                out.add(new Upd(x[0], x[1], 1));
                if (x[2] >= 0) out.add(new Upd(x[0], x[1] + x[2], -1));
            }
            return out;
        });
    }

    /** The numbering of everything at or before {@code t}, by key {@code data % 3}. */
    static Map<Long, Long> numberingAt(List<Upd> updates, long t) {
        Map<Long, Long> out = new TreeMap<>();
        for (long key = 0; key < 3; key++) {
            TreeMap<Long, Long> held = new TreeMap<>();
            for (Upd u : updates) if (u.time() <= t && u.data() % 3 == key) held.merge(u.data(), u.diff(), Long::sum);
            long p = 0;
            for (Map.Entry<Long, Long> e : held.entrySet()) for (long c = 0; c < e.getValue(); c++) out.merge(e.getKey() * 100 + p++, 1L, Long::sum);
        }
        return out;
    }

    @Property(seed = "4201")
    void eachTimesOutputIsTheChangeOfTheRecomputedResult(@ForAll("updates") List<Upd> updates, @ForAll @IntRange(min = 1, max = 3) int workers) {
        Map<Long, Map<Long, Long>> expected = new TreeMap<>();
        Map<Long, Long> before = Map.of();
        for (long t = 0; t <= 20; t++) {
            Map<Long, Long> now = numberingAt(updates, t);
            Map<Long, Long> change = new TreeMap<>(now);
            before.forEach((v, n) -> change.merge(v, -n, Long::sum));
            change.values().removeIf(n -> n == 0);
            if (!change.isEmpty()) expected.put(t, change);
            before = now;
        }
        List<EventTimeTest.Event> events = EventTimeTest.run(updates, workers, 20, 3, (data, errors, sink) ->
                ChangeStream.subscribe(KeyedProcess.process(data, "test", d -> d % 3, L, new Numbering(), L), errors,
                        new ChangeStream.Options(-1, false, true, Long.MAX_VALUE), sink.<Long>of()));
        String context = workers + " workers, events " + events;
        assertThat(EventTimeTest.delivered(events, Long.MAX_VALUE, context)).as(context).isEqualTo(expected);
    }
}
