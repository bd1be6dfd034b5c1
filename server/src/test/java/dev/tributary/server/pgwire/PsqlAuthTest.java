package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The real psql logging in with SCRAM-SHA-256, over TLS with sslmode=require, and refused as it expects. */
class PsqlAuthTest {
    private static final String PSQL = System.getProperty("psql.path", "psql");
    private Tributary db;
    private PgServer server;

    private record Run(int status, String output) {}

    @BeforeEach
    void start() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withTls(TlsTest.serverContext()));
        db.execute("CREATE ROLE alice LOGIN PASSWORD 'pw'");
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        db.close();
    }

    private Run psql(PgServer s, Map<String, String> env, String user, String command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(PSQL, "-X", "-A", "-t", "-h", "127.0.0.1", "-p", String.valueOf(s.port()), "-U", user,
                "-d", "tributary", "-w", "-c", command);
        pb.redirectErrorStream(true);
        pb.environment().remove("PGPASSWORD");
        pb.environment().put("LC_ALL", "C");
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }

    @Test
    void scramOverTlsAndRefusals() throws Exception {
        Run ok = psql(server, Map.of("PGPASSWORD", "pw", "PGSSLMODE", "require"), "alice", "\\conninfo");
        assertThat(ok.status()).as(ok.output()).isZero();
        assertThat(ok.output()).contains("as user \"alice\"").containsPattern("SSL connection \\(protocol: TLSv1\\.[23]");

        Run plain = psql(server, Map.of("PGPASSWORD", "pw", "PGSSLMODE", "disable"), "alice", "SELECT 'plain'");
        assertThat(plain).isEqualTo(new Run(0, "plain\n"));

        String failed = "psql: error: connection to server at \"127.0.0.1\", port " + server.port() + " failed: ";
        for (String user : List.of("alice", "ghost")) {
            Run wrong = psql(server, Map.of("PGPASSWORD", "nope", "PGSSLMODE", "require"), user, "SELECT 1");
            assertThat(wrong).isEqualTo(new Run(2, failed + "FATAL:  password authentication failed for user \"" + user + "\"\n"));
        }
        Run none = psql(server, Map.of("PGSSLMODE", "disable"), "alice", "SELECT 1");
        assertThat(none).isEqualTo(new Run(2, failed + "fe_sendauth: no password supplied\n"));

        try (PgServer noTls = new PgServer(db, PgServer.Options.defaults().withPort(0))) {
            Run refused = psql(noTls, Map.of("PGPASSWORD", "pw", "PGSSLMODE", "require"), "alice", "SELECT 1");
            assertThat(refused).isEqualTo(new Run(2, "psql: error: connection to server at \"127.0.0.1\", port " + noTls.port()
                    + " failed: server does not support SSL, but SSL was required\n"));
        }
    }
}
