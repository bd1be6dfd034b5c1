package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * psql itself against {@link PgServer}: every {@code psql/NAME.sql} among the test resources is
 * run by the real psql on a fresh database (manual clock at 0, so times are the same every run),
 * and what psql prints (stdout and stderr together, input echoed with {@code -a}) must equal
 * {@code NAME.out} byte for byte.
 *
 * <p>{@code -Dpsql.golden.update=true} writes the outputs into {@code src/test/resources/psql}
 * instead of comparing: read every changed line before committing it. psql must be installed
 * ({@code .ci/run} installs Debian's postgresql-client when it is missing); a missing psql fails
 * the test rather than skipping it.
 */
class PsqlGoldenTest {
    private static final String PSQL = System.getProperty("psql.path", "psql");

    @TestFactory
    Stream<DynamicTest> scripts() throws IOException, URISyntaxException {
        Path dir = Path.of(PsqlGoldenTest.class.getResource("/psql").toURI());
        List<Path> scripts;
        try (Stream<Path> files = Files.list(dir)) {
            scripts = files.filter(p -> p.toString().endsWith(".sql")).sorted().toList();
        }
        assertThat(scripts).as("psql scripts in %s", dir).isNotEmpty();
        return scripts.stream().map(s -> DynamicTest.dynamicTest(s.getFileName().toString(), () -> check(s)));
    }

    private static void check(Path script) throws Exception {
        String name = script.getFileName().toString();
        String actual = run(script);
        String base = name.substring(0, name.length() - ".sql".length());
        if (Boolean.getBoolean("psql.golden.update")) {
            Files.writeString(Path.of("src/test/resources/psql", base + ".out"), actual, StandardCharsets.UTF_8);
            return;
        }
        Path expected = script.resolveSibling(base + ".out");
        assertThat(Files.exists(expected)).as("expected output %s (make it with -Dpsql.golden.update=true)", expected).isTrue();
        assertThat(actual).as("psql output of %s", name).isEqualTo(Files.readString(expected, StandardCharsets.UTF_8));
    }

    /** Runs psql on {@code script} against a fresh server; returns what it printed. */
    static String run(Path script) throws Exception {
        try (Tributary db = Tributary.inMemory(Clock.manual(0));
             PgServer server = new PgServer(db, InetAddress.getLoopbackAddress(), 0, 10)) {
            ProcessBuilder pb = new ProcessBuilder(PSQL, "-X", "-a", "-q", "-v", "ON_ERROR_STOP=0",
                    "-h", "127.0.0.1", "-p", String.valueOf(server.port()), "-U", "tributary", "-d", "tributary",
                    "-f", script.getFileName().toString());
            pb.directory(script.getParent().toFile());
            pb.redirectErrorStream(true);
            pb.environment().put("PGTZ", "UTC");
            pb.environment().put("LC_ALL", "C");
            pb.environment().put("PGCLIENTENCODING", "UTF8");
            pb.environment().remove("PGPASSWORD");
            pb.environment().remove("PGOPTIONS");
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                throw new AssertionError("psql is not installed (" + e.getMessage()
                        + "); install Debian's postgresql-client, as .ci/run does", e);
            }
            p.getOutputStream().close();
            Process psql = p;
            CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
                try {
                    return psql.getInputStream().readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("psql on " + script + " did not end within 60 s");
            }
            return new String(out.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        }
    }
}
