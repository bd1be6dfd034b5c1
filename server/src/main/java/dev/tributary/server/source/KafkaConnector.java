package dev.tributary.server.source;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads one Kafka topic into a source with Apache Kafka's consumer, exactly once.
 *
 * <p>The consumer is assigned every partition of the topic itself (no group membership, no
 * rebalances) and looks for partitions added later every few seconds. A partition's part is its
 * number as text and its position the offset of the last message consumed, committed with the
 * rows that message gave; a run seeks every partition to its committed position + 1, so after a
 * crash nothing is read twice and nothing is skipped. Offsets are never committed to Kafka.
 * {@code START OFFSET 'latest'} is turned into positions (the ends of the partitions then)
 * committed at once, so that a crash before the first message does not move the start.
 *
 * <p>Messages are read {@code read_committed}: a transactional producer's aborted messages never
 * reach the source. Each message's value is one record of the source's format; a value the format
 * cannot read, a message without one (a tombstone) in an append-only source, or a position no
 * longer in its partition (retention deleted messages not read yet), go to
 * {@link SourceContext#decodeError} with the partition and offset (skipped or stopping the source,
 * as it was made to). A keyed source's ({@link Decoder#keyed}) message is a change of the row of
 * its key, which the message's key gives when it has one ({@link Decoder#change}); a tombstone
 * deletes that row.
 *
 * <p>Rows are committed in batches: every {@value #BATCH_ROWS} rows or {@value #BATCH_BYTES}
 * bytes, and when {@value #LINGER_MS} ms passed since the batch's first message or the topic has
 * nothing more for now. While the brokers cannot be reached the consumer keeps trying (its own
 * reconnection backoff) and the source's state says so; {@link #wakeUp} ends a blocked call at
 * once, so neither CREATE SOURCE nor the server's shutdown waits for Kafka.
 */
public final class KafkaConnector implements Connector {
    private static final int BATCH_ROWS = 1 << 16;
    private static final long BATCH_BYTES = 16 << 20;
    private static final long LINGER_MS = 100;
    private static final int MAX_POLL_RECORDS = 10_000;
    /** How often the topic's partitions and ends are asked for: new partitions, lag, outages. */
    private static final long REFRESH_MS = 5_000;
    private static final Duration REQUEST = Duration.ofSeconds(5);

    private final List<KafkaMetadata> include;
    private final boolean bytesKey;
    private volatile KafkaConsumer<byte[], byte[]> consumer;

    /**
     * A connector that appends {@code include}'s values to each row (see {@link KafkaMetadata};
     * the key as {@code bytea} when {@code bytesKey}, else as text).
     */
    public KafkaConnector(List<KafkaMetadata> include, boolean bytesKey) {
        this.include = List.copyOf(include);
        this.bytesKey = bytesKey;
    }

    /** The consumer's configuration for source {@code name}: assigned, never committing, read_committed. */
    static Map<String, Object> consumerConfig(String name, KafkaSettings settings) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, settings.brokers());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "tributary-source-" + name);
        if (settings.group() != null) config.put(ConsumerConfig.GROUP_ID_CONFIG, settings.group());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // every partition is sought explicitly; an offset out of range is retention having
        // deleted what was not read yet, which the source must report, not paper over
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        // a source reads a topic, it does not make one by asking for it
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        // partitions added to the topic are seen within this
        config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, (int) REFRESH_MS);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        return config;
    }

    @Override
    public void run(SourceContext ctx) {
        KafkaSettings settings = KafkaSettings.of(ctx.options());
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(consumerConfig(ctx.name(), settings));
        consumer = c;
        try {
            // a stop asked for before the consumer was there woke nothing up
            if (ctx.stopping()) return;
            new Run(ctx, c, settings).read();
        } catch (WakeupException | InterruptException e) {
            if (!ctx.stopping()) throw e;
        } finally {
            consumer = null;
            // a stop interrupts the thread, and an interrupted close gives up with an error in
            // the log: the consumer closes (within a second) with the interrupt set aside
            boolean interrupted = Thread.interrupted();
            try {
                c.close(CloseOptions.timeout(Duration.ofSeconds(1)));
            } catch (RuntimeException e) {
                // closing an assigned consumer commits nothing: there is nothing to lose
            } finally {
                if (interrupted) Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void wakeUp() {
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) c.wakeup();
    }

    /** One run's reading: the partitions assigned so far and the batch not yet committed. */
    private final class Run {
        private final SourceContext ctx;
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final KafkaSettings settings;
        private final Decoder decoder;
        private final Set<TopicPartition> assigned = new HashSet<>();
        /** Whether START OFFSET still applies: no position was ever committed and none seen yet. */
        private boolean fresh;
        private final boolean keyed;
        private final SourceBatch batch;
        /** The batch's positions: each partition's last offset consumed into it. */
        private final Map<String, String> positions = new LinkedHashMap<>();
        private long bytes;
        private long batchStarted;
        private long nextRefresh;

        Run(SourceContext ctx, KafkaConsumer<byte[], byte[]> consumer, KafkaSettings settings) {
            this.ctx = ctx;
            this.consumer = consumer;
            this.settings = settings;
            this.decoder = ctx.decoder();
            this.keyed = decoder.keyed();
            this.batch = new SourceBatch(decoder);
            this.fresh = ctx.positions().isEmpty();
        }

        void read() {
            while (!ctx.stopping()) {
                long now = System.nanoTime();
                if (now - nextRefresh >= 0) {
                    refresh();
                    nextRefresh = System.nanoTime() + REFRESH_MS * 1_000_000;
                }
                if (assigned.isEmpty()) {
                    ctx.pause(REFRESH_MS / 5);
                    continue;
                }
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = consumer.poll(Duration.ofMillis(empty() ? 500 : LINGER_MS));
                } catch (OffsetOutOfRangeException e) {
                    lost(e.offsetOutOfRangePartitions());
                    continue;
                }
                for (ConsumerRecord<byte[], byte[]> r : records) take(r);
                if (!empty() && (records.isEmpty() || batch.size() >= BATCH_ROWS || bytes >= BATCH_BYTES
                        || System.nanoTime() - batchStarted >= LINGER_MS * 1_000_000)) {
                    commit();
                }
            }
        }

        /** Whether the batch holds nothing to commit, not even a position. */
        private boolean empty() {
            return batch.size() == 0 && positions.isEmpty();
        }

        /** One message into the batch, or to the decode-error report. */
        private void take(ConsumerRecord<byte[], byte[]> r) {
            if (empty()) batchStarted = System.nanoTime();
            if (keyed) {
                takeChange(r);
                return;
            }
            byte[] value = r.value();
            Object[] row;
            try {
                if (value == null) throw new DecodeException("the message has no value (a tombstone); a source appends rows and takes none away");
                row = decoder.decode(value, 0, value.length);
                if (row != null && !include.isEmpty()) row = KafkaMetadata.append(row, include, bytesKey, r);
            } catch (DecodeException e) {
                report("partition " + r.partition() + " offset " + r.offset(), e.getMessage());
                row = null;
            }
            if (row != null) {
                batch.add(row);
                bytes += value.length;
            }
            positions.put(Integer.toString(r.partition()), Long.toString(r.offset()));
        }

        /** A keyed source's message into the batch as a change of its key's row, or to the decode-error report. */
        private void takeChange(ConsumerRecord<byte[], byte[]> r) {
            byte[] value = r.value();
            try {
                SourceChange change = decoder.change(r.key(), value, 0, value == null ? 0 : value.length);
                if (change != null) {
                    // the metadata columns follow the format's in a delete's row too, which names only its key
                    if (!include.isEmpty()) {
                        Object[] row = KafkaMetadata.append(change.row(), include, bytesKey, r);
                        change = change instanceof SourceChange.Upsert ? new SourceChange.Upsert(row) : new SourceChange.Delete(row);
                    }
                    batch.add(change);
                    bytes += value == null ? 0 : value.length;
                }
            } catch (DecodeException e) {
                report("partition " + r.partition() + " offset " + r.offset(), e.getMessage());
            }
            positions.put(Integer.toString(r.partition()), Long.toString(r.offset()));
        }

        /**
         * A decode error to the context; when it stops the source, what came before it is
         * committed first, so that the source stops just before the message it could not read.
         */
        private void report(String position, String message) {
            try {
                ctx.decodeError(position, message);
            } catch (SourceStopped stop) {
                if (!empty()) commit();
                throw stop;
            }
        }

        private void commit() {
            batch.commit(ctx, Map.copyOf(positions), true);
            positions.clear();
            bytes = 0;
        }

        /**
         * Asks the brokers for the topic's partitions and their ends: assigns and seeks the
         * partitions not assigned yet, and says in the state how far behind the source is, or
         * that the brokers or the topic cannot be found.
         */
        private void refresh() {
            List<PartitionInfo> infos;
            Map<TopicPartition, Long> ends;
            try {
                infos = consumer.partitionsFor(settings.topic(), REQUEST);
                if (infos.isEmpty()) {
                    ctx.state("waiting: topic \"" + settings.topic() + "\" does not exist at " + settings.brokers());
                    return;
                }
                Set<TopicPartition> all = new HashSet<>();
                for (PartitionInfo p : infos) all.add(new TopicPartition(p.topic(), p.partition()));
                // the ends, asked every time: a cached topic's partitions come without a request,
                // so this is what finds an outage
                ends = consumer.endOffsets(all, REQUEST);
                if (!assigned.containsAll(all)) assign(all, ends);
            } catch (TimeoutException e) {
                ctx.state("waiting: Kafka at " + settings.brokers() + " does not answer (" + e.getMessage() + "); retrying");
                return;
            }
            long behind = 0;
            for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
                if (!assigned.contains(e.getKey())) continue;
                try {
                    behind += Math.max(0, e.getValue() - consumer.position(e.getKey(), REQUEST));
                } catch (TimeoutException | OffsetOutOfRangeException | NoOffsetForPartitionException notKnownYet) {
                    // the next refresh tells
                }
            }
            ctx.state(behind == 0 ? "running" : "running, " + behind + " messages behind");
        }

        /** Adds the topic's new partitions to the assignment, each sought where the source resumes. */
        private void assign(Set<TopicPartition> all, Map<TopicPartition, Long> ends) {
            Set<TopicPartition> added = new HashSet<>(all);
            added.removeAll(assigned);
            Set<TopicPartition> next = new HashSet<>(assigned);
            next.addAll(added);
            consumer.assign(next);
            List<TopicPartition> fromStart = new ArrayList<>();
            Map<String, String> startsAtEnd = new LinkedHashMap<>();
            for (TopicPartition tp : added) {
                String at = ctx.positions().get(Integer.toString(tp.partition()));
                if (at != null) {
                    consumer.seek(tp, Long.parseLong(at) + 1);
                } else if (fresh && settings.startAtLatest()) {
                    long end = ends.getOrDefault(tp, 0L);
                    consumer.seek(tp, end);
                    startsAtEnd.put(Integer.toString(tp.partition()), Long.toString(end - 1));
                } else {
                    fromStart.add(tp);
                }
            }
            // (no partitions would mean all of them to the consumer)
            if (!fromStart.isEmpty()) consumer.seekToBeginning(fromStart);
            assigned.addAll(added);
            // partitions found later were not there when the source began: all of them is new
            fresh = false;
            if (!startsAtEnd.isEmpty()) {
                // START OFFSET 'latest' made durable before any message: a restart resumes there
                if (empty()) batchStarted = System.nanoTime();
                positions.putAll(startsAtEnd);
                commit();
            }
        }

        /**
         * Partitions whose next offset is gone (retention deleted messages the source had not
         * read): reported as a decode error at the first offset missing, then read from the
         * earliest message still there.
         */
        private void lost(Map<TopicPartition, Long> partitions) {
            for (Map.Entry<TopicPartition, Long> e : partitions.entrySet()) {
                report("partition " + e.getKey().partition() + " offset " + e.getValue(),
                        "offset " + e.getValue() + " is no longer in the partition (the topic's retention deleted messages the source had not read,"
                                + " or the topic was made anew): reading on from its earliest message");
            }
            if (!partitions.isEmpty()) consumer.seekToBeginning(partitions.keySet());
        }
    }
}
