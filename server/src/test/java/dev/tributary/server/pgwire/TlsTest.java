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
        try (Connection c = DriverManager.getConnection(url("user=u&sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory"))) {
            assertThat(one(c, "SELECT 'over tls'")).isEqualTo("over tls");
        }
        // verify-full checks the chain against the test certificate and the host name against its subjectAltName
        try (Connection c = DriverManager.getConnection(url("user=u&sslmode=verify-full&sslrootcert=" + resource("server.crt")))) {
            assertThat(one(c, "SELECT 1 + 1")).isEqualTo("2");
        }
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
            String base = "jdbc:postgresql://127.0.0.1:" + plain.port() + "/tributary?user=u&prepareThreshold=0";
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
            String base = "jdbc:postgresql://127.0.0.1:" + one.port() + "/tributary?user=u&prepareThreshold=0&sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory";
            try (Connection held = DriverManager.getConnection(base)) {
                assertThat(one(held, "SELECT 1")).isEqualTo("1");
                assertThatThrownBy(() -> DriverManager.getConnection(base))
                        .isInstanceOfSatisfying(PSQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("53300"));
            }
        }
    }
}
