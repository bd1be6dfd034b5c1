package dev.tributary.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;

/** The exclusive lock a store or a data directory holds against a second process. */
final class Locks {
    private Locks() {}

    /** An exclusive lock on {@code channel}'s file, or null when another holds one (or locking fails). */
    static FileLock tryExclusive(FileChannel channel) {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException | IOException e) {
            return null;
        }
    }
}
