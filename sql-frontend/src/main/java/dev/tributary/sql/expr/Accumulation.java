package dev.tributary.sql.expr;

import java.math.BigInteger;

/**
 * An aggregate whose state is a few exact sums: count, sum and avg of integers, numerics and
 * intervals, bool_and and bool_or. Each argument row adds amounts to named sums, times its
 * multiplicity, so a retraction subtracts exactly what its insertion added; the aggregate is a
 * function of the totals. A maintained group then changes in time proportional to the change,
 * whatever its size, and its state is the totals, not its rows.
 *
 * <p>A sum is named by a component and a key, both small numbers the aggregate chooses (a
 * numeric sum keys its parts by scale). Amounts are {@code long}s; an integer that may exceed a
 * {@code long} once summed ({@link Sink#addInteger}) is split into 32-bit chunks, each a sum of
 * its own, and put back together exactly from the totals, so no sum of rows overflows before
 * the aggregate's own range check (PostgreSQL's {@code bigint out of range} for sum(int)).
 */
public interface Accumulation {

    /** Adds one argument row's amounts (arguments of the aggregate's {@code argTypes}, NULLs included) to {@code sink}. */
    void add(Object[] args, Sink sink);

    /** The aggregate of a group from its totals; the totals of an empty group are all zero. */
    Object result(Totals totals);

    /** Where a row's amounts go. */
    interface Sink {
        /** Adds {@code amount} to the sum named {@code (component, key)}. */
        void add(int component, int key, long amount);

        /** Adds {@code value} to the exact integer sum named {@code (component, key)}. */
        void addInteger(int component, int key, BigInteger value);

        /** {@link #addInteger(int, int, BigInteger)} of a {@code long}. */
        void addInteger(int component, int key, long value);
    }

    /** A group's totals. */
    interface Totals {
        /**
         * How many argument rows the group has (NULLs included, FILTER applied), counted whatever
         * the aggregate adds: a count of non-NULL values is this less a sum of the NULLs, so that
         * a column without NULLs adds nothing per row for it.
         */
        long rows();

        /** The total of the sum {@code (component, key)}. */
        long sum(int component, int key);

        /** The total of the exact integer sum {@code (component, key)}. */
        BigInteger integer(int component, int key);

        /** The keys of {@code component}'s sums whose total is not zero, ascending. */
        int[] keys(int component);
    }
}
