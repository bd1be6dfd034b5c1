package dev.tributary.server;

import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one cursor of a consumer group reads (see {@link ConsumerGroups}): of its subscription's
 * changes (with progress), the rows of the partitions it holds that come after the group's
 * positions, each change of a row repeated per unit of its diff, in a fixed order within a time
 * (the rows' encoded bytes); and the positions the rows FETCH has handed out reach, which the
 * block's COMMIT writes.
 *
 * <p>{@link #filter} runs on the thread that delivers the subscription's batches, the rest on the
 * session's; the cursor's monitor orders them.
 */
final class GroupRead {
    /** A row of the cursor's queue that is not the client's: all changes before its time were queued. */
    static final Object PROGRESS = new Object();

    final ConsumerGroups.Group group;
    final Session session;
    final int[] partitions;
    private final boolean[] held = new boolean[ConsumerGroups.PARTITIONS];
    private final ConsumerGroups.Position[] start = new ConsumerGroups.Position[ConsumerGroups.PARTITIONS];
    private final ConsumerGroups.Position[] reached = new ConsumerGroups.Position[ConsumerGroups.PARTITIONS];
    private final RowCodec codec;
    /** The columns before the query's in a subscription's rows: change_time, change_progressed, change_diff. */
    private static final int PREFIX = 3;

    GroupRead(ConsumerGroups.Group group, Session session, int[] partitions, List<SqlType> types) {
        this.group = group;
        this.session = session;
        this.partitions = partitions.clone();
        for (int p : partitions) {
            held[p] = true;
            start[p] = group.positions[p];
            reached[p] = group.positions[p];
        }
        this.codec = new RowCodec(types);
    }

    /** Where the cursor's subscription starts: the earliest position of the partitions it holds. */
    long resumeAt() {
        long at = Long.MAX_VALUE;
        for (int p : partitions) at = Math.min(at, start[p].time());
        return at;
    }

    /**
     * A batch of the subscription as the cursor's queue takes it: the client's rows
     * ({@code change_time, change_diff, columns...}, then the partition, which FETCH strips),
     * and {@code [PROGRESS, time]} for each progress row.
     */
    List<Object[]> filter(Result batch) {
        List<Object[]> out = new ArrayList<>();
        // the rows of one time by partition, ordered, so that a position's count means the same rows at every read
        Map<Long, Map<Integer, List<Object[]>>> byTime = new java.util.TreeMap<>();
        for (Object[] r : batch.rows()) {
            long time = ((Instant) r[0]).toEpochMilli();
            if (Boolean.TRUE.equals(r[1])) {
                flush(byTime, out);
                out.add(new Object[] {PROGRESS, time});
                continue;
            }
            Object[] values = Arrays.copyOfRange(r, PREFIX, r.length);
            Row encoded = codec.encode(values);
            int p = (int) Math.floorMod(encoded.hash() >>> 7, (long) ConsumerGroups.PARTITIONS);
            if (!held[p] || time < start[p].time()) continue;
            long diff = (Long) r[2];
            List<Object[]> rows = byTime.computeIfAbsent(time, t -> new HashMap<>()).computeIfAbsent(p, k -> new ArrayList<>());
            for (long k = 0; k < Math.abs(diff); k++) {
                Object[] row = new Object[2 + values.length + 2];
                row[0] = r[0];
                row[1] = diff > 0 ? 1L : -1L;
                System.arraycopy(values, 0, row, 2, values.length);
                row[row.length - 2] = p;
                row[row.length - 1] = encoded;
                rows.add(row);
            }
        }
        flush(byTime, out);
        return out;
    }

    private void flush(Map<Long, Map<Integer, List<Object[]>>> byTime, List<Object[]> out) {
        for (Map.Entry<Long, Map<Integer, List<Object[]>>> t : byTime.entrySet()) {
            for (Map.Entry<Integer, List<Object[]>> e : t.getValue().entrySet()) {
                List<Object[]> rows = e.getValue();
                rows.sort((a, b) -> {
                    int c = ((Row) a[a.length - 1]).compareTo((Row) b[b.length - 1]);
                    return c != 0 ? c : Long.compare((Long) a[1], (Long) b[1]);
                });
                ConsumerGroups.Position from = start[e.getKey()];
                long skip = t.getKey() == from.time() ? from.taken() : 0;
                for (int i = (int) Math.min(skip, rows.size()); i < rows.size(); i++) out.add(rows.get(i));
            }
        }
        byTime.clear();
    }

    /** FETCH hands out {@code row} (a queue row of {@link #filter}'s): the client's part of it. */
    Object[] fetched(Object[] row) {
        int p = (Integer) row[row.length - 2];
        long time = ((Instant) row[0]).toEpochMilli();
        ConsumerGroups.Position at = reached[p];
        reached[p] = time == at.time() ? new ConsumerGroups.Position(time, at.taken() + 1) : new ConsumerGroups.Position(time, 1);
        return Arrays.copyOf(row, row.length - 2);
    }

    /** FETCH passed a progress mark at {@code time}: every row before it was handed out. */
    void progressed(long time) {
        for (int p : partitions) {
            ConsumerGroups.Position at = new ConsumerGroups.Position(time, 0);
            if (at.compareTo(reached[p]) > 0) reached[p] = at;
        }
    }

    /** The positions the handed-out rows reach, by partition (what the block's COMMIT writes). */
    Map<Integer, ConsumerGroups.Position> reached() {
        Map<Integer, ConsumerGroups.Position> out = new HashMap<>();
        for (int p : partitions) out.put(p, reached[p]);
        return out;
    }
}
