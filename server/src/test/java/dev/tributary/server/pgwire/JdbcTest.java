package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The PostgreSQL JDBC driver against {@link PgServer}: statements, prepared statements with parameters, errors, transactions. */
class JdbcTest extends LocalServerTest {
    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary");
    }

    @Test
    void startupOptionsSetSettingsAsPgoptionsDoes() throws SQLException {
        String options = java.net.URLEncoder.encode("-c statement_timeout=5s --lock-timeout=2s -c search_path=public\\ ,pg_catalog -X", java.nio.charset.StandardCharsets.UTF_8);
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary&options=" + options);
             Statement s = c.createStatement()) {
            for (String[] expected : new String[][] {{"statement_timeout", "5s"}, {"lock_timeout", "2s"}}) {
                try (ResultSet rs = s.executeQuery("SHOW " + expected[0])) {
                    rs.next();
                    assertThat(rs.getString(1)).isEqualTo(expected[1]);
                }
            }
        }
        assertThat(PgConnection.commandLineOptions("-c a=1 -cb=2 --c-d=x\\ y -X --noeq"))
                .extracting(kv -> kv[0] + "=" + kv[1]).containsExactly("a=1", "b=2", "c_d=x y");
    }

    @Test
    void statementsPreparedStatementsErrorsAndTransactions() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (id int PRIMARY KEY, name text, amount numeric(10,2), ok boolean)");
            s.execute("CREATE MATERIALIZED VIEW v AS SELECT ok, count(*) AS n, sum(amount) AS total FROM t GROUP BY ok");
            try (PreparedStatement ins = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?)")) {
                for (int i = 1; i <= 5; i++) {
                    ins.setInt(1, i);
                    ins.setString(2, "it's " + i);
                    ins.setBigDecimal(3, new BigDecimal(i + ".50"));
                    ins.setBoolean(4, i % 2 == 0);
                    assertThat(ins.executeUpdate()).isEqualTo(1);
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT name, amount FROM t WHERE id = ? OR name = ? ORDER BY id")) {
                q.setInt(1, 2);
                q.setString(2, "it's 4");
                List<String> got = new ArrayList<>();
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) got.add(rs.getString(1) + "|" + rs.getBigDecimal(2));
                }
                assertThat(got).containsExactly("it's 2|2.50", "it's 4|4.50");
            }
            try (ResultSet rs = s.executeQuery("SELECT ok, n, total FROM v ORDER BY ok")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getBoolean(1)).isFalse();
                assertThat(rs.getLong(2)).isEqualTo(3);
                assertThat(rs.getBigDecimal(3)).isEqualByComparingTo("10.50");
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(2)).isEqualTo(2);
            }
            assertThatThrownBy(() -> s.executeQuery("SELECT nope FROM t"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42703"));
            assertThatThrownBy(() -> s.execute("INSERT INTO t VALUES (1, 'dup', 0, true)"))
                    .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("23505"));

            c.setAutoCommit(false);
            s.execute("INSERT INTO t VALUES (10, 'ten', 10, true)");
            c.rollback();
            s.execute("INSERT INTO t VALUES (11, 'eleven', 11, true)");
            c.commit();
            c.setAutoCommit(true);
            try (ResultSet rs = s.executeQuery("SELECT count(*), max(id) FROM t")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(6);
                assertThat(rs.getInt(2)).isEqualTo(11);
            }
            try (PreparedStatement q = c.prepareStatement("SELECT id FROM t WHERE id > ? ORDER BY id")) {
                q.setFetchSize(2); // row limits on Execute only apply inside a transaction for the driver
                q.setLong(1, 0L);
                List<Integer> ids = new ArrayList<>();
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) ids.add(rs.getInt(1));
                }
                assertThat(ids).containsExactly(1, 2, 3, 4, 5, 11);
            }
        }
    }
}
