package dev.tributary.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;

/**
 * A Tributary data directory, held by one process at a time: {@code FORMAT} (what wrote it),
 * {@code LOCK} (the holder's pid, under an exclusive lock), {@code blob/} (a {@link FileBlob})
 * and {@code consensus/} (a {@link FileConsensus}).
 *
 * <p>Opening refuses, with an error saying what to do: a directory another process (or another
 * {@code DataDirectory} in this one) holds, naming the holder's pid; a non-empty directory that is
 * not a Tributary data directory (it is never written into); one of another format version.
 * An empty or missing directory becomes a new data directory.
 */
public final class DataDirectory implements AutoCloseable {
    static final String FORMAT_LINE = "tributary-data 1";

    private final Path path;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final FileBlob blob;
    private final FileConsensus consensus;

    private DataDirectory(Path path, FileChannel lockChannel, FileLock lock) {
        this.path = path;
        this.lockChannel = lockChannel;
        this.lock = lock;
        FileBlob b = null;
        try {
            b = new FileBlob(path.resolve("blob"));
            this.consensus = new FileConsensus(path.resolve("consensus"));
        } catch (RuntimeException e) {
            if (b != null) b.close();
            throw e;
        }
        this.blob = b;
    }

    /** Opens (making it if it is missing or empty) the data directory at {@code dir}. */
    public static DataDirectory open(Path dir) {
        return open(dir, true);
    }

    /** Opens the data directory at {@code dir}, which must exist: a tool that only reads never makes one. */
    public static DataDirectory openExisting(Path dir) {
        return open(dir, false);
    }

    private static DataDirectory open(Path dir, boolean make) {
        Path path = dir.toAbsolutePath().normalize();
        if (!make && !Files.exists(path.resolve("FORMAT"))) {
            throw new StorageException("there is no Tributary data directory at " + path + (Files.isDirectory(path) ? " (it has no FORMAT)" : ""));
        }
        if (!Locks.claim(path.resolve("LOCK"))) throw inUse(path, "this process");
        try {
            return openHeld(path);
        } catch (RuntimeException e) {
            Locks.release(path.resolve("LOCK"));
            throw e;
        }
    }

    private static DataDirectory openHeld(Path path) {
        Path format = path.resolve("FORMAT");
        try {
            FileBlob.createDirectoriesDurably(path);
            if (!Files.exists(format)) {
                try (Stream<Path> entries = Files.list(path)) {
                    // LOCK and FORMAT~ are what a first open that crashed leaves
                    if (entries.anyMatch(p -> !p.getFileName().toString().equals("LOCK") && !p.getFileName().toString().equals("FORMAT~"))) {
                        throw new StorageException(path + " is not a Tributary data directory (it has files and no FORMAT); "
                                + "give --data an empty or new directory, or the one Tributary made");
                    }
                }
            }
        } catch (IOException e) {
            throw new StorageException("cannot open the data directory " + path + ": " + e.getMessage(), e);
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(path.resolve("LOCK"), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new StorageException("cannot open the lock of the data directory " + path + ": " + e.getMessage(), e);
        }
        FileLock lock = Locks.tryExclusive(channel);
        if (lock == null) {
            String holder = holder(channel);
            closeQuietly(channel);
            throw inUse(path, holder);
        }
        try {
            if (Files.exists(format)) {
                String line = Files.readString(format, StandardCharsets.UTF_8).strip();
                if (!line.equals(FORMAT_LINE)) {
                    throw new StorageException("the data directory " + path + " is of format '" + line + "'; this Tributary reads '" + FORMAT_LINE + "'");
                }
            } else {
                Path tmp = path.resolve("FORMAT~");
                Files.writeString(tmp, FORMAT_LINE + "\n", StandardCharsets.UTF_8); // replaces one a crash left
                try (FileChannel f = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                    f.force(true);
                }
                Files.move(tmp, format, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                FileBlob.forceDirectory(path);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            channel.force(true);
            return new DataDirectory(path, channel, lock);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            if (e instanceof StorageException s) throw s;
            throw new StorageException("cannot open the data directory " + path + ": " + e.getMessage(), e);
        }
    }

    private static String holder(FileChannel channel) {
        try {
            ByteBuffer b = ByteBuffer.allocate(32);
            channel.read(b, 0);
            String pid = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).strip();
            return pid.isEmpty() ? "another process" : "process " + pid;
        } catch (IOException e) {
            return "another process";
        }
    }

    private static StorageException inUse(Path path, String holder) {
        return new StorageException("the data directory " + path + " is in use by " + holder + "; stop it, or give this one another --data directory");
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // nothing was written through it
        }
    }

    public Path path() {
        return path;
    }

    public Blob blob() {
        return blob;
    }

    public Consensus consensus() {
        return consensus;
    }

    @Override
    public void close() {
        try {
            consensus.close();
            blob.close();
        } finally {
            try {
                if (lock.isValid()) lock.release();
            } catch (IOException ignored) {
                // closing the channel releases it
            }
            closeQuietly(lockChannel);
            Locks.release(path.resolve("LOCK"));
        }
    }
}
