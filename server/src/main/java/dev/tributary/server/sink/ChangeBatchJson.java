package dev.tributary.server.sink;

import dev.tributary.server.Result;
import dev.tributary.sql.types.SqlType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A subscription's batch (all changes at one time: {@code change_time}, {@code change_diff}, then
 * the columns) as the JSON request bodies an HTTP sink posts:
 * {@code {"sink": name, "time": ms, "snapshot": bool, "part": i, "parts": n, "changes": [{"diff": d,
 * "row": {...}}]}}; {@code snapshot} marks the batch that holds the whole relation (a sink's
 * first, or its first after a restart that could not resume where it was).
 *
 * <p>Values keep their JSON kind where there is one (numbers, booleans, json and jsonb as
 * themselves, NULL as {@code null}) and are otherwise PostgreSQL's text output as strings.
 * Changes are sorted by their JSON text before a batch is cut into parts of at most
 * {@code maxChanges}, so the parts of a time are the same when they are sent again after a
 * restart, and a receiver that deduplicates by the part's idempotency key
 * ({@code <sink>:<time>:<part>}) loses nothing.
 */
public final class ChangeBatchJson {
    private ChangeBatchJson() {}

    /** One request: its idempotency key and body. */
    public record Part(String key, String body) {}

    /**
     * The batch's time (its first column): epoch milliseconds in system time, the event time's
     * ticks over a stream in event time; the batch must have a row.
     */
    public static long time(Result batch) {
        Object t = batch.rows().get(0)[0];
        return t instanceof Instant i ? i.toEpochMilli() : dev.tributary.sql.expr.TimeWindows.ticks(t);
    }

    /** The requests that carry {@code batch} (not empty) for sink {@code sink}, at most {@code maxChanges} changes each. */
    public static List<Part> parts(String sink, Result batch, boolean snapshot, int maxChanges) {
        long time = time(batch);
        List<String> columns = batch.columns();
        List<SqlType> types = batch.types();
        List<List<String>> text = batch.text();
        List<String> changes = new ArrayList<>(text.size());
        for (int r = 0; r < text.size(); r++) {
            List<String> row = text.get(r);
            StringBuilder b = new StringBuilder("{\"diff\":").append(row.get(1)).append(",\"row\":{");
            for (int c = 2; c < columns.size(); c++) {
                if (c > 2) b.append(',');
                dev.tributary.sql.types.Json.quote(b, columns.get(c));
                b.append(':');
                value(b, row.get(c), types.get(c));
            }
            changes.add(b.append("}}").toString());
        }
        changes.sort(null);
        int parts = Math.max(1, (changes.size() + maxChanges - 1) / maxChanges);
        List<Part> out = new ArrayList<>(parts);
        for (int p = 0; p < parts; p++) {
            StringBuilder b = new StringBuilder("{\"sink\":");
            dev.tributary.sql.types.Json.quote(b, sink);
            b.append(",\"time\":").append(time).append(",\"snapshot\":").append(snapshot).append(",\"part\":").append(p + 1).append(",\"parts\":").append(parts).append(",\"changes\":[");
            for (int i = p * maxChanges; i < Math.min(changes.size(), (p + 1) * maxChanges); i++) {
                if (i > p * maxChanges) b.append(',');
                b.append(changes.get(i));
            }
            out.add(new Part(sink + ":" + time + ":" + (p + 1), b.append("]}").toString()));
        }
        return out;
    }

    private static void value(StringBuilder b, String text, SqlType type) {
        if (text == null) {
            b.append("null");
            return;
        }
        switch (type.kind()) {
            case SMALLINT, INTEGER, BIGINT, NUMERIC, REAL, DOUBLE -> {
                // NaN and the infinities have no JSON number
                boolean number = !text.isEmpty() && (Character.isDigit(text.charAt(text.length() - 1)));
                if (number) b.append(text);
                else dev.tributary.sql.types.Json.quote(b, text);
            }
            case BOOLEAN -> b.append(text.equals("t") ? "true" : "false");
            case JSON, JSONB -> b.append(text);
            default -> dev.tributary.sql.types.Json.quote(b, text);
        }
    }
}
