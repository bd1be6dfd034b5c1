package dev.tributary.server.pgwire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.server.Clock;
import dev.tributary.server.Tributary;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;

/** TLS on SSLRequest with the test certificate: pgjdbc with sslmode=require and verify-full, SCRAM over TLS, and refusals. */
class TlsTest {
    private Tributary db;
    private PgServer server;

    static Path resource(String name) {
        try {
            return Path.of(TlsTest.class.getResource("/tls/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static SSLContext serverContext() throws IOException {
        return Tls.serverContext(resource("server.crt"), resource("server.key"));
    }

    @BeforeEach
    void start() throws IOException {
        db = Tributary.inMemory(Clock.manual(0));
        server = new PgServer(db, PgServer.Options.defaults().withPort(0).withTls(serverContext()));
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
        db.close();
    }

    private String url(String params) {
        return "jdbc:postgresql://127.0.0.1:" + server.port() + "/tributary?prepareThreshold=0&" + params;
    }

    private static String one(Connection c, String sql) throws SQLException {
        return AuthTest.one(c, sql);
    }

    @Test
    void jdbcWithSslModeRequireAndVerifyFull() throws SQLException {
        try (Connection c = DriverManager.getConnection(url("user=tributary&sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory"))) {
            assertThat(one(c, "SELECT 'over tls'")).isEqualTo("over tls");
        }
        // verify-full checks the chain against the test certificate and the host name against its subjectAltName
        try (Connection c = DriverManager.getConnection(url("user=tributary&sslmode=verify-full&sslrootcert=" + resource("server.crt")))) {
            assertThat(one(c, "SELECT 1 + 1")).isEqualTo("2");
        }
    }

    /** A key of the certificate's kind that is not the certificate's is refused when the server starts, naming both files (every handshake would fail). */
    @Test
    void aKeyThatIsNotTheCertificatesIsRefusedAtStart(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        java.security.cert.Certificate cert;
        try (InputStream in = java.nio.file.Files.newInputStream(resource("server.crt"))) {
            cert = CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        String algorithm = cert.getPublicKey().getAlgorithm();
        java.security.KeyPairGenerator g = java.security.KeyPairGenerator.getInstance(algorithm);
        if (algorithm.equals("RSA")) g.initialize(2048);
        if (algorithm.equals("EC")) g.initialize(new java.security.spec.ECGenParameterSpec(((java.security.interfaces.ECPublicKey) cert.getPublicKey()).getParams().toString().contains("P-384") ? "secp384r1" : "secp256r1"));
        byte[] der = g.generateKeyPair().getPrivate().getEncoded();
        Path other = dir.resolve("other.key");
        java.nio.file.Files.writeString(other, "-----BEGIN PRIVATE KEY-----\n" + java.util.Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END PRIVATE KEY-----\n");
        assertThatThrownBy(() -> Tls.serverContext(resource("server.crt"), other)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not belong to the certificate").hasMessageContaining("other.key");
        // and the certificate's own key is taken
        assertThat(serverContext()).isNotNull();
    }

    /** With TLS required, a client that starts up in plaintext gets FATAL 28000 (as from hostssl-only pg_hba.conf lines); one over TLS is served. */
    @Test
    void tlsRequiredRefusesPlaintextClients() throws Exception {
        try (PgServer strict = new PgServer(db, PgServer.Options.defaults().withPort(0).withTls(serverContext()).withTlsRequired(true))) {
            String base = "jdbc:postgresql://127.0.0.1:" + strict.port() + "/tributary?prepareThreshold=0&user=tributary&";
            assertThatThrownBy(() -> DriverManager.getConnection(base + "sslmode=disable")).isInstanceOfSatisfying(PSQLException.class, e -> {
                assertThat(e.getSQLState()).isEqualTo("28000");
                assertThat(e.getMessage()).contains("no encryption");
            });
            try (Connection c = DriverManager.getConnection(base + "sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory")) {
                assertThat(one(c, "SELECT 'encrypted'")).isEqualTo("encrypted");
            }
        }
        assertThatThrownBy(() -> PgServer.Options.defaults().withTlsRequired(true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--tls-cert");
    }

    @Test
    void scramOverTls() throws SQLException {
        db.execute("CREATE ROLE alice LOGIN PASSWORD 'pw'");
        String tls = "sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory";
        try (Connection c = DriverManager.getConnection(url("user=alice&password=pw&" + tls))) {
            assertThat(one(c, "SELECT 'in'")).isEqualTo("in");
        }
        assertThatThrownBy(() -> DriverManager.getConnection(url("user=alice&password=nope&" + tls)))
                .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("28P01"));
    }

    /** A connection that has sent SSLRequest and been answered {@code S}. */
    private Socket sslRequested() throws IOException {
        Socket raw = new Socket(InetAddress.getLoopbackAddress(), server.port());
        raw.setSoTimeout(30_000);
        DataOutputStream out = new DataOutputStream(raw.getOutputStream());
        out.writeInt(8);
        out.writeInt(80877103);
        out.flush();
        assertThat(raw.getInputStream().read()).isEqualTo('S');
        return raw;
    }

    @Test
    void theHandshakeIsTls12OrLaterWithTheConfiguredCertificate() throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream cert = java.nio.file.Files.newInputStream(resource("server.crt"))) {
            trust.setCertificateEntry("test", CertificateFactory.getInstance("X.509").generateCertificate(cert));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext client = SSLContext.getInstance("TLS");
        client.init(null, tmf.getTrustManagers(), null);
        for (String protocol : new String[] {"TLSv1.2", "TLSv1.3"}) {
            try (Socket raw = sslRequested()) {
                SSLSocket tls = (SSLSocket) client.getSocketFactory().createSocket(raw, "localhost", server.port(), true);
                tls.setEnabledProtocols(new String[] {protocol});
                tls.startHandshake();
                assertThat(tls.getSession().getProtocol()).isEqualTo(protocol);
            }
        }
        // TLS 1.1 is refused
        try (Socket raw = sslRequested()) {
            SSLSocket tls = (SSLSocket) client.getSocketFactory().createSocket(raw, "localhost", server.port(), true);
            java.util.List<String> supported = java.util.Arrays.asList(tls.getSupportedProtocols());
            if (supported.contains("TLSv1.1")) {
                tls.setEnabledProtocols(new String[] {"TLSv1.1"});
                assertThatThrownBy(tls::startHandshake).isInstanceOf(IOException.class);
            }
        }
    }

    @Test
    void gssEncryptionIsRefusedAndPlaintextAfterTheRequestEndsTheConnection() throws IOException {
        try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            raw.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(raw.getOutputStream());
            out.writeInt(8);
            out.writeInt(80877104);
            out.flush();
            assertThat(raw.getInputStream().read()).isEqualTo('N');
        }
        try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            raw.setSoTimeout(30_000);
            DataOutputStream out = new DataOutputStream(raw.getOutputStream());
            // the request and a startup packet in one write: the server must not read the packet as if it were encrypted
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            DataOutputStream d = new DataOutputStream(b);
            d.writeInt(8);
            d.writeInt(80877103);
            d.writeInt(8);
            d.writeInt(196608);
            out.write(b.toByteArray());
            out.flush();
            DataInputStream in = new DataInputStream(raw.getInputStream());
            assertThat(in.read()).isEqualTo('E');
            byte[] body = new byte[in.readInt() - 4];
            in.readFully(body);
            assertThat(new String(body, java.nio.charset.StandardCharsets.UTF_8)).contains("C08P01").contains("received unencrypted data after SSL request");
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void sslModeRequireAgainstAServerWithoutACertificateFailsCleanly() throws Exception {
        try (PgServer plain = new PgServer(db, PgServer.Options.defaults().withPort(0))) {
            String base = "jdbc:postgresql://127.0.0.1:" + plain.port() + "/tributary?user=tributary&prepareThreshold=0";
            assertThatThrownBy(() -> DriverManager.getConnection(base + "&sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory"))
                    .isInstanceOf(PSQLException.class)
                    .hasMessageContaining("does not support SSL");
            // the refusal left the server serving plain connections, also those that ask for TLS only if it is there
            try (Connection c = DriverManager.getConnection(base + "&sslmode=prefer")) {
                assertThat(one(c, "SELECT 'plain'")).isEqualTo("plain");
            }
        }
    }

    @Test
    void aClientRequiringTlsHearsTooManyClientsOverTls() throws Exception {
        try (PgServer one = new PgServer(db, PgServer.Options.defaults().withPort(0).withMaxConnections(1).withTls(serverContext()))) {
            String base = "jdbc:postgresql://127.0.0.1:" + one.port() + "/tributary?user=tributary&prepareThreshold=0&sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory";
            try (Connection held = DriverManager.getConnection(base)) {
                assertThat(one(held, "SELECT 1")).isEqualTo("1");
                assertThatThrownBy(() -> DriverManager.getConnection(base))
                        .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("53300"));
            }
        }
    }
}
