package dev.tributary.propertytests.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.DataType;
import dev.tributary.differential.MonotonicTopK;
import dev.tributary.propertytests.differential.EventTimeTest.Upd;
import java.util.Comparator;
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
 * {@link MonotonicTopK} against the top-k recomputed from scratch: at every time, per key
 * ({@code data % 3}), the accumulated insertions in descending order counted in units,
 * {@code offset} skipped and {@code limit} taken; the changes delivered at each time must be the
 * difference of that at the time and just before. Random insertions (some of multiplicity 2) at
 * random times, one to three workers.
 */
class MonotonicTopKTest {
    private static final DataType<Long> L = DataType.longs();

    @Provide
    Arbitrary<List<Upd>> insertions() {
        return Combinators.combine(Arbitraries.longs().between(0, 40), Arbitraries.longs().between(0, 20), Arbitraries.of(1L, 1L, 1L, 2L))
                .as(Upd::new).list().ofMaxSize(50);
    }

    /** The top-k of everything inserted at or before {@code t}. */
    static Map<Long, Long> topAt(List<Upd> updates, long t, long offset, long limit) {
        Map<Long, Long> out = new TreeMap<>();
        for (long key = 0; key < 3; key++) {
            TreeMap<Long, Long> values = new TreeMap<>(Comparator.reverseOrder());
            for (Upd u : updates) if (u.time() <= t && u.data() % 3 == key) values.merge(u.data(), u.diff(), Long::sum);
            long position = 0;
            for (Map.Entry<Long, Long> v : values.entrySet()) {
                long from = Math.max(position, offset);
                long to = limit < 0 ? position + v.getValue() : Math.min(position + v.getValue(), offset + limit);
                if (to > from) out.merge(v.getKey(), to - from, Long::sum);
                position += v.getValue();
            }
        }
        return out;
    }

    static Map<Long, Map<Long, Long>> model(List<Upd> updates, long offset, long limit) {
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        Map<Long, Long> before = Map.of();
        for (long t = 0; t <= 20; t++) {
            Map<Long, Long> now = topAt(updates, t, offset, limit);
            Map<Long, Long> change = new TreeMap<>();
            now.forEach((v, n) -> change.merge(v, n, Long::sum));
            before.forEach((v, n) -> change.merge(v, -n, Long::sum));
            change.values().removeIf(n -> n == 0);
            if (!change.isEmpty()) out.put(t, change);
            before = now;
        }
        return out;
    }

    @Property(seed = "2617")
    void theTopOfEachKeyAsTheInputGrows(@ForAll("insertions") List<Upd> updates, @ForAll @IntRange(min = -1, max = 5) int limit,
            @ForAll @IntRange(min = 0, max = 3) int offset, @ForAll @IntRange(min = 1, max = 3) int workers) {
        Map<Long, Map<Long, Long>> expected = model(updates, offset, limit);
        List<EventTimeTest.Event> events = EventTimeTest.run(updates, workers, 20, 3, (data, errors, sink) ->
                ChangeStream.subscribe(MonotonicTopK.topK(data, "test", d -> d % 3, L, Comparator.<Long>reverseOrder(), offset, limit), errors,
                        new ChangeStream.Options(-1, false, true, Long.MAX_VALUE), sink.<Long>of()));
        String context = workers + " workers, limit " + limit + ", offset " + offset + ", events " + events;
        assertThat(EventTimeTest.delivered(events, Long.MAX_VALUE, context)).as(context).isEqualTo(expected);
    }
}
