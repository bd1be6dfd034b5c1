package dev.tributary.storage;

/**
 * A blob or consensus store could not do what was asked: an I/O error, a store that is down, a
 * full disk. The message names the store and the key involved. Nothing the operation would have
 * written may be assumed durable; whether it was is found out by reading again (a consensus
 * compare-and-set that failed this way may or may not have landed).
 */
public class StorageException extends RuntimeException {
    public StorageException(String message) {
        super(message);
    }

    public StorageException(String message, Throwable cause) {
        super(message, cause);
    }
}
