package dev.tributary.server.auth;

import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The server side of one SCRAM-SHA-256 exchange (RFC 5802 section 5, RFC 7677), without channel
 * binding: {@link #serverFirst} answers the client's first message, {@link #serverFinal} checks its
 * proof.
 *
 * <p>The exchange runs the same way whatever the credentials: a fake verifier or a role that may
 * not log in goes through every step and computation, and only the outcome differs. The proof is
 * compared in constant time. A malformed message is a 08P01 {@link SqlException}.
 */
public final class ScramServer {
    private final Roles.Credentials credentials;
    private final String serverNonce;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;

    public ScramServer(Roles.Credentials credentials, SecureRandom random) {
        this(credentials, nonce(random));
    }

    /** An exchange whose own part of the nonce is {@code serverNonce} (tests use RFC 7677's). */
    ScramServer(Roles.Credentials credentials, String serverNonce) {
        this.credentials = credentials;
        this.serverNonce = serverNonce;
    }

    static String nonce(SecureRandom random) {
        byte[] n = new byte[18];
        random.nextBytes(n);
        return Base64.getEncoder().encodeToString(n);
    }

    /** Reads client-first-message, returns server-first-message ({@code r=nonce,s=salt,i=iterations}). */
    public String serverFirst(String clientFirst) {
        if (serverFirst != null) throw malformed("the first message came twice");
        // gs2-header: cbind-flag "," [authzid] ","
        if (clientFirst.startsWith("p=")) {
            throw new SqlException("08P01", "malformed SCRAM message", 0, null)
                    .withDetail("The client selected SCRAM-SHA-256 without channel binding, but the SCRAM message includes channel binding data.");
        }
        if (!clientFirst.startsWith("n,") && !clientFirst.startsWith("y,")) throw malformed("unexpected channel-binding flag");
        int second = clientFirst.indexOf(',', 2);
        if (second < 0) throw malformed("no end to the GS2 header");
        if (second != 2) throw new SqlException("0A000", "client uses authorization identity, but it is not supported");
        gs2Header = clientFirst.substring(0, second + 1);
        clientFirstBare = clientFirst.substring(second + 1);
        // client-first-message-bare: [reserved-mext ","] username "," nonce ["," extensions]; the user is the startup packet's
        String[] attrs = clientFirstBare.split(",", -1);
        if (attrs.length < 2 || !attrs[0].startsWith("n=")) throw malformed("expected the attribute \"n\"");
        if (!attrs[1].startsWith("r=") || attrs[1].length() < 3) throw malformed("expected the attribute \"r\"");
        String clientNonce = attrs[1].substring(2);
        for (int i = 0; i < clientNonce.length(); i++) {
            char c = clientNonce.charAt(i);
            if (c < 0x21 || c > 0x7e || c == ',') throw malformed("the nonce has a character that is not printable");
        }
        nonce = clientNonce + serverNonce;
        ScramVerifier v = credentials.verifier();
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(v.salt()) + ",i=" + v.iterations();
        return serverFirst;
    }

    /**
     * Reads client-final-message; returns server-final-message ({@code v=signature}) when the proof
     * is right and the role may log in, null when authentication fails.
     */
    public String serverFinal(String clientFinal) {
        if (serverFirst == null) throw malformed("the final message came before the first");
        int p = clientFinal.lastIndexOf(",p=");
        if (p < 0) throw malformed("expected the attribute \"p\"");
        String withoutProof = clientFinal.substring(0, p);
        String[] attrs = withoutProof.split(",", -1);
        if (attrs.length < 2 || !attrs[0].startsWith("c=")) throw malformed("expected the attribute \"c\"");
        byte[] binding;
        byte[] proof;
        try {
            binding = Base64.getDecoder().decode(attrs[0].substring(2));
            proof = Base64.getDecoder().decode(clientFinal.substring(p + 3));
        } catch (IllegalArgumentException e) {
            throw malformed("invalid base64");
        }
        if (!MessageDigest.isEqual(binding, gs2Header.getBytes(StandardCharsets.UTF_8))) {
            throw new SqlException("08P01", "SCRAM channel binding check failed");
        }
        if (!attrs[1].equals("r=" + nonce)) throw malformed("the nonce does not match");
        if (proof.length != 32) throw malformed("the proof is not 32 bytes");
        ScramVerifier v = credentials.verifier();
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] clientSignature = Scram.hmac(v.storedKey(), authMessage);
        byte[] clientKey = Scram.xor(proof, clientSignature);
        boolean proven = MessageDigest.isEqual(Scram.sha256(clientKey), v.storedKey());
        String serverSignature = Base64.getEncoder().encodeToString(Scram.hmac(v.serverKey(), authMessage));
        return proven & credentials.mayLogIn() ? "v=" + serverSignature : null;
    }

    /** 28P01, what a client is told whatever failed: a wrong password, no such role, no password, no LOGIN. */
    public static SqlException authenticationFailed(String user) {
        return new SqlException("28P01", "password authentication failed for user \"" + user + "\"");
    }

    private static SqlException malformed(String detail) {
        return new SqlException("08P01", "malformed SCRAM message").withDetail(detail + ".");
    }
}
