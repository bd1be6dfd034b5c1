package dev.tributary.sql.catalog;

/**
 * The values of the catalog's sequences, behind {@code nextval}, {@code currval}, {@code setval}
 * and {@code lastval}. A value, once given, is never given again (unless the sequence cycles or
 * is set back): sequences advance outside transactions, so a rollback leaves a gap, as in
 * PostgreSQL. Errors carry PostgreSQL's SQLSTATEs (2200H past the end, 55000 for currval before
 * nextval in the session).
 */
public interface Sequences {
    /** Advances sequence {@code id} and returns its new value. */
    long next(long id);

    /** The value {@code next} last gave for sequence {@code id} in this session. */
    long current(long id);

    /** The value {@code next} last gave for any sequence in this session. */
    long last();

    /** Sequence {@code id}'s row as a query reads it: {@code last_value} (bigint), {@code log_cnt} (bigint, 0), {@code is_called} (boolean). */
    Object[] read(long id);

    /** Sets sequence {@code id}'s value; the next {@code next} gives it again unless {@code called}. Returns {@code value}. */
    long set(long id, long value, boolean called);
}
