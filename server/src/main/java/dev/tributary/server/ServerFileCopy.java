package dev.tributary.server;

import dev.tributary.server.auth.Roles;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * COPY to or from a file on the server's machine, PostgreSQL's server-side COPY. The server
 * process reads or writes the file, so only superusers may, as in PostgreSQL 15 (which also
 * admits members of {@code pg_read_server_files} and {@code pg_write_server_files}, roles
 * Tributary does not have). A file is read in chunks through the parser of a client's
 * {@code COPY FROM STDIN}, with its errors, constraints and all-or-nothing commit, outside the
 * coordinator, which is held only to check the table and to commit: a large file does not stall
 * other sessions. A relative path is read from the server's working directory (PostgreSQL reads
 * it from its data directory); COPY TO a file takes an absolute path only, as PostgreSQL does.
 */
final class ServerFileCopy {
    private static final int CHUNK = 1 << 16;

    private ServerFileCopy() {}

    /** Runs {@code c}, a COPY of a file, for {@code session} (inside the coordinator's guard for a statement, not its lock). */
    static Result run(Coordinator coordinator, Session session, Statement.Copy c, Roles roles) {
        long timeout = session.statementTimeoutNanos();
        long deadline = timeout == 0 ? 0 : System.nanoTime() + timeout;
        String user = session.currentUser();
        if (!roles.isSuperuser(user)) {
            String role = c.from() ? "pg_read_server_files" : "pg_write_server_files";
            throw new SqlException("42501", "must be superuser or have privileges of the " + role + " role to COPY " + (c.from() ? "from" : "to") + " a file", 0,
                    "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.");
        }
        return c.from() ? read(coordinator, session, c, deadline) : write(coordinator, session, c);
    }

    private static Result read(Coordinator coordinator, Session session, Statement.Copy c, long deadline) {
        Path path = Path.of(c.file());
        // the table and columns first, as PostgreSQL checks them before it opens the file
        CopyIn copy = coordinator.copyIn(session, c);
        if (Files.isDirectory(path)) {
            copy.fail("a directory");
            throw new SqlException("42809", "\"" + c.file() + "\" is a directory");
        }
        InputStream in;
        try {
            in = Files.newInputStream(path);
        } catch (IOException e) {
            copy.fail("unreadable");
            throw new SqlException(state(e), "could not open file \"" + c.file() + "\" for reading: " + reason(e), 0,
                    "COPY FROM instructs the Tributary server process to read a file. You may want a client-side facility such as psql's \\copy.");
        }
        try (in) {
            while (true) {
                byte[] chunk = new byte[CHUNK];
                int n = in.readNBytes(chunk, 0, CHUNK);
                if (n == 0) break;
                SqlException stop = session.cancelRequested ? Session.canceled()
                        : deadline != 0 && System.nanoTime() - deadline >= 0 ? Session.timedOut() : null;
                if (stop != null) {
                    copy.fail("stopped");
                    session.consumeCancel();
                    throw stop;
                }
                // a chunk is handed over, not reused: the parser may keep a line's bytes
                copy.data(n == CHUNK ? chunk : Arrays.copyOf(chunk, n));
                if (n < CHUNK) break;
            }
        } catch (IOException e) {
            copy.fail("unreadable");
            throw new SqlException("58030", "could not read from COPY file: " + reason(e));
        }
        return copy.finish();
    }

    private static Result write(Coordinator coordinator, Session session, Statement.Copy c) {
        Path path = Path.of(c.file());
        if (!path.isAbsolute()) throw new SqlException("42602", "relative path not allowed for COPY to file");
        if (Files.isDirectory(path)) throw new SqlException("42809", "\"" + c.file() + "\" is a directory");
        Result rows = coordinator.copyRows(session, c);
        CopyText.Writer w = new CopyText.Writer(c.options());
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(path, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), CHUNK)) {
            if (c.options().header() != Statement.CopyHeader.NONE) out.write(w.line(rows.columns()).getBytes(StandardCharsets.UTF_8));
            for (var row : rows.text()) out.write(w.line(row).getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new SqlException(state(e), "could not open file \"" + c.file() + "\" for writing: " + reason(e));
        } catch (UncheckedIOException e) {
            throw new SqlException("58030", "could not write to COPY file: " + reason(e.getCause()));
        }
        return new Result(rows.tag(), java.util.List.of(), java.util.List.of(), java.util.List.of());
    }

    /** 58P01 (undefined_file) for a file or directory that does not exist, as PostgreSQL reports ENOENT. */
    static String state(IOException e) {
        return e instanceof NoSuchFileException ? "58P01" : "58030";
    }

    /** The operating system's words for {@code e}, as PostgreSQL's %m gives them. */
    static String reason(IOException e) {
        if (e instanceof NoSuchFileException) return "No such file or directory";
        if (e instanceof AccessDeniedException) return "Permission denied";
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) return f.getReason();
        return e.getMessage();
    }
}
