package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import dev.tributary.server.auth.ScramVerifier;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/**
 * Authentication through the PostgreSQL JDBC driver and through raw protocol messages: trust
 * while no role has a password, SCRAM-SHA-256 once one has, and the same exchange and the same
 * error for wrong passwords, unknown users and roles that may not log in.
 */
class AuthTest {
    private Tributary db;
    private PgServer server;

    @BeforeEach
    void start() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withMaxConnections(10));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        db.close();
    }

    private Connection connect(String user, String password) throws SQLException {
        String url = "jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?user=" + user + "&prepareThreshold=0";
        return password == null ? DriverManager.getConnection(url) : DriverManager.getConnection(url + "&password=" + password);
    }

    /** The first column of the first row of {@code sql}. */
    static String one(Connection c, String sql) throws SQLException {
        try (ResultSet rs = c.createStatement().executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void trustUntilARoleHasAPasswordThenScramForEveryone() throws SQLException {
        // under trust a name that is no role is still refused, as PostgreSQL's trust refuses it
        assertThatThrownBy(() -> connect("nosuchuser", null)).isInstanceOfSatisfying(PSQLException.class, e -> {
            assertThat(e.getSQLState()).isEqualTo("28000");
            assertThat(e.getMessage()).contains("role \"nosuchuser\" does not exist");
        });
        try (Connection c = connect("tributary", null)) {
            assertThat(one(c, "SELECT 1")).isEqualTo("1");
            c.createStatement().execute("CREATE ROLE alice WITH LOGIN PASSWORD 'sécret pw'");
        }
        try (Connection c = connect("alice", "s%C3%A9cret%20pw")) {
            assertThat(one(c, "SELECT 2")).isEqualTo("2");
        }
        assertFailsWith28P01("alice", "wrong");
        assertFailsWith28P01("nobody", "sécret pw");
        assertFailsWith28P01("tributary", "anything"); // the bootstrap role has no password
        assertThatThrownBy(() -> connect("alice", null)).isInstanceOf(PSQLException.class); // no password to give

        db.execute("ALTER ROLE alice NOLOGIN");
        assertFailsWith28P01("alice", "s%C3%A9cret%20pw");
        db.execute("ALTER ROLE alice LOGIN; CREATE USER bob PASSWORD 'b'; ALTER ROLE alice PASSWORD 'new'");
        try (Connection c = connect("bob", "b")) {
            assertThat(one(c, "SELECT 3")).isEqualTo("3");
        }
        try (Connection c = connect("alice", "new")) {
            assertThat(one(c, "SELECT 4")).isEqualTo("4");
        }
        // back to trust once no role has a password
        db.execute("DROP ROLE alice, bob");
        try (Connection c = connect("tributary", null)) {
            assertThat(one(c, "SELECT 5")).isEqualTo("5");
        }
    }

    private void assertFailsWith28P01(String user, String password) {
        assertThatThrownBy(() -> connect(user, password))
                .isInstanceOfSatisfying(PSQLException.class, e -> {
                    assertThat(e.getSQLState()).isEqualTo("28P01");
                    assertThat(e.getMessage()).contains("password authentication failed for user \"" + user + "\"");
                });
    }

    @Test
    void scramModeAuthenticatesEvenWithoutPasswordsAndAVerifierTextIsStoredAsItIs() throws Exception {
        server.close();
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withAuth(PgServer.Auth.SCRAM));
        assertFailsWith28P01("anyone", "x");
        // a verifier made elsewhere (as pg_authid holds them) logs in with its password; the text is kept as it is
        String verifier = ScramVerifier.of("from-elsewhere", new java.security.SecureRandom()).toString();
        db.execute("CREATE ROLE carol LOGIN PASSWORD '" + verifier + "'");
        assertThat(db.roles().find("carol").orElseThrow().verifier().toString()).isEqualTo(verifier);
        try (Connection c = connect("carol", "from-elsewhere")) {
            assertThat(one(c, "SELECT 'in'")).isEqualTo("in");
        }
    }

    /**
     * A message of the authentication exchange over PostgreSQL's 65,535 bytes is FATAL 08P01 at
     * once, before its bytes come: a client that has not logged in could make the server hold a
     * message up to --max-message-bytes (64 MiB) per connection.
     */
    @Test
    void anAuthenticationMessageOver65535BytesIsRefusedBeforeItsBytesCome() throws IOException {
        server.close();
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withAuth(PgServer.Auth.SCRAM));
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            startup(out, "tributary");
            assertThat(read(in).type()).isEqualTo('R');
            out.writeByte('p');
            out.writeInt(1 << 24);
            out.flush();
            Msg error = read(in);
            assertThat(error.type()).isEqualTo('E');
            assertThat(error.text()).contains("SFATAL\0").contains("C08P01\0").contains("invalid message length 16777216");
            assertThat(read(in)).isNull();
        }
    }

    /** One backend message. */
    record Msg(char type, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** The messages the server sends a client that tries {@code user} with a wrong proof, and the server-first-message among them. */
    private List<Msg> failedExchange(String user) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            DataInputStream in = new DataInputStream(s.getInputStream());
            startup(out, user);
            List<Msg> got = new ArrayList<>();
            got.add(read(in));
            byte[] first = "n,,n=,r=fyko+d2lbbFgONRv9qkxdawL".getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream p = new ByteArrayOutputStream();
            DataOutputStream pd = new DataOutputStream(p);
            pd.write("SCRAM-SHA-256\0".getBytes(StandardCharsets.US_ASCII));
            pd.writeInt(first.length);
            pd.write(first);
            out.writeByte('p');
            out.writeInt(p.size() + 4);
            p.writeTo(out);
            out.flush();
            Msg cont = read(in);
            got.add(cont);
            String serverFirst = new String(cont.body(), 4, cont.body().length - 4, StandardCharsets.UTF_8);
            String nonce = serverFirst.split(",")[0].substring(2);
            byte[] fin = ("c=biws,r=" + nonce + ",p=" + Base64.getEncoder().encodeToString(new byte[32])).getBytes(StandardCharsets.UTF_8);
            out.writeByte('p');
            out.writeInt(fin.length + 4);
            out.write(fin);
            out.flush();
            for (Msg m; (m = read(in)) != null; ) got.add(m);
            return got;
        }
    }

    /** Sends a startup packet for {@code user} and database tributary. */
    private static void startup(DataOutputStream out, String user) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream d = new DataOutputStream(b);
        d.writeInt(196608);
        for (String x : new String[] {"user", user, "database", "tributary", ""}) {
            d.write(x.getBytes(StandardCharsets.UTF_8));
            d.writeByte(0);
        }
        out.writeInt(b.size() + 4);
        b.writeTo(out);
        out.flush();
    }

    private static Msg read(DataInputStream in) throws IOException {
        int type = in.read();
        if (type < 0) return null;
        byte[] body = new byte[in.readInt() - 4];
        in.readFully(body);
        return new Msg((char) type, body);
    }

    private static final Pattern SERVER_FIRST = Pattern.compile("r=fyko\\+d2lbbFgONRv9qkxdawL([A-Za-z0-9+/=]+),s=([A-Za-z0-9+/=]+),i=(\\d+)");

    @Test
    void unknownUsersAndWrongPasswordsGetTheSameExchange() throws IOException {
        db.execute("CREATE ROLE alice LOGIN PASSWORD 'right'; CREATE ROLE nolog NOLOGIN PASSWORD 'right'; CREATE ROLE nopw LOGIN");
        List<List<Msg>> runs = new ArrayList<>();
        for (String user : List.of("alice", "ghost", "nolog", "nopw")) runs.add(failedExchange(user));
        List<String> salts = new ArrayList<>();
        for (int k = 0; k < runs.size(); k++) {
            List<Msg> run = runs.get(k);
            assertThat(run).extracting(Msg::type).containsExactly('R', 'R', 'E');
            assertThat(run.get(0).text()).isEqualTo("\0\0\0\nSCRAM-SHA-256\0\0");
            assertThat(run.get(1).body()[3]).isEqualTo((byte) 11);
            Matcher m = SERVER_FIRST.matcher(new String(run.get(1).body(), 4, run.get(1).body().length - 4, StandardCharsets.UTF_8));
            assertThat(m.matches()).isTrue();
            assertThat(Base64.getDecoder().decode(m.group(1))).hasSize(18);
            assertThat(Base64.getDecoder().decode(m.group(2))).hasSize(16);
            assertThat(m.group(3)).isEqualTo("4096");
            salts.add(m.group(2));
            String user = List.of("alice", "ghost", "nolog", "nopw").get(k);
            assertThat(run.get(2).text()).isEqualTo("SFATAL\0VFATAL\0C28P01\0Mpassword authentication failed for user \"" + user + "\"\0\0");
        }
        assertThat(salts).doesNotHaveDuplicates();
        // an unknown user's salt is the same at every attempt, like a real role's, so repeating tells nothing
        String ghostSalt = salts.get(1);
        List<Msg> again = failedExchange("ghost");
        Matcher m = SERVER_FIRST.matcher(new String(again.get(1).body(), 4, again.get(1).body().length - 4, StandardCharsets.UTF_8));
        assertThat(m.matches()).isTrue();
        assertThat(m.group(2)).isEqualTo(ghostSalt);
        assertThat(failedExchange("alice").get(1).text()).contains(",s=" + salts.get(0) + ",");
    }

    @Test
    void trustStillRefusesARoleThatMayNotLogIn() {
        db.execute("CREATE ROLE viewer");
        assertThatThrownBy(() -> connect("viewer", null))
                .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("28000"));
    }

    @Test
    void trustIsOnlyForLoopbackClientsInAutoModeWhileNoRoleHasAPassword() {
        var roles = new dev.tributary.server.auth.Roles(new java.security.SecureRandom());
        assertThat(Authenticator.trusted(PgServer.Auth.AUTO, true, roles)).isTrue();
        assertThat(Authenticator.trusted(PgServer.Auth.AUTO, false, roles)).isFalse();
        assertThat(Authenticator.trusted(PgServer.Auth.SCRAM, true, roles)).isFalse();
        roles.create("x", true, roles.verifierOf("pw"));
        assertThat(Authenticator.trusted(PgServer.Auth.AUTO, true, roles)).isFalse();
    }

    @Test
    void garbledSaslMessagesEndOnlyTheirConnection() throws Exception {
        db.execute("CREATE ROLE alice LOGIN PASSWORD 'pw'");
        java.util.SplittableRandom r = new java.util.SplittableRandom(11);
        for (int k = 0; k < 40; k++) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
                s.setSoTimeout(30_000);
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                DataInputStream in = new DataInputStream(s.getInputStream());
                startup(out, "alice");
                // a SASLInitialResponse that is right up to a random point, then random bytes
                byte[] good = "SCRAM-SHA-256\0\0\0\0\040n,,n=,r=abcdefghijklmnopqrstuvwxyz0123456789AB".getBytes(StandardCharsets.ISO_8859_1);
                byte[] junk = java.util.Arrays.copyOf(good, r.nextInt(good.length + 1) + r.nextInt(20));
                for (int j = good.length; j < junk.length; j++) junk[j] = (byte) r.nextInt(256);
                if (junk.length > 0 && r.nextBoolean()) junk[r.nextInt(junk.length)] = (byte) r.nextInt(256);
                out.writeByte(r.nextInt(8) == 0 ? 'Q' : 'p');
                out.writeInt(junk.length + 4);
                out.write(junk);
                out.flush();
                List<Character> types = new ArrayList<>();
                // AuthenticationSASL, then an error (or, if the garbage happened to be a valid first message, SASLContinue)
                for (Msg m; (m = read(in)) != null; ) {
                    types.add(m.type());
                    if (m.type() == 'E' || (m.type() == 'R' && m.body()[3] == 11)) break;
                }
                assertThat(types).hasSize(2).startsWith('R');
            }
        }
        try (Connection c = connect("alice", "pw")) {
            assertThat(one(c, "SELECT 'still serving'")).isEqualTo("still serving");
        }
    }
}
