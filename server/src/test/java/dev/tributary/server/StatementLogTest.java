package dev.tributary.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code tributary_internal.statement_log}: every statement that ended, newest last, with its
 * rows, and its SQLSTATE and message when it failed; bounded to the newest N; readable by
 * superusers only, and never showing a password.
 */
class StatementLogTest {
    private static List<List<String>> rows(Tributary db, String sql) {
        return db.query(sql).text();
    }

    @Test
    void eachStatementWithItsRowsAndError() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute("CREATE TABLE t (x int)");
            db.execute("INSERT INTO t VALUES (1), (2), (3)");
            db.execute("SELECT * FROM t");
            assertThatThrownBy(() -> db.execute("SELECT * FROM nope")).isInstanceOf(SqlException.class);
            assertThatThrownBy(() -> db.execute("SELECT 1 / 0")).isInstanceOf(SqlException.class);
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT usename, query, rows, sqlstate, error, duration_ms >= 0, started_at IS NOT NULL FROM tributary_internal.statement_log ORDER BY id"))
                    .containsExactly(
                            Arrays.asList("tributary", "CREATE TABLE t (x int)", "0", null, null, "t", "t"),
                            Arrays.asList("tributary", "INSERT INTO t VALUES (1), (2), (3)", "3", null, null, "t", "t"),
                            Arrays.asList("tributary", "SELECT * FROM t", "3", null, null, "t", "t"),
                            Arrays.asList("tributary", "SELECT * FROM nope", "0", "42P01", "relation \"nope\" does not exist", "t", "t"),
                            Arrays.asList("tributary", "SELECT 1 / 0", "0", "22012", "division by zero", "t", "t"));
        }
    }

    @Test
    void onlyTheNewestAreKept() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.coordinator().statementLogSize(3);
            for (int i = 1; i <= 6; i++) db.execute("SELECT " + i);
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT query FROM tributary_internal.statement_log ORDER BY id"))
                    .containsExactly(List.of("SELECT 4"), List.of("SELECT 5"), List.of("SELECT 6"));
            // the next sample retracts what fell out: the read above and these two push out 4, 5 and 6
            db.execute("SELECT 7");
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT query FROM tributary_internal.statement_log ORDER BY id"))
                    .containsExactly(List.of("SELECT 6"), List.of("SELECT query FROM tributary_internal.statement_log ORDER BY id"), List.of("SELECT 7"));
        }
    }

    @Test
    void onlySuperusersReadItAndPasswordsAreNotShown() {
        try (Tributary db = Tributary.inMemory(Clock.manual(1_000), 1)) {
            db.execute("CREATE ROLE bob LOGIN PASSWORD 'sekret'");
            db.coordinator().sampleIntrospection();
            assertThat(rows(db, "SELECT count(*) FROM tributary_internal.statement_log WHERE query LIKE '%sekret%'")).containsExactly(List.of("0"));
            assertThat(rows(db, "SELECT query FROM tributary_internal.statement_log")).containsExactly(List.of("<a statement with a password, not shown>"));
            Tributary.Connection bob = db.session();
            bob.execute("SET ROLE bob");
            assertThatThrownBy(() -> bob.execute("SELECT * FROM tributary_internal.statement_log"))
                    .isInstanceOfSatisfying(SqlException.class, e -> {
                        assertThat(e.sqlState()).isEqualTo("42501");
                        assertThat(e.getMessage()).isEqualTo("permission denied for table statement_log");
                    });
            // what every role may see of the database, as pg_stat_activity's rows are
            assertThat(bob.execute("SELECT count(*) FROM tributary_internal.objects").get(0).text()).containsExactly(List.of("0"));
            assertThat(bob.execute("SELECT count(*) FROM tributary_internal.streams").get(0).text()).containsExactly(List.of("0"));
        }
    }
}
