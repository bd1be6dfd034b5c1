package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CREATE SOURCE, CREATE JOB, ALTER JOB and DROP of both through the PostgreSQL JDBC driver's
 * defaults: over the extended protocol an autocommitted statement runs in the implicit
 * transaction before Sync, which is not a transaction block for them (as for PostgreSQL's
 * CREATE DATABASE); an explicit block still is (25001).
 */
class JdbcSourcesTest extends LocalServerTest {
    @TempDir
    Path dir;

    private Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary");
    }

    @Test
    void sourcesAndJobsAreMadeWithTheDriversDefaults() throws Exception {
        Path in = Files.createDirectory(dir.resolve("in"));
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE jdbc_out (id int)");
            s.execute("CREATE SOURCE jdbc_in (id int) FROM DIRECTORY (PATH '" + in + "') FORMAT CSV");
            s.execute("CREATE JOB jdbc_job AS INSERT INTO jdbc_out SELECT id FROM jdbc_in STREAM");
            s.execute("ALTER JOB jdbc_job PAUSE");
            s.execute("ALTER JOB jdbc_job RESUME");
            c.setAutoCommit(false);
            assertThatThrownBy(() -> s.execute("DROP JOB jdbc_job")).isInstanceOfSatisfying(SQLException.class,
                    e -> assertThat(e.getSQLState()).isEqualTo("25001"));
            c.rollback();
            c.setAutoCommit(true);
            s.execute("DROP JOB jdbc_job");
            s.execute("DROP SOURCE jdbc_in");
            s.execute("DROP TABLE jdbc_out");
        }
    }
}
