package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.ThrowableAssert;

/** Test helpers: a query's rows as {@code a|b|NULL} lines, and an expected SQLSTATE (and message). */
final class SqlRows {
    private SqlRows() {}

    static List<String> rows(Tributary db, String sql) {
        List<String> out = new ArrayList<>();
        for (List<String> r : db.query(sql).text()) out.add(String.join("|", r.stream().map(v -> v == null ? "NULL" : v).toList()));
        return out;
    }

    /** The error {@code sql} raises in {@code s}; fails the test if it succeeds. */
    static SqlException error(Tributary.Connection s, String sql) {
        try {
            s.execute(sql);
        } catch (SqlException e) {
            return e;
        }
        throw new AssertionError(sql + " succeeded");
    }

    static void fails(String state, ThrowableAssert.ThrowingCallable call) {
        fails(state, null, call);
    }

    /** {@code call} raises {@code state}, with exactly {@code message} unless that is null. */
    static void fails(String state, String message, ThrowableAssert.ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(SqlException.class, e -> {
            assertThat(e.sqlState()).as(e.getMessage()).isEqualTo(state);
            if (message != null) assertThat(e.getMessage()).isEqualTo(message);
        });
    }
}
