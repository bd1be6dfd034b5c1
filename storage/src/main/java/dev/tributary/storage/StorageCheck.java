package dev.tributary.storage;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code bin/tributary check --data DIR}: reads everything a data directory holds and says
 * whether it is whole. Opening the consensus log checks every record's checksum; then every
 * shard's state is decoded and checked, and every part it names is read, its size and checksum
 * compared with what the state recorded and its updates decoded. Parts no state names are
 * listed (an append a crash cut short leaves one; they are not errors). The server must be
 * stopped: the directory is held by one process at a time.
 */
public final class StorageCheck {
    private StorageCheck() {}

    /** What a check found: the problems (empty: the data is whole), and what it read. */
    public record Report(List<String> problems, int shards, int parts, long bytes, List<String> unreferenced) {
        public boolean whole() {
            return problems.isEmpty();
        }
    }

    /** Checks the stores of {@code dir}. */
    public static Report check(DataDirectory dir) {
        return check(dir.blob(), dir.consensus());
    }

    static Report check(Blob blob, Consensus consensus) {
        List<String> problems = new ArrayList<>();
        Set<String> referenced = new HashSet<>();
        int shards = 0;
        int parts = 0;
        long bytes = 0;
        for (String key : consensus.keys("shard/")) {
            shards++;
            VersionedData v = consensus.head(key).orElseThrow();
            ShardState state;
            try {
                state = ShardState.decode(v.data(), "the state of '" + key + "' (version " + v.seqNo() + ")");
            } catch (CorruptDataException e) {
                problems.add(e.getMessage());
                continue;
            }
            for (BatchMeta b : state.batches()) {
                for (PartMeta p : b.parts()) {
                    referenced.add(p.key());
                    parts++;
                    bytes += checkPart(blob, p, "shard '" + state.shard() + "': part '" + p.key() + "'", problems);
                }
            }
        }
        // the tables' log: its transactions, and the parts it names that no shard has adopted yet
        for (long from = 0; ; ) {
            List<VersionedData> versions = consensus.scan(TxnLog.KEY, from, 256);
            if (versions.isEmpty()) break;
            for (VersionedData v : versions) {
                String where = "the tables' log, version " + v.seqNo();
                try {
                    for (dev.tributary.storage.proto.ProtoTxn t : dev.tributary.storage.proto.ProtoTxnGroup.parseFrom(v.data()).getTxnsList()) {
                        for (dev.tributary.storage.proto.ProtoTableWrite w : t.getWritesList()) {
                            String what = where + ", table " + w.getTable() + " at " + t.getTime();
                            if (w.hasPart()) {
                                var pp = w.getPart();
                                PartMeta p = PartMeta.fromProto(pp);
                                if (referenced.add(p.key())) {
                                    parts++;
                                    bytes += checkPart(blob, p, what + ": part '" + p.key() + "'", problems);
                                }
                            } else {
                                PartCodec.decode(w.getInline().toByteArray(), what);
                            }
                        }
                    }
                } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                    problems.add(where + " is not a group of transactions: " + e.getMessage());
                } catch (CorruptDataException e) {
                    problems.add(e.getMessage());
                }
            }
            from = versions.get(versions.size() - 1).seqNo() + 1;
        }
        // the latest checkpoint: its manifest, and every part it names decodes as a batch (a
        // checkpoint only saves work at a restart, but a damaged one would restore wrong state)
        try {
            var latest = new Checkpoints(blob, consensus, m -> {}).latest();
            if (latest.isPresent()) {
                for (var o : latest.get().objects().values()) {
                    for (var worker : o.workers()) {
                        for (var trace : worker) {
                            for (String key : trace.getPartsList()) {
                                if (!referenced.add(key)) continue;
                                parts++;
                                String where = "checkpoint at " + latest.get().at() + ", object " + o.id() + ", trace '" + trace.getName() + "': part '" + key + "'";
                                byte[] data = blob.get(key).orElse(null);
                                if (data == null) {
                                    problems.add(where + " is missing from blob storage");
                                    continue;
                                }
                                bytes += data.length;
                                try {
                                    dev.tributary.arrangements.BatchCodec.decode(data);
                                } catch (IllegalArgumentException e) {
                                    problems.add(where + " does not decode: " + e.getMessage());
                                }
                            }
                        }
                    }
                }
            }
        } catch (CorruptDataException e) {
            problems.add(e.getMessage());
        }
        List<String> unreferenced = new ArrayList<>();
        for (String key : blob.list("shards/")) if (!referenced.contains(key)) unreferenced.add(key);
        for (String key : blob.list(Checkpoints.PREFIX)) if (!referenced.contains(key)) unreferenced.add(key);
        return new Report(problems, shards, parts, bytes, unreferenced);
    }

    /** Checks one part against what names it; returns its size (0 if it is missing), adding what is wrong to {@code problems}. */
    private static long checkPart(Blob blob, PartMeta p, String where, List<String> problems) {
        try {
            byte[] data = blob.get(p.key()).orElse(null);
            if (data == null) {
                problems.add(where + " is missing from blob storage");
                return 0;
            }
            if (data.length != p.bytes() || BlobTrailer.crc(data, data.length) != p.crc32c()) {
                problems.add(where + " is not the part recorded (" + data.length + " bytes, " + p.bytes() + " recorded, or another checksum)");
            } else if (PartCodec.decode(data, where).size() != p.records()) {
                problems.add(where + " does not hold the " + p.records() + " updates recorded");
            }
            return data.length;
        } catch (CorruptDataException e) {
            problems.add(e.getMessage());
            return 0;
        }
    }

    /** {@code check --data DIR}: prints the report; exits 0 when the data is whole, 1 when not, 2 on a usage error. */
    public static void main(String[] args) {
        if (args.length != 2 || !args[0].equals("--data")) {
            System.err.println("usage: tributary check --data DIR");
            System.exit(2);
        }
        Report r;
        try (DataDirectory dir = DataDirectory.openExisting(Path.of(args[1]))) {
            r = check(dir);
        } catch (StorageException e) {
            System.err.println("tributary check: " + e.getMessage());
            System.exit(1);
            return;
        }
        for (String p : r.problems()) System.out.println("ERROR: " + p);
        for (String u : r.unreferenced()) System.out.println("note: blob '" + u + "' is named by no shard (left by an interrupted append or compaction)");
        System.out.printf("%s: %d shards, %d parts, %d bytes checked; %d problems, %d unreferenced blobs%n",
                r.whole() ? "whole" : "DAMAGED", r.shards(), r.parts(), r.bytes(), r.problems().size(), r.unreferenced().size());
        System.exit(r.whole() ? 0 : 1);
    }
}
