package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.ServerLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server log (issue 25, operations) in PostgreSQL's lines ({@code %m [%p] } as the prefix):
 * a connection's received, authorized and disconnection lines under its process id; an error
 * sent to a client, with the STATEMENT it came from; the duration of a statement at least
 * {@code log_min_duration_statement} long; an internal error with its stack trace; and
 * {@code serve --log-file} writing the same lines to a file.
 */
class ServerLogTest extends LocalServerTest {
    /** PostgreSQL's {@code %m}: the time to the millisecond, in UTC. */
    private static final String TIME = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} UTC ";

    /** The line of {@code log} that matches {@code regex} whole; fails naming the log if none does. */
    private static int lineMatching(List<String> log, String regex) {
        Pattern p = Pattern.compile(regex);
        for (int i = 0; i < log.size(); i++) if (p.matcher(log.get(i)).matches()) return i;
        throw new AssertionError("no line matches " + regex + " in the log:\n" + String.join("\n", log));
    }

    /** The process id of {@code c}'s connection, as pg_backend_pid() tells it. */
    private static int pid(WireClient c) throws IOException {
        c.send(WireClient.query("SELECT pg_backend_pid()"));
        return Integer.parseInt(c.briefUntilReady().stream().filter(m -> m.startsWith("D ")).findFirst().orElseThrow().substring(2));
    }

    @Test
    void aConnectionIsLoggedWhenReceivedWhenAuthorizedAndWhenItEnds() throws Exception {
        try (ServerLog.Capture log = ServerLog.capture()) {
            int pid;
            int port;
            try (WireClient c = WireClient.connect(server.port())) {
                pid = pid(c);
                port = c.socket.getLocalPort();
                c.send(WireClient.terminate());
                assertThat(c.next()).as("the server closes the connection").isNull();
            }
            // the disconnection is logged before the connection stops counting
            assertThat(server.awaitConnections(0, 30_000)).isTrue();
            List<String> lines = log.lines();
            String who = TIME + "\\[" + pid + "\\] LOG:  ";
            int received = lineMatching(lines, who + "connection received: host=127\\.0\\.0\\.1 port=" + port);
            int authorized = lineMatching(lines, who + "connection authorized: user=tributary database=tributary");
            int ended = lineMatching(lines, who + "disconnection: session time: \\d+:\\d\\d:\\d\\d\\.\\d{3} user=tributary database=tributary host=127\\.0\\.0\\.1 port=" + port);
            assertThat(received).isLessThan(authorized);
            assertThat(authorized).isLessThan(ended);
        }
    }

    @Test
    void anErrorSentToAClientIsLoggedWithItsStatement() throws IOException {
        try (ServerLog.Capture log = ServerLog.capture(); WireClient c = WireClient.connect(server.port())) {
            int pid = pid(c);
            c.send(WireClient.query("SELECT * FROM nosuch"));
            assertThat(c.briefUntilReady()).containsExactly("E 42P01", "Z I");
            // the extended protocol: the statement is the one parsed
            c.send(WireClient.parse("", "SELECT nocolumn"), WireClient.sync());
            assertThat(c.briefUntilReady()).containsExactly("E 42703", "Z I");
            List<String> lines = log.lines();
            String who = TIME + "\\[" + pid + "\\] ";
            int error = lineMatching(lines, who + "ERROR:  42P01: relation \"nosuch\" does not exist at character 15");
            assertThat(lines.get(error + 1)).matches(who + "STATEMENT:  SELECT \\* FROM nosuch");
            int parse = lineMatching(lines, who + "ERROR:  42703: column \"nocolumn\" does not exist at character 8");
            assertThat(lines.get(parse + 1)).matches(who + "STATEMENT:  SELECT nocolumn");
        }
    }

    @Test
    void aStatementAtLeastLogMinDurationStatementLongIsLoggedWithItsDuration() throws IOException {
        try (ServerLog.Capture log = ServerLog.capture(); WireClient c = WireClient.connect(server.port())) {
            int pid = pid(c);
            c.send(WireClient.query("SELECT 41"));
            c.briefUntilReady();
            assertThat(log.text()).as("off by default (-1)").doesNotContain("duration:");
            c.send(WireClient.query("SHOW log_min_duration_statement"));
            assertThat(c.briefUntilReady()).contains("D -1");
            c.send(WireClient.query("SET log_min_duration_statement = -2"));
            assertThat(c.briefUntilReady()).containsExactly("E 22023", "Z I");

            c.send(WireClient.query("SET log_min_duration_statement = 0"));
            assertThat(c.briefUntilReady()).containsExactly("C SET", "Z I");
            c.send(WireClient.query("SELECT 42"));
            assertThat(c.briefUntilReady()).containsExactly("T ?column?:23:0", "D 42", "C SELECT 1", "Z I");
            c.send(WireClient.parse("", "SELECT 43"), WireClient.bind("", ""), WireClient.execute("", 0), WireClient.sync());
            assertThat(c.briefUntilReady()).contains("D 43");
            List<String> lines = log.lines();
            String who = TIME + "\\[" + pid + "\\] LOG:  duration: \\d+\\.\\d{3} ms  ";
            lineMatching(lines, who + "statement: SELECT 42");
            lineMatching(lines, who + "execute <unnamed>: SELECT 43");

            // an hour is longer than any of these statements takes
            c.send(WireClient.query("SET log_min_duration_statement = '1h'"));
            c.briefUntilReady();
            int before = log.lines().size();
            c.send(WireClient.query("SELECT 44"));
            c.briefUntilReady();
            assertThat(log.lines().subList(before, log.lines().size())).noneMatch(l -> l.contains("SELECT 44"));
        }
    }

    @Test
    void anInternalErrorIsLoggedWithItsStackTrace() throws IOException {
        // the wire server's list of backends, failing as a bug would: pg_cancel_backend meets it
        db.setBackends((pid, terminate, role) -> {
            throw new IllegalStateException("a backend list that fails");
        });
        try (ServerLog.Capture log = ServerLog.capture(); WireClient c = WireClient.connect(server.port())) {
            int pid = pid(c);
            c.send(WireClient.query("SELECT pg_cancel_backend(12345)"));
            assertThat(c.briefUntilReady()).containsExactly("E XX000", "Z I");
            List<String> lines = log.lines();
            String who = TIME + "\\[" + pid + "\\] ";
            int error = lineMatching(lines, who + "ERROR:  XX000: .*java\\.lang\\.IllegalStateException: a backend list that fails");
            assertThat(lines.get(error + 1)).matches(who + "STATEMENT:  SELECT pg_cancel_backend\\(12345\\)");
            assertThat(lines.get(error + 2)).isEqualTo("java.lang.IllegalStateException: a backend list that fails");
            assertThat(lines.get(error + 3)).startsWith("\tat ");
            // the connection goes on
            c.send(WireClient.query("SELECT 1"));
            assertThat(c.briefUntilReady()).contains("D 1");
        }
    }

    @Test
    void theLevelLeavesOutWhatIsBelowIt() throws IOException {
        assertThatThrownBy(() -> ServerLog.setLevel("loud")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-level takes debug, info, warn or error, not 'loud'");
        try (ServerLog.Capture log = ServerLog.capture()) {
            ServerLog.setLevel("warn");
            try (WireClient c = WireClient.connect(server.port())) {
                c.send(WireClient.query("SELECT * FROM nosuch"));
                c.briefUntilReady();
            } finally {
                ServerLog.setLevel("info");
            }
            assertThat(log.text()).contains("ERROR:  42P01").doesNotContain("LOG:  connection");
        }
    }

    @Test
    void logFileHasTheLinesOfTheLog(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("logs").resolve("server.log");
        ChildServer.Server child = ChildServer.start(dir.resolve("data"), List.of(), List.of("--log-file", file.toString(), "--log-level", "info"));
        try (Connection c = child.connect(); Statement st = c.createStatement()) {
            // the authorized line is logged before the client hears it is in, the error before the client hears of it
            assertThatThrownBy(() -> st.executeQuery("SELECT * FROM nosuch")).isInstanceOf(SQLException.class);
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            lineMatching(lines, TIME + "\\[\\d+\\] LOG:  connection authorized: user=tributary database=tributary.*");
            int error = lineMatching(lines, TIME + "\\[\\d+\\] ERROR:  42P01: relation \"nosuch\" does not exist at character 15");
            assertThat(lines.get(error + 1)).endsWith("STATEMENT:  SELECT * FROM nosuch");
            // and standard error has them too
            assertThat(child.logs("ERROR:  42P01: relation \"nosuch\" does not exist")).as("standard error has the error:\n" + child.log()).isTrue();
        } finally {
            child.kill();
        }
    }
}
