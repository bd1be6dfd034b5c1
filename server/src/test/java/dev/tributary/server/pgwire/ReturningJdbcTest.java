package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * RETURNING through pgjdbc as ORMs use it: a prepared INSERT with parameters read with
 * executeQuery, {@code getGeneratedKeys} (the driver appends {@code RETURNING *}), UPDATE and
 * DELETE returning rows, with the statement described before it runs (its RowDescription) and run
 * again after the catalog changed; text and binary results.
 */
class ReturningJdbcTest {
    @Test
    void preparedWritesReturnTheirRows() throws Exception {
        ArrayParametersTest.inBothFormats((c, st) -> {
            st.execute("DROP TABLE IF EXISTS item");
            st.execute("CREATE TABLE item (id int PRIMARY KEY, name text, qty int DEFAULT 7)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO item (id, name) VALUES (?, ?) RETURNING id, qty, name || '!' AS loud")) {
                assertThat(ps.getMetaData().getColumnCount()).isEqualTo(3);
                assertThat(ps.getMetaData().getColumnName(3)).isEqualTo("loud");
                for (int i = 1; i <= 3; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "n" + i);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                        assertThat(rs.getInt(1)).isEqualTo(i);
                        assertThat(rs.getInt(2)).isEqualTo(7);
                        assertThat(rs.getString(3)).isEqualTo("n" + i + "!");
                        assertThat(rs.next()).isFalse();
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO item (id, name) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
                ps.setInt(1, 4);
                ps.setString(2, "four");
                assertThat(ps.executeUpdate()).isEqualTo(1);
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    assertThat(keys.next()).isTrue();
                    assertThat(keys.getInt("id")).isEqualTo(4);
                    assertThat(keys.getInt("qty")).isEqualTo(7);
                }
            }
            // the catalog changes between runs: the statement is bound again with the same result columns
            st.execute("CREATE TABLE other (x int)");
            try (PreparedStatement ps = c.prepareStatement("UPDATE item SET qty = qty * ? WHERE id <= ? RETURNING id, qty")) {
                ps.setInt(1, 3);
                ps.setInt(2, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    int n = 0;
                    while (rs.next()) {
                        assertThat(rs.getInt(2)).isEqualTo(21);
                        n++;
                    }
                    assertThat(n).isEqualTo(2);
                }
            }
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM item WHERE id = ? RETURNING name")) {
                ps.setInt(1, 3);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getString(1)).isEqualTo("n3");
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT count(*) FROM item")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(3);
            }
            st.execute("DROP TABLE other");
        });
    }
}
