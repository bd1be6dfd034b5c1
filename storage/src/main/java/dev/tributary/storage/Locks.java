package dev.tributary.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;

/** The exclusive lock a store or a data directory holds against a second process. */
final class Locks {
    private Locks() {}

    /**
     * The lock files this JVM holds. A second holder in this JVM is refused by this set before it
     * opens the file: POSIX locks belong to the process, and closing any descriptor of the file
     * (the refused one's) would drop the first holder's lock.
     */
    private static final java.util.Set<java.nio.file.Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Claims {@code lockFile} for one holder in this JVM; false if another here has it. */
    static boolean claim(java.nio.file.Path lockFile) {
        return HELD.add(lockFile.toAbsolutePath().normalize());
    }

    /** Gives back a claim made by {@link #claim}. */
    static void release(java.nio.file.Path lockFile) {
        HELD.remove(lockFile.toAbsolutePath().normalize());
    }

    /** An exclusive lock on {@code channel}'s file, or null when another holds one (or locking fails). */
    static FileLock tryExclusive(FileChannel channel) {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException | IOException e) {
            return null;
        }
    }
}
