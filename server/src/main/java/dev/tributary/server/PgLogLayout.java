package dev.tributary.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.LayoutBase;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import org.slf4j.Marker;
import org.slf4j.event.KeyValuePair;

/**
 * The lines of the server log as PostgreSQL writes them with
 * {@code log_line_prefix = '%m [%p] '}: {@code 2026-12-04 21:00:00.123 UTC [42] LOG:  message}.
 *
 * <p>The time is in UTC, to the millisecond. The bracket holds the client connection's process id
 * (its BackendKeyData, what {@code pg_backend_pid()} answers and {@code pg_terminate_backend}
 * takes) on lines about a connection, and the thread's name on the others. The label is
 * PostgreSQL's: {@code DEBUG}, {@code LOG} (info), {@code WARNING}, {@code ERROR}, or the name of
 * the event's marker ({@code FATAL}) when it has one. An event's key-value pairs follow as lines
 * of their own, labelled by their keys ({@code DETAIL}, {@code HINT}, {@code STATEMENT}), and its
 * throwable's stack trace after them: one event, written whole, so the lines of one error are not
 * interleaved with another thread's.
 *
 * <p>{@code logback.xml} puts it in front of standard error; {@code --log-file} and the tests'
 * {@link ServerLog#capture} use it too, so every copy of the log reads the same.
 */
public final class PgLogLayout extends LayoutBase<ILoggingEvent> {
    /** The MDC key holding the process id of the connection a thread serves. */
    static final String PID = "pid";

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS 'UTC'").withZone(ZoneOffset.UTC);

    @Override
    public String doLayout(ILoggingEvent event) {
        String prefix = TIME.format(event.getInstant()) + " [" + process(event) + "] ";
        StringBuilder b = new StringBuilder(160);
        b.append(prefix).append(label(event)).append(":  ").append(event.getFormattedMessage()).append('\n');
        List<KeyValuePair> pairs = event.getKeyValuePairs();
        if (pairs != null) {
            for (KeyValuePair p : pairs) b.append(prefix).append(p.key).append(":  ").append(p.value).append('\n');
        }
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) b.append(ThrowableProxyUtil.asString(thrown)); // its lines end with a line separator each
        return b.toString();
    }

    private static String process(ILoggingEvent event) {
        String pid = event.getMDCPropertyMap().get(PID);
        if (pid != null) return pid;
        String thread = event.getThreadName();
        // a virtual thread has no name unless given one
        return thread == null || thread.isEmpty() ? "-" : thread;
    }

    private static String label(ILoggingEvent event) {
        List<Marker> markers = event.getMarkerList();
        if (markers != null && !markers.isEmpty()) return markers.get(0).getName();
        Level level = event.getLevel();
        if (level.isGreaterOrEqual(Level.ERROR)) return "ERROR";
        if (level.isGreaterOrEqual(Level.WARN)) return "WARNING";
        if (level.isGreaterOrEqual(Level.INFO)) return "LOG";
        return "DEBUG";
    }
}
