package dev.tributary.server.auth;

import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The roles of one database: who may log in and with what password, each role's attributes
 * (SUPERUSER, CREATEROLE, ...), and which roles are members of which. Passwords are kept only as
 * {@link ScramVerifier}s; a password is never stored or logged as text.
 *
 * <p>It starts with one role, {@value #BOOTSTRAP}, PostgreSQL's bootstrap superuser: it may log
 * in, has no password, and always keeps SUPERUSER, so the database always has a superuser (it
 * cannot be dropped either). Role changes apply at once, not at the end of a transaction block.
 * Thread-safe.
 *
 * <p>{@link #credentials} gives, for any user name, a verifier to run the SCRAM exchange against: a
 * role's own verifier, or for a name with no role, no password or no LOGIN a fake one derived
 * from the name and a secret of this instance, so a client learns nothing from the exchange about
 * which names exist.
 */
public final class Roles {
    /** The role every database starts with. */
    public static final String BOOTSTRAP = "tributary";
    /** The predefined role whose only member is the database's owner ({@value #BOOTSTRAP}); it owns schema public. */
    public static final String DATABASE_OWNER = "pg_database_owner";

    /**
     * The predefined role whose members may make the server reach other hosts: HTTP sinks, INSERT
     * INTO FUNCTION url, Kafka sources and sinks. Any of them can be pointed at any address the
     * server reaches (an internal service, a cloud metadata endpoint), so, like PostgreSQL's
     * {@code pg_read_server_files}, it is not everyone's: superusers and members only. It exists
     * in every database, logs in never, and cannot be dropped.
     */
    public static final String CONNECT = "tributary_connect";

    /** A role's attributes, PostgreSQL's: {@code rolsuper}, {@code rolcreatedb}, ... */
    public record Attributes(boolean superuser, boolean createDb, boolean createRole, boolean inherit, boolean login,
                             boolean replication, boolean bypassRls) {
        /** CREATE ROLE's defaults: INHERIT, and LOGIN for CREATE USER. */
        public static Attributes defaults(boolean login) {
            return new Attributes(false, false, false, true, login, false, false);
        }

        /** These attributes with {@code name} ({@code superuser}, {@code createdb}, ..., {@code login}) set to {@code value}. */
        public Attributes with(String name, boolean value) {
            return switch (name) {
                case "superuser" -> new Attributes(value, createDb, createRole, inherit, login, replication, bypassRls);
                case "createdb" -> new Attributes(superuser, value, createRole, inherit, login, replication, bypassRls);
                case "createrole" -> new Attributes(superuser, createDb, value, inherit, login, replication, bypassRls);
                case "inherit" -> new Attributes(superuser, createDb, createRole, value, login, replication, bypassRls);
                case "login" -> new Attributes(superuser, createDb, createRole, inherit, value, replication, bypassRls);
                case "replication" -> new Attributes(superuser, createDb, createRole, inherit, login, value, bypassRls);
                case "bypassrls" -> new Attributes(superuser, createDb, createRole, inherit, login, replication, value);
                default -> throw new IllegalArgumentException("not a role attribute: " + name);
            };
        }
    }

    /**
     * One role.
     *
     * @param name its name
     * @param attributes what it may do beyond its privileges
     * @param verifier its password's verifier, or null without a password
     */
    public record Role(String name, Attributes attributes, ScramVerifier verifier) {
        /** Whether it may log in. */
        public boolean login() {
            return attributes.login();
        }
    }

    /** {@code member} is a member of {@code role}, as {@code grantor} granted; {@code admin}: it may grant {@code role} to others. */
    public record Membership(String role, String member, String grantor, boolean admin) {}

    /**
     * What a login attempt is checked against.
     *
     * @param verifier the verifier the exchange runs with, real or fake
     * @param mayLogIn whether a correct proof lets the client in: false for a fake verifier or a NOLOGIN role
     */
    public record Credentials(ScramVerifier verifier, boolean mayLogIn) {}

    private final Map<String, Role> roles = new TreeMap<>();
    private final List<Membership> memberships = new ArrayList<>();
    private final SecureRandom random;
    private final byte[] secret = new byte[32];

    public Roles(SecureRandom random) {
        this.random = random;
        random.nextBytes(secret);
        roles.put(BOOTSTRAP, new Role(BOOTSTRAP, new Attributes(true, true, true, true, true, true, true), null));
        roles.put(CONNECT, new Role(CONNECT, Attributes.defaults(false), null));
    }

    /** The role named {@code name}, if there is one. */
    public synchronized Optional<Role> find(String name) {
        return Optional.ofNullable(roles.get(name));
    }

    /** All roles, by name. */
    public synchronized List<Role> all() {
        return List.copyOf(roles.values());
    }

    /** All memberships, in the order they were granted. */
    public synchronized List<Membership> memberships() {
        return List.copyOf(memberships);
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

    /** Adds a role with LOGIN or not and the other attributes' defaults. */
    public void create(String name, boolean login, ScramVerifier verifier) {
        create(name, Attributes.defaults(login), verifier);
    }

    /** Adds a role; 42710 if it exists, 42939 for a reserved name. */
    public synchronized void create(String name, Attributes attributes, ScramVerifier verifier) {
        checkName(name);
        if (roles.containsKey(name)) throw new SqlException("42710", "role \"" + name + "\" already exists");
        roles.put(name, new Role(name, attributes, verifier));
    }

    /**
     * Changes a role: {@code login} null keeps it; {@code setPassword} false keeps the password,
     * true sets it to {@code verifier} (null removes it). 42704 if there is no such role.
     */
    public synchronized void alter(String name, Boolean login, boolean setPassword, ScramVerifier verifier) {
        Role r = roles.get(name);
        if (r == null) throw notFound(name);
        Attributes a = login == null ? r.attributes() : r.attributes().with("login", login);
        roles.put(name, new Role(name, a, setPassword ? verifier : r.verifier()));
    }

    /** Sets role {@code name}'s attributes; 42704 if there is no such role. */
    public synchronized void alter(String name, Attributes attributes) {
        Role r = roles.get(name);
        if (r == null) throw notFound(name);
        roles.put(name, new Role(name, attributes, r.verifier()));
    }

    /** Removes a role, and every membership of it or in it; false if there was none. */
    public synchronized boolean drop(String name) {
        memberships.removeIf(m -> m.role().equals(name) || m.member().equals(name));
        return roles.remove(name) != null;
    }

    /** Makes {@code member} a member of {@code role} (or changes its admin option), granted by {@code grantor}; false if it was one already with that admin option. */
    public synchronized boolean addMember(String role, String member, String grantor, boolean admin) {
        for (int i = 0; i < memberships.size(); i++) {
            Membership m = memberships.get(i);
            if (m.role().equals(role) && m.member().equals(member)) {
                if (!admin || m.admin()) return false;
                memberships.set(i, new Membership(role, member, m.grantor(), true));
                return true;
            }
        }
        memberships.add(new Membership(role, member, grantor, admin));
        return true;
    }

    /** Ends {@code member}'s membership in {@code role} (only its admin option when {@code adminOnly}); false if it was not a member. */
    public synchronized boolean removeMember(String role, String member, boolean adminOnly) {
        for (int i = 0; i < memberships.size(); i++) {
            Membership m = memberships.get(i);
            if (m.role().equals(role) && m.member().equals(member)) {
                if (adminOnly) memberships.set(i, new Membership(role, member, m.grantor(), false));
                else memberships.remove(i);
                return true;
            }
        }
        return false;
    }

    /** Whether {@code name} is a superuser. */
    public synchronized boolean isSuperuser(String name) {
        Role r = roles.get(name);
        return r != null && r.attributes().superuser();
    }

    /** Whether {@code name} is a superuser or has CREATEROLE. */
    public synchronized boolean mayCreateRoles(String name) {
        Role r = roles.get(name);
        return r != null && (r.attributes().superuser() || r.attributes().createRole());
    }

    /**
     * Whether {@code member} has the privileges of {@code role}: it is that role, a superuser, or a
     * member of it through roles that each INHERIT (PostgreSQL's has_privs_of_role); the bootstrap
     * role has those of {@value #DATABASE_OWNER}.
     */
    public synchronized boolean hasPrivilegesOf(String member, String role) {
        if (member.equals(role) || isSuperuser(member)) return true;
        return reaches(member, role, true);
    }

    /** Whether {@code member} is {@code role}, a superuser or a member of it, directly or not, whatever INHERIT says: what SET ROLE and OWNER TO need. */
    public synchronized boolean isMemberOf(String member, String role) {
        if (member.equals(role) || isSuperuser(member)) return true;
        return reaches(member, role, false);
    }

    /** Whether {@code member} is {@code role} or a member of it, directly or not; with {@code superusers} false a superuser is not a member of every role. */
    public synchronized boolean isMemberOf(String member, String role, boolean superusers) {
        if (superusers) return isMemberOf(member, role);
        return member.equals(role) || reaches(member, role, false);
    }

    /** Whether {@code member} may grant and revoke membership in {@code role}: a superuser, or a member of it with ADMIN OPTION. */
    public synchronized boolean isAdminOf(String member, String role) {
        if (isSuperuser(member)) return true;
        for (Membership m : memberships) {
            if (m.role().equals(role) && m.admin() && isMemberOf(member, m.member())) return true;
        }
        return false;
    }

    private boolean reaches(String member, String role, boolean inheritOnly) {
        List<String> frontier = new ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        frontier.add(member);
        seen.add(member);
        while (!frontier.isEmpty()) {
            String r = frontier.remove(frontier.size() - 1);
            Role at = roles.get(r);
            if (inheritOnly && at != null && !at.attributes().inherit()) continue;
            if (r.equals(BOOTSTRAP) && role.equals(DATABASE_OWNER)) return true;
            for (Membership m : memberships) {
                if (m.member().equals(r) && seen.add(m.role())) {
                    if (m.role().equals(role)) return true;
                    frontier.add(m.role());
                }
            }
        }
        return false;
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

    /**
     * Role {@code name} as the durable catalog keeps it: its attributes and verifier on the first
     * line, then one line per role it is a member of; null when there is no such role.
     */
    public synchronized String encode(String name) {
        Role r = roles.get(name);
        if (r == null) return null;
        Attributes a = r.attributes();
        StringBuilder b = new StringBuilder();
        b.append(a.login() ? "LOGIN" : "NOLOGIN").append(a.superuser() ? " SUPERUSER" : " NOSUPERUSER")
                .append(a.createDb() ? " CREATEDB" : " NOCREATEDB").append(a.createRole() ? " CREATEROLE" : " NOCREATEROLE")
                .append(a.inherit() ? " INHERIT" : " NOINHERIT").append(a.replication() ? " REPLICATION" : " NOREPLICATION")
                .append(a.bypassRls() ? " BYPASSRLS" : " NOBYPASSRLS");
        if (r.verifier() != null) b.append(' ').append(r.verifier());
        for (Membership m : memberships) {
            if (m.member().equals(name)) {
                b.append("\nMEMBER OF\t").append(Acl.escape(m.role())).append('\t').append(Acl.escape(m.grantor())).append('\t').append(m.admin() ? "ADMIN" : "");
            }
        }
        return b.toString();
    }

    /** Makes role {@code name} again as {@link #encode} recorded it (also the older {@code LOGIN|NOLOGIN [verifier]} form). */
    public synchronized void restore(String name, String text) {
        String[] lines = text.split("\n");
        Role old = roles.get(name);
        Attributes a = old != null ? old.attributes() : Attributes.defaults(false);
        ScramVerifier verifier = null;
        for (String word : lines[0].split(" ")) {
            if (word.isEmpty()) continue;
            if (ScramVerifier.looksLikeVerifier(word)) {
                verifier = ScramVerifier.parse(word);
                continue;
            }
            String w = word.toLowerCase(java.util.Locale.ROOT);
            boolean value = !w.startsWith("no");
            a = a.with(value ? w : w.substring(2), value);
        }
        if (name.equals(BOOTSTRAP)) a = a.with("superuser", true);
        roles.put(name, new Role(name, a, verifier));
        memberships.removeIf(m -> m.member().equals(name));
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split("\t", -1);
            if (f.length != 4 || !f[0].equals("MEMBER OF")) throw new IllegalArgumentException("not a membership: '" + lines[i] + "'");
            memberships.add(new Membership(Acl.unescape(f[1]), name, Acl.unescape(f[2]), f[3].equals("ADMIN")));
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
