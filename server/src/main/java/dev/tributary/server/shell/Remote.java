package dev.tributary.server.shell;

import dev.tributary.server.pgwire.PgClient;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.types.SqlType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * A running server as the shell's database, through {@link PgClient}. A lost connection is an
 * 08006 error. A subscription runs as {@code COPY (sql) TO STDOUT} on the connection and is
 * stopped with a CancelRequest; its rows come without column names, as COPY sends none.
 */
final class Remote implements Database {
    private final PgClient client;
    private final String address;

    Remote(PgClient client, String address) {
        this.client = client;
        this.address = address;
    }

    @Override
    public void execute(String sql, Consumer<Answer> each) {
        execute(sql, each, null);
    }

    @Override
    public void execute(String sql, Consumer<Answer> each, Consumer<dev.tributary.server.Notice> notices) {
        ByteArrayOutputStream copied = new ByteArrayOutputStream();
        try {
            client.query(sql, new PgClient.Listener() {
                @Override
                public void reply(PgClient.Reply reply) {
                    each.accept(Answer.of(reply, copied.toString(StandardCharsets.UTF_8)));
                    copied.reset();
                }

                @Override
                public void copyData(byte[] data) {
                    copied.writeBytes(data);
                }

                @Override
                public boolean notice(dev.tributary.server.Notice n) {
                    if (notices == null) return false;
                    notices.accept(n);
                    return true;
                }
            });
        } catch (IOException e) {
            throw lost(e);
        }
    }

    @Override
    public void cancel() {
        try {
            client.cancel();
        } catch (IOException e) {
            // the statement runs on; the user can try again or close the connection
            throw lost(e);
        }
    }

    private static SqlException lost(IOException e) {
        return new SqlException("08006", "the connection to the server was lost: " + e.getMessage());
    }

    @Override
    public AutoCloseable subscribe(String sql, Consumer<Answer> onBatch, Consumer<SqlException> onEnd) {
        String query = sql.strip();
        while (query.endsWith(";")) query = query.substring(0, query.length() - 1).strip();
        String copy = "COPY (" + query + ") TO STDOUT";
        boolean[] stopping = {false};
        Thread reader = Thread.ofVirtual().name("tributary-sql-subscribe").start(() -> {
            try {
                client.query(copy, new PgClient.Listener() {
                    @Override
                    public void reply(PgClient.Reply reply) {}

                    @Override
                    public void copyData(byte[] data) {
                        List<String> cells = copyRow(data);
                        onBatch.accept(new Answer("", List.of(), Collections.nCopies(cells.size(), SqlType.TEXT), List.of(cells), List.of(), ""));
                    }
                });
                onEnd.accept(null);
            } catch (SqlException e) {
                synchronized (stopping) {
                    onEnd.accept(stopping[0] && e.sqlState().equals("57014") ? null : e);
                }
            } catch (IOException | UncheckedIOException e) {
                onEnd.accept(lost(e instanceof UncheckedIOException u ? u.getCause() : (IOException) e));
            }
        });
        return () -> {
            synchronized (stopping) {
                stopping[0] = true;
            }
            client.cancel();
            // a server that ignores the cancel gets its connection closed instead
            if (!reader.join(java.time.Duration.ofSeconds(10))) client.close();
            reader.join();
        };
    }

    /** One row of COPY's text format: tab-separated, {@code \N} for NULL, backslash escapes. */
    static List<String> copyRow(byte[] data) {
        int end = data.length;
        if (end > 0 && data[end - 1] == '\n') end--;
        List<String> cells = new ArrayList<>();
        ByteArrayOutputStream cell = new ByteArrayOutputStream();
        boolean isNull = false;
        for (int i = 0; i <= end; i++) {
            if (i == end || data[i] == '\t') {
                cells.add(isNull ? null : cell.toString(StandardCharsets.UTF_8));
                cell.reset();
                isNull = false;
                continue;
            }
            byte c = data[i];
            if (c != '\\' || i + 1 >= end) {
                cell.write(c);
                continue;
            }
            byte e = data[++i];
            switch (e) {
                case 'N' -> isNull = true;
                case 'b' -> cell.write('\b');
                case 'f' -> cell.write('\f');
                case 'n' -> cell.write('\n');
                case 'r' -> cell.write('\r');
                case 't' -> cell.write('\t');
                case 'v' -> cell.write(0x0b);
                case 'x' -> {
                    int v = 0;
                    int k = 0;
                    while (k < 2 && i + 1 < end && Character.digit(data[i + 1], 16) >= 0) {
                        v = v * 16 + Character.digit(data[++i], 16);
                        k++;
                    }
                    if (k == 0) cell.write('x');
                    else cell.write(v);
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int v = e - '0';
                        for (int k = 0; k < 2 && i + 1 < end && data[i + 1] >= '0' && data[i + 1] <= '7'; k++) v = v * 8 + (data[++i] - '0');
                        cell.write(v);
                    } else {
                        cell.write(e);
                    }
                }
            }
        }
        return cells;
    }

    @Override
    public String description() {
        return "server " + address + (client.encrypted() ? ", TLS" : "");
    }

    @Override
    public void close() {
        client.close();
    }
}
