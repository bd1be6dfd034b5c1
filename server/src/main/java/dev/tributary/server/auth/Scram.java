package dev.tributary.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.text.Normalizer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM-SHA-256 functions of RFC 5802 section 2.2: {@code H}, {@code HMAC}, {@code Hi}, and the
 * password preparation (SASLprep, RFC 4013) PostgreSQL applies before hashing.
 */
public final class Scram {
    /** The mechanism name as SASL spells it. */
    public static final String MECHANISM = "SCRAM-SHA-256";
    /** The iteration count PostgreSQL uses by default, and so do we for every new verifier. */
    public static final int ITERATIONS = 4096;
    /** Salt length in bytes, as PostgreSQL's. */
    public static final int SALT_BYTES = 16;

    private Scram() {}

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    }

    static byte[] hmac(byte[] key, String data) {
        return hmac(key, data.getBytes(StandardCharsets.UTF_8));
    }

    /** {@code Hi(password, salt, i)}: PBKDF2 with HMAC-SHA-256 and one output block. */
    static byte[] hi(byte[] password, byte[] salt, int iterations) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            // SecretKeySpec refuses an empty key; HMAC pads keys with zeros, so one zero byte is the same key
            mac.init(new SecretKeySpec(password.length == 0 ? new byte[1] : password, "HmacSHA256"));
            mac.update(salt);
            byte[] u = mac.doFinal(new byte[] {0, 0, 0, 1});
            byte[] result = u.clone();
            for (int k = 1; k < iterations; k++) {
                u = mac.doFinal(u);
                for (int j = 0; j < result.length; j++) result[j] ^= u[j];
            }
            return result;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no HmacSHA256", e);
        }
    }

    static byte[] xor(byte[] a, byte[] b) {
        byte[] r = new byte[a.length];
        for (int i = 0; i < a.length; i++) r[i] = (byte) (a[i] ^ b[i]);
        return r;
    }

    /**
     * The password's bytes as they are hashed: SASLprep'd (non-ASCII spaces mapped to a space,
     * characters "commonly mapped to nothing" removed, NFKC) and UTF-8 encoded. As PostgreSQL does,
     * a password SASLprep would reject (control or private-use characters, unassigned code points)
     * is used as it is, so every password can be set and used.
     */
    static byte[] prepare(String password) {
        boolean ascii = true;
        for (int i = 0; i < password.length(); i++) if (password.charAt(i) >= 0x80) ascii = false;
        if (ascii) return password.getBytes(StandardCharsets.UTF_8);
        StringBuilder mapped = new StringBuilder();
        for (int i = 0; i < password.length(); ) {
            int c = password.codePointAt(i);
            i += Character.charCount(c);
            if (mappedToNothing(c)) continue;
            mapped.appendCodePoint(Character.isSpaceChar(c) ? ' ' : c);
        }
        String normal = Normalizer.normalize(mapped, Normalizer.Form.NFKC);
        for (int i = 0; i < normal.length(); ) {
            int c = normal.codePointAt(i);
            i += Character.charCount(c);
            int type = Character.getType(c);
            if (type == Character.CONTROL || type == Character.PRIVATE_USE || type == Character.UNASSIGNED
                    || type == Character.SURROGATE || (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE) {
                return password.getBytes(StandardCharsets.UTF_8);
            }
        }
        return normal.getBytes(StandardCharsets.UTF_8);
    }

    /** RFC 3454 table B.1. */
    private static boolean mappedToNothing(int c) {
        return c == 0x00AD || c == 0x034F || c == 0x1806 || (c >= 0x180B && c <= 0x180D) || (c >= 0x200B && c <= 0x200D)
                || c == 0x2060 || (c >= 0xFE00 && c <= 0xFE0F) || c == 0xFEFF;
    }
}
