package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.net.InetAddress;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Array parameters as drivers send them: pgjdbc's {@code setArray} (typed int4[], text[], ...),
 * a string in an untyped parameter that the context makes an array ({@code = ANY($1)}), and
 * arrays read back, in text and binary.
 */
class ArrayParametersTest {
    private static List<String> column(PreparedStatement ps) throws Exception {
        List<String> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) out.add(rs.getString(1));
        }
        return out;
    }

    /** Something to run over a connection. */
    interface ConnectionUse {
        void run(Connection c, Statement st) throws Exception;
    }

    /**
     * Runs {@code use} over a fresh in-memory database's wire server through pgjdbc twice: with
     * results in text and in binary, every statement prepared on the server.
     */
    static void inBothFormats(ConnectionUse use) throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(0));
             PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10)) {
            for (String binary : List.of("false", "true")) {
                try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary&binaryTransfer=" + binary
                        + "&prepareThreshold=-1");
                     Statement st = c.createStatement()) {
                    use.run(c, st);
                }
            }
        }
    }

    @Test
    void arraysGoInAsParametersAndComeBack() throws Exception {
        inBothFormats((c, st) -> {
            st.execute("DROP TABLE IF EXISTS t");
            st.execute("CREATE TABLE t (id int, name text, tags text[], scores int[])");
            st.execute("INSERT INTO t VALUES (1, 'a', '{x,y}', '{1,2}'), (2, 'b', '{z}', '{3}'), (3, 'c', NULL, NULL)");
            try (PreparedStatement ps = c.prepareStatement("SELECT name FROM t WHERE id = ANY(?) ORDER BY id")) {
                ps.setArray(1, c.createArrayOf("int4", new Integer[] {1, 3}));
                assertThat(column(ps)).containsExactly("a", "c");
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM t WHERE name = ANY(?) ORDER BY id")) {
                ps.setArray(1, c.createArrayOf("text", new String[] {"b", "c", "nope"}));
                assertThat(column(ps)).containsExactly("2", "3");
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM t WHERE id = ANY(?::int[]) ORDER BY id")) {
                ps.setString(1, "{2,3}");
                assertThat(column(ps)).containsExactly("2", "3");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?, ?)")) {
                ps.setInt(1, 4);
                ps.setString(2, "d");
                ps.setArray(3, c.createArrayOf("text", new String[] {"p", null, "q r"}));
                ps.setArray(4, c.createArrayOf("int4", new Integer[] {7, 8, 9}));
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT tags, scores FROM t WHERE id = ?")) {
                ps.setInt(1, 4);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    Array tags = rs.getArray(1);
                    assertThat((Object[]) tags.getArray()).containsExactly("p", null, "q r");
                    assertThat((Object[]) rs.getArray(2).getArray()).containsExactly(7, 8, 9);
                }
            }
            // an untyped parameter (OID 0) that = ANY makes an array of the left side's type
            try (PreparedStatement ps = c.prepareStatement("SELECT name FROM t WHERE id = ANY(?) ORDER BY id")) {
                ps.setObject(1, "{1,4}", java.sql.Types.OTHER);
                assertThat(column(ps)).containsExactly("a", "d");
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT ? || tags FROM t WHERE id = 1")) {
                ps.setArray(1, c.createArrayOf("text", new String[] {"w"}));
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat((Object[]) rs.getArray(1).getArray()).containsExactly("w", "x", "y");
                }
            }
        });
    }
}
