package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
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
        db.execute("CREATE ROLE bob LOGIN");
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
            assertThatThrownBy(() -> one(victim, "SELECT 3")).as("the terminated connection is gone, told why")
                    .isInstanceOfSatisfying(SQLException.class, e -> {
                        assertThat(e.getSQLState()).isEqualTo("57P01");
                        assertThat(e.getMessage()).contains("terminating connection due to administrator command");
                    });
            // a role signals its own backends
            try (Connection bob2 = connect("bob")) {
                int bobPid = bob2.unwrap(PGConnection.class).getBackendPID();
                assertThat(bool(other, "SELECT pg_terminate_backend(" + bobPid + ")")).isTrue();
                assertThatThrownBy(() -> one(bob2, "SELECT 4")).isInstanceOf(SQLException.class);
            }
            assertThat(one(admin, "SELECT 5")).isEqualTo(5);
        }
    }

    @Test
    void pgStatActivityShowsEachBackendAndHidesOtherRolesQueries() throws SQLException {
        db.execute("CREATE ROLE bob LOGIN");
        try (Connection admin = connect("tributary"); Connection bob = connect("bob")) {
            int adminPid = admin.unwrap(PGConnection.class).getBackendPID();
            int bobPid = bob.unwrap(PGConnection.class).getBackendPID();
            one(bob, "SELECT 42");
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT pid, usename, datname, state, query, backend_type, backend_start IS NOT NULL, client_addr FROM pg_stat_activity ORDER BY pid")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getInt(1) + "|" + rs.getString(2) + "|" + rs.getString(3) + "|" + rs.getString(4) + "|" + rs.getString(5) + "|"
                            + rs.getString(6) + "|" + rs.getString(7) + "|" + rs.getString(8));
                }
                assertThat(rows).containsExactly(
                        adminPid + "|tributary|tributary|active|SELECT pid, usename, datname, state, query, backend_type, backend_start IS NOT NULL, client_addr "
                                + "FROM pg_stat_activity ORDER BY pid|client backend|t|127.0.0.1",
                        bobPid + "|bob|tributary|idle|SELECT 42|client backend|t|127.0.0.1");
            }
            // bob sees that the superuser's backend is there, not what it runs
            try (Statement s = bob.createStatement(); ResultSet rs = s.executeQuery("SELECT query, state FROM pg_stat_activity WHERE pid = " + adminPid)) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("<insufficient privilege>");
                assertThat(rs.getString(2)).isNull();
            }
            admin.setAutoCommit(false);
            one(admin, "SELECT 1");
            try (Statement s = bob.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(2);
            }
            db.execute("GRANT tributary TO bob");
            try (Statement s = bob.createStatement(); ResultSet rs = s.executeQuery("SELECT state, query, xact_start IS NOT NULL FROM pg_stat_activity WHERE pid = " + adminPid)) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3)).isEqualTo("idle in transaction|SELECT 1|t");
            }
        }
    }

    @Test
    void aClientThatLeavesDuringALongQueryHasItCanceled() throws Exception {
        try (Connection admin = connect("tributary")) {
            WireClient leaving = WireClient.connect(server.port());
            // ten billion rows to count: minutes of both workers, unless it is stopped
            leaving.send(WireClient.query("SELECT count(*) FROM generate_series(1, 10000000) a, generate_series(1, 1000) b"));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (one(admin, "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%generate_series(1, 10000000)%'") == 0) {
                assertThat(System.nanoTime()).as("the query is running").isLessThan(deadline);
            }
            leaving.close();
            // the server notices the client gone and cancels the query: the workers are free again
            deadline = System.nanoTime() + 30_000_000_000L;
            while (one(admin, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%generate_series(1, 10000000)%' AND pid <> pg_backend_pid()") > 0) {
                assertThat(System.nanoTime()).as("the abandoned query ended").isLessThan(deadline);
            }
            assertThat(server.awaitConnections(1, 30_000)).isTrue();
            assertThat(one(admin, "SELECT count(*) FROM generate_series(1, 1000)")).isEqualTo(1000);
        }
    }
}
