package dev.tributary.server.sink;

import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.Json;
import dev.tributary.sql.types.SqlType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a sink writes one time's changes of its relation as messages: a key (JSON) and a value
 * ({@code FORMAT JSON}: JSON; {@code FORMAT PROTOBUF}: the row as a protobuf message, by
 * {@link Values}), by envelope.
 *
 * <ul>
 *   <li>{@link Kind#UPSERT}: per key that changed, the row it now holds as the value, or no value
 *       (a tombstone, null) once it holds none; a reader keeping the latest value per key has the
 *       relation.
 *   <li>{@link Kind#DEBEZIUM}: per key that changed, {@code {"before": row or null, "after": row
 *       or null}}: a retraction and an insertion of one key at one time are one update.
 * </ul>
 *
 * <p>The key is the object of the {@code KEY (columns)} given; without one it is the whole row,
 * so each distinct row is its own key (as Materialize does), and a row held twice is written
 * once by UPSERT (an upsert keeps one value per key), as many times as it changes by DEBEZIUM.
 * With a KEY, a key holding two rows at one time is an error (21000): its latest value would be
 * one of them at random. A time's messages come in key order (the key's JSON text), so a time
 * written again after a failure is written alike. The key is JSON whatever the values' format:
 * it is what orders a time's messages and tells keys apart, and a consumer reads it as text.
 *
 * @param names the relation's columns, {@code types} their types
 * @param key the indices of the key's columns in the row; empty for the whole row
 * @param values how a row becomes a message's value (UPSERT's)
 * @param changes how a key's rows before and after become a message's value (DEBEZIUM's; null: JSON)
 */
public record SinkEnvelope(String sink, Kind kind, List<String> names, List<SqlType> types, int[] key, Values values,
                           dev.tributary.server.protobuf.ProtobufRows.BeforeAfter changes) {
    /** The envelope of CREATE SINK's {@code ENVELOPE}. */
    public enum Kind { UPSERT, DEBEZIUM }

    /** A change of the relation: a row and how many times it was added (negative: taken away). */
    public record Change(Object[] row, long diff) {}

    /** A message: its key and value (null: a tombstone), UTF-8 JSON. */
    public record Message(byte[] key, byte[] value) {}

    /**
     * How a row becomes the bytes of an UPSERT message's value. May throw {@link SqlException}
     * for a value the format cannot hold: that fails the sink, as 21000 does.
     */
    @FunctionalInterface
    public interface Values {
        byte[] encode(Object[] row);

        /** FORMAT JSON's: the UTF-8 JSON object of the columns {@code names} of {@code types}. */
        static Values json(List<String> names, List<SqlType> types) {
            List<String> n = List.copyOf(names);
            List<SqlType> t = List.copyOf(types);
            return row -> bytes(rowJson(n, t, row));
        }
    }

    /** An envelope of FORMAT JSON. */
    public SinkEnvelope(String sink, Kind kind, List<String> names, List<SqlType> types, int[] key) {
        this(sink, kind, names, types, key, Values.json(names, types), null);
    }

    public SinkEnvelope {
        names = List.copyOf(names);
        types = List.copyOf(types);
        key = key.clone();
    }

    /**
     * The messages of the changes at {@code time} (the relation's changes at that one time, each
     * row once with its net count).
     *
     * @throws SqlException 21000 when, with a KEY, a key holds more than one row after the time
     */
    public List<Message> encode(long time, List<Change> changes) {
        // per key (its JSON text): the rows that left it and the rows that came
        Map<String, List<Change>> byKey = new TreeMap<>();
        for (Change c : changes) {
            if (c.diff() == 0) continue;
            byKey.computeIfAbsent(keyJson(c.row()), k -> new ArrayList<>()).add(c);
        }
        List<Message> out = new ArrayList<>();
        for (Map.Entry<String, List<Change>> e : byKey.entrySet()) {
            byte[] k = bytes(e.getKey());
            Object[] before = null, after = null;
            long removed = 0, added = 0;
            for (Change c : e.getValue()) {
                if (c.diff() > 0) {
                    added += c.diff();
                    after = c.row();
                } else {
                    removed -= c.diff();
                    before = c.row();
                }
            }
            if (key.length == 0) {
                // the whole row is the key: one row, either added or removed, maybe several times
                long times = kind == Kind.UPSERT ? 1 : Math.max(added, removed);
                for (long n = 0; n < times; n++) out.add(new Message(k, value(before, after)));
                continue;
            }
            if (added > 1 || removed > 1) {
                throw new SqlException("21000", "sink " + sink + ": key " + e.getKey() + " holds " + Math.max(added, removed) + " rows at time " + time
                        + ", and a sink's KEY must be unique in what it writes", 0,
                        "Give KEY columns that are unique in the relation (a GROUP BY's columns, a primary key), or no KEY: the whole row is then the key.");
            }
            out.add(new Message(k, value(before, after)));
        }
        return out;
    }

    private byte[] value(Object[] before, Object[] after) {
        return switch (kind) {
            case UPSERT -> after == null ? null : values.encode(after);
            case DEBEZIUM -> changes != null ? changes.encode(before, after) : bytes("{\"before\":" + (before == null ? "null" : rowJson(before)) + ",\"after\":" + (after == null ? "null" : rowJson(after)) + "}");
        };
    }

    /** The key of {@code row}: the object of the key's columns, or of the whole row. */
    String keyJson(Object[] row) {
        if (key.length == 0) return rowJson(row);
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < key.length; i++) {
            if (i > 0) b.append(',');
            Json.quote(b, names.get(key[i]));
            b.append(':').append(Json.of(row[key[i]], types.get(key[i])));
        }
        return b.append('}').toString();
    }

    /** {@code row} as a JSON object of its columns, in their order. */
    String rowJson(Object[] row) {
        return rowJson(names, types, row);
    }

    private static String rowJson(List<String> names, List<SqlType> types, Object[] row) {
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) b.append(',');
            Json.quote(b, names.get(i));
            b.append(':').append(Json.of(row[i], types.get(i)));
        }
        return b.append('}').toString();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
