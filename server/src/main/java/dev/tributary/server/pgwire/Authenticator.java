package dev.tributary.server.pgwire;

import dev.tributary.server.auth.Roles;
import dev.tributary.server.auth.Scram;
import dev.tributary.server.auth.ScramServer;
import dev.tributary.sql.SqlException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Optional;

/**
 * The authentication step of the startup exchange.
 *
 * <p>Trust (AuthenticationOk at once) when the server runs {@link PgServer.Auth#AUTO}, the client is on
 * a loopback address and no role has a password; a name that is no role, or a role without
 * LOGIN, is still refused then (28000), as PostgreSQL's trust does. Otherwise SCRAM-SHA-256: AuthenticationSASL offering {@code SCRAM-SHA-256} only (no
 * {@code -PLUS}: channel binding is not offered), SASLInitialResponse, AuthenticationSASLContinue,
 * SASLResponse, then AuthenticationSASLFinal and AuthenticationOk, or 28P01 {@code password
 * authentication failed for user "x"}. A wrong password, a name with no role, a role without a
 * password and a role without LOGIN all take the same steps with a verifier of the same shape
 * and fail with that same error, so a client cannot tell them apart.
 */
final class Authenticator {
    private static final int OK = 0;
    private static final int SASL = 10;
    private static final int SASL_CONTINUE = 11;
    private static final int SASL_FINAL = 12;

    private final Roles roles;
    private final PgServer.Auth mode;
    private final boolean loopback;
    private final SecureRandom random;

    Authenticator(Roles roles, PgServer.Auth mode, boolean loopback, SecureRandom random) {
        this.roles = roles;
        this.mode = mode;
        this.loopback = loopback;
        this.random = random;
    }

    /** Whether a client is let in without a password: {@link PgServer.Auth#AUTO}, on loopback, and no role has one. */
    static boolean trusted(PgServer.Auth mode, boolean loopback, Roles roles) {
        return mode == PgServer.Auth.AUTO && loopback && !roles.anyPassword();
    }

    /** Authenticates {@code user} over {@code connection}; false if the connection ends here (the error is sent). */
    boolean authenticate(String user, PgConnection connection) throws IOException {
        if (trusted(mode, loopback, roles)) {
            Optional<Roles.Role> role = roles.find(user);
            if (role.isEmpty()) {
                // as PostgreSQL under trust: only a password exchange must not tell names apart
                connection.fatal(new SqlException("28000", "role \"" + user + "\" does not exist"));
                return false;
            }
            if (!role.get().login()) {
                connection.fatal(new SqlException("28000", "role \"" + user + "\" is not permitted to log in"));
                return false;
            }
            connection.authRequest(OK, new byte[0]);
            return true;
        }
        try {
            ScramServer exchange = new ScramServer(roles.credentials(user), random);
            connection.authRequest(SASL, (Scram.MECHANISM + "\0\0").getBytes(StandardCharsets.US_ASCII));
            byte[] initial = connection.expect('p', "SASL response");
            if (initial == null) return false;
            String clientFirst = initialResponse(initial);
            connection.authRequest(SASL_CONTINUE, exchange.serverFirst(clientFirst).getBytes(StandardCharsets.UTF_8));
            byte[] response = connection.expect('p', "SASL response");
            if (response == null) return false;
            String serverFinal = exchange.serverFinal(new String(response, StandardCharsets.UTF_8));
            if (serverFinal == null) {
                connection.fatal(ScramServer.authenticationFailed(user));
                return false;
            }
            connection.authRequest(SASL_FINAL, serverFinal.getBytes(StandardCharsets.UTF_8));
            connection.authRequest(OK, new byte[0]);
            return true;
        } catch (SqlException e) {
            connection.fatal(e);
            return false;
        }
    }

    /** SASLInitialResponse: the mechanism's name, then the length of the client's first message (-1 for none) and the message. */
    private static String initialResponse(byte[] body) {
        int end = 0;
        while (end < body.length && body[end] != 0) end++;
        if (end >= body.length) throw new SqlException("08P01", "invalid SASLInitialResponse: no mechanism name");
        String mechanism = new String(body, 0, end, StandardCharsets.UTF_8);
        if (!mechanism.equals(Scram.MECHANISM)) {
            throw new SqlException("08P01", "client selected an invalid SASL authentication mechanism");
        }
        ByteBuffer rest = ByteBuffer.wrap(body, end + 1, body.length - end - 1);
        if (rest.remaining() < 4) throw new SqlException("08P01", "invalid SASLInitialResponse: no length");
        int length = rest.getInt();
        if (length < 0 || length != rest.remaining()) throw new SqlException("08P01", "invalid SASLInitialResponse: the length does not match the message");
        return new String(body, rest.position(), length, StandardCharsets.UTF_8);
    }
}
