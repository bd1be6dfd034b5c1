package dev.tributary.server.auth;

import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The roles of one database: who may log in and with what password. Passwords are kept only as
 * {@link ScramVerifier}s; a password is never stored or logged as text.
 *
 * <p>It starts with one role, {@value #BOOTSTRAP}, which may log in and has no password (as
 * PostgreSQL's bootstrap superuser). Role changes apply at once, not at the end of a transaction
 * block. Thread-safe.
 *
 * <p>{@link #credentials} gives, for any user name, a verifier to run the SCRAM exchange against: a
 * role's own verifier, or for a name with no role, no password or no LOGIN a fake one derived
 * from the name and a secret of this instance, so a client learns nothing from the exchange about
 * which names exist.
 */
public final class Roles {
    /** The role every database starts with. */
    public static final String BOOTSTRAP = "tributary";

    /**
     * One role.
     *
     * @param name its name
     * @param login whether it may log in
     * @param verifier its password's verifier, or null without a password
     */
    public record Role(String name, boolean login, ScramVerifier verifier) {}

    /**
     * What a login attempt is checked against.
     *
     * @param verifier the verifier the exchange runs with, real or fake
     * @param mayLogIn whether a correct proof lets the client in: false for a fake verifier or a NOLOGIN role
     */
    public record Credentials(ScramVerifier verifier, boolean mayLogIn) {}

    private final Map<String, Role> roles = new TreeMap<>();
    private final SecureRandom random;
    private final byte[] secret = new byte[32];

    public Roles(SecureRandom random) {
        this.random = random;
        random.nextBytes(secret);
        roles.put(BOOTSTRAP, new Role(BOOTSTRAP, true, null));
    }

    /** The role named {@code name}, if there is one. */
    public synchronized Optional<Role> find(String name) {
        return Optional.ofNullable(roles.get(name));
    }

    /** All roles, by name. */
    public synchronized List<Role> all() {
        return List.copyOf(roles.values());
    }

    /** Whether some role has a password: from then on every connection authenticates. */
    public synchronized boolean anyPassword() {
        for (Role r : roles.values()) if (r.verifier() != null) return true;
        return false;
    }

    /**
     * The verifier a password given to CREATE/ALTER ROLE is stored as: a text already in verifier
     * form as it is (42601 if it is not a valid one), else a new verifier with a fresh salt.
     */
    public ScramVerifier verifierOf(String password) {
        if (ScramVerifier.looksLikeVerifier(password)) {
            try {
                return ScramVerifier.parse(password);
            } catch (IllegalArgumentException e) {
                throw new SqlException("22023", "invalid SCRAM secret: " + e.getMessage());
            }
        }
        return ScramVerifier.of(password, random);
    }

    /** Adds a role; 42710 if it exists, 42939 for a reserved name (the parser refuses {@code public} and {@code none} already). */
    public synchronized void create(String name, boolean login, ScramVerifier verifier) {
        checkName(name);
        if (roles.containsKey(name)) throw new SqlException("42710", "role \"" + name + "\" already exists");
        roles.put(name, new Role(name, login, verifier));
    }

    /**
     * Changes a role: {@code login} null keeps it; {@code setPassword} false keeps the password,
     * true sets it to {@code verifier} (null removes it). 42704 if there is no such role.
     */
    public synchronized void alter(String name, Boolean login, boolean setPassword, ScramVerifier verifier) {
        Role r = roles.get(name);
        if (r == null) throw notFound(name);
        roles.put(name, new Role(name, login == null ? r.login() : login, setPassword ? verifier : r.verifier()));
    }

    /** Removes a role; false if there was none. */
    public synchronized boolean drop(String name) {
        return roles.remove(name) != null;
    }

    /** 42704 role does not exist. */
    public static SqlException notFound(String name) {
        return new SqlException("42704", "role \"" + name + "\" does not exist");
    }

    private static void checkName(String name) {
        if (name.equals("public") || name.equals("none")) {
            throw new SqlException("42939", "role name \"" + name + "\" is reserved");
        }
        if (name.startsWith("pg_")) {
            throw new SqlException("42939", "role name \"" + name + "\" is reserved")
                    .withDetail("Role names starting with \"pg_\" are reserved.");
        }
    }

    /** The verifier to authenticate {@code user} against; see the class comment. */
    public Credentials credentials(String user) {
        Role r = find(user).orElse(null);
        // the fake is computed in every case, so the work done does not depend on whether the role exists
        ScramVerifier fake = fakeVerifier(user);
        if (r == null || r.verifier() == null) return new Credentials(fake, false);
        return new Credentials(r.verifier(), r.login());
    }

    /**
     * A verifier for a name with no usable password: the same shape as a real one (16-byte salt,
     * {@link Scram#ITERATIONS}), the same for every attempt with that name, and matching no password
     * anyone can know, since its keys come from this instance's secret rather than from a password.
     */
    ScramVerifier fakeVerifier(String user) {
        byte[] name = user.getBytes(StandardCharsets.UTF_8);
        byte[] salt = Arrays.copyOf(Scram.hmac(secret, concat("salt\0", name)), Scram.SALT_BYTES);
        return new ScramVerifier(salt, Scram.ITERATIONS, Scram.hmac(secret, concat("stored\0", name)),
                Scram.hmac(secret, concat("server\0", name)));
    }

    private static byte[] concat(String prefix, byte[] b) {
        byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
        byte[] r = Arrays.copyOf(p, p.length + b.length);
        System.arraycopy(b, 0, r, p.length, b.length);
        return r;
    }
}
