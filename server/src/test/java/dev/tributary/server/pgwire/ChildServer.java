package dev.tributary.server.pgwire;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A {@code serve --data} server in a child JVM of its own (its own heap, killable with SIGKILL), for tests that need one. */
public final class ChildServer {
    private ChildServer() {}

    /** A running child server; its output so far in {@code log}. */
    public record Server(Process process, int port, StringBuffer log) {
        public Connection connect() throws SQLException {
            return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/tributary?user=tributary");
        }

        /**
         * Whether its output has {@code text} within 30 s: its standard error is read on another
         * thread, so a line the server wrote before it answered may not be in {@link #log} yet.
         */
        boolean logs(String text) throws InterruptedException {
            return logsUntil(l -> l.indexOf(text) >= 0);
        }

        /** Whether its output comes to satisfy {@code done} within 30 s, waiting on the log's monitor (the reader thread notifies it per line). */
        boolean logsUntil(java.util.function.Predicate<StringBuffer> done) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            synchronized (log) {
                while (!done.test(log)) {
                    long left = end - System.nanoTime();
                    if (left <= 0) return false;
                    TimeUnit.NANOSECONDS.timedWait(log, left);
                }
                return true;
            }
        }

        /** Stops it at once (SIGKILL), as a crash would. */
        public void kill() throws InterruptedException {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** A server on {@code data} with two workers, its JVM started with {@code jvmOptions}; returns once it listens. */
    public static Server start(Path data, List<String> jvmOptions) throws Exception {
        return start(data, jvmOptions, List.of());
    }

    /** {@link #start(Path, List)} with {@code serveOptions} after the others of {@code serve}. */
    public static Server start(Path data, List<String> jvmOptions, List<String> serveOptions) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        cmd.add("--add-exports");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("dev.tributary.server.pgwire.PgServer");
        cmd.addAll(List.of("--port", "0", "--workers", "2", "--data", data.toString()));
        cmd.addAll(serveOptions);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuffer log = new StringBuffer();
        CountDownLatch listening = new CountDownLatch(1);
        int[] port = {-1};
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (log) {
                        log.append(line).append('\n');
                        log.notifyAll();
                    }
                    var m = java.util.regex.Pattern.compile("listening on [^ ]*:(\\d+) ").matcher(line);
                    if (m.find()) {
                        port[0] = Integer.parseInt(m.group(1));
                        listening.countDown();
                    }
                }
            } catch (java.io.IOException ignored) {
                // the process was killed
            }
            listening.countDown();
        });
        reader.setDaemon(true);
        reader.start();
        if (!listening.await(120, TimeUnit.SECONDS) || port[0] < 0) {
            p.destroyForcibly();
            throw new AssertionError("the server did not start:\n" + log);
        }
        return new Server(p, port[0], log);
    }
}
