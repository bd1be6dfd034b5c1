package dev.tributary.storage;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away PostgreSQL 15 server for the tests that need one: initdb into a temporary
 * directory and started on a free loopback port (fsync off: the tests check semantics, not
 * durability), once per test JVM, stopped when it exits. As root (CI), it runs as the
 * {@code postgres} user, as PostgreSQL requires. The server binaries are required, not optional:
 * {@code .ci/run} installs Debian's postgresql-15 when they are missing; without them the tests
 * fail saying so.
 */
final class TestPostgres {
    private TestPostgres() {}

    private static final Path BIN = Path.of(System.getenv().getOrDefault("PG_BIN", "/usr/lib/postgresql/15/bin"));
    private static String url;

    /** The JDBC URL of the test server, starting it on first use. */
    static synchronized String url() throws Exception {
        if (url != null) return url;
        if (!Files.isExecutable(BIN.resolve("initdb"))) {
            throw new IllegalStateException("PostgreSQL 15's server is not installed (no " + BIN.resolve("initdb")
                    + "); install Debian's postgresql-15 (.ci/run does) or set PG_BIN");
        }
        boolean root = "root".equals(System.getProperty("user.name"));
        Path work = Files.createTempDirectory("tributary-pg");
        if (root) {
            var postgres = work.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres");
            Files.setOwner(work, postgres);
        }
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path data = work.resolve("pgdata");
        run(root, BIN.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C");
        run(root, BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", work.resolve("postgres.log").toString(), "-w", "-t", "60",
                "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + work + " -c fsync=off", "start");
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                run(root, BIN.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "-w", "stop");
                try (var files = Files.walk(work)) {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            } catch (Exception ignored) {
                // the JVM is exiting
            }
        }));
        url = "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
        return url;
    }

    private static void run(boolean root, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (root) cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + out);
    }
}
