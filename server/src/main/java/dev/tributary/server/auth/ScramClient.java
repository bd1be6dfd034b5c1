package dev.tributary.server.auth;

import dev.tributary.sql.SqlException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The client side of one SCRAM-SHA-256 exchange without channel binding: {@link #clientFirst},
 * {@link #clientFinal} for the server's challenge, then {@link #checkServerFinal}, which proves the
 * server knew the verifier too. Errors are 08P01 {@link SqlException}s naming what the server got wrong.
 */
public final class ScramClient {
    private final String password;
    private final String user;
    private final String clientNonce;
    private String clientFirstBare;
    private byte[] expectedServerSignature;

    public ScramClient(String password, SecureRandom random) {
        this(password, "", ScramServer.nonce(random));
    }

    /** An exchange naming {@code user} in its first message with the nonce {@code clientNonce} (tests use RFC 7677's). */
    ScramClient(String password, String user, String clientNonce) {
        this.password = password;
        this.user = user;
        this.clientNonce = clientNonce;
    }

    /**
     * client-first-message. The user name is empty unless given: a PostgreSQL server takes it from
     * the startup packet, and names with {@code ,} or {@code =} would need escaping here.
     */
    public String clientFirst() {
        clientFirstBare = "n=" + user + ",r=" + clientNonce;
        return "n,," + clientFirstBare;
    }

    /** client-final-message for the server-first-message {@code serverFirst}. */
    public String clientFinal(String serverFirst) {
        String nonce = null;
        String salt = null;
        int iterations = -1;
        for (String a : serverFirst.split(",")) {
            if (a.startsWith("r=")) nonce = a.substring(2);
            else if (a.startsWith("s=")) salt = a.substring(2);
            else if (a.startsWith("i=")) {
                try {
                    iterations = Integer.parseInt(a.substring(2));
                } catch (NumberFormatException e) {
                    throw bad("an iteration count that is not a number");
                }
            }
        }
        if (nonce == null || !nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) throw bad("a nonce that does not extend ours");
        if (salt == null || iterations < 1) throw bad("no salt or iteration count");
        byte[] saltBytes;
        try {
            saltBytes = Base64.getDecoder().decode(salt);
        } catch (IllegalArgumentException e) {
            throw bad("a salt that is not base64");
        }
        byte[] salted = Scram.hi(Scram.prepare(password), saltBytes, iterations);
        byte[] clientKey = Scram.hmac(salted, "Client Key");
        byte[] storedKey = Scram.sha256(clientKey);
        String withoutProof = "c=biws,r=" + nonce; // biws is base64("n,,")
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] proof = Scram.xor(clientKey, Scram.hmac(storedKey, authMessage));
        expectedServerSignature = Scram.hmac(Scram.hmac(salted, "Server Key"), authMessage);
        return withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
    }

    /** Checks server-final-message: the server's signature must be the one only the verifier's holder can make. */
    public void checkServerFinal(String serverFinal) {
        if (serverFinal.startsWith("e=")) throw new SqlException("08P01", "the server refused the SCRAM exchange: " + serverFinal.substring(2));
        if (!serverFinal.startsWith("v=")) throw bad("a final message without a signature");
        byte[] signature;
        try {
            signature = Base64.getDecoder().decode(serverFinal.substring(2).split(",", 2)[0]);
        } catch (IllegalArgumentException e) {
            throw bad("a signature that is not base64");
        }
        if (expectedServerSignature == null || !MessageDigest.isEqual(signature, expectedServerSignature)) {
            throw new SqlException("08P01", "the server's SCRAM signature is wrong: it does not know this password's verifier");
        }
    }

    private static SqlException bad(String what) {
        return new SqlException("08P01", "invalid SCRAM message from the server: " + what);
    }
}
