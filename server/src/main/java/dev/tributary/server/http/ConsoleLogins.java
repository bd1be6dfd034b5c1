package dev.tributary.server.http;

import dev.tributary.server.auth.Roles;
import dev.tributary.server.auth.ScramServer;
import dev.tributary.sql.SqlException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Who is logged in to the web console: SCRAM-SHA-256 exchanges under way, each split over two
 * requests ({@link #first}, {@link #last}), and the sessions they opened, by a random token the
 * browser keeps in a cookie. The exchange is the server's own ({@link ScramServer}, as pgwire's
 * {@code Authenticator} runs it), so the console knows no password and checks nothing pgwire
 * would not.
 *
 * <p>An exchange left after its first step is forgotten after {@link #EXCHANGE_NANOS} or when
 * {@link #MAX_PENDING} newer ones wait, so abandoned logins cannot pile up. A session ends at
 * {@link #logout}, or when its role is dropped or loses LOGIN. Thread-safe.
 */
final class ConsoleLogins {
    /** How long the second step may come after the first: a browser answers in well under a second. */
    static final long EXCHANGE_NANOS = 60_000_000_000L;
    /** How many first steps may wait for their second at once. */
    static final int MAX_PENDING = 256;

    /** A first step's answer: the exchange to name in the second, and server-first-message. */
    record Started(String exchange, String serverFirst) {}

    /** A second step that proved the password: the session's token, its role, and server-final-message. */
    record LoggedIn(String token, String role, String serverFinal) {}

    private record Pending(String user, ScramServer scram, long startedNanos) {}

    private final SecureRandom random = new SecureRandom();
    private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();
    private final Map<String, String> sessions = new HashMap<>();

    /** Starts {@code user}'s exchange with client-first-message {@code clientFirst}; 08P01 if it is malformed. */
    Started first(Roles roles, String user, String clientFirst) {
        ScramServer scram = new ScramServer(roles.credentials(user), random);
        String serverFirst = scram.serverFirst(clientFirst);
        String id = token();
        synchronized (this) {
            forgetStale(System.nanoTime());
            pending.put(id, new Pending(user, scram, System.nanoTime()));
        }
        return new Started(id, serverFirst);
    }

    /**
     * Ends exchange {@code exchange} with client-final-message {@code clientFinal}: a new session
     * when the proof is right and the role may log in, else 28P01 as pgwire says it (an unknown or
     * expired exchange too, so a client learns nothing more from it).
     */
    LoggedIn last(String exchange, String clientFinal) {
        Pending p;
        synchronized (this) {
            forgetStale(System.nanoTime());
            p = pending.remove(exchange);
        }
        if (p == null) throw new SqlException("08P01", "no SCRAM exchange \"" + exchange + "\" is waiting: it ended or took longer than a minute; log in again");
        String serverFinal = p.scram().serverFinal(clientFinal);
        if (serverFinal == null) throw ScramServer.authenticationFailed(p.user());
        String token = token();
        synchronized (this) {
            sessions.put(token, p.user());
        }
        return new LoggedIn(token, p.user(), serverFinal);
    }

    /** The role session {@code token} runs as, if it is a session and the role may still log in. */
    Optional<String> role(Roles roles, String token) {
        String role;
        synchronized (this) {
            role = sessions.get(token);
        }
        if (role == null) return Optional.empty();
        if (roles.find(role).map(Roles.Role::login).orElse(false)) return Optional.of(role);
        logout(token);
        return Optional.empty();
    }

    /** Ends session {@code token}, if there is one. */
    synchronized void logout(String token) {
        sessions.remove(token);
    }

    private void forgetStale(long now) {
        for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (now - p.startedNanos() < EXCHANGE_NANOS && pending.size() < MAX_PENDING) break;
            it.remove();
        }
    }

    /** 32 random bytes, URL-safe: unguessable, and usable in a cookie as they are. */
    private String token() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
