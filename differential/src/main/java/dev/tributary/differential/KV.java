package dev.tributary.differential;

/** A key and a value: the element of keyed collections ({@code count}, {@code sum}, {@code join} inputs). */
public record KV<K, V>(K key, V val) {
    public static <K, V> KV<K, V> of(K key, V val) {
        return new KV<>(key, val);
    }

    @Override
    public String toString() {
        return "(" + key + ", " + val + ")";
    }
}
