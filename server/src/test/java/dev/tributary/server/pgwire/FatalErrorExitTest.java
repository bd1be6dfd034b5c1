package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A server beyond saving exits with a clear log line instead of staying up hung (issue 25): in a
 * child JVM with {@code serve}'s policy ({@link PgServer#exitOnFatalErrors}), an
 * {@link OutOfMemoryError} that ends a thread the server cannot run without (a worker) ends the
 * process with status 3 and a FATAL line; the same error ending another thread, or another
 * uncaught error, is only logged.
 */
class FatalErrorExitTest {
    /** The child: {@code serve}'s policy, then a thread that dies of {@code args[0]}. */
    public static void main(String[] args) throws Exception {
        PgServer.exitOnFatalErrors();
        Thread t = new Thread(() -> {
            if (args[0].startsWith("oom")) throw new OutOfMemoryError("Java heap space (thrown by the test)");
            throw new IllegalStateException("a bug (thrown by the test)");
        }, args[0].equals("oom") ? "tributary-worker-0" : "doomed");
        t.start();
        t.join();
        System.out.println("still running");
        System.out.flush();
    }

    /** The child's exit status and output, once it has ended. */
    private record Ended(int status, String output) {}

    private static Ended child(String what) throws Exception {
        Process p = new ProcessBuilder(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                FatalErrorExitTest.class.getName(), what)).redirectErrorStream(true).start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Ended(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void anUncontainedOutOfMemoryErrorEndsTheProcessWithAFatalLine() throws Exception {
        Ended e = child("oom");
        assertThat(e.status()).as(e.output()).isEqualTo(3);
        assertThat(e.output()).contains("FATAL:  the server cannot go on after java.lang.OutOfMemoryError: Java heap space (thrown by the test) in thread tributary-worker-0")
                .doesNotContain("still running");
    }

    @Test
    void anOutOfMemoryErrorEndingAnotherThreadIsLoggedAndTheProcessGoesOn() throws Exception {
        Ended e = child("oom-elsewhere");
        assertThat(e.status()).as(e.output()).isZero();
        assertThat(e.output()).contains("thread doomed ended with an internal error: java.lang.OutOfMemoryError").contains("still running");
    }

    @Test
    void anotherUncaughtErrorIsLoggedAndTheProcessGoesOn() throws Exception {
        Ended e = child("bug");
        assertThat(e.status()).as(e.output()).isZero();
        assertThat(e.output()).contains("thread doomed ended with an internal error: java.lang.IllegalStateException: a bug (thrown by the test)").contains("still running");
    }
}
