package dev.tributary.differential;

/** What a join produces for one key and one value from each side. */
@FunctionalInterface
public interface Joiner<K, V1, V2, R> {
    R join(K key, V1 left, V2 right);
}
