package dev.tributary.storage;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tributary.arrangements.Description;
import dev.tributary.storage.proto.ProtoAntichain;
import dev.tributary.storage.proto.ProtoBatch;
import dev.tributary.storage.proto.ProtoPart;
import dev.tributary.storage.proto.ProtoShardState;
import dev.tributary.timely.Antichain;
import dev.tributary.timely.Timestamps;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The durable state of a shard, one version of its consensus value: which batches hold its
 * updates, how far it is written ({@code upper}: every update at a time not {@code >= upper}
 * is in a batch) and how far its history is kept ({@code since}: reads at times {@code >=
 * since} are exact), the readers' holds on that history and the epoch of the writer allowed to
 * append.
 *
 * <p>Invariants, checked when decoded and when made: the batches are contiguous (the first's
 * lower is the minimum time, each one's upper the next one's lower, the last one's upper the
 * shard's); every frontier has the shard's arity; {@code since} is at or before every reader's
 * hold. Encoded as {@link ProtoShardState}.
 */
public record ShardState(String shard, int arity, long writerEpoch, Antichain since, Antichain upper, List<BatchMeta> batches,
                         Map<String, Antichain> readers) {
    private static final int FORMAT = 1;

    public ShardState {
        batches = List.copyOf(batches);
        readers = java.util.Collections.unmodifiableMap(new TreeMap<>(readers));
        String problem = problem(shard, arity, since, upper, batches, readers);
        if (problem != null) throw new IllegalArgumentException("shard '" + shard + "': " + problem);
    }

    /** A shard with nothing written: upper and since the minimum time. */
    public static ShardState initial(String shard, int arity) {
        Antichain min = Antichain.of(new long[arity]);
        return new ShardState(shard, arity, 0, min, min, List.of(), Map.of());
    }

    private static String problem(String shard, int arity, Antichain since, Antichain upper, List<BatchMeta> batches, Map<String, Antichain> readers) {
        if (arity < 1) return "arity " + arity + " is not a time's";
        for (Antichain a : List.of(since, upper)) if (a.arity() != arity) return "a frontier of arity " + a.arity() + " in a shard of arity " + arity;
        Antichain at = Antichain.of(new long[arity]);
        for (int i = 0; i < batches.size(); i++) {
            Description d = batches.get(i).description();
            if (d.lower().arity() != arity || d.upper().arity() != arity || d.since().arity() != arity) return "batch " + i + " has a frontier of another arity";
            if (!d.lower().equals(at)) return "batch " + i + " starts at " + d.lower() + ", not where the one before it ends (" + at + ")";
            at = d.upper();
        }
        if (!at.equals(upper)) return "its batches end at " + at + ", not at its upper " + upper;
        for (Map.Entry<String, Antichain> r : readers.entrySet()) {
            if (r.getValue().arity() != arity) return "reader '" + r.getKey() + "' holds a frontier of arity " + r.getValue().arity();
            if (!since.dominates(r.getValue())) return "its since " + since + " is past reader '" + r.getKey() + "''s hold " + r.getValue();
        }
        return null;
    }

    /** This state with {@code batch} appended: it must start at this upper, and its upper becomes the shard's. */
    ShardState withBatch(BatchMeta batch) {
        List<BatchMeta> next = new ArrayList<>(batches);
        next.add(batch);
        return new ShardState(shard, arity, writerEpoch, since, batch.description().upper(), next, readers);
    }

    /** This state with its batches replaced by {@code next}, which must cover the same times. */
    ShardState withBatches(List<BatchMeta> next) {
        return new ShardState(shard, arity, writerEpoch, since, upper, next, readers);
    }

    ShardState withWriterEpoch(long epoch) {
        return new ShardState(shard, arity, epoch, since, upper, batches, readers);
    }

    ShardState withSince(Antichain newSince) {
        return new ShardState(shard, arity, writerEpoch, newSince, upper, batches, readers);
    }

    ShardState withReaders(Map<String, Antichain> newReaders) {
        return new ShardState(shard, arity, writerEpoch, since, upper, batches, newReaders);
    }

    /** The updates in all batches. */
    public long records() {
        long n = 0;
        for (BatchMeta b : batches) n += b.records();
        return n;
    }

    public byte[] encode() {
        ProtoShardState.Builder b = ProtoShardState.newBuilder()
                .setVersion(FORMAT).setShard(shard).setArity(arity).setWriterEpoch(writerEpoch)
                .setSince(proto(since)).setUpper(proto(upper));
        for (BatchMeta batch : batches) {
            ProtoBatch.Builder pb = ProtoBatch.newBuilder()
                    .setLower(proto(batch.description().lower()))
                    .setUpper(proto(batch.description().upper()))
                    .setSince(proto(batch.description().since()));
            for (PartMeta p : batch.parts()) {
                pb.addParts(p.toProto());
            }
            b.addBatches(pb);
        }
        for (Map.Entry<String, Antichain> r : readers.entrySet()) b.putReaders(r.getKey(), proto(r.getValue()));
        return b.build().toByteArray();
    }

    /** The state encoded in {@code bytes}; {@code where} names them (the shard and the version) in an error. */
    public static ShardState decode(byte[] bytes, String where) {
        ProtoShardState p;
        try {
            p = ProtoShardState.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptDataException(where + " is not a shard state: " + e.getMessage());
        }
        if (p.getVersion() != FORMAT) throw new CorruptDataException(where + " is a shard state of format " + p.getVersion() + "; this Tributary reads format " + FORMAT);
        try {
            List<BatchMeta> batches = new ArrayList<>();
            for (ProtoBatch pb : p.getBatchesList()) {
                List<PartMeta> parts = new ArrayList<>();
                for (ProtoPart part : pb.getPartsList()) parts.add(PartMeta.fromProto(part));
                batches.add(new BatchMeta(new Description(antichain(pb.getLower()), antichain(pb.getUpper()), antichain(pb.getSince())), parts));
            }
            Map<String, Antichain> readers = new TreeMap<>();
            for (Map.Entry<String, ProtoAntichain> r : p.getReadersMap().entrySet()) readers.put(r.getKey(), antichain(r.getValue()));
            return new ShardState(p.getShard(), p.getArity(), p.getWriterEpoch(), antichain(p.getSince()), antichain(p.getUpper()), batches, readers);
        } catch (IllegalArgumentException e) {
            throw new CorruptDataException(where + " is not a consistent shard state: " + e.getMessage());
        }
    }

    private static ProtoAntichain proto(Antichain a) {
        ProtoAntichain.Builder b = ProtoAntichain.newBuilder().setArity(a.arity());
        for (int i = 0; i < a.size(); i++) for (long c : a.get(i)) b.addCoordinates(c);
        return b.build();
    }

    private static Antichain antichain(ProtoAntichain p) {
        int arity = p.getArity();
        if (arity < 1 || arity > 64 || p.getCoordinatesCount() % arity != 0) {
            throw new IllegalArgumentException("a frontier of arity " + arity + " with " + p.getCoordinatesCount() + " coordinates");
        }
        List<long[]> times = new ArrayList<>();
        for (int i = 0; i < p.getCoordinatesCount(); i += arity) {
            long[] t = new long[arity];
            for (int k = 0; k < arity; k++) t[k] = p.getCoordinates(i + k);
            times.add(t);
        }
        Antichain a = Antichain.fromTimes(arity, times);
        if (a.size() != times.size()) throw new IllegalArgumentException("frontier " + a + " was written with comparable elements " + Timestamps.toString(times.get(0)) + "...");
        return a;
    }
}
