package dev.tributary.propertytests.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.changeslog.ChangeStream;
import dev.tributary.differential.DataType;
import dev.tributary.differential.FirstRows;
import dev.tributary.propertytests.differential.EventTimeTest.Upd;
import java.util.ArrayList;
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
 * {@link FirstRows} against its model, recomputed from scratch: per key ({@code data % 3}) the
 * insertions in order of time, then of datum, each copy of a row one position; the copies at
 * positions {@code [offset, offset + limit)} come out at their rows' times, and nothing else,
 * ever. Random insertions (some with multiplicity 2) at random times, one to three workers.
 */
class FirstRowsTest {
    private static final DataType<Long> L = DataType.longs();

    @Provide
    Arbitrary<List<Upd>> insertions() {
        return Combinators.combine(Arbitraries.longs().between(0, 40), Arbitraries.longs().between(0, 20), Arbitraries.of(1L, 1L, 1L, 2L))
                .as(Upd::new).list().ofMaxSize(50);
    }

    static Map<Long, Map<Long, Long>> model(List<Upd> updates, long limit, long offset) {
        List<Upd> sorted = new ArrayList<>(updates);
        sorted.sort(Comparator.comparingLong(Upd::time).thenComparingLong(Upd::data));
        long[] seen = new long[3];
        Map<Long, Map<Long, Long>> out = new TreeMap<>();
        for (Upd u : sorted) {
            int key = (int) (u.data() % 3);
            long from = Math.max(seen[key], offset);
            long to = Math.min(seen[key] + u.diff(), offset + limit);
            seen[key] += u.diff();
            if (to > from) out.computeIfAbsent(u.time(), t -> new TreeMap<>()).merge(u.data(), to - from, Long::sum);
        }
        return out;
    }

    @Property(seed = "2616")
    void theFirstRowsOfEachKeyByTime(@ForAll("insertions") List<Upd> updates, @ForAll @IntRange(min = 0, max = 6) int limit,
            @ForAll @IntRange(min = 0, max = 3) int offset, @ForAll @IntRange(min = 1, max = 3) int workers) {
        Map<Long, Map<Long, Long>> expected = model(updates, limit, offset);
        List<EventTimeTest.Event> events = EventTimeTest.run(updates, workers, 20, 3, (data, errors, sink) ->
                ChangeStream.subscribe(FirstRows.of(data, d -> d % 3, L, limit, offset), errors, new ChangeStream.Options(-1, false, true, Long.MAX_VALUE),
                        sink.<Long>of()));
        String context = workers + " workers, limit " + limit + ", offset " + offset + ", events " + events;
        assertThat(EventTimeTest.delivered(events, Long.MAX_VALUE, context)).as(context).isEqualTo(expected);
    }
}
