package dev.tributary.server.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.sql.SqlException;
import java.security.SecureRandom;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** SCRAM-SHA-256 against the example exchange of RFC 7677 section 3, and the verifier's text form. */
class ScramTest {
    private static final byte[] SALT = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
    private static final String CLIENT_FIRST = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
    private static final String SERVER_FIRST = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
    private static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
    private static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

    @Test
    void bothSidesReproduceRfc7677() {
        ScramClient client = new ScramClient("pencil", "user", "rOprNGfwEbeRWgbNEkqO");
        assertThat(client.clientFirst()).isEqualTo(CLIENT_FIRST);
        assertThat(client.clientFinal(SERVER_FIRST)).isEqualTo(CLIENT_FINAL);
        client.checkServerFinal(SERVER_FINAL);

        ScramVerifier v = ScramVerifier.of("pencil", SALT, 4096);
        ScramServer server = new ScramServer(new Roles.Credentials(v, true), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
        assertThat(server.serverFirst(CLIENT_FIRST)).isEqualTo(SERVER_FIRST);
        assertThat(server.serverFinal(CLIENT_FINAL)).isEqualTo(SERVER_FINAL);
    }

    @Test
    void aWrongProofOrALoginNotAllowedFailsAndAForgedServerIsCaught() {
        ScramVerifier v = ScramVerifier.of("pencil", SALT, 4096);
        ScramServer nologin = new ScramServer(new Roles.Credentials(v, false), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
        nologin.serverFirst(CLIENT_FIRST);
        assertThat(nologin.serverFinal(CLIENT_FINAL)).isNull();

        ScramClient wrong = new ScramClient("pen", "user", "rOprNGfwEbeRWgbNEkqO");
        wrong.clientFirst();
        String wrongFinal = wrong.clientFinal(SERVER_FIRST);
        ScramServer server = new ScramServer(new Roles.Credentials(v, true), "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0");
        server.serverFirst(CLIENT_FIRST);
        assertThat(server.serverFinal(wrongFinal)).isNull();
        // the wrong client also refuses the real server's signature
        assertThatThrownBy(() -> wrong.checkServerFinal(SERVER_FINAL)).isInstanceOf(SqlException.class);
    }

    @Test
    void malformedMessagesAreProtocolErrors() {
        ScramVerifier v = ScramVerifier.of("pencil", SALT, 4096);
        ScramServer s = new ScramServer(new Roles.Credentials(v, true), "abc");
        assertThatThrownBy(() -> s.serverFirst("p=tls-server-end-point,,n=,r=x")).hasMessage("malformed SCRAM message");
        assertThatThrownBy(() -> s.serverFirst("n,,r=x")).hasMessage("malformed SCRAM message");
        assertThatThrownBy(() -> s.serverFirst("n,a=bob,n=,r=x")).isInstanceOfSatisfying(SqlException.class, e -> assertThat(e.sqlState()).isEqualTo("0A000"));
        ScramServer t = new ScramServer(new Roles.Credentials(v, true), "abc");
        t.serverFirst("n,,n=,r=x");
        assertThatThrownBy(() -> t.serverFinal("c=biws,r=other,p=" + Base64.getEncoder().encodeToString(new byte[32]))).hasMessage("malformed SCRAM message");
        assertThatThrownBy(() -> t.serverFinal("c=eSws,r=xabc,p=" + Base64.getEncoder().encodeToString(new byte[32]))).hasMessage("SCRAM channel binding check failed");
    }

    @Test
    void verifierTextRoundTripsAndNeverHoldsThePassword() {
        ScramVerifier v = ScramVerifier.of("hunter2", new SecureRandom());
        String text = v.toString();
        assertThat(text).startsWith("SCRAM-SHA-256$4096:").doesNotContain("hunter2");
        assertThat(ScramVerifier.parse(text)).isEqualTo(v);
        assertThat(v.verifies("hunter2")).isTrue();
        assertThat(v.verifies("hunter3")).isFalse();
        assertThatThrownBy(() -> ScramVerifier.parse("SCRAM-SHA-256$x")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void fakeVerifiersAreStablePerNameAndShapedLikeRealOnes() {
        Roles roles = new Roles(new SecureRandom());
        ScramVerifier a = roles.credentials("ghost").verifier();
        assertThat(roles.credentials("ghost").verifier()).isEqualTo(a);
        assertThat(roles.credentials("ghost").mayLogIn()).isFalse();
        assertThat(roles.credentials("other").verifier()).isNotEqualTo(a);
        assertThat(a.salt()).hasSize(Scram.SALT_BYTES);
        assertThat(a.iterations()).isEqualTo(Scram.ITERATIONS);
    }
}
