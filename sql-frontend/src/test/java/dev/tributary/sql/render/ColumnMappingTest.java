package dev.tributary.sql.render;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.arrangements.BytesColumn;
import dev.tributary.differential.Arrangement;
import dev.tributary.differential.Collection;
import dev.tributary.differential.InputSession;
import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.row.RowDataType;
import dev.tributary.sql.types.SqlType;
import dev.tributary.timely.Config;
import dev.tributary.timely.Probe;
import dev.tributary.timely.Timely;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The column-to-column forms of map and arrange give, at every time, what their row-at-a-time
 * forms give: {@code mapColumns} with a projection (and a drop) against {@code filter} and
 * {@code map}, {@code arrangeByKeyColumns} with a NULL-dropping key against {@code filter} and
 * {@code arrangeByKey}, with rows fed one by one ({@code update}) and in ranges of a slab
 * ({@code updateRange}), on one and two workers.
 */
class ColumnMappingTest {
    private static final RowCodec CODEC = RowCodec.of(SqlType.INTEGER, SqlType.INTEGER, SqlType.TEXT);
    private static final RowDataType ROW = RowDataType.INSTANCE;
    private static final int STEPS = 25;

    @Test
    void columnFormsAgreeWithRowFormsAtEveryTime() {
        for (int workers = 1; workers <= 2; workers++) {
            Map<String, Map<String, Long>> reads = new ConcurrentHashMap<>();
            Timely.run(Config.workers(workers), w -> {
                List<Arrangement<Row, ?>> all = new ArrayList<>();
                List<InputSession<Row>> inputs = new ArrayList<>();
                List<Probe> probes = new ArrayList<>();
                RowCodec.Projection second = CODEC.projection(new int[] {2, 0});
                RowCodec.Projection key = CODEC.projection(new int[] {1});
                Probe probe = w.dataflow("mapping", scope -> {
                    InputSession<Row> one = InputSession.create(scope, "one by one", ROW);
                    InputSession<Row> ranged = InputSession.create(scope, "in ranges", ROW);
                    inputs.add(one);
                    inputs.add(ranged);
                    Collection<Row> rows = one.collection();
                    // (text, a) of the rows whose a is odd
                    all.add(rows.filter(r -> (long) CODEC.get(r, 0) % 2 != 0).map(second::apply, ROW).arrangeBySelf());
                    all.add(ranged.collection().mapColumns((from, i, into) -> {
                        BytesColumn c = (BytesColumn) from;
                        return (long) CODEC.get(ROW.get(c, i), 0) % 2 != 0 && second.map(from, i, into);
                    }, ROW).arrangeBySelf());
                    // by b, the rows whose b is not NULL
                    all.add(rows.filter(r -> !CODEC.isNull(r, 1)).arrangeByKey(key::apply, ROW, r -> r, ROW));
                    all.add(ranged.collection().arrangeByKeyColumns((from, i, into) -> {
                        BytesColumn c = (BytesColumn) from;
                        return !CODEC.isNull(c.slab(), c.start(i), 1) && key.map(from, i, into);
                    }, ROW, Collection::copy, ROW));
                    for (Arrangement<Row, ?> a : all) probes.add(a.batches().probe());
                    return probes.get(0);
                });
                SplittableRandom random = new SplittableRandom(41 + w.index());
                List<Row> live = new ArrayList<>();
                for (long t = 0; t < STEPS; t++) {
                    BytesColumn slab = new BytesColumn();
                    // now and then a slab of more than two of an input's containers (whole ones are made apart)
                    int rows = t % 5 == 2 ? 2_600 : 30;
                    for (int i = 0; i < rows; i++) {
                        Row r = CODEC.encode((long) random.nextInt(20), random.nextInt(4) == 0 ? null : (long) random.nextInt(6), "s" + random.nextInt(3));
                        inputs.get(0).update(r, 1);
                        ROW.append(slab, r);
                        live.add(r);
                    }
                    inputs.get(1).updateRange(slab, 0, slab.size(), 1);
                    if (!live.isEmpty()) {
                        Row gone = live.remove(random.nextInt(live.size()));
                        inputs.get(0).update(gone, -1);
                        BytesColumn one = new BytesColumn();
                        ROW.append(one, gone);
                        inputs.get(1).updateRange(one, 0, 1, -1);
                    }
                    for (InputSession<Row> in : inputs) in.advanceTo(t + 1);
                    long done = t;
                    w.stepWhile(() -> probes.stream().anyMatch(p -> p.lessEqual(done)));
                    for (int a = 0; a < all.size(); a++) {
                        Map<String, Long> seen = reads.computeIfAbsent(a + "@" + t, k -> new ConcurrentHashMap<>());
                        all.get(a).trace().readAt(new long[] {t + 1}, (kc, k, vc, v, n) -> seen.merge(kc.get(k) + "/" + vc.get(v), n, Long::sum));
                    }
                }
                for (InputSession<Row> in : inputs) in.close();
                w.stepWhile(() -> !probes.stream().allMatch(Probe::isDone));
            });
            for (long t = 0; t < STEPS; t++) {
                for (int a = 0; a < 4; a += 2) {
                    Map<String, Long> rowForm = new TreeMap<>(reads.getOrDefault(a + "@" + t, Map.of()));
                    rowForm.values().removeIf(n -> n == 0);
                    Map<String, Long> columnForm = new TreeMap<>(reads.getOrDefault((a + 1) + "@" + t, Map.of()));
                    columnForm.values().removeIf(n -> n == 0);
                    assertThat(columnForm).as("workers %d, pair %d, time %d", workers, a / 2, t).isNotEmpty().isEqualTo(rowForm);
                }
            }
        }
    }
}
