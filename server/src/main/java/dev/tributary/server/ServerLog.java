package dev.tributary.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import dev.tributary.sql.SqlException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import org.slf4j.Marker;
import org.slf4j.MarkerFactory;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The server's log, in PostgreSQL's words and line format ({@link PgLogLayout}): what the engine
 * hit that no client asked about (a dataflow that failed, with its stack trace), one line per
 * connection received, authorized and ended, every error sent to a client with its statement,
 * and the statements slower than {@code log_min_duration_statement}; so an administrator can
 * find later what happened and to whom.
 *
 * <p>A thin facade over SLF4J, with Logback behind it: {@code logback.xml} sends the lines to
 * standard error, {@link #alsoTo} to a file as well ({@code serve --log-file}), {@link #setLevel}
 * sets how much ({@code serve --log-level}). Callers say what happened; the wording and labels
 * are kept here, in one place. The loggers are {@value #SERVER}, {@value #CONNECTIONS} and
 * {@value #STATEMENTS}, so a Logback configuration can quiet one kind of line alone.
 */
public final class ServerLog {
    // Logging never throws: its callers are often in the middle of surviving an error, and an
    // OutOfMemoryError while a line was made (the heap still full) had gone on from a worker's
    // catch and ended the worker thread, and with it the computation. The entry is lost instead.
    private ServerLog() {}

    /** The logger of what the server does on its own: recovery, checkpoints, failures. */
    public static final String SERVER = "tributary";
    /** The logger of connections received, authorized and ended (PostgreSQL's log_connections and log_disconnections). */
    public static final String CONNECTIONS = "tributary.connection";
    /** The logger of statements: their errors and, past {@code log_min_duration_statement}, their durations. */
    public static final String STATEMENTS = "tributary.statement";

    private static final Logger server = LoggerFactory.getLogger(SERVER);
    private static final Logger connections = LoggerFactory.getLogger(CONNECTIONS);
    private static final Logger statements = LoggerFactory.getLogger(STATEMENTS);

    /** The label of an error that ends its connection (logged at ERROR level, labelled as PostgreSQL labels it). */
    private static final Marker FATAL = MarkerFactory.getMarker("FATAL");

    /** An error that stopped something, with the stack trace of its cause (none if {@code cause} is null). */
    public static void error(String message, Throwable cause) {
        try {
            server.error(message, cause);
        } catch (Throwable ignored) {
            // logging never throws (see the class comment): the entry is lost, what was being done goes on
        }
    }

    /** Something an administrator should know of that the server carries on through (a store that is down, being retried). */
    public static void warn(String message) {
        try {
            server.warn(message);
        } catch (Throwable ignored) {
            // logging never throws (see the class comment): the entry is lost, what was being done goes on
        }
    }

    /** Something an administrator may want to know (where the data is kept). */
    public static void log(String message) {
        try {
            server.info(message);
        } catch (Throwable ignored) {
            // logging never throws (see the class comment): the entry is lost, what was being done goes on
        }
    }

    /** A server that cannot go on ({@code FATAL:}): it could not listen, or not open its data. */
    public static void fatal(String message) {
        try {
            server.atError().addMarker(FATAL).log(message);
        } catch (Throwable ignored) {
            // logging never throws (see the class comment): the entry is lost, what was being done goes on
        }
    }

    // ------------------------------------------------------------------ connections

    /**
     * Marks the lines this thread logs from now on as connection {@code pid}'s (the bracket of
     * the line), until the returned handle is closed.
     */
    public static MDC.MDCCloseable forConnection(int pid) {
        return MDC.putCloseable(PgLogLayout.PID, Integer.toString(pid));
    }

    /** A client connected from {@code host}:{@code port}. */
    public static void connectionReceived(String host, int port) {
        connections.info("connection received: host={} port={}", host, port);
    }

    /**
     * A client logged in as {@code user} to {@code database}; with its application name, if it
     * gave one, and its TLS protocol and cipher (null: in plaintext), as PostgreSQL 15 says.
     */
    public static void connectionAuthorized(String user, String database, String applicationName, String tlsProtocol, String tlsCipher) {
        connections.info("connection authorized: user={} database={}{}{}", user, database,
                applicationName == null || applicationName.isEmpty() ? "" : " application_name=" + applicationName,
                tlsProtocol == null ? "" : " SSL enabled (protocol=" + tlsProtocol + ", cipher=" + tlsCipher + ")");
    }

    /** An authorized client's connection ended after {@code sessionNanos}. */
    public static void disconnection(long sessionNanos, String user, String database, String host, int port) {
        connections.info("disconnection: session time: {} user={} database={} host={} port={}", sessionTime(sessionNanos), user, database, host, port);
    }

    /** {@code H:MM:SS.mmm}, as PostgreSQL writes a session's time. */
    static String sessionTime(long nanos) {
        long ms = nanos / 1_000_000;
        return String.format(Locale.ROOT, "%d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    }

    // ------------------------------------------------------------------ statements

    /**
     * An error sent to a client: {@code ERROR:} (or {@code FATAL:} when it ends the connection)
     * with its SQLSTATE and message, as PostgreSQL logs them with {@code log_error_verbosity =
     * verbose}, then its DETAIL and HINT, then the {@code STATEMENT} it came from (none if
     * {@code statement} is null). An internal error (SQLSTATE class XX) is a bug: it goes with the
     * stack trace of what caused it, or of where it was raised.
     */
    public static void clientError(SqlException e, boolean fatal, String statement) {
        LoggingEventBuilder b = statements.atError();
        if (fatal) b = b.addMarker(FATAL);
        b = b.setMessage(e.sqlState() + ": " + e.getMessage() + (e.position() > 0 ? " at character " + e.position() : ""));
        if (e.detail() != null) b = b.addKeyValue("DETAIL", e.detail());
        if (e.hint() != null) b = b.addKeyValue("HINT", e.hint());
        if (e.context() != null) b = b.addKeyValue("CONTEXT", e.context());
        if (statement != null) b = b.addKeyValue("STATEMENT", statement);
        if (e.sqlState().startsWith("XX")) b = b.setCause(e.getCause() != null ? e.getCause() : e);
        b.log();
    }

    /**
     * A statement that took {@code nanos}, when it took at least {@code minMillis}
     * ({@code log_min_duration_statement}; -1 logs none): {@code duration: 12.345 ms  statement: ...}.
     * {@code what} is PostgreSQL's name of it: {@code statement: SQL} for a Query message,
     * {@code execute NAME: SQL} for an Execute.
     */
    public static void duration(long minMillis, long nanos, java.util.function.Supplier<String> what) {
        if (minMillis < 0 || nanos < minMillis * 1_000_000) return; // what is made only for a line that is written
        statements.info("duration: {} ms  {}", String.format(Locale.ROOT, "%.3f", nanos / 1e6), what.get());
    }

    // ------------------------------------------------------------------ configuration

    private static LoggerContext logback() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext c) return c;
        throw new IllegalStateException("the server log is configured through Logback, but SLF4J is bound to "
                + LoggerFactory.getILoggerFactory().getClass().getName() + "; put logback-classic on the class path alone");
    }

    /**
     * Logs at {@code level} and above from now on: {@code debug}, {@code info} (the default),
     * {@code warn} (or {@code warning}) or {@code error}, any case; another is an
     * IllegalArgumentException naming those.
     */
    public static void setLevel(String level) {
        Level l = switch (level.toLowerCase(Locale.ROOT)) {
            case "debug" -> Level.DEBUG;
            case "info" -> Level.INFO;
            case "warn", "warning" -> Level.WARN;
            case "error" -> Level.ERROR;
            default -> throw new IllegalArgumentException("--log-level takes debug, info, warn or error, not '" + level + "'");
        };
        logback().getLogger(Logger.ROOT_LOGGER_NAME).setLevel(l);
    }

    /**
     * Writes the log to {@code file} too (appended to; its directory is made if missing), in the
     * same lines. An IOException if it cannot be written.
     */
    public static void alsoTo(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        // opened once here so that a file that cannot be written is an error now, saying why, not a status line of Logback's later
        try (OutputStream probe = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            probe.flush();
        }
        LoggerContext context = logback();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(context);
        appender.setName("file");
        appender.setFile(file.toString());
        appender.setAppend(true);
        appender.setEncoder(encoder(context));
        appender.start();
        if (!appender.isStarted()) throw new IOException("cannot write the log file " + file);
        context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
    }

    private static LayoutWrappingEncoder<ILoggingEvent> encoder(LoggerContext context) {
        PgLogLayout layout = new PgLogLayout();
        layout.setContext(context);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.setCharset(StandardCharsets.UTF_8);
        encoder.start();
        return encoder;
    }

    private static final AtomicInteger captures = new AtomicInteger();

    /**
     * From now until it is closed, the lines logged (at the level in force) are also kept, as
     * the log has them: for tests that read the log.
     */
    public static Capture capture() {
        return new Capture();
    }

    /** The lines logged while it is open; see {@link #capture()}. */
    public static final class Capture implements AutoCloseable {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final OutputStreamAppender<ILoggingEvent> appender = new OutputStreamAppender<>();
        private final LoggerContext context = logback();

        private Capture() {
            appender.setContext(context);
            appender.setName("capture-" + captures.incrementAndGet());
            appender.setEncoder(encoder(context));
            appender.setOutputStream(bytes);
            appender.start();
            context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
        }

        /** What was logged so far. */
        public String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        /** What was logged so far, line by line (a stack trace is many lines). */
        public List<String> lines() {
            return text().lines().toList();
        }

        @Override
        public void close() {
            context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(appender);
            appender.stop();
        }
    }
}
