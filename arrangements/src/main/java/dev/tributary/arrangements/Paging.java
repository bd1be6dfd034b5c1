package dev.tributary.arrangements;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Cleaner;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Lets arrangements hold more than the heap: large batches are built as key-range {@link Part}s,
 * each written once to a file in a spill directory and mapped, and only the parts read lately are
 * kept decoded on the heap, up to a budget of bytes (the least recently used go first).
 *
 * <p>Model: the operating system's page cache is the second level of memory, as it is for a
 * database's buffer pool over its files. A part that paging lets go of costs nothing on the heap
 * (its mapping is address space, not heap), and reading it again decodes it from the page cache
 * (or the disk) in a few bulk copies. Granularity is a part, not a page: a cursor reads a part's
 * keys in order, and a seek lands in one part found by its last key.
 *
 * <p>Off until {@link #enable} (a server with a data directory turns it on): then no batch is
 * parted and nothing here runs. Process-wide, like the heap it protects. Spill files belong to
 * this process: each is unmapped and deleted when nothing refers to its part any more (the
 * resident list holds its parts weakly, so that it keeps no dead part alive), or at once when
 * its only owner {@linkplain #discard discards} it; the directory is emptied when paging is
 * enabled.
 */
public final class Paging {
    private Paging() {}

    /** The settings while paging is on; null while it is off. */
    private static volatile Settings settings;
    private static final Cleaner CLEANER = Cleaner.create();
    private static final Object LOCK = new Object();
    /**
     * The resident parts, in no order (eviction scans for the least recently used: there are few),
     * held weakly: a part that nothing else refers to is dead, and its decoded batch and file go
     * with it (held strongly, the list kept up to a budget of dead parts and their files alive:
     * 900 MB of the 1.2 GB of spill after a 3M-row COPY).
     */
    private static final List<Resident> resident = new ArrayList<>();
    private static final ReferenceQueue<Part> gone = new ReferenceQueue<>();
    private static long residentBytes;
    private static long clock;
    private static long fileSeq;
    private static long loads;
    private static long evictions;
    private static long spilledBytes;
    private static long discarded;

    private record Settings(Path dir, long residentBudget, long partBytes) {}

    /** A resident part, weakly, with the bytes it was counted for. */
    static final class Resident extends WeakReference<Part> {
        final long bytes;

        Resident(Part p, long bytes) {
            super(p, gone);
            this.bytes = bytes;
        }
    }

    /**
     * Turns paging on: parts are written under {@code dir} (created, and emptied of earlier
     * parts), each about {@code partBytes} encoded, and at most {@code residentBudget} bytes of
     * decoded parts stay on the heap (at least one part: the one being read).
     *
     * @throws IllegalArgumentException if a size is not positive
     * @throws UncheckedIOException if the directory cannot be made or emptied
     */
    public static void enable(Path dir, long residentBudget, long partBytes) {
        if (residentBudget <= 0 || partBytes <= 0) {
            throw new IllegalArgumentException("paging needs a positive budget and part size, not " + residentBudget + " and " + partBytes);
        }
        try {
            Files.createDirectories(dir);
            try (var files = Files.list(dir)) {
                for (Path p : (Iterable<Path>) files::iterator) if (p.getFileName().toString().endsWith(".part")) Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot use " + dir + " for paged batches: " + e.getMessage(), e);
        }
        settings = new Settings(dir, residentBudget, partBytes);
    }

    /**
     * Turns paging off: batches built from now on are not parted, and no part stays resident
     * (parted batches still held stay readable: each read decodes its part from its mapping).
     */
    public static void disable() {
        settings = null;
        evictAll();
    }

    /**
     * {@link #disable()}, if paging is on under {@code dir} (a database closing turns off only its
     * own paging), and deletes the spill files there: a mapping outlives its file, so parted
     * batches still held stay readable, and nothing is left on disk for a next process that may
     * not empty the directory (a temporary one named by process).
     */
    public static void disable(Path dir) {
        Settings s = settings;
        if (s == null || !s.dir.equals(dir)) return;
        disable();
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) if (p.getFileName().toString().endsWith(".part")) Files.deleteIfExists(p);
        } catch (IOException e) {
            // left for the next start under this directory, which empties it
        }
    }

    /** Whether batches are parted. */
    public static boolean enabled() {
        return settings != null;
    }

    /** The bytes of decoded parts kept on the heap at most (0 while paging is off). */
    public static long residentBudget() {
        Settings s = settings;
        return s == null ? 0 : s.residentBudget;
    }

    /** The encoded size a part is built up to (0 while paging is off). */
    public static long partBytes() {
        Settings s = settings;
        return s == null ? 0 : s.partBytes;
    }

    /**
     * Whether a batch expected to encode to about {@code bytes} is built in parts: paging is on
     * and it would make at least a few parts (a smaller one is read whole as often as not).
     */
    static boolean parts(long bytes) {
        Settings s = settings;
        return s != null && bytes >= 4 * s.partBytes;
    }

    /**
     * {@code batch} itself, or where paging is on and it is large enough to be {@linkplain #parts
     * parted}, the same updates in parts of about {@link #partBytes} (cut at key boundaries),
     * written to their files and left to paging: a batch sealed from a large load need not stay
     * on the heap until a merge rewrites it.
     */
    static Batch partitioned(Batch batch) {
        if (batch.parts != null || !parts(batch.encodedBytes()) || !BatchCodec.encodable(batch.keys, batch.vals)) return batch;
        long perPart = Math.max(1, (long) ((double) batch.updates * partBytes() / batch.encodedBytes()));
        List<Part> parts = new ArrayList<>();
        Column bounds = batch.keys.emptyLike(16);
        int nk = batch.keys.size();
        for (int from = 0; from < nk; ) {
            // the keys whose updates make about a part's share
            int firstUpdate = batch.updateOf(batch.valOf(from));
            int to = from + 1;
            while (to < nk && batch.updateOf(batch.valOf(to)) - firstUpdate < perPart) to++;
            Batch slice = batch.slice(from, to);
            parts.add(spill(slice));
            bounds.append(batch.keys, to - 1);
            from = to;
        }
        return new Batch(parts.toArray(new Part[0]), bounds, batch.keys, batch.vals, batch.arity, batch.description());
    }

    /** Counters since start, for tests and introspection. */
    public record Stats(long residentBytes, int residentParts, long loads, long evictions, long spilledBytes, long discardedParts) {}

    public static Stats stats() {
        synchronized (LOCK) {
            forgetDead();
            return new Stats(residentBytes, resident.size(), loads, evictions, spilledBytes, discarded);
        }
    }

    /** The LRU clock: advanced without a lock by every reader, so only roughly ordered (eviction needs no more). */
    static long tick() {
        return ++clock;
    }

    /**
     * Writes {@code batch} (plain, not empty) to a new spill file and returns it as a part, resident
     * for now. Where paging has been turned off meanwhile, the part's encoding stays on the heap.
     */
    static Part spill(Batch batch) {
        byte[] bytes = BatchCodec.encode(batch);
        Mapped m = write(bytes, batch.toString());
        Part p = new Part(m.encoded, batch.keyCount(), batch.valCount(), batch.updateCount(), batch.keys.bytesUsed(), batch.vals.bytesUsed(), batch.maxTime);
        ownFile(p, m);
        makeResident(p, batch);
        return p;
    }

    /** An encoding in a new spill file, {@code mapping} it (file and mapping null: paging is off, the bytes stay on the heap). */
    private record Mapped(ByteBuffer encoded, Path file, java.nio.MappedByteBuffer mapping) {}

    private static Mapped write(byte[] bytes, String what) {
        Settings s = settings;
        if (s == null) return new Mapped(ByteBuffer.wrap(bytes), null, null);
        Path file;
        synchronized (LOCK) {
            file = s.dir.resolve(ProcessHandle.current().pid() + "-" + (fileSeq++) + ".part");
        }
        java.nio.MappedByteBuffer encoded;
        // A file channel closes itself when its thread is interrupted (a worker at a server's
        // shutdown), which failed the dataflow mid-write: the interrupt is set aside for the
        // write (a stream, not interruptible) and the mapping, and set again after.
        boolean interrupted = Thread.interrupted();
        try {
            try (java.io.FileOutputStream out = new java.io.FileOutputStream(Files.createFile(file).toFile())) {
                // no fsync: a spill file is scratch, rebuilt from the tables after a crash, never read by another process
                out.write(bytes);
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                encoded = ch.map(FileChannel.MapMode.READ_ONLY, 0, bytes.length);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // the write failed already: that is the error to report
            }
            throw new UncheckedIOException("cannot write a part of " + what + " to " + file + ": " + e.getMessage(), e);
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
        synchronized (LOCK) {
            spilledBytes += bytes.length;
        }
        return new Mapped(encoded, file, encoded);
    }

    /** Makes {@code m}'s file {@code p}'s own: deleted with it, by {@link #discard} or once it is unreachable. */
    private static void ownFile(Part p, Mapped m) {
        if (m.file == null) return;
        p.mapping = m.mapping;
        p.fileDeleter = CLEANER.register(p, () -> {
            try {
                Files.deleteIfExists(m.file);
            } catch (IOException ignored) {
                // left for the next start, which empties the directory
            }
        });
    }

    /**
     * Unmaps {@code mapping} now. Only for a mapping nothing else can be reading: any access
     * after this crashes the JVM, where a mapping left to the collector is unmapped only once no
     * view of it is reachable (and a deleted file's disk space is freed only then).
     */
    private static void unmap(java.nio.MappedByteBuffer mapping) {
        if (UNMAP == null) return; // left to the collector
        try {
            UNMAP.invokeExact((ByteBuffer) mapping);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot unmap a discarded part: " + e, e);
        }
    }

    /**
     * The JDK's unmapping of a direct buffer: {@code jdk.internal.misc.Unsafe.invokeCleaner} where
     * the package is exported to us (as the server's launcher does), else {@code sun.misc.Unsafe}'s
     * (which warns that it will go), else none (discarded parts are then unmapped by the collector).
     */
    private static final java.lang.invoke.MethodHandle UNMAP = unmapper();

    private static java.lang.invoke.MethodHandle unmapper() {
        java.lang.invoke.MethodType type = java.lang.invoke.MethodType.methodType(void.class, ByteBuffer.class);
        for (String name : new String[] {"jdk.internal.misc.Unsafe", "sun.misc.Unsafe"}) {
            try {
                Class<?> c = Class.forName(name);
                Object unsafe;
                if (name.startsWith("jdk.")) {
                    unsafe = c.getMethod("getUnsafe").invoke(null); // public, in a package exported to us or not at all
                } else {
                    java.lang.reflect.Field f = c.getDeclaredField("theUnsafe");
                    f.setAccessible(true);
                    unsafe = f.get(null);
                }
                return java.lang.invoke.MethodHandles.lookup().findVirtual(c, "invokeCleaner", type).bindTo(unsafe);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // not exported to this module, or not there: the next one
            }
        }
        return null;
    }

    /**
     * Releases the parts of {@code dead}, a batch its owner will never read again and never gave
     * to anyone (a batcher's spilled run once merged), except those also in one of {@code kept}
     * (a merge or a cut may take parts over as they are): each is dropped from the resident list,
     * unmapped and its file deleted now rather than when a collection finds it unreachable (its
     * disk space is freed at once). The part must never be read again: its mapping is gone. A
     * plain batch, or paging off: nothing to do.
     */
    static void discard(Batch dead, Batch... kept) {
        if (dead == null || dead.parts == null) return;
        java.util.Set<Part> keep = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Batch k : kept) if (k != null && k.parts != null) keep.addAll(java.util.Arrays.asList(k.parts));
        for (Part p : dead.parts) {
            if (keep.contains(p) || p.fileDeleter == null) continue;
            synchronized (LOCK) {
                if (p.resident != null) {
                    for (int i = 0; i < resident.size(); i++) {
                        if (resident.get(i).get() == p) {
                            residentBytes -= resident.get(i).bytes;
                            resident.set(i, resident.get(resident.size() - 1));
                            resident.remove(resident.size() - 1);
                            break;
                        }
                    }
                    p.resident = null;
                }
                discarded++;
            }
            java.nio.MappedByteBuffer mapping = p.mapping;
            p.mapping = null;
            if (mapping != null) unmap(mapping);
            p.fileDeleter.clean();
        }
    }

    /**
     * A part over an encoding that {@code summary} describes, not decoded (a restart's checkpoint
     * parts stay in their mapped files until read). A store that is not a mapped file (S3) gave
     * the bytes on the heap: they go to a spill file, or the whole state would stay on the heap.
     */
    static Part adopt(ByteBuffer encoded, BatchCodec.Summary summary) {
        Mapped m = null;
        if (!encoded.isDirect() && settings != null) {
            byte[] bytes = new byte[encoded.remaining()];
            encoded.duplicate().get(bytes);
            m = write(bytes, "a checkpoint's part");
            encoded = m.encoded;
        }
        Part p = new Part(encoded, summary.keys(), summary.vals(), summary.updates(), summary.keyBytes(), summary.valBytes(), summary.maxTime());
        if (m != null) ownFile(p, m);
        return p;
    }

    /** {@code p} decoded, made resident (evicting others if the budget is spent). */
    static Batch load(Part p) {
        synchronized (LOCK) {
            Batch b = p.resident;
            if (b != null) return b;
        }
        // decoded outside the lock: other threads' parts need not wait for this copy
        Batch b = BatchCodec.decode(p.encoded.duplicate());
        synchronized (LOCK) {
            loads++;
            Batch other = p.resident;
            if (other != null) return other;
        }
        makeResident(p, b);
        return b;
    }

    private static void makeResident(Part p, Batch b) {
        Settings s = settings;
        // paging off: nothing is kept (a reader holds what it decoded for as long as it reads)
        if (s == null) return;
        long budget = s.residentBudget;
        synchronized (LOCK) {
            if (p.resident != null) return;
            forgetDead();
            p.resident = b;
            p.lastUse = ++clock;
            resident.add(new Resident(p, p.encodedBytes()));
            residentBytes += p.encodedBytes();
            while (residentBytes > budget && resident.size() > 1) {
                int lru = -1;
                long lruUse = Long.MAX_VALUE;
                for (int i = 0; i < resident.size(); i++) {
                    Part q = resident.get(i).get();
                    if (q == null) {
                        lru = i; // dead: the first to go
                        break;
                    }
                    if (q != p && q.lastUse < lruUse) {
                        lru = i;
                        lruUse = q.lastUse;
                    }
                }
                Resident e = resident.get(lru);
                resident.set(lru, resident.get(resident.size() - 1));
                resident.remove(resident.size() - 1);
                Part q = e.get();
                if (q != null) {
                    q.resident = null;
                    evictions++;
                }
                residentBytes -= e.bytes;
            }
        }
    }

    /** Takes the parts collected since the last look off the resident list (under {@link #LOCK}). */
    private static void forgetDead() {
        for (java.lang.ref.Reference<? extends Part> r; (r = gone.poll()) != null; ) {
            int i = resident.indexOf(r);
            if (i < 0) continue;
            residentBytes -= ((Resident) r).bytes;
            resident.set(i, resident.get(resident.size() - 1));
            resident.remove(resident.size() - 1);
        }
    }

    /** Drops every resident part (tests: the next read of each loads it from its file). */
    static void evictAll() {
        synchronized (LOCK) {
            for (Resident e : resident) {
                Part q = e.get();
                if (q != null) q.resident = null;
            }
            evictions += resident.size();
            resident.clear();
            residentBytes = 0;
        }
    }
}
