package dev.tributary.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A {@link Blob} of files under a directory, one per key ({@code /} in a key is a subdirectory).
 *
 * <p>A put writes a temporary file, forces it to disk, renames it over the key's file and
 * forces the directory: after a crash the key's file is the old one or the whole new one. Each
 * file ends in a {@link BlobTrailer} (its length, a CRC-32C of the bytes, a magic number) that a get checks,
 * so a torn or damaged file is a {@link CorruptDataException} naming the key and the file, never
 * wrong bytes. Temporary files ({@code ~} in their names, which keys cannot have) left by a crash
 * are removed when the store is opened.
 */
public final class FileBlob implements Blob {
    private final Path root;
    private final AtomicLong temporaries = new AtomicLong();
    private volatile boolean closed;

    public FileBlob(Path root) {
        this.root = root.toAbsolutePath();
        try {
            createDirectoriesDurably(this.root);
            try (Stream<Path> files = Files.walk(this.root)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    if (p.getFileName().toString().contains("~")) Files.deleteIfExists(p);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            throw new StorageException("cannot open the blob directory " + this.root + ": " + e.getMessage(), e);
        }
    }

    /** The directory the objects are in. */
    public Path root() {
        return root;
    }

    @Override
    public Optional<byte[]> get(String key) {
        checkOpen();
        Path file = file(key);
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StorageException("cannot read blob '" + key + "' (" + file + "): " + e.getMessage(), e);
        }
        return Optional.of(BlobTrailer.open(bytes, "blob '" + key + "' (" + file + ")"));
    }

    /** The file mapped, not read onto the heap: a checkpoint's parts are decoded straight from the page cache. */
    @Override
    public Optional<ByteBuffer> getBuffer(String key) {
        checkOpen();
        Path file = file(key);
        ByteBuffer mapped;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            mapped = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StorageException("cannot read blob '" + key + "' (" + file + "): " + e.getMessage(), e);
        }
        return Optional.of(BlobTrailer.open(mapped, "blob '" + key + "' (" + file + ")"));
    }

    @Override
    public void put(String key, byte[] value) {
        checkOpen();
        Path file = file(key);
        Path dir = file.getParent();
        Path tmp = dir.resolve(file.getFileName() + "~" + temporaries.incrementAndGet());
        try {
            createDirectoriesDurably(dir);
            ByteBuffer trailer = BlobTrailer.of(value);
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer body = ByteBuffer.wrap(value);
                while (body.hasRemaining()) ch.write(body);
                while (trailer.hasRemaining()) ch.write(trailer);
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            forceDirectory(dir);
        } catch (IOException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // removed when the store is next opened
            }
            throw new StorageException("cannot write blob '" + key + "' (" + file + "): " + e.getMessage(), e);
        }
    }

    @Override
    public void delete(String key) {
        checkOpen();
        Path file = file(key);
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new StorageException("cannot delete blob '" + key + "' (" + file + "): " + e.getMessage(), e);
        }
    }

    @Override
    public List<String> list(String prefix) {
        checkOpen();
        List<String> keys = new ArrayList<>();
        try {
            collect(root, "", prefix, keys);
        } catch (IOException e) {
            throw new StorageException("cannot list the blob directory " + root + ": " + e.getMessage(), e);
        }
        keys.sort(null);
        return keys;
    }

    private void collect(Path dir, String path, String prefix, List<String> keys) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                String name = p.getFileName().toString();
                if (name.contains("~")) continue;
                String key = path + name;
                if (Files.isDirectory(p)) {
                    // only directories that can hold keys with the prefix
                    String sub = key + "/";
                    if (sub.startsWith(prefix) || prefix.startsWith(sub)) collect(p, sub, prefix, keys);
                } else if (key.startsWith(prefix)) {
                    keys.add(key);
                }
            }
        } catch (NoSuchFileException e) {
            // removed while listing: nothing under it
        }
    }

    @Override
    public void close() {
        closed = true;
    }

    private Path file(String key) {
        return root.resolve(Blob.checkKey(key));
    }

    private void checkOpen() {
        if (closed) throw new IllegalStateException("the blob store at " + root + " is closed");
    }

    /**
     * Makes {@code dir} and any missing parents, each forced into its parent once made: a file
     * forced into a directory that a crash then forgets is lost with it.
     */
    static void createDirectoriesDurably(Path dir) throws IOException {
        Path missing = dir.toAbsolutePath();
        java.util.ArrayDeque<Path> made = new java.util.ArrayDeque<>();
        while (missing != null && !Files.isDirectory(missing)) {
            made.push(missing);
            missing = missing.getParent();
        }
        if (made.isEmpty()) return;
        Files.createDirectories(dir);
        for (Path p : made) forceDirectory(p.getParent());
    }

    /** Makes a rename or a new file in {@code dir} durable. */
    static void forceDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
