package dev.tributary.server.shell;

import dev.tributary.server.Result;
import dev.tributary.server.Subscription;
import dev.tributary.server.Tributary;
import dev.tributary.sql.SqlException;
import java.util.function.Consumer;

/** The shell's in-memory database: a {@link Tributary} of its own, closed with the shell. */
final class Embedded implements Database {
    private final Tributary db;
    private final Tributary.Connection session;

    Embedded(Tributary db) {
        this.db = db;
        this.session = db.session();
    }

    @Override
    public void execute(String sql, Consumer<Answer> each) {
        session.executeEach(sql, r -> each.accept(Answer.of(r)));
    }

    @Override
    public void execute(String sql, Consumer<Answer> each, Consumer<dev.tributary.server.Notice> notices) {
        session.onNotice(notices);
        try {
            session.executeEach(sql, r -> each.accept(Answer.of(r)));
        } finally {
            session.onNotice(n -> {});
            // a Ctrl-C that came after the statement ended must not cancel the next one
            session.clearCancel();
        }
    }

    @Override
    public void cancel() {
        session.cancel();
    }

    @Override
    public AutoCloseable subscribe(String sql, Consumer<Answer> onBatch, Consumer<SqlException> onEnd) {
        return db.subscribe(sql, new Subscription.Listener() {
            @Override
            public void onChanges(Result batch) {
                onBatch.accept(Answer.of(batch));
            }

            @Override
            public void onError(SqlException error) {
                onEnd.accept(error);
            }

            @Override
            public void onDone() {
                onEnd.accept(null);
            }
        });
    }

    @Override
    public String description() {
        return "in-memory";
    }

    @Override
    public void close() {
        db.close();
    }
}
