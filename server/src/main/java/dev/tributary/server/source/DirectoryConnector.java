package dev.tributary.server.source;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Follows a directory of files (CSV, JSON lines, text lines): every regular file whose name does
 * not start with {@code .} or {@code _} (where writers keep files they have not finished, then
 * move them in, as Spark's file sources expect), in name order, record by record.
 *
 * <p>A file's position is the number of its bytes read, always at the end of a record, so a
 * file that grows is followed as it grows, and a restart resumes inside a file where the last
 * commit left it. A record ends at its newline; the last record of a file without one is taken
 * once the file has not grown for a whole poll. A file shorter than its position (replaced or
 * truncated) is reported once as a decode error and not read again.
 *
 * <p>Options: {@code PATH} (required), {@code POLL INTERVAL} (ms between looks, 200 by default).
 */
public final class DirectoryConnector implements Connector {
    /** The options this connector takes. */
    public static final List<String> OPTIONS = List.of("PATH", "POLL INTERVAL");
    /** Rows or bytes after which a file's records so far are committed. */
    private static final int BATCH_ROWS = 1 << 16;
    private static final int BATCH_BYTES = 16 << 20;
    private static final int READ = 1 << 20;

    /** Files with an unterminated last record, by name: their size when last seen. */
    private final Map<String, Long> unterminated = new HashMap<>();
    /** Files reported as shorter than their position, so that each is reported once. */
    private final Map<String, Long> shrunk = new HashMap<>();

    @Override
    public void run(SourceContext ctx) throws IOException {
        Path dir = Path.of(ctx.options().get("PATH"));
        long poll = Long.parseLong(ctx.options().getOrDefault("POLL INTERVAL", "200"));
        while (!ctx.stopping()) {
            List<Path> files = list(dir);
            if (files == null) {
                ctx.state("waiting: directory " + dir + " does not exist");
                ctx.pause(poll);
                continue;
            }
            boolean read = false;
            for (Path f : files) {
                if (ctx.stopping()) return;
                read |= follow(ctx, f, poll);
            }
            if (!read) {
                ctx.state("waiting for files");
                ctx.pause(poll);
            } else {
                ctx.state("running");
            }
        }
    }

    /** The files to read, in name order; null when the directory is not there. */
    private static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                if (name.startsWith(".") || name.startsWith("_") || !Files.isRegularFile(p)) continue;
                out.add(p);
            }
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            return null;
        }
        out.sort(null);
        return out;
    }

    /** Reads what {@code f} holds past its position, committing as it goes; whether anything was read. */
    private boolean follow(SourceContext ctx, Path f, long poll) throws IOException {
        String part = f.getFileName().toString();
        String at = ctx.positions().get(part);
        long done = at == null ? 0 : Long.parseLong(at);
        long size;
        try {
            size = Files.size(f);
        } catch (NoSuchFileException e) {
            return false; // moved away meanwhile
        }
        if (size < done) {
            if (shrunk.put(part, size) == null) {
                ctx.decodeError(part, "file \"" + part + "\" is now " + size + " bytes, shorter than the " + done + " bytes already read: it is not read again");
            }
            return false;
        }
        if (size == done) return false;
        Decoder decoder = ctx.decoder();
        SourceBatch batch = new SourceBatch(decoder);
        long batchBytes = 0;
        boolean any = false;
        try (FileChannel in = FileChannel.open(f, StandardOpenOption.READ)) {
            in.position(done);
            byte[] buf = new byte[READ];
            int length = 0;
            long offset = done; // the file offset of buf[0]
            boolean eof = false;
            while (!eof && !ctx.stopping()) {
                if (length == buf.length) buf = java.util.Arrays.copyOf(buf, buf.length * 2);
                int n = in.read(ByteBuffer.wrap(buf, length, buf.length - length));
                if (n < 0) {
                    eof = true;
                } else {
                    length += n;
                }
                int from = 0;
                while (true) {
                    int end = decoder.recordEnd(buf, from, length);
                    int next;
                    if (end < 0) {
                        // the file's last record without a newline: taken once the file stopped growing
                        if (!eof || from == length) break;
                        long total = offset + length;
                        Long seen = unterminated.put(part, total);
                        if (seen == null || seen != total) break;
                        unterminated.remove(part);
                        end = length;
                        next = length;
                    } else {
                        next = end + 1;
                    }
                    long recordAt = offset + from;
                    int to = end > from && buf[end - 1] == '\r' ? end - 1 : end;
                    if (!(recordAt == 0 && decoder.header())) {
                        try {
                            batch.decode(buf, from, to - from);
                        } catch (DecodeException e) {
                            ctx.decodeError(part + " at byte " + recordAt, e.getMessage());
                        }
                    }
                    batchBytes += next - from;
                    from = next;
                    done = offset + from;
                    any = true;
                    if (batch.size() >= BATCH_ROWS || batchBytes >= BATCH_BYTES) {
                        batch.commit(ctx, Map.of(part, Long.toString(done)), true);
                        batchBytes = 0;
                    }
                }
                System.arraycopy(buf, from, buf, 0, length - from);
                length -= from;
                offset += from;
            }
        }
        if (any && (batchBytes > 0 || batch.size() > 0)) batch.commit(ctx, Map.of(part, Long.toString(done)), true);
        return any;
    }
}
