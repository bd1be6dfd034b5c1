package dev.tributary.storage;

class MemoryBlobTest extends BlobContract {
    @Override
    protected Blob open() {
        return new MemoryBlob();
    }
}
