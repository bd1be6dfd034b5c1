package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * psql running {@code COPY (SUBSCRIBE t) TO STDOUT} (the script {@code psql-stream/subscribe.sql}),
 * and a plain {@code SUBSCRIBE t} ({@code subscribe-plain.sql}),
 * while this test inserts from another connection, then interrupted as a user would with Ctrl-C
 * (SIGINT: psql sends a CancelRequest); psql then runs the rest of the script on the same
 * connection. What psql printed must equal the script's {@code .out} (stdout, then stderr). Every
 * step waits on psql's output, never on time: a row is inserted after the line before it arrived.
 * psql runs under coreutils' {@code stdbuf -o0} so that its stdout is not held in a buffer.
 */
@Timeout(120)
class PsqlStreamTest {
    private static final String PSQL = System.getProperty("psql.path", "psql");

    @Test
    void subscribeThroughCopyReceivesChangesUntilInterrupted() throws Exception {
        run("subscribe");
    }

    /** A plain {@code SUBSCRIBE t;} (no COPY around it) streams the same way, as Materialize serves it. */
    @Test
    void plainSubscribeStreamsAsCopyDoes() throws Exception {
        run("subscribe-plain");
    }

    private static void run(String script) throws Exception {
        Path dir = Path.of(PsqlStreamTest.class.getResource("/psql-stream").toURI());
        try (Tributary db = Tributary.inMemory(Clock.manual(0));
             PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10);
             Connection writer = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary");
             Statement w = writer.createStatement()) {
            w.execute("CREATE TABLE t (id int, name text)");
            w.execute("INSERT INTO t VALUES (1, 'first')");
            // psql writes COPY rows to stdout with stdio and flushes only at the end; unbuffered, each row shows as it comes
            ProcessBuilder pb = new ProcessBuilder("stdbuf", "-o0", PSQL, "-X", "-a", "-q", "-v", "ON_ERROR_STOP=0",
                    "-h", "127.0.0.1", "-p", String.valueOf(server.port()), "-U", "tributary", "-d", "tributary", "-f", script + ".sql");
            pb.directory(dir.toFile());
            pb.environment().put("PGTZ", "UTC");
            pb.environment().put("LC_ALL", "C");
            pb.environment().remove("PGOPTIONS");
            Process psql = pb.start();
            psql.getOutputStream().close();
            CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(psql.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            StringBuilder out = new StringBuilder();
            BufferedReader lines = new BufferedReader(new InputStreamReader(psql.getInputStream(), StandardCharsets.UTF_8));
            // the echoed statements, then the snapshot
            readThrough(lines, out, "1970-01-01 00:00:00.001+00\t1\t1\tfirst");
            w.execute("INSERT INTO t VALUES (2, 'second')");
            readThrough(lines, out, "1970-01-01 00:00:00.002+00\t1\t2\tsecond");
            w.execute("DELETE FROM t WHERE id = 1");
            readThrough(lines, out, "1970-01-01 00:00:00.003+00\t-1\t1\tfirst");
            assertThat(db.activeSubscriptions()).isEqualTo(1);
            // Ctrl-C
            Process kill = new ProcessBuilder("kill", "-INT", String.valueOf(psql.pid())).inheritIO().start();
            assertThat(kill.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String line;
            while ((line = lines.readLine()) != null) out.append(line).append('\n');
            assertThat(psql.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String printed = out + "---- stderr\n" + stderr.get(30, TimeUnit.SECONDS);
            assertThat(db.activeSubscriptions()).isZero();
            try (var rs = w.executeQuery("SELECT count(*) FROM t")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).isEqualTo(1);
            }
            Path expected = dir.resolve(script + ".out");
            if (Boolean.getBoolean("psql.golden.update")) {
                Files.writeString(Path.of("src/test/resources/psql-stream/" + script + ".out"), printed, StandardCharsets.UTF_8);
                return;
            }
            assertThat(printed).isEqualTo(Files.readString(expected, StandardCharsets.UTF_8));
        }
    }

    /** Reads lines into {@code out} up to and including {@code last}. */
    private static void readThrough(BufferedReader lines, StringBuilder out, String last) throws java.io.IOException {
        String line;
        while ((line = lines.readLine()) != null) {
            out.append(line).append('\n');
            if (line.equals(last)) return;
        }
        throw new AssertionError("psql ended before printing " + last + "; it printed:\n" + out);
    }
}
