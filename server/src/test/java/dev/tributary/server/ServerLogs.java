package dev.tributary.server;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/** For tests in other packages: a server log that fails. */
public final class ServerLogs {
    private ServerLogs() {}

    /**
     * Until the returned handle is closed, every line the server logs throws an
     * {@link OutOfMemoryError} as it is written, as logging with a full heap does.
     */
    public static AutoCloseable failing() {
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        AppenderBase<ILoggingEvent> failing = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent event) {
                throw new OutOfMemoryError("Java heap space (writing the log)");
            }
        };
        failing.setContext(root.getLoggerContext());
        failing.start();
        root.addAppender(failing);
        return () -> {
            root.detachAppender(failing);
            failing.stop();
        };
    }
}
