package dev.tributary.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * A {@link Consensus} kept in one append-only log file, forced to disk before a version is
 * acknowledged, with every retained version also in the heap (shard states are small).
 *
 * <p>The log is a header and then records {@code (length, CRC-32C, kind, key, seqNo, data)}: a
 * new version or a truncation. Writers append under a lock and then force the file outside it,
 * so commits that arrive together share one {@code fsync} (group commit). A version counts, for
 * every reader, only once the force that covers it has returned. Opening the log replays it;
 * a record torn by a crash at its end is cut off (it was never acknowledged), while a damaged
 * record with more log after it is a {@link CorruptDataException}: acknowledged versions are
 * never silently dropped. When truncations leave the log mostly dead it is rewritten (a new
 * file forced, then renamed over the old one).
 *
 * <p>An exclusive lock on the file keeps a second process (or a second instance in this one)
 * out. An I/O error while appending or forcing leaves the store failed: what reached the disk
 * is unknown until the log is replayed, so every later call throws until it is reopened.
 */
public final class FileConsensus implements Consensus {
    private static final byte[] HEADER = "TRBCONS1".getBytes(StandardCharsets.US_ASCII);
    private static final byte VERSION = 1;
    private static final byte TRUNCATE = 2;
    private static final int MAX_RECORD = 64 << 20;
    /** The log is rewritten once it is past this size and four times the bytes of what it retains. */
    private static final long REWRITE_MIN = 1 << 20;

    private final Path file;
    private FileChannel channel;
    /** The lock file's channel and its lock: the log itself is replaced when rewritten, the lock file never. */
    private final FileChannel lockChannel;
    private final FileLock fileLock;
    private final Path lockFile;
    /** Guards {@link #logs}, {@link #position}, {@link #liveBytes} and appends. */
    private final Object lock = new Object();
    /**
     * Held by the one thread forcing the log (the leader of a group commit), and while the log is
     * rewritten or closed; taken before {@link #lock}. Threads whose records the force in flight
     * may not cover wait in {@link #waiting} without taking it: were they to queue on a monitor,
     * each would wake only once the one before it had left, and the next group would form
     * from the few that got through (1.5 commits a force with 16 writers, measured).
     */
    private final java.util.concurrent.locks.ReentrantLock forcing = new java.util.concurrent.locks.ReentrantLock();
    private final java.util.concurrent.ConcurrentLinkedQueue<Thread> waiting = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final Map<String, List<Entry>> logs = new HashMap<>();
    /**
     * Where the next record goes, as a logical offset: it only grows, also when the log is
     * rewritten into a smaller file, so that an offset a writer waits for is never passed by
     * one the rewrite made smaller. A record's place in the file is its offset less {@link #shift}.
     */
    private long position;
    /** Logical offset less file offset: 0 until the log is first rewritten. */
    private long shift;
    private long liveBytes;
    /** Every record ending at or before this offset is on disk. */
    private volatile long durable;
    private volatile String failure;
    /** How many times the log was forced: fewer than the versions written when commits share forces. */
    private final java.util.concurrent.atomic.AtomicLong forces = new java.util.concurrent.atomic.AtomicLong();
    private volatile boolean closed;

    /** A retained version and where its record ends in the log. */
    private record Entry(VersionedData version, long end, int recordBytes) {}

    /** Opens (creating if needed) the log {@code consensus.log} in {@code dir}, replaying it. */
    public FileConsensus(Path dir) {
        this(dir, () -> { });
    }

    /** Runs before each force of the log, in the forcing thread: a test's way to make a group form. */
    private final Runnable beforeForce;

    /** {@link #FileConsensus(Path)} with {@code beforeForce} run before each force (for tests). */
    FileConsensus(Path dir, Runnable beforeForce) {
        this.beforeForce = beforeForce;
        this.file = dir.toAbsolutePath().resolve("consensus.log");
        this.lockFile = file.resolveSibling("consensus.lock").normalize();
        if (!Locks.claim(lockFile)) throw inUse();
        try {
            FileBlob.createDirectoriesDurably(file.getParent());
            lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException e) {
            Locks.release(lockFile);
            throw new StorageException("cannot open the consensus log " + file + ": " + e.getMessage(), e);
        }
        FileLock l = Locks.tryExclusive(lockChannel);
        fileLock = l;
        if (l == null) {
            closeQuietly();
            throw inUse();
        }
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            closeQuietly();
            throw new StorageException("cannot open the consensus log " + file + ": " + e.getMessage(), e);
        }
        try {
            replay();
        } catch (IOException e) {
            closeQuietly();
            throw new StorageException("cannot read the consensus log " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly();
            throw e;
        }
    }

    private StorageException inUse() {
        return new StorageException("the consensus log " + file + " is in use by another process (or another store in this one); "
                + "stop it or use another data directory");
    }

    private void replay() throws IOException {
        long size = channel.size();
        if (size == 0) {
            channel.write(ByteBuffer.wrap(HEADER), 0);
            channel.force(true);
            FileBlob.forceDirectory(file.getParent());
            position = HEADER.length;
            durable = position;
            return;
        }
        ByteBuffer header = readAt(0, HEADER.length, size);
        if (header == null || !java.util.Arrays.equals(header.array(), HEADER)) {
            throw new CorruptDataException("the consensus log " + file + " does not start with Tributary's header; it is not a consensus log or is damaged");
        }
        // record by record, so that a log of any size replays in little memory
        long at = HEADER.length;
        while (at < size) {
            ByteBuffer body = record(at, size);
            if (body == null) {
                // A record a crash left unfinished was never acknowledged, and nothing was
                // written after it: cut it off. A whole record further on means the damage is in
                // acknowledged history instead, and nothing may be dropped silently.
                long next = nextWholeRecord(at + 1, size);
                if (next >= 0) {
                    throw new CorruptDataException("the consensus log " + file + " is damaged at byte " + at + ", with whole records after it (the next at byte "
                            + next + "); restore it from a backup");
                }
                channel.truncate(at);
                channel.force(true);
                break;
            }
            int length = body.remaining();
            byte kind = body.get();
            int keyLength = body.getShort() & 0xFFFF;
            if (keyLength > length - 11) throw new CorruptDataException("the consensus log " + file + " has a record at byte " + at + " whose key runs past it");
            byte[] keyBytes = new byte[keyLength];
            body.get(keyBytes);
            long seqNo = body.getLong();
            byte[] data = new byte[body.remaining()];
            body.get(data);
            at += 8 + length;
            apply(kind, new String(keyBytes, StandardCharsets.UTF_8), seqNo, data, at, 8 + length);
        }
        position = at;
        durable = at;
    }

    /** The body of the whole record at {@code at} (length and checksum right), or null. */
    private ByteBuffer record(long at, long size) throws IOException {
        ByteBuffer head = readAt(at, 8, size);
        if (head == null) return null;
        int length = head.getInt();
        int crc = head.getInt();
        if (length < 11 || length > MAX_RECORD || at + 8 + length > size) return null;
        ByteBuffer body = readAt(at + 8, length, size);
        CRC32C c = new CRC32C();
        c.update(body.array(), 0, length);
        return (int) c.getValue() == crc ? body : null;
    }

    /** Where the first whole record at or after {@code from} starts, or -1 (a scan made only when the log is damaged). */
    private long nextWholeRecord(long from, long size) throws IOException {
        for (long p = from; p + 8 + 11 <= size; p++) if (record(p, size) != null) return p;
        return -1;
    }

    /** {@code n} bytes of the log from {@code at}, or null if it ends before them. */
    private ByteBuffer readAt(long at, int n, long size) throws IOException {
        if (at + n > size) return null;
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (channel.read(b, at + b.position()) < 0) return null;
        }
        return b.flip();
    }

    private void apply(byte kind, String key, long seqNo, byte[] data, long end, int recordBytes) {
        List<Entry> log = logs.computeIfAbsent(key, k -> new ArrayList<>());
        if (kind == VERSION) {
            long head = log.isEmpty() ? NO_VERSION : log.get(log.size() - 1).version.seqNo();
            if (seqNo != head + 1 && !(log.isEmpty() && seqNo > head)) {
                throw new CorruptDataException("the consensus log " + file + " has version " + seqNo + " of '" + key + "' after version " + head);
            }
            log.add(new Entry(new VersionedData(seqNo, data), end, recordBytes));
            liveBytes += recordBytes;
        } else if (kind == TRUNCATE) {
            forget(log, seqNo);
        } else {
            throw new CorruptDataException("the consensus log " + file + " has a record of unknown kind " + kind + " for '" + key + "'");
        }
    }

    private int forget(List<Entry> log, long below) {
        int n = 0;
        while (n < log.size() - 1 && log.get(n).version.seqNo() < below) n++;
        for (int i = 0; i < n; i++) liveBytes -= log.get(i).recordBytes;
        log.subList(0, n).clear();
        return n;
    }

    /** How many records have been appended since the log was opened (for tests). */
    long appended() {
        return appendedRecords.get();
    }

    private final java.util.concurrent.atomic.AtomicLong appendedRecords = new java.util.concurrent.atomic.AtomicLong();

    /** How many times the log has been forced since it was opened (group commit shares them). */
    public long forces() {
        return forces.get();
    }

    @Override
    public Optional<VersionedData> head(String key) {
        Consensus.checkKey(key);
        synchronized (lock) {
            checkUsable();
            List<Entry> log = logs.get(key);
            if (log == null) return Optional.empty();
            for (int i = log.size() - 1; i >= 0; i--) if (log.get(i).end <= durable) return Optional.of(log.get(i).version);
            return Optional.empty();
        }
    }

    @Override
    public CasResult compareAndSet(String key, long expected, byte[] data) {
        Consensus.checkKey(key);
        if (expected < NO_VERSION) throw new IllegalArgumentException("expected sequence number " + expected + " of '" + key + "' is not a version");
        Entry written;
        Entry found;
        synchronized (lock) {
            checkUsable();
            List<Entry> log = logs.computeIfAbsent(key, k -> new ArrayList<>());
            found = log.isEmpty() ? null : log.get(log.size() - 1);
            long current = found == null ? NO_VERSION : found.version.seqNo();
            if (current != expected) {
                written = null;
            } else {
                long seqNo = expected + 1;
                byte[] copy = data.clone();
                int recordBytes = append(VERSION, key, seqNo, copy);
                written = new Entry(new VersionedData(seqNo, copy), position, recordBytes);
                log.add(written);
                liveBytes += recordBytes;
            }
        }
        if (written == null) {
            // the version found may still be on its way to disk: report it once it is there
            if (found != null) syncTo(found.end);
            return new CasResult.Mismatch(Optional.ofNullable(found).map(Entry::version));
        }
        syncTo(written.end);
        return new CasResult.Committed(written.version.seqNo());
    }

    @Override
    public List<VersionedData> scan(String key, long from, int limit) {
        Consensus.checkKey(key);
        if (limit < 0) throw new IllegalArgumentException("a scan's limit is not negative: " + limit);
        synchronized (lock) {
            checkUsable();
            List<VersionedData> out = new ArrayList<>();
            for (Entry e : logs.getOrDefault(key, List.of())) {
                if (out.size() >= limit || e.end > durable) break;
                if (e.version.seqNo() >= from) out.add(e.version);
            }
            return out;
        }
    }

    @Override
    public List<String> keys(String prefix) {
        synchronized (lock) {
            checkUsable();
            List<String> out = new ArrayList<>();
            for (Map.Entry<String, List<Entry>> e : logs.entrySet()) {
                if (e.getKey().startsWith(prefix) && !e.getValue().isEmpty() && e.getValue().get(0).end <= durable) out.add(e.getKey());
            }
            out.sort(null);
            return out;
        }
    }

    @Override
    public int truncate(String key, long seqNo) {
        Consensus.checkKey(key);
        long end;
        int forgotten;
        synchronized (lock) {
            checkUsable();
            List<Entry> log = logs.get(key);
            long head = NO_VERSION;
            if (log != null) for (int i = log.size() - 1; i >= 0 && head == NO_VERSION; i--) if (log.get(i).end <= durable) head = log.get(i).version.seqNo();
            if (seqNo > head) throw new IllegalArgumentException("cannot truncate '" + key + "' below " + seqNo + ": its latest version is " + head);
            if (log == null) return 0;
            append(TRUNCATE, key, seqNo, new byte[0]);
            end = position;
            forgotten = forget(log, seqNo);
        }
        syncTo(end);
        if (worthRewriting()) rewrite();
        return forgotten;
    }

    /** Appends a record at the end of the log (not yet forced); returns its size. Under {@link #lock}. */
    private int append(byte kind, String key, long seqNo, byte[] data) {
        ByteBuffer record = encode(kind, key, seqNo, data);
        int bytes = record.remaining();
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                FileChannel ch = channel;
                record.position(0);
                try {
                    long at = position - shift;
                    while (record.hasRemaining()) at += ch.write(record, at);
                    position = at + shift;
                    appendedRecords.incrementAndGet();
                    return bytes;
                } catch (java.nio.channels.ClosedByInterruptException e) {
                    reopenAfterInterrupt(ch);
                    interrupted = true;
                    throw new StorageException("interrupted while appending to the consensus log " + file + "; nothing was written");
                } catch (java.nio.channels.AsynchronousCloseException e) {
                    reopenAfterInterrupt(ch); // another thread's interrupt closed it: write again
                } catch (IOException e) {
                    throw fail("cannot append to the consensus log " + file + ": " + e.getMessage(), e);
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    /**
     * Replaces the log's channel after an interrupt closed it ({@code FileChannel}s close when a
     * thread using them is interrupted): the file is reopened and anything past the last whole
     * record (a write the interrupt cut short) is cut off. Nothing acknowledged is lost: records
     * written but not yet forced are forced by the next force, through any descriptor.
     */
    private void reopenAfterInterrupt(FileChannel closed) {
        synchronized (lock) {
            if (channel != closed || closed.isOpen() || this.closed) return;
            try {
                FileChannel reopened = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                reopened.truncate(position - shift);
                channel = reopened;
            } catch (IOException e) {
                throw fail("cannot reopen the consensus log " + file + " after an interrupt closed it: " + e.getMessage(), e);
            }
        }
    }

    /** A log record: {@code (length, CRC-32C, kind, key, seqNo, data)}, the checksum over what follows it. */
    private static ByteBuffer encode(byte kind, String key, long seqNo, byte[] data) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        int length = 11 + keyBytes.length + data.length;
        if (keyBytes.length > 0xFFFF || length > MAX_RECORD) {
            throw new IllegalArgumentException("a consensus value is at most " + MAX_RECORD + " bytes with its key; '" + key + "' would take " + length);
        }
        ByteBuffer record = ByteBuffer.allocate(8 + length);
        record.position(8);
        record.put(kind).putShort((short) keyBytes.length).put(keyBytes).putLong(seqNo).put(data);
        CRC32C c = new CRC32C();
        c.update(record.array(), 8, length);
        record.putInt(0, length).putInt(4, (int) c.getValue());
        record.position(0);
        return record;
    }

    /**
     * Returns once every record ending at or before {@code end} is on disk. The first writer to
     * find no force under way forces the log for everything appended so far; the others wait for
     * it and go (or lead the next force if theirs came too late for this one).
     */
    private void syncTo(long end) {
        while (durable < end) {
            if (forcing.tryLock()) {
                try {
                    if (durable < end) {
                        beforeForce.run();
                        long target;
                        FileChannel ch;
                        synchronized (lock) {
                            checkUsable();
                            target = position;
                            ch = channel;
                        }
                        // an interrupt already pending would close the channel: kept for after the force
                        boolean interrupted = Thread.interrupted();
                        try {
                            ch.force(false);
                            forces.incrementAndGet();
                            durable = target;
                        } catch (java.nio.channels.ClosedByInterruptException e) {
                            reopenAfterInterrupt(ch);
                            interrupted = true;
                            throw new StorageException("interrupted while forcing the consensus log " + file + " to disk; the commit may or may not be durable");
                        } catch (java.nio.channels.ClosedChannelException e) {
                            // closed by another thread's interrupt (and reopened), or by close(): try again, or fail below
                            reopenAfterInterrupt(ch);
                        } catch (IOException e) {
                            throw fail("cannot force the consensus log " + file + " to disk: " + e.getMessage(), e);
                        } finally {
                            if (interrupted) Thread.currentThread().interrupt();
                        }
                    }
                } finally {
                    forcing.unlock();
                    for (Thread t : waiting) java.util.concurrent.locks.LockSupport.unpark(t);
                }
            } else {
                Thread me = Thread.currentThread();
                waiting.add(me);
                // checked after joining the waiters: a leader that finishes from here on unparks this thread
                if (forcing.isLocked() && durable < end) java.util.concurrent.locks.LockSupport.parkNanos(this, 1_000_000);
                waiting.remove(me);
                synchronized (lock) {
                    checkUsable();
                }
            }
        }
    }

    /** Writes the retained versions to a new log and renames it over the old one. */
    private void rewrite() {
        forcing.lock();
        try {
            synchronized (lock) {
                if (failure != null || closed || !worthRewriting() || durable < position) return;
                // the new file's offsets, made logical: they go on from the old log's end
                long newShift = position - HEADER.length;
                Path next = file.resolveSibling(file.getFileName() + "~rewrite");
                Map<String, List<Entry>> rewritten = new HashMap<>();
                long at = HEADER.length;
                long live = 0;
                try (FileChannel out = FileChannel.open(next, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                    out.write(ByteBuffer.wrap(HEADER), 0);
                    for (Map.Entry<String, List<Entry>> e : logs.entrySet()) {
                        List<Entry> entries = new ArrayList<>();
                        for (Entry old : e.getValue()) {
                            VersionedData v = old.version;
                            ByteBuffer record = encode(VERSION, e.getKey(), v.seqNo(), v.data());
                            int bytes = record.remaining();
                            while (record.hasRemaining()) at += out.write(record, at);
                            entries.add(new Entry(v, at + newShift, bytes));
                            live += bytes;
                        }
                        if (!entries.isEmpty()) rewritten.put(e.getKey(), entries);
                    }
                    out.force(true);
                    Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    FileBlob.forceDirectory(file.getParent());
                } catch (IOException e) {
                    // the old log is intact unless the rename happened, and then the new one is whole
                    throw fail("cannot rewrite the consensus log " + file + ": " + e.getMessage(), e);
                }
                try {
                    FileChannel reopened = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    channel.close();
                    channel = reopened;
                } catch (IOException e) {
                    throw fail("cannot reopen the consensus log " + file + " after rewriting it: " + e.getMessage(), e);
                }
                logs.clear();
                logs.putAll(rewritten);
                shift = newShift;
                position = at + newShift;
                liveBytes = live;
                durable = position;
            }
        } finally {
            forcing.unlock();
        }
    }

    /** Whether the log is past {@link #REWRITE_MIN} and four times the bytes of what it retains. Under {@link #lock}. */
    private boolean worthRewriting() {
        long size = position - shift;
        return size > REWRITE_MIN && size > 4 * liveBytes;
    }

    private StorageException fail(String message, Exception cause) {
        failure = message;
        return new StorageException(message + "; the store accepts nothing more until it is reopened", cause);
    }

    private void checkUsable() {
        if (closed) throw new IllegalStateException("the consensus log " + file + " is closed");
        if (failure != null) throw new StorageException("the consensus log failed earlier (" + failure + "); reopen it to recover what reached the disk");
    }

    @Override
    public void close() {
        forcing.lock();
        try {
            synchronized (lock) {
                if (closed) return;
                closed = true;
                closeQuietly();
            }
        } finally {
            forcing.unlock();
        }
    }

    private void closeQuietly() {
        try {
            if (fileLock != null && fileLock.isValid()) fileLock.release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        }
        try {
            if (channel != null) channel.close();
            lockChannel.close();
        } catch (IOException ignored) {
            // nothing more to write through them
        }
        Locks.release(lockFile);
    }
}
