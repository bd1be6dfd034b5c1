package dev.tributary.server;

import static dev.tributary.server.SqlRows.fails;
import static dev.tributary.server.SqlRows.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.sql.SqlException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What makes the server reach another host (an HTTP sink, INSERT INTO FUNCTION url, a Kafka source
 * or sink) is for superusers and members of the predefined role {@code tributary_connect} only
 * (42501 with a hint otherwise): any of them could be pointed at an internal address. A recovery
 * makes again what was allowed when it was made, whatever the role is a member of by then.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConnectPrivilegeTest {
    @TempDir
    Path dir;

    @Test
    void onlySuperusersAndMembersOfTributaryConnectReachOtherHosts() throws Exception {
        try (HttpReceiver receiver = new HttpReceiver(0); Tributary db = Tributary.open(dir.resolve("data"))) {
            db.execute("CREATE ROLE alice");
            db.execute("GRANT CREATE ON SCHEMA public TO alice");
            db.execute("CREATE TABLE t (k int)");
            db.execute("GRANT SELECT ON t TO alice");
            Tributary.Connection alice = db.session();
            alice.execute("SET ROLE alice");
            String url = receiver.url();
            for (String refused : List.of("CREATE SINK s FROM t INTO HTTP (URL '" + url + "')",
                    "CREATE JOB s AS INSERT INTO FUNCTION url('" + url + "') SELECT k FROM t",
                    "INSERT INTO FUNCTION url('" + url + "') SELECT k FROM t",
                    "CREATE SINK s FROM t INTO KAFKA (BROKERS '127.0.0.1:1', TOPIC 'x') FORMAT JSON ENVELOPE UPSERT",
                    "CREATE SOURCE s FROM KAFKA (BROKERS '127.0.0.1:1', TOPIC 'x') FORMAT JSON")) {
                SqlException e = SqlRows.error(alice, refused);
                assertThat(e.sqlState()).as(refused).isEqualTo("42501");
                assertThat(e.hint()).as(refused).contains("GRANT tributary_connect TO alice");
            }
            assertThat(receiver.requests()).isEmpty();
            assertThat(rows(db, "SHOW SINKS")).isEmpty();
            // the predefined role: granted as any role, never dropped or made again
            db.execute("GRANT tributary_connect TO alice");
            alice.execute("CREATE SINK s FROM t INTO HTTP (URL '" + url + "')");
            assertThat(alice.execute("INSERT INTO FUNCTION url('" + url + "') SELECT 1").get(0).tag()).isEqualTo("INSERT 0 1");
            fails("2BP01", () -> db.execute("DROP ROLE tributary_connect"));
            fails("42710", () -> db.execute("CREATE ROLE tributary_connect"));
            // no longer a member: what it made stays, and a restart makes it again
            db.execute("REVOKE tributary_connect FROM alice");
            fails("42501", () -> alice.execute("INSERT INTO FUNCTION url('" + url + "') SELECT 1"));
        }
        try (Tributary db = Tributary.open(dir.resolve("data"))) {
            assertThat(rows(db, "SHOW SINKS")).singleElement().asString().startsWith("s|http|t|");
            assertThat(rows(db, "SELECT pg_has_role('alice', 'tributary_connect', 'USAGE')")).containsExactly("f");
        }
    }
}
