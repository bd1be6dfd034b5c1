package dev.tributary.server.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import dev.tributary.server.pgwire.PgServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tributary sql -h HOST -p PORT} against a running {@link PgServer}: the same output as in memory, errors, notices, passwords, TLS. */
class RemoteShellTest {
    private record Run(int status, String out, String err) {}

    private Tributary db;
    private PgServer server;

    @BeforeEach
    void start() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        server = new PgServer(db, PgServer.Options.defaults().withPort(0));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        db.close();
    }

    private Run remote(Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(List.of("-h", "127.0.0.1", "-p", String.valueOf(server.port())));
        all.addAll(List.of(args));
        return run(env, all.toArray(new String[0]));
    }

    private Run remote(String... args) {
        return remote(Map.of(), args);
    }

    private static Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Shell.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void printsWhatTheInMemoryShellPrintsAndTheDataStaysOnTheServer() {
        String script = "CREATE TABLE t (a int, b text, c numeric(5,2), d boolean); INSERT INTO t VALUES (1, 'x', 1.5, true), (22, NULL, -3.25, false);"
                + " SELECT * FROM t ORDER BY a";
        Run local = run(Map.of(), "--clock", "manual", "-c", script);
        Run remote = remote("-c", script);
        assertThat(remote).isEqualTo(local);
        assertThat(remote.out()).contains("""
                 a  | b |   c   | d\s
                ----+---+-------+---
                  1 | x |  1.50 | t
                 22 |   | -3.25 | f
                (2 rows)
                """);
        // a second run of the shell sees the first one's table: it is on the server
        assertThat(remote("-A", "-t", "-F", ",", "-c", "SELECT a, b FROM t ORDER BY a").out()).isEqualTo("1,x\n22,\n");
        assertThat(db.query("SELECT count(*) FROM t").rows().get(0)[0]).isEqualTo(2L);
    }

    @Test
    void errorsPrintAsPsqlDoesAndOnErrorStopStops(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("s.sql");
        Files.writeString(f, "CREATE TABLE t (a int);\nINSERT INTO t VALUES (1);\nSELECT\n  nope FROM t;\nSELECT count(*) FROM t;\n");
        Run r = remote("-A", "-t", "-f", f.toString());
        assertThat(r.status()).isZero();
        assertThat(r.out()).isEqualTo("CREATE TABLE\nINSERT 0 1\n1\n");
        assertThat(r.err()).isEqualTo("""
                ERROR:  42703: column "nope" does not exist
                LINE 2:   nope FROM t;
                          ^
                """);
        Run stopped = remote("-v", "ON_ERROR_STOP=1", "-q", "-c", "SELECT 1/0", "-c", "SELECT 2");
        assertThat(stopped.status()).isEqualTo(3);
        assertThat(stopped.out()).isEmpty();
        assertThat(stopped.err()).isEqualTo("ERROR:  22012: division by zero\n");
    }

    @Test
    void noticesPrintOnStandardErrorLikePsql() {
        Run r = remote("-q", "-c", "DROP TABLE IF EXISTS missing; CREATE TABLE t (a int); CREATE TABLE IF NOT EXISTS t (a int)");
        assertThat(r.status()).isZero();
        assertThat(r.err()).isEqualTo("NOTICE:  table \"missing\" does not exist, skipping\nNOTICE:  relation \"t\" already exists, skipping\n");
        assertThat(run(Map.of(), "-q", "-c", "DROP TABLE IF EXISTS missing").err()).isEqualTo("NOTICE:  table \"missing\" does not exist, skipping\n");
    }

    @Test
    void passwordsFromPgpasswordAndRefusalsAsPsqlPrintsThem() {
        db.execute("CREATE ROLE alice LOGIN PASSWORD 'pw'");
        Run ok = remote(Map.of("PGPASSWORD", "pw"), "-U", "alice", "-A", "-t", "-c", "SELECT 'in'");
        assertThat(ok.err()).isEmpty();
        assertThat(ok.out()).isEqualTo("in\n");
        String failed = "tributary sql: error: connection to server at \"127.0.0.1\", port " + server.port() + " failed: ";
        Run wrong = remote(Map.of("PGPASSWORD", "nope"), "-U", "alice", "-c", "SELECT 1");
        assertThat(wrong.status()).isEqualTo(2);
        assertThat(wrong.err()).isEqualTo(failed + "FATAL:  password authentication failed for user \"alice\"\n");
        Run none = remote(Map.of(), "-w", "-U", "alice", "-c", "SELECT 1");
        assertThat(none.status()).isEqualTo(2);
        assertThat(none.err()).isEqualTo(failed + "fe_sendauth: no password supplied\n");
        Run otherDb = remote(Map.of("PGPASSWORD", "pw"), "-U", "alice", "-d", "postgres", "-c", "SELECT 1");
        assertThat(otherDb.err()).isEqualTo(failed + "FATAL:  database \"postgres\" does not exist\n");
    }

    @Test
    void tlsWhenTheServerHasACertificateAndRequireFailsWithoutOne() throws Exception {
        String failed = "tributary sql: error: connection to server at \"127.0.0.1\", port " + server.port() + " failed: ";
        Run refused = remote(Map.of("PGSSLMODE", "require"), "-c", "SELECT 1");
        assertThat(refused.status()).isEqualTo(2);
        assertThat(refused.err()).isEqualTo(failed + "server does not support SSL, but SSL was required\n");
        server.close();
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withTls(dev.tributary.server.pgwire.Tls.serverContext(
                Path.of(getClass().getResource("/tls/server.crt").toURI()), Path.of(getClass().getResource("/tls/server.key").toURI()))));
        db.execute("CREATE ROLE alice LOGIN PASSWORD 'pw'");
        Run ok = remote(Map.of("PGSSLMODE", "require", "PGPASSWORD", "pw"), "-U", "alice", "-A", "-t", "-c", "SELECT 'over tls'");
        assertThat(ok.err()).isEmpty();
        assertThat(ok.out()).isEqualTo("over tls\n");
    }

    @Test
    void copyRowsDecodeCopysTextFormat() {
        assertThat(Remote.copyRow("1\tx\\ty\t\\N\ta\\\\b\\n\\101\\x42\n".getBytes(StandardCharsets.UTF_8)))
                .containsExactly("1", "x\ty", null, "a\\b\nAB");
        assertThat(Remote.copyRow("\n".getBytes(StandardCharsets.UTF_8))).containsExactly("");
    }
}
