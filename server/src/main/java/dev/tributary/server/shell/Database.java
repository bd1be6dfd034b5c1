package dev.tributary.server.shell;

import dev.tributary.sql.SqlException;
import java.util.function.Consumer;

/**
 * What the shell runs statements against: an in-memory database ({@link Embedded}) or a server
 * over the PostgreSQL protocol ({@link Remote}). Output formatting stays in the shell, the same
 * for both.
 */
interface Database extends AutoCloseable {
    /**
     * Runs the statements of {@code sql} in order, giving each answer to {@code each} as it is
     * made; the first error is thrown as a {@link SqlException}, after the answers before it.
     */
    void execute(String sql, Consumer<Answer> each);

    /**
     * {@link #execute(String, Consumer)}, with each notice given to {@code notices} as soon as it
     * comes, while its statement still runs (a long CREATE's progress), instead of with the answer.
     */
    void execute(String sql, Consumer<Answer> each, Consumer<dev.tributary.server.Notice> notices);

    /** Asks the database to stop the statement running now (from another thread: Ctrl-C); it fails with 57014. */
    void cancel();

    /**
     * Starts {@code sql} (a SUBSCRIBE or an EMIT CHANGES query): batches of changes go to
     * {@code onBatch} as they happen; if it ends by itself, {@code onEnd} gets the error that ended
     * it, or null. Closing the returned handle stops it.
     */
    AutoCloseable subscribe(String sql, Consumer<Answer> onBatch, Consumer<SqlException> onEnd);

    /** What the interactive banner calls it: {@code in-memory}, or the server's address. */
    String description();

    @Override
    void close();
}
