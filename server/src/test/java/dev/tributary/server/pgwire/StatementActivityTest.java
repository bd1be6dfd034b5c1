package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a client sees of other sessions' statements: {@code pg_stat_activity} shows a statement
 * that is still running as {@code active}, with the time it started; and
 * {@code tributary_internal.statement_log} has the statements of the extended protocol (JDBC's
 * prepared statements) as well as simple queries, with their errors.
 */
class StatementActivityTest extends LocalServerTest {
    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary");
    }

    @Test
    void aRunningStatementIsActiveSinceItStarted() throws Exception {
        db.execute("CREATE TABLE t (x int)");
        db.execute("INSERT INTO t VALUES (1)");
        try (WireClient streaming = WireClient.connect(server.port()); Connection admin = connect()) {
            long before = System.currentTimeMillis();
            streaming.send(WireClient.query("COPY (SUBSCRIBE t) TO STDOUT"));
            // the snapshot's row has come: the statement is running, and stays so until the client ends it
            while (streaming.next().type() != 'd') {
                // CopyOutResponse first
            }
            long after = System.currentTimeMillis();
            try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(
                    "SELECT state, query, query_start, state_change = query_start, xact_start <= query_start FROM pg_stat_activity WHERE pid <> pg_backend_pid()")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("active");
                assertThat(rs.getString(2)).isEqualTo("COPY (SUBSCRIBE t) TO STDOUT");
                assertThat(rs.getTimestamp(3).getTime()).isBetween(before, after);
                assertThat(rs.getBoolean(4)).isTrue();
                assertThat(rs.getBoolean(5)).isTrue();
                assertThat(rs.next()).isFalse();
            }
        }
    }

    @Test
    void preparedStatementsAreLoggedWithTheirErrors() throws Exception {
        db.execute("CREATE TABLE t (x int PRIMARY KEY)");
        try (Connection c = connect()) {
            try (PreparedStatement p = c.prepareStatement("INSERT INTO t VALUES (?)")) {
                p.setInt(1, 7);
                p.executeUpdate();
                try {
                    p.executeUpdate();
                } catch (SQLException e) {
                    assertThat(e.getSQLState()).isEqualTo("23505");
                }
            }
            try (Statement s = c.createStatement()) {
                s.execute("ADVANCE CLOCK BY INTERVAL '1 second'"); // samples the manual clock's introspection
                List<String> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery("SELECT query, rows, sqlstate FROM tributary_internal.statement_log WHERE query LIKE 'INSERT%' ORDER BY id")) {
                    while (rs.next()) rows.add(rs.getString(1) + "|" + rs.getLong(2) + "|" + rs.getString(3));
                }
                assertThat(rows).containsExactly("INSERT INTO t VALUES ($1)|1|null", "INSERT INTO t VALUES ($1)|0|23505");
            }
        }
    }
}
