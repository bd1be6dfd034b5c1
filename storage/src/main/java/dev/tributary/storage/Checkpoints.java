package dev.tributary.storage;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tributary.arrangements.Batch;
import dev.tributary.arrangements.BatchCodec;
import dev.tributary.arrangements.Part;
import dev.tributary.arrangements.Seed;
import dev.tributary.storage.proto.ProtoCheckpoint;
import dev.tributary.storage.proto.ProtoCheckpointObject;
import dev.tributary.storage.proto.ProtoCheckpointSpan;
import dev.tributary.storage.proto.ProtoCheckpointTrace;
import dev.tributary.storage.proto.ProtoCheckpointWorker;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Checkpoints of dataflows: every trace of every checkpointed dataflow, per worker, cut at one
 * time {@code at}, written as parts (one {@link BatchCodec} batch each) to blob storage under
 * {@code checkpoints/}, and named by one version of the consensus key {@code checkpoint}.
 *
 * <p>Model (DESIGN section 9): batches are immutable, so a checkpoint at a frontier is a manifest
 * of batch files. A batch written by one checkpoint and still in a trace at the next is not
 * written again: the next manifest names the same part, so a checkpoint writes about what
 * changed since the last one (the traces' new and merged batches), not the whole state. A
 * checkpoint is complete once its manifest is durable; parts no manifest names any more are
 * deleted after. A checkpoint that fails (a store down) is abandoned and the previous one stays
 * the latest: a checkpoint only saves work at a restart, it never holds data nothing else has.
 *
 * <p>One writer at a time ({@link #write} is synchronized); reading the latest is safe alongside.
 */
public final class Checkpoints {
    static final String KEY = "checkpoint";
    static final String PREFIX = "checkpoints/";
    private static final int VERSION = 1;

    private final Blob blob;
    private final Consensus consensus;
    private final Consumer<String> log;
    /**
     * The parts the latest manifest names, by the batch they hold: written once, named again
     * while the batch lives. Weakly: a batch its trace has merged away must not stay on the heap
     * for this (Batch has identity equality, so this is an identity map).
     */
    private java.util.WeakHashMap<Batch, String> written = new java.util.WeakHashMap<>();
    /** The same for the parts of parted batches ({@link Batch#isParted}): a part is written once, whatever batch holds it. */
    private java.util.WeakHashMap<Part, String> writtenParts = new java.util.WeakHashMap<>();
    private long nextPart;

    /** One object's dataflow as one checkpoint captured it: per worker, its traces' seeds. */
    public record Captured(long id, List<Long> reads, List<List<Seed.TraceSeed>> workers) {}

    /** One object's dataflow as a checkpoint holds it: per worker, per trace, its name and part keys. */
    public record Stored(long id, List<Long> reads, List<List<ProtoCheckpointTrace>> workers) {}

    /** A complete checkpoint: its time, the number of workers it was taken with, and its objects by id. */
    public record Manifest(long at, int workers, Map<Long, Stored> objects) {}

    public Checkpoints(Blob blob, Consensus consensus, Consumer<String> log) {
        this.blob = blob;
        this.consensus = consensus;
        this.log = log;
        this.nextPart = System.currentTimeMillis() * 1000;
    }

    /** The latest complete checkpoint, if any. */
    public Optional<Manifest> latest() {
        Optional<VersionedData> head = consensus.head(KEY);
        if (head.isEmpty() || head.get().data().length == 0) return Optional.empty();
        ProtoCheckpoint p;
        try {
            p = ProtoCheckpoint.parseFrom(head.get().data());
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptDataException("checkpoint version " + head.get().seqNo() + " does not decode: " + e.getMessage());
        }
        if (p.getVersion() != VERSION) throw new CorruptDataException("checkpoint version " + head.get().seqNo() + " has format " + p.getVersion() + ", not " + VERSION);
        Map<Long, Stored> objects = new java.util.LinkedHashMap<>();
        for (ProtoCheckpointObject o : p.getObjectsList()) {
            List<List<ProtoCheckpointTrace>> workers = new ArrayList<>();
            for (ProtoCheckpointWorker w : o.getWorkersList()) workers.add(w.getTracesList());
            objects.put(o.getId(), new Stored(o.getId(), o.getReadsList(), workers));
        }
        return Optional.of(new Manifest(p.getAt(), p.getWorkers(), objects));
    }

    /** One worker's seed of a checkpointed dataflow: its parts read back (the checkpoint's time + 1 is the seed's frontier). Safe to call from several threads. */
    public Seed seed(Manifest m, Stored object, int worker) {
        List<Seed.TraceSeed> traces = new ArrayList<>();
        for (ProtoCheckpointTrace t : object.workers().get(worker)) {
            List<Batch> batches = new ArrayList<>();
            List<String> keys = t.getPartsList();
            int count = t.getPiecesCount() == 0 ? keys.size() : t.getPiecesCount();
            int spans = 0;
            for (int i = 0, k = 0; i < count; i++) {
                int pieces = t.getPiecesCount() == 0 ? 0 : t.getPieces(i);
                if (k + Math.max(1, pieces) > keys.size()) {
                    throw new CorruptDataException("checkpoint trace '" + t.getName() + "' names " + keys.size() + " parts, fewer than its batches' pieces");
                }
                if (pieces == 0) {
                    String key = keys.get(k++);
                    Batch b = read(key);
                    batches.add(b);
                    // the first checkpoint after the restart names the part again while the trace holds the batch
                    synchronized (this) {
                        written.put(b, key);
                    }
                    continue;
                }
                List<String> partKeys = keys.subList(k, k + pieces);
                k += pieces;
                if (spans >= t.getSpansCount()) throw new CorruptDataException("checkpoint trace '" + t.getName() + "' lacks the span of its batch " + i);
                Batch b = readParts(partKeys, t.getSpans(spans++));
                batches.add(b);
                synchronized (this) {
                    List<Part> parts = b.parts();
                    for (int j = 0; j < parts.size(); j++) writtenParts.put(parts.get(j), partKeys.get(j));
                }
            }
            traces.add(new Seed.TraceSeed(t.getName(), batches));
        }
        return Seed.of(dev.tributary.timely.Antichain.of(new long[] {m.at() + 1}), traces);
    }

    /** A batch held in parts, each part read from its mapped blob when paging needs it. */
    private Batch readParts(List<String> keys, ProtoCheckpointSpan span) {
        List<java.nio.ByteBuffer> buffers = new ArrayList<>();
        for (String key : keys) buffers.add(blob.getBuffer(key).orElseThrow(() -> new CorruptDataException("checkpoint part " + key + " is missing")));
        try {
            return BatchCodec.decodeParts(buffers, frontier(span.getLowerList()), frontier(span.getUpperList()));
        } catch (IllegalArgumentException e) {
            throw new CorruptDataException("checkpoint parts " + keys + " do not decode as one batch: " + e.getMessage());
        }
    }

    private static ProtoCheckpointSpan span(Batch b) {
        ProtoCheckpointSpan.Builder s = ProtoCheckpointSpan.newBuilder();
        for (int i = 0; i < b.lower().size(); i++) s.addLower(b.lower().get(i)[0]);
        for (int i = 0; i < b.upper().size(); i++) s.addUpper(b.upper().get(i)[0]);
        return s.build();
    }

    private static dev.tributary.timely.Antichain frontier(List<Long> times) {
        dev.tributary.timely.Antichain.Builder f = new dev.tributary.timely.Antichain.Builder(1);
        for (long t : times) f.insert(new long[] {t});
        return f.build();
    }

    private Batch read(String key) {
        java.nio.ByteBuffer bytes = blob.getBuffer(key).orElseThrow(() -> new CorruptDataException("checkpoint part " + key + " is missing"));
        try {
            return BatchCodec.decode(bytes);
        } catch (IllegalArgumentException e) {
            throw new CorruptDataException("checkpoint part " + key + " does not decode: " + e.getMessage());
        }
    }

    /**
     * Writes a checkpoint at {@code at} of {@code objects} (taken with {@code workers} workers)
     * and makes it the latest; parts of the previous one no longer named are deleted. Returns
     * the bytes written (parts new in this checkpoint). Throws {@link StorageException} if a store
     * refuses, leaving the previous checkpoint the latest.
     */
    public synchronized long write(long at, int workers, List<Captured> objects) {
        java.util.WeakHashMap<Batch, String> now = new java.util.WeakHashMap<>();
        java.util.WeakHashMap<Part, String> nowParts = new java.util.WeakHashMap<>();
        List<String> fresh = new ArrayList<>();
        long[] bytes = {0};
        ProtoCheckpoint.Builder p = ProtoCheckpoint.newBuilder().setVersion(VERSION).setAt(at).setWorkers(workers);
        try {
            for (Captured c : objects) {
                ProtoCheckpointObject.Builder o = p.addObjectsBuilder().setId(c.id()).addAllReads(c.reads());
                for (List<Seed.TraceSeed> worker : c.workers()) {
                    ProtoCheckpointWorker.Builder w = o.addWorkersBuilder();
                    for (Seed.TraceSeed t : worker) {
                        ProtoCheckpointTrace.Builder tb = w.addTracesBuilder().setName(t.name());
                        for (Batch b : t.batches()) {
                            if (b.isParted()) {
                                List<Part> parts = b.parts();
                                for (Part part : parts) {
                                    tb.addParts(named(part, nowParts, writtenParts, () -> {
                                        java.nio.ByteBuffer enc = part.encoding();
                                        byte[] data = new byte[enc.remaining()];
                                        enc.get(data);
                                        return data;
                                    }, at, fresh, bytes));
                                }
                                tb.addPieces(parts.size());
                                tb.addSpans(span(b));
                            } else {
                                tb.addPieces(0);
                                tb.addParts(named(b, now, written, () -> BatchCodec.encode(b), at, fresh, bytes));
                            }
                        }
                    }
                }
            }
            Optional<VersionedData> head = consensus.head(KEY);
            long expected = head.map(VersionedData::seqNo).orElse(Consensus.NO_VERSION);
            switch (consensus.compareAndSet(KEY, expected, p.build().toByteArray())) {
                case CasResult.Committed committed -> {
                    if (committed.seqNo() > 0) consensus.truncate(KEY, committed.seqNo());
                }
                case CasResult.Mismatch m -> throw new StorageException("checkpoint manifest changed under this server (another server writes these stores?)", null);
            }
        } catch (RuntimeException e) {
            for (String key : fresh) deleteQuietly(key);
            throw e;
        }
        deleteUnnamed(named(p));
        written = now;
        writtenParts = nowParts;
        return bytes[0];
    }

    /**
     * The blob key of {@code thing} (a batch or a part) in this checkpoint: the key it already has
     * in it or had in the last one, else a new part written now with {@code encode}'s bytes (its
     * key added to {@code fresh}, its size to {@code bytes[0]}).
     */
    private <T> String named(T thing, java.util.WeakHashMap<T, String> now, java.util.WeakHashMap<T, String> before,
            java.util.function.Supplier<byte[]> encode, long at, List<String> fresh, long[] bytes) {
        String key = now.get(thing);
        if (key == null) key = before.get(thing);
        if (key == null) {
            byte[] data = encode.get();
            key = PREFIX + at + "-" + (nextPart++);
            blob.put(key, data);
            fresh.add(key);
            bytes[0] += data.length;
        }
        now.put(thing, key);
        return key;
    }

    private static Set<String> named(ProtoCheckpoint.Builder p) {
        Set<String> named = new HashSet<>();
        for (ProtoCheckpointObject o : p.getObjectsList()) {
            for (ProtoCheckpointWorker w : o.getWorkersList()) for (ProtoCheckpointTrace t : w.getTracesList()) named.addAll(t.getPartsList());
        }
        return named;
    }

    /** Deletes parts under {@code checkpoints/} the latest manifest does not name (left by a crash mid-checkpoint). */
    public synchronized void collectGarbage() {
        Set<String> named = new HashSet<>();
        latest().ifPresent(m -> m.objects().values().forEach(o -> o.workers().forEach(w -> w.forEach(t -> named.addAll(t.getPartsList())))));
        deleteUnnamed(named);
    }

    private void deleteUnnamed(Set<String> named) {
        try {
            for (String key : blob.list(PREFIX)) if (!named.contains(key)) deleteQuietly(key);
        } catch (StorageException e) {
            log.accept("could not list checkpoint parts (unused ones are left for later): " + e.getMessage());
        }
    }

    private void deleteQuietly(String key) {
        try {
            blob.delete(key);
        } catch (StorageException e) {
            log.accept("could not delete checkpoint part " + key + " (left for the next restart): " + e.getMessage());
        }
    }
}
