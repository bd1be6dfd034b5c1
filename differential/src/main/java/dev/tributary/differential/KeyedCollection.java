package dev.tributary.differential;

import dev.tributary.arrangements.Updates;
import dev.tributary.timely.Stream;

/**
 * A collection of {@code (key, val)} records held in key and value columns, made to be arranged
 * by key (by {@link Collection#explodeByKey}): several concatenate, and one arrangement then
 * takes them all. Its updates obey the collection contract; only arranging reads them.
 */
public final class KeyedCollection<K, V> {
    private final Stream<Updates> stream;
    private final DataType<K> keyType;
    private final DataType<V> valType;

    KeyedCollection(Stream<Updates> stream, DataType<K> keyType, DataType<V> valType) {
        this.stream = stream;
        this.keyType = keyType;
        this.valType = valType;
    }

    /** The records of both. */
    public KeyedCollection<K, V> concat(KeyedCollection<K, V> other) {
        return new KeyedCollection<>(stream.concat(other.stream), keyType, valType);
    }

    /** The records arranged by key: what {@code arrangeByKey} of the same pairs would make. */
    public Arrangement<K, V> arrange() {
        return Arrangement.arrange(stream, "byKey", keyType, valType);
    }
}
