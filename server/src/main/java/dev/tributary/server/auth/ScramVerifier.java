package dev.tributary.server.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the server keeps of a password: a SCRAM-SHA-256 verifier (RFC 5802 section 3). It proves a
 * client knows the password without holding the password, and without letting whoever reads it
 * log in.
 *
 * <p>Its text form is PostgreSQL's, {@code SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>}
 * in base64, so a verifier can move between the two systems in either direction.
 *
 * @param salt the random salt
 * @param iterations the {@code Hi} iteration count
 * @param storedKey {@code H(HMAC(SaltedPassword, "Client Key"))}
 * @param serverKey {@code HMAC(SaltedPassword, "Server Key")}
 */
public record ScramVerifier(byte[] salt, int iterations, byte[] storedKey, byte[] serverKey) {
    private static final Pattern TEXT = Pattern.compile(
            "SCRAM-SHA-256\\$(\\d{1,9}):([A-Za-z0-9+/=]+)\\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)");

    public ScramVerifier {
        if (iterations < 1) throw new IllegalArgumentException("a SCRAM iteration count is at least 1, not " + iterations);
        if (storedKey.length != 32 || serverKey.length != 32) {
            throw new IllegalArgumentException("SCRAM-SHA-256 keys are 32 bytes, not " + storedKey.length + " and " + serverKey.length);
        }
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
    }

    /** A verifier of {@code password} with a fresh random salt and {@link Scram#ITERATIONS} iterations. */
    public static ScramVerifier of(String password, SecureRandom random) {
        byte[] salt = new byte[Scram.SALT_BYTES];
        random.nextBytes(salt);
        return of(password, salt, Scram.ITERATIONS);
    }

    /** The verifier of {@code password} with this salt and iteration count. */
    public static ScramVerifier of(String password, byte[] salt, int iterations) {
        byte[] salted = Scram.hi(Scram.prepare(password), salt, iterations);
        return fromSaltedPassword(salted, salt, iterations);
    }

    static ScramVerifier fromSaltedPassword(byte[] salted, byte[] salt, int iterations) {
        byte[] clientKey = Scram.hmac(salted, "Client Key");
        return new ScramVerifier(salt, iterations, Scram.sha256(clientKey), Scram.hmac(salted, "Server Key"));
    }

    /** Whether {@code text} is in the verifier form (then CREATE ROLE stores it as it is). */
    public static boolean looksLikeVerifier(String text) {
        return text.startsWith("SCRAM-SHA-256$");
    }

    /**
     * Reads the text form; throws {@link IllegalArgumentException} saying what is wrong when
     * {@code text} starts like a verifier but is not a valid one.
     */
    public static ScramVerifier parse(String text) {
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a SCRAM-SHA-256 verifier; the form is SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>");
        }
        try {
            Base64.Decoder d = Base64.getDecoder();
            return new ScramVerifier(d.decode(m.group(2)), Integer.parseInt(m.group(1)), d.decode(m.group(3)), d.decode(m.group(4)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a SCRAM-SHA-256 verifier: " + e.getMessage(), e);
        }
    }

    /** Whether {@code password} is the one this verifies (by recomputing the keys; constant time in the comparison). */
    public boolean verifies(String password) {
        ScramVerifier other = of(password, salt, iterations);
        return MessageDigest.isEqual(other.storedKey, storedKey) & MessageDigest.isEqual(other.serverKey, serverKey);
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    /** The text form, PostgreSQL's. */
    @Override
    public String toString() {
        Base64.Encoder e = Base64.getEncoder();
        return "SCRAM-SHA-256$" + iterations + ":" + e.encodeToString(salt) + "$" + e.encodeToString(storedKey) + ":" + e.encodeToString(serverKey);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramVerifier v && iterations == v.iterations && java.util.Arrays.equals(salt, v.salt)
                && java.util.Arrays.equals(storedKey, v.storedKey) && java.util.Arrays.equals(serverKey, v.serverKey);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(storedKey);
    }
}
