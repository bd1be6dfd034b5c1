package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

/**
 * {@code pg_backend_pid()} is the pid the client got in BackendKeyData; {@code pg_terminate_backend}
 * ends another connection and {@code pg_cancel_backend} signals it, as the superuser or the same
 * role may (42501 for another role), and both answer false for a pid that is no backend (issue 25,
 * operations).
 */
class BackendSignalTest extends LocalServerTest {
    private Connection connect(String user) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=" + user + "&prepareThreshold=0");
    }

    private static long one(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static boolean bool(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    @Test
    void aBackendIsKnownByItsPidAndCanBeCanceledOrTerminated() throws SQLException {
        try (Connection victim = connect("tributary"); Connection admin = connect("tributary"); Connection other = connect("bob")) {
            int pid = victim.unwrap(PGConnection.class).getBackendPID();
            assertThat(one(victim, "SELECT pg_backend_pid()")).isEqualTo(pid);
            assertThat(one(admin, "SELECT pg_backend_pid()")).isNotEqualTo(pid);
            // another role may not signal the superuser's backend
            assertThatThrownBy(() -> bool(other, "SELECT pg_terminate_backend(" + pid + ")"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
            assertThat(one(victim, "SELECT 1")).as("still there").isEqualTo(1);
            assertThat(bool(admin, "SELECT pg_cancel_backend(" + pid + ")")).isTrue();
            assertThat(one(victim, "SELECT 2")).as("an idle backend canceled goes on").isEqualTo(2);
            assertThat(bool(admin, "SELECT pg_terminate_backend(999999)")).as("no such backend").isFalse();
            assertThat(bool(admin, "SELECT pg_terminate_backend(" + pid + ")")).isTrue();
            assertThatThrownBy(() -> one(victim, "SELECT 3")).as("the terminated connection is gone").isInstanceOf(SQLException.class);
            // a role signals its own backends
            try (Connection bob2 = connect("bob")) {
                int bobPid = bob2.unwrap(PGConnection.class).getBackendPID();
                assertThat(bool(other, "SELECT pg_terminate_backend(" + bobPid + ")")).isTrue();
                assertThatThrownBy(() -> one(bob2, "SELECT 4")).isInstanceOf(SQLException.class);
            }
            assertThat(one(admin, "SELECT 5")).isEqualTo(5);
        }
    }
}
