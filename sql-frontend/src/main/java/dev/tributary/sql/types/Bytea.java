package dev.tributary.sql.types;

import java.util.Arrays;

/** A BYTEA value: an immutable byte string with value equality and unsigned bytewise order. */
public final class Bytea implements Comparable<Bytea> {
    private final byte[] bytes;

    private Bytea(byte[] bytes) {
        this.bytes = bytes;
    }

    /** A value holding a copy of {@code bytes}. */
    public static Bytea copyOf(byte[] bytes) {
        return new Bytea(bytes.clone());
    }

    /** A copy of the bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    public int length() {
        return bytes.length;
    }

    public byte byteAt(int i) {
        return bytes[i];
    }

    @Override
    public int compareTo(Bytea o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytea b && Arrays.equals(bytes, b.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** PostgreSQL's hex output format, e.g. {@code \x0aff}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(2 + 2 * bytes.length).append("\\x");
        for (byte x : bytes) b.append(Character.forDigit((x >> 4) & 0xf, 16)).append(Character.forDigit(x & 0xf, 16));
        return b.toString();
    }
}
