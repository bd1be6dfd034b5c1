package dev.tributary.sql.render;

import dev.tributary.sql.expr.Accumulation;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * One aggregate's exact sums over a group, as {@link Accumulation.Totals}: a total per sum name
 * {@code (component, key, chunk)}, where chunk -1 is a plain {@code long} sum and chunk
 * {@code c >= 0} is bits {@code 32c} and up of an exact integer sum (see {@link Chunks}). Few
 * names per aggregate, so a linear search finds one.
 */
final class Sums implements Accumulation.Totals {
    /** Argument rows of the aggregate: the group's, or its own when FILTER or DISTINCT picks them. */
    long rows;
    private int size;
    private int[] component = new int[4];
    private int[] key = new int[4];
    private int[] chunk = new int[4];
    private long[] total = new long[4];

    /** Adds {@code amount} to sum {@code (c, k, ch)}. */
    void add(int c, int k, int ch, long amount) {
        for (int i = 0; i < size; i++) {
            if (component[i] == c && key[i] == k && chunk[i] == ch) {
                total[i] = Math.addExact(total[i], amount);
                return;
            }
        }
        if (size == total.length) {
            component = Arrays.copyOf(component, size * 2);
            key = Arrays.copyOf(key, size * 2);
            chunk = Arrays.copyOf(chunk, size * 2);
            total = Arrays.copyOf(total, size * 2);
        }
        component[size] = c;
        key[size] = k;
        chunk[size] = ch;
        total[size++] = amount;
    }

    /** Adds every sum of {@code other} and its rows. */
    void addAll(Sums other) {
        rows = Math.addExact(rows, other.rows);
        for (int i = 0; i < other.size; i++) add(other.component[i], other.key[i], other.chunk[i], other.total[i]);
    }

    @Override
    public long rows() {
        return rows;
    }

    @Override
    public long sum(int c, int k) {
        long s = 0;
        for (int i = 0; i < size; i++) if (component[i] == c && key[i] == k && chunk[i] < 0) s += total[i];
        return s;
    }

    @Override
    public BigInteger integer(int c, int k) {
        BigInteger s = BigInteger.ZERO;
        for (int i = 0; i < size; i++) {
            if (component[i] == c && key[i] == k && chunk[i] >= 0) s = s.add(BigInteger.valueOf(total[i]).shiftLeft(32 * chunk[i]));
        }
        return s;
    }

    @Override
    public int[] keys(int c) {
        return Arrays.stream(Arrays.copyOf(key, size)).filter(k -> sum(c, k) != 0).distinct().sorted().toArray();
    }

    /**
     * An {@link Accumulation.Sink} that names each amount's sum: an exact integer goes in 32-bit
     * chunks (the low ones unsigned, the top one signed), each a sum of its own, so that no sum
     * of rows overflows before the aggregate's own range check.
     */
    abstract static class Chunks implements Accumulation.Sink {
        private static final long MASK32 = 0xFFFFFFFFL;

        /** Adds {@code amount} to the sum {@code (component, key, chunk)} (chunk -1: a plain sum). */
        abstract void emit(int component, int key, int chunk, long amount);

        @Override
        public void add(int component, int key, long amount) {
            emit(component, key, -1, amount);
        }

        @Override
        public void addInteger(int component, int key, long value) {
            emit(component, key, 0, value & MASK32);
            emit(component, key, 1, value >> 32);
        }

        @Override
        public void addInteger(int component, int key, BigInteger value) {
            if (value.bitLength() < 64) {
                addInteger(component, key, value.longValue());
                return;
            }
            int chunks = value.bitLength() / 32 + 1;
            for (int c = 0; c < chunks - 1; c++) emit(component, key, c, value.shiftRight(32 * c).longValue() & MASK32);
            emit(component, key, chunks - 1, value.shiftRight(32 * (chunks - 1)).longValue());
        }
    }

    /** A sink adding a row's amounts to {@code sums}, times {@code sign} (1 adds the row, -1 takes it away). */
    static final class Signed extends Chunks {
        private final Sums sums;
        private final int sign;

        Signed(Sums sums, int sign) {
            this.sums = sums;
            this.sign = sign;
        }

        @Override
        void emit(int component, int key, int chunk, long amount) {
            sums.add(component, key, chunk, sign * amount);
        }
    }
}
