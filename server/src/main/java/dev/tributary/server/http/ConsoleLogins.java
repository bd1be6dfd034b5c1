package dev.tributary.server.http;

import dev.tributary.server.auth.Roles;
import dev.tributary.server.auth.ScramServer;
import dev.tributary.sql.SqlException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Who is logged in to the web console: SCRAM-SHA-256 exchanges under way, each split over two
 * requests ({@link #first}, {@link #last}), and the sessions they opened, by a random token the
 * browser keeps in a cookie. The exchange is the server's own ({@link ScramServer}, as pgwire's
 * {@code Authenticator} runs it), so the console knows no password and checks nothing pgwire
 * would not.
 *
 * <p>An exchange left after its first step is forgotten after {@link #EXCHANGE_NANOS} or when
 * {@link #MAX_PENDING} newer ones wait, so abandoned logins cannot pile up. A session ends at
 * {@link #logout}, when its role is dropped or loses LOGIN, after {@link #IDLE_NANOS} without a
 * request (a browser left open on a shared machine does not stay logged in for good), or when
 * {@link #MAX_SESSIONS} more recently used ones exist. Thread-safe.
 */
final class ConsoleLogins {
    /** How long the second step may come after the first: a browser answers in well under a second. */
    static final long EXCHANGE_NANOS = 60_000_000_000L;
    /** How many first steps may wait for their second at once. */
    static final int MAX_PENDING = 256;
    /** How long a session lasts without a request: a working day. */
    static final long IDLE_NANOS = 12L * 3600 * 1_000_000_000L;
    /** How many sessions may be open at once; the least recently used goes first. */
    static final int MAX_SESSIONS = 4096;

    /** A first step's answer: the exchange to name in the second, and server-first-message. */
    record Started(String exchange, String serverFirst) {}

    /** A second step that proved the password: the session's token, its role, and server-final-message. */
    record LoggedIn(String token, String role, String serverFinal) {}

    private record Pending(String user, ScramServer scram, long startedNanos) {}

    /** An open session: its role and when it was last used. */
    private static final class Session {
        final String role;
        long usedNanos;

        Session(String role, long usedNanos) {
            this.role = role;
            this.usedNanos = usedNanos;
        }
    }

    private final SecureRandom random = new SecureRandom();
    private final LinkedHashMap<String, Pending> pending = new LinkedHashMap<>();
    /** In order of last use (an access-ordered map): the idle and the least recently used come first. */
    private final LinkedHashMap<String, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);
    private final LongSupplier nanoTime;
    private final int maxSessions;

    ConsoleLogins() {
        this(System::nanoTime, MAX_SESSIONS);
    }

    /** Logins on the clock {@code nanoTime}, at most {@code maxSessions} open (a test's, to reach the limits without waiting). */
    ConsoleLogins(LongSupplier nanoTime, int maxSessions) {
        this.nanoTime = nanoTime;
        this.maxSessions = maxSessions;
    }

    /** Starts {@code user}'s exchange with client-first-message {@code clientFirst}; 08P01 if it is malformed. */
    Started first(Roles roles, String user, String clientFirst) {
        ScramServer scram = new ScramServer(roles.credentials(user), random);
        String serverFirst = scram.serverFirst(clientFirst);
        String id = token();
        synchronized (this) {
            long now = nanoTime.getAsLong();
            forgetStale(now);
            pending.put(id, new Pending(user, scram, now));
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
            forgetStale(nanoTime.getAsLong());
            p = pending.remove(exchange);
        }
        if (p == null) throw new SqlException("08P01", "no SCRAM exchange \"" + exchange + "\" is waiting: it ended or took longer than a minute; log in again");
        String serverFinal = p.scram().serverFinal(clientFinal);
        if (serverFinal == null) throw ScramServer.authenticationFailed(p.user());
        String token = token();
        synchronized (this) {
            long now = nanoTime.getAsLong();
            forgetIdle(now);
            sessions.put(token, new Session(p.user(), now));
            if (sessions.size() > maxSessions) {
                Iterator<String> oldest = sessions.keySet().iterator();
                oldest.next();
                oldest.remove();
            }
        }
        return new LoggedIn(token, p.user(), serverFinal);
    }

    /**
     * The role session {@code token} runs as, if it is a session, has not been idle too long and
     * its role may still log in; a use keeps it open.
     */
    Optional<String> role(Roles roles, String token) {
        String role;
        synchronized (this) {
            long now = nanoTime.getAsLong();
            forgetIdle(now);
            Session s = sessions.get(token);
            if (s != null) s.usedNanos = now;
            role = s == null ? null : s.role;
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

    /** Ends the sessions idle for {@link #IDLE_NANOS}: the first ones in last-use order. */
    private void forgetIdle(long now) {
        for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
            if (now - it.next().usedNanos < IDLE_NANOS) break;
            it.remove();
        }
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
