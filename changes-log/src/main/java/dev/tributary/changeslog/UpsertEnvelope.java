package dev.tributary.changeslog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The upsert envelope over a change stream: instead of {@code (row, diff)} pairs, one
 * {@link KeyChange} per key whose contents changed at a time, saying what the key holds now.
 *
 * <p>A key holding exactly one row once is an {@link KeyState#UPSERT} of that row; a key holding
 * nothing any more is a {@link KeyState#DELETE}; a key holding anything else (two rows, a row
 * twice, or a negative count) is a {@link KeyState#KEY_VIOLATION}, with no row. A key whose changes
 * at a time leave it as it was is not reported. The envelope keeps each key's current contents,
 * so its state is the collection's size.
 */
public final class UpsertEnvelope<K, D, E> implements ChangeStream.Sink<D, E> {
    /** What a key holds after a change. */
    public enum KeyState { UPSERT, DELETE, KEY_VIOLATION }

    /** The change of one key: its new state and, for an upsert, its one row (else null). */
    public record KeyChange<K, D>(K key, KeyState state, D row) {}

    private final Function<? super D, ? extends K> keyOf;
    private final ChangeStream.Sink<KeyChange<K, D>, E> downstream;
    private final Map<K, Map<D, Long>> contents = new HashMap<>();

    /** Reports to {@code downstream} (each key change with count 1) the keys, by {@code keyOf}, that changed. */
    public UpsertEnvelope(Function<? super D, ? extends K> keyOf, ChangeStream.Sink<KeyChange<K, D>, E> downstream) {
        this.keyOf = keyOf;
        this.downstream = downstream;
    }

    @Override
    public void changes(long time, ChangeStream.Changes<D> changes) {
        Map<K, KeyState> before = new LinkedHashMap<>();
        for (int i = 0; i < changes.size(); i++) {
            D d = changes.data(i);
            K key = keyOf.apply(d);
            Map<D, Long> rows = contents.computeIfAbsent(key, k -> new HashMap<>());
            before.computeIfAbsent(key, k -> stateOf(rows));
            if (rows.merge(d, changes.diff(i), Long::sum) == 0) rows.remove(d);
        }
        List<KeyChange<K, D>> out = new ArrayList<>(before.size());
        for (Map.Entry<K, KeyState> b : before.entrySet()) {
            Map<D, Long> rows = contents.get(b.getKey());
            KeyState now = stateOf(rows);
            D row = now == KeyState.UPSERT ? rows.keySet().iterator().next() : null;
            if (rows.isEmpty()) contents.remove(b.getKey());
            // a key that held nothing before and nothing now, or the same violation, changed nothing visible
            if (now == b.getValue() && now != KeyState.UPSERT) continue;
            out.add(new KeyChange<>(b.getKey(), now, row));
        }
        long[] ones = new long[out.size()];
        Arrays.fill(ones, 1L);
        if (!out.isEmpty() || changes.size() == 0) downstream.changes(time, ChangeStream.Changes.of(out, ones));
    }

    private static <D> KeyState stateOf(Map<D, Long> rows) {
        if (rows.isEmpty()) return KeyState.DELETE;
        if (rows.size() == 1 && rows.values().iterator().next() == 1) return KeyState.UPSERT;
        return KeyState.KEY_VIOLATION;
    }

    @Override
    public void progressed(long frontier) {
        downstream.progressed(frontier);
    }

    @Override
    public void failed(long time, Map<E, Long> errors) {
        downstream.failed(time, errors);
    }

    @Override
    public void done() {
        downstream.done();
    }
}
