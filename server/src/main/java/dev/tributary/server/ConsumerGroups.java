package dev.tributary.server;

import dev.tributary.sql.row.Row;
import dev.tributary.sql.row.RowCodec;
import dev.tributary.sql.types.SqlType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Consumer groups: a table read as a queue by {@code ... FROM t STREAM CONSUMER GROUP 'g'} in a
 * cursor. A table's stream is cut into {@link #PARTITIONS} partitions by a hash of each row; a
 * group keeps, per partition, the position up to which its members have consumed it: a commit
 * time, and how many of that time's rows (in the rows' byte order, the same at every read) were
 * taken. A cursor takes partitions that no other open cursor of the group holds, up to its share
 * (the partitions over the members seen in the last {@link #MEMBER_IDLE_NANOS}), reads their
 * rows after the group's positions, and gives them back when it closes; the positions it reached
 * are written when its transaction block commits, with the block's other writes, so a client
 * that ends without committing has its rows delivered again to the group.
 *
 * <p>Positions are kept in a durable table of the server's own ({@link #POSITIONS}, through the
 * tables' log, never read by a dataflow): a restart reads them back. A new group starts at the
 * present (the rows committed after its first cursor), as a Kafka consumer group with
 * {@code auto.offset.reset=latest}; the group holds its table's history from its slowest position
 * on, which is what a cursor resuming there reads.
 *
 * <p>Called with the coordinator's lock held.
 */
final class ConsumerGroups {
    /** The partitions of every table's stream. */
    static final int PARTITIONS = 8;
    /** The id of the durable table of positions {@code (table, group, partition, time, taken)}. */
    static final long POSITIONS = Introspection.FIRST_ID - 1;
    static final RowCodec CODEC = new RowCodec(List.of(SqlType.BIGINT, SqlType.TEXT, SqlType.INTEGER, SqlType.BIGINT, SqlType.BIGINT));
    /** A member that has not read for this long no longer counts towards the shares. */
    static final long MEMBER_IDLE_NANOS = 30_000_000_000L;

    /** Where a partition's consumption is: every row before {@code time}, and the first {@code taken} rows at it. */
    record Position(long time, long taken) implements Comparable<Position> {
        @Override
        public int compareTo(Position o) {
            return time != o.time ? Long.compare(time, o.time) : Long.compare(taken, o.taken);
        }
    }

    /** One group of one table: its positions, which open cursor holds each partition, and its members. */
    static final class Group {
        final long table;
        final String name;
        final Position[] positions = new Position[PARTITIONS];
        final Session[] holders = new Session[PARTITIONS];
        final Map<Session, Long> members = new HashMap<>();

        Group(long table, String name) {
            this.table = table;
            this.name = name;
        }
    }

    private final Map<List<Object>, Group> groups = new LinkedHashMap<>();

    /** Group {@code name} of {@code table}, or null when it has never been read. */
    Group get(long table, String name) {
        return groups.get(List.of(table, name));
    }

    /** A new group of {@code table}, every partition at {@code start}; the rows that record it (to commit). */
    Map<Row, Long> create(long table, String name, long start) {
        Group g = new Group(table, name);
        Map<Row, Long> rows = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            g.positions[p] = new Position(start, 0);
            rows.put(row(g, p, g.positions[p]), 1L);
        }
        groups.put(List.of(table, name), g);
        return rows;
    }

    private static Row row(Group g, int partition, Position at) {
        return CODEC.encode(g.table, g.name, (long) partition, at.time(), at.taken());
    }

    /** The groups as the durable table holds them ({@code rows}: each row and its count), after a restart. */
    void recovered(Map<Row, Long> rows) {
        for (Map.Entry<Row, Long> e : rows.entrySet()) {
            if (e.getValue() <= 0) continue;
            Object[] v = CODEC.decode(e.getKey());
            long table = (Long) v[0];
            String name = (String) v[1];
            Group g = groups.computeIfAbsent(List.of(table, name), k -> new Group(table, name));
            g.positions[((Long) v[2]).intValue()] = new Position((Long) v[3], (Long) v[4]);
        }
        groups.values().removeIf(g -> java.util.Arrays.stream(g.positions).anyMatch(java.util.Objects::isNull));
    }

    /**
     * The partitions {@code session}'s new cursor on {@code g} takes: free ones, up to its share
     * of the members seen lately (this one among them).
     */
    int[] acquire(Group g, Session session) {
        long now = System.nanoTime();
        g.members.put(session, now);
        g.members.entrySet().removeIf(m -> m.getKey() != session && now - m.getValue() > MEMBER_IDLE_NANOS && !holds(g, m.getKey()));
        int share = (PARTITIONS + g.members.size() - 1) / g.members.size();
        List<Integer> taken = new ArrayList<>();
        for (int p = 0; p < PARTITIONS && taken.size() < share; p++) {
            if (g.holders[p] == null) {
                g.holders[p] = session;
                taken.add(p);
            }
        }
        return taken.stream().mapToInt(Integer::intValue).toArray();
    }

    private static boolean holds(Group g, Session s) {
        for (Session h : g.holders) if (h == s) return true;
        return false;
    }

    /** {@code session}'s cursor on {@code g} gives back {@code partitions}. */
    void release(Group g, Session session, int[] partitions) {
        for (int p : partitions) if (g.holders[p] == session) g.holders[p] = null;
        g.members.put(session, System.nanoTime());
    }

    /** {@code session} ended: it no longer counts as a member of any group. */
    void sessionClosed(Session session) {
        for (Group g : groups.values()) {
            g.members.remove(session);
            for (int p = 0; p < PARTITIONS; p++) if (g.holders[p] == session) g.holders[p] = null;
        }
    }

    /** The rows that move {@code g}'s positions to {@code reached} (by partition): the old ones out, the new in. */
    static Map<Row, Long> moves(Group g, Map<Integer, Position> reached) {
        Map<Row, Long> out = new HashMap<>();
        reached.forEach((p, at) -> {
            if (at.compareTo(g.positions[p]) <= 0) return;
            out.merge(row(g, p, g.positions[p]), -1L, Long::sum);
            out.merge(row(g, p, at), 1L, Long::sum);
        });
        return out;
    }

    /** {@code g}'s positions are now {@code reached} (committed): never backwards. */
    static void committed(Group g, Map<Integer, Position> reached) {
        reached.forEach((p, at) -> {
            if (at.compareTo(g.positions[p]) > 0) g.positions[p] = at;
        });
    }

    /** Per table read by a group, the earliest time a cursor of one of its groups may still resume at, less one: the history it must keep. */
    Map<Long, Long> holds() {
        Map<Long, Long> out = new HashMap<>();
        for (Group g : groups.values()) {
            for (Position at : g.positions) out.merge(g.table, at.time() - 1, Math::min);
        }
        return out;
    }

    /** Table {@code id} is dropped: its groups go (their rows in the durable table stay, ignored). */
    void dropped(long id) {
        groups.values().removeIf(g -> g.table == id);
    }

    /** Every group, for SHOW CONSUMER GROUPS. */
    List<Group> all() {
        return List.copyOf(groups.values());
    }
}
