package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.server.Clock;
import dev.tributary.server.Notice;
import dev.tributary.server.Tributary;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The connection and message limits of {@link PgServer.Options}, and notices: on {@code Result}, as NoticeResponse, as JDBC warnings. */
class LimitsAndNoticesTest {
    private final Tributary db = Tributary.inMemory(Clock.manual(0));
    private PgServer server;

    @AfterEach
    void stop() throws IOException {
        if (server != null) server.close();
        db.close();
    }

    private static List<String> lines(List<PgServerTest.Msg> msgs) {
        List<String> out = new ArrayList<>();
        for (PgServerTest.Msg m : msgs) if (m.type() != 'S' && m.type() != 'K') out.add(m.type() + " " + m.text());
        return out;
    }

    @Test
    void aConnectionBeyondTheLimitGets53300AndTheSlotComesBack() throws Exception {
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withMaxConnections(2));
        try (PgServerTest.Client a = new PgServerTest.Client(server.port()); PgServerTest.Client b = new PgServerTest.Client(server.port())) {
            a.startup("tributary");
            a.untilReady();
            b.startup("tributary");
            b.untilReady();
            try (PgServerTest.Client c = new PgServerTest.Client(server.port())) {
                c.startup("tributary");
                assertThat(lines(c.untilReady())).containsExactly("E C=53300");
            }
        }
        // the slots are released when connections end; the release follows the close, so wait on a fresh connection's answer
        for (int attempt = 0; ; attempt++) {
            try (PgServerTest.Client d = new PgServerTest.Client(server.port())) {
                d.startup("tributary");
                List<String> got = lines(d.untilReady());
                if (got.getLast().equals("Z I")) break;
                assertThat(got).containsExactly("E C=53300");
                assertThat(attempt).isLessThan(10_000);
            }
        }
    }

    /**
     * Clients that connect and never finish their startup packet (issue 25: twenty such sockets
     * held a session each for 30-62 s) take no session, so real clients are served beside them
     * even when sessions are few; the server hangs up on them once {@code authentication_timeout}
     * has passed since they connected, also on one that keeps sending a byte now and then (a
     * timeout per read had let it stay for ever).
     */
    @Test
    void clientsThatStallInStartUpHoldNoSessionAndAreHungUpOnAtTheTimeout() throws Exception {
        long timeoutMillis = 1_000;
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withMaxConnections(2).withAuthenticationTimeoutMillis(timeoutMillis));
        List<WireClient> stalled = new ArrayList<>();
        try {
            long started = System.nanoTime();
            for (int i = 0; i < 20; i++) {
                WireClient c = new WireClient(server.port());
                stalled.add(c);
                c.out.writeInt(100); // a startup packet of 100 bytes, of which only the protocol version comes
                c.out.writeInt(196608);
                c.out.flush();
            }
            // both sessions are there for real clients, and a third finds none
            try (WireClient a = WireClient.connect(server.port()); WireClient b = WireClient.connect(server.port());
                 WireClient c = new WireClient(server.port())) {
                a.send(WireClient.query("SELECT 1"));
                assertThat(a.briefUntilReady()).contains("D 1");
                b.send(WireClient.query("SELECT 2"));
                assertThat(b.briefUntilReady()).contains("D 2");
                c.send(WireClient.startup("tributary"));
                assertThat(c.briefUntilReady()).containsExactly("E 53300");
            }
            // one more that trickles its startup packet, a byte whenever 100 ms pass without an answer
            WireClient trickle = new WireClient(server.port());
            stalled.add(trickle);
            trickle.socket.setSoTimeout(100);
            byte[] packet = WireClient.startup("tributary");
            int sent = 0;
            long deadline = System.nanoTime() + 10 * timeoutMillis * 1_000_000L;
            while (true) {
                try {
                    assertThat(trickle.in.read()).as("the server hangs up on the trickling client").isEqualTo(-1);
                    break;
                } catch (java.net.SocketTimeoutException e) {
                    assertThat(System.nanoTime()).as("hung up on within ten times the timeout").isLessThan(deadline);
                    assertThat(sent).as("the packet is not complete yet").isLessThan(packet.length - 1);
                    trickle.out.write(packet[sent++]);
                    trickle.out.flush();
                }
            }
            // the stalled ones were hung up on too, none before the timeout
            for (WireClient c : stalled) {
                c.socket.setSoTimeout((int) (10 * timeoutMillis));
                assertThat(c.next()).as("the connection ends without a word, as PostgreSQL's does").isNull();
            }
            assertThat((System.nanoTime() - started) / 1_000_000).isGreaterThanOrEqualTo(timeoutMillis);
            assertThat(server.awaitConnections(0, 10_000)).isTrue();
        } finally {
            for (WireClient c : stalled) c.close();
        }
    }

    /**
     * The connections in start-up are bounded too ({@link PgServer.Options#maxStartingConnections}):
     * past them a client hears 53300 at once, and once the stalled ones have gone clients are served.
     */
    @Test
    void pastTheConnectionsInStartUpAClientGets53300() throws Exception {
        // a timeout far longer than the test, so that no stalled one is hung up on meanwhile
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withMaxConnections(2).withAuthenticationTimeoutMillis(600_000));
        int bound = server.options().maxStartingConnections();
        List<WireClient> stalled = new ArrayList<>();
        try {
            for (int i = 0; i < bound; i++) stalled.add(new WireClient(server.port()));
            // the acceptor takes them in order: once this one is refused, every stalled one holds its place
            try (WireClient late = new WireClient(server.port())) {
                late.send(WireClient.startup("tributary"));
                List<WireClient.Msg> got = late.untilReady();
                assertThat(got).extracting(WireClient.Msg::brief).containsExactly("E 53300");
                assertThat(got.get(0).fields()).containsEntry('S', "FATAL").containsEntry('M', "sorry, too many clients already");
            }
        } finally {
            for (WireClient c : stalled) c.close();
        }
        assertThat(server.awaitConnections(0, 10_000)).isTrue();
        try (WireClient c = WireClient.connect(server.port())) {
            c.send(WireClient.query("SELECT 3"));
            assertThat(c.briefUntilReady()).contains("D 3");
        }
    }

    @Test
    void whileTheDatabaseOpensClientsGet57P03ThenAreServed() throws Exception {
        server = new PgServer(null, PgServer.Options.defaults().withPort(0));
        try (PgServerTest.Client early = new PgServerTest.Client(server.port())) {
            early.startup("tributary");
            assertThat(lines(early.untilReady())).containsExactly("E C=57P03");
        }
        server.ready(db);
        try (PgServerTest.Client later = new PgServerTest.Client(server.port())) {
            later.startup("tributary");
            assertThat(lines(later.untilReady()).getLast()).isEqualTo("Z I");
        }
    }

    @Test
    void aMessageAboveTheLimitEndsOnlyItsConnectionWith08P01NamingTheLimit() throws Exception {
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withMaxMessageBytes(4096));
        try (PgServerTest.Client big = new PgServerTest.Client(server.port()); PgServerTest.Client good = new PgServerTest.Client(server.port())) {
            big.startup("tributary");
            big.untilReady();
            good.startup("tributary");
            good.untilReady();
            big.query("SELECT length('" + "x".repeat(3000) + "')");
            assertThat(lines(big.untilReady())).containsExactly("T length:23", "D 3000", "C SELECT 1", "Z I");
            big.query("SELECT '" + "x".repeat(5000) + "'");
            List<PgServerTest.Msg> got = big.untilReady();
            assertThat(lines(got)).containsExactly("E C=08P01");
            assertThat(big.in.read()).isEqualTo(-1);
            good.query("SELECT 42");
            assertThat(lines(good.untilReady())).containsExactly("T ?column?:23", "D 42", "C SELECT 1", "Z I");
        }
        // the message names the limit
        try (PgServerTest.Client big = new PgServerTest.Client(server.port())) {
            big.startup("tributary");
            big.untilReady();
            big.out.writeByte('Q');
            big.out.writeInt(1 << 20);
            big.out.flush();
            int type = big.in.read();
            byte[] body = new byte[big.in.readInt() - 4];
            big.in.readFully(body);
            assertThat((char) type).isEqualTo('E');
            assertThat(new String(body, java.nio.charset.StandardCharsets.UTF_8))
                    .contains("message of 1048576 bytes is larger than the server's limit of 4096 bytes (--max-message-bytes)");
        }
    }

    @Test
    void noticesComeOnTheResultAndBeforeCommandComplete() throws Exception {
        db.execute("CREATE TABLE t (a int)");
        assertThat(db.query("DROP TABLE IF EXISTS missing").notices())
                .containsExactly(Notice.notice("00000", "table \"missing\" does not exist, skipping"));
        assertThat(db.query("CREATE TABLE IF NOT EXISTS t (a int)").notices())
                .containsExactly(Notice.notice("42P07", "relation \"t\" already exists, skipping"));
        assertThat(db.query("DROP VIEW IF EXISTS v1, v2").notices()).extracting(Notice::message)
                .containsExactly("view \"v1\" does not exist, skipping", "view \"v2\" does not exist, skipping");
        assertThat(db.query("COMMIT").notices()).containsExactly(new Notice("WARNING", "25P01", "there is no transaction in progress"));
        assertThat(db.query("SELECT 1").notices()).isEmpty();

        server = new PgServer(db, PgServer.Options.defaults().withPort(0));
        try (PgServerTest.Client c = new PgServerTest.Client(server.port())) {
            c.startup("tributary");
            c.untilReady();
            c.query("DROP TABLE IF EXISTS missing; CREATE TABLE IF NOT EXISTS t (a int)");
            List<PgServerTest.Msg> got = c.untilReady();
            assertThat(got).extracting(PgServerTest.Msg::type).containsExactly('N', 'C', 'N', 'C', 'Z');
        }
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=tributary&prepareThreshold=0");
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS missing");
            SQLWarning w = s.getWarnings();
            assertThat((Object) w).isNotNull();
            assertThat(w.getSQLState()).isEqualTo("00000");
            assertThat(w.getMessage()).isEqualTo("table \"missing\" does not exist, skipping");
            // the extended protocol (a prepared statement) sends them before CommandComplete too
            try (java.sql.PreparedStatement p = c.prepareStatement("DROP VIEW IF EXISTS gone")) {
                p.execute();
                assertThat(p.getWarnings().getMessage()).isEqualTo("view \"gone\" does not exist, skipping");
            }
        }
    }

    @Test
    void roleStatementsAnswerWithPostgresErrorsAndNotices() {
        db.execute("CREATE ROLE a LOGIN PASSWORD 'x'");
        assertThat(db.roles().find("a").orElseThrow().verifier().toString()).startsWith("SCRAM-SHA-256$4096:").doesNotContain("'x'");
        assertSqlState("CREATE ROLE a", "42710", "role \"a\" already exists");
        assertSqlState("CREATE USER tributary", "42710", "role \"tributary\" already exists");
        assertSqlState("ALTER ROLE nobody LOGIN", "42704", "role \"nobody\" does not exist");
        assertSqlState("DROP ROLE nobody", "42704", "role \"nobody\" does not exist");
        assertSqlState("CREATE ROLE public", "42939", "role name \"public\" is reserved");
        assertSqlState("CREATE ROLE b LOGIN NOLOGIN", "42601", "conflicting or redundant options");
        assertSqlState("CREATE ROLE b CONNECTION LIMIT 3", "0A000", "role option CONNECTION is not supported");
        assertThat(db.query("DROP ROLE IF EXISTS nobody").notices()).containsExactly(Notice.notice("00000", "role \"nobody\" does not exist, skipping"));
        assertThat(db.query("CREATE USER u").tag()).isEqualTo("CREATE ROLE");
        assertThat(db.roles().find("u").orElseThrow().login()).isTrue();
        assertThat(db.query("CREATE ROLE r").tag()).isEqualTo("CREATE ROLE");
        assertThat(db.roles().find("r").orElseThrow().login()).isFalse();
        assertThat(db.query("ALTER USER r WITH LOGIN PASSWORD NULL").tag()).isEqualTo("ALTER ROLE");
        assertThat(db.roles().find("r").orElseThrow().login()).isTrue();
        assertThat(db.query("ALTER ROLE a PASSWORD ''").notices()).extracting(Notice::message).containsExactly("empty string is not a valid password, clearing password");
        assertThat(db.roles().find("a").orElseThrow().verifier()).isNull();
        assertThat(db.query("DROP USER u, r").tag()).isEqualTo("DROP ROLE");
        assertThat(db.roles().find("u")).isEmpty();
    }

    private void assertSqlState(String sql, String state, String message) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> db.execute(sql))
                .isInstanceOfSatisfying(dev.tributary.sql.SqlException.class, e -> {
                    assertThat(e.sqlState()).isEqualTo(state);
                    assertThat(e.getMessage()).isEqualTo(message);
                });
    }
}
