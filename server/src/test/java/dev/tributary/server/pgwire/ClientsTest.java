package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The clients people use, for real, against {@link PgServer}: psycopg 3, SQLAlchemy (over
 * psycopg2) and node-postgres each run a script of a new user's first steps
 * ({@code src/test/clients}): connect, create, insert with every common parameter type, read
 * back, transactions with savepoints, upserts, serial keys and (SQLAlchemy) reflection. Each
 * script checks its own answers and exits non-zero at the first wrong one.
 *
 * <p>{@code .ci/run} installs Debian's python3-psycopg, python3-psycopg2 and python3-sqlalchemy
 * and npm's {@code pg} (into {@code ~/.cache/tributary-clients}, set by {@code clients.node.path})
 * when they are missing; a missing client fails the test rather than skipping it.
 */
class ClientsTest {
    private static final String PYTHON = System.getProperty("clients.python", "/usr/bin/python3");
    private static final String NODE_PATH = System.getProperty("clients.node.path",
            Path.of(System.getProperty("user.home"), ".cache", "tributary-clients", "node_modules").toString());

    @Test
    void psycopg3() throws Exception {
        run(List.of(PYTHON, script("psycopg_client.py")), "psycopg done");
    }

    @Test
    void sqlalchemyOrmAndReflection() throws Exception {
        run(List.of(PYTHON, script("sqlalchemy_client.py")), "sqlalchemy done");
    }

    @Test
    void nodePostgres() throws Exception {
        run(List.of("node", script("node_pg_client.js")), "node-pg done");
    }

    private static String script(String name) {
        Path p = Path.of("src/test/clients", name).toAbsolutePath();
        assertThat(p).exists();
        return p.toString();
    }

    /** Runs {@code command} with the server's port as its last argument on a fresh database; it must exit 0 and print {@code done}. */
    private static void run(List<String> command, String done) throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.wall());
             PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10)) {
            List<String> cmd = new ArrayList<>(command);
            cmd.add(String.valueOf(server.port()));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().put("NODE_PATH", NODE_PATH);
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new AssertionError(command.get(0) + " is not installed (.ci/run installs it): " + e.getMessage(), e);
            }
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
            String text = new String(out, StandardCharsets.UTF_8);
            assertThat(p.exitValue()).as("%s exit status; it printed:%n%s", command, text).isZero();
            assertThat(text).contains(done);
        }
    }
}
