package dev.tributary.server.pgwire;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * The server's TLS identity, loaded from PEM files with the JDK's own APIs: a certificate chain
 * ({@code -----BEGIN CERTIFICATE-----}, the server's first) and its unencrypted PKCS#8 private key
 * ({@code -----BEGIN PRIVATE KEY-----}, RSA, EC or Ed25519), as {@code openssl req -x509 -newkey ...
 * -nodes} writes them.
 */
public final class Tls {
    /** The protocol versions offered: TLS 1.2 and later. */
    static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z ]+)-----([A-Za-z0-9+/=\\s]*)-----END \\1-----");

    private Tls() {}

    /**
     * A server-side TLS context for the certificate chain in {@code certificateFile} and the key in
     * {@code keyFile}; throws {@link IllegalArgumentException} saying what is wrong with a file.
     */
    public static SSLContext serverContext(Path certificateFile, Path keyFile) throws IOException {
        String certText = Files.readString(certificateFile, StandardCharsets.US_ASCII);
        String keyText = Files.readString(keyFile, StandardCharsets.US_ASCII);
        try {
            List<Certificate> chain = new ArrayList<>();
            CertificateFactory cf = CertificateFactory.getInstance("X.509");
            for (byte[] der : blocks(certText, "CERTIFICATE")) chain.add(cf.generateCertificate(new ByteArrayInputStream(der)));
            if (chain.isEmpty()) throw new IllegalArgumentException(certificateFile + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
            List<byte[]> keys = blocks(keyText, "PRIVATE KEY");
            if (keys.isEmpty()) {
                throw new IllegalArgumentException(keyFile + " holds no PKCS#8 PEM key (-----BEGIN PRIVATE KEY-----); convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
            }
            PrivateKey key = privateKey(keys.get(0), chain.get(0).getPublicKey().getAlgorithm(), keyFile);
            // a key of the right kind but not the certificate's would be taken, and every handshake would then fail
            if (!belongTogether(key, chain.get(0).getPublicKey())) {
                throw new IllegalArgumentException("the private key in " + keyFile + " does not belong to the certificate in " + certificateFile
                        + " (its public key does not verify the key's signature); give the key the certificate was made for");
            }
            char[] pass = new char[0];
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("server", key, pass, chain.toArray(new Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(store, pass);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot use " + certificateFile + " and " + keyFile + " for TLS: " + e.getMessage(), e);
        }
    }

    /** Whether {@code key} signs what {@code certificateKey} verifies: a random challenge, signed and checked. */
    private static boolean belongTogether(PrivateKey key, java.security.PublicKey certificateKey) throws GeneralSecurityException {
        String algorithm = switch (certificateKey.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "RSASSA-PSS" -> "RSASSA-PSS";
            default -> certificateKey.getAlgorithm(); // Ed25519, Ed448, EdDSA: the algorithm is its own signature
        };
        byte[] challenge = new byte[32];
        new java.security.SecureRandom().nextBytes(challenge);
        java.security.Signature sign = java.security.Signature.getInstance(algorithm);
        if (algorithm.equals("RSASSA-PSS")) sign.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1", java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
        sign.initSign(key);
        sign.update(challenge);
        byte[] signature = sign.sign();
        java.security.Signature verify = java.security.Signature.getInstance(algorithm);
        if (algorithm.equals("RSASSA-PSS")) verify.setParameter(new java.security.spec.PSSParameterSpec("SHA-256", "MGF1", java.security.spec.MGF1ParameterSpec.SHA256, 32, 1));
        verify.initVerify(certificateKey);
        verify.update(challenge);
        return verify.verify(signature);
    }

    private static PrivateKey privateKey(byte[] der, String algorithm, Path file) throws GeneralSecurityException {
        try {
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (java.security.spec.InvalidKeySpecException e) {
            throw new IllegalArgumentException(file + " is not a " + algorithm + " PKCS#8 key matching the certificate: " + e.getMessage(), e);
        }
    }

    private static List<byte[]> blocks(String pem, String label) {
        List<byte[]> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(pem);
        while (m.find()) {
            if (m.group(1).equals(label)) out.add(Base64.getMimeDecoder().decode(m.group(2)));
        }
        return out;
    }
}
