package dev.tributary.server;

import dev.tributary.server.sink.KafkaSinkWriter;
import dev.tributary.server.sink.SinkEnvelope;
import dev.tributary.sql.SqlException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The runtime of a Kafka sink, {@code CREATE SINK name FROM relation | (query) INTO KAFKA (...)
 * FORMAT JSON ENVELOPE UPSERT | DEBEZIUM}: the relation's changes written to a Kafka topic, each
 * time's changes exactly once, in time order. (HTTP sinks, at least once, are another runtime:
 * {@link Sinks} and {@link dev.tributary.server.sink.HttpSink}.)
 *
 * <p>A sink is a {@link Jobs.Job} whose thread writes to Kafka instead of a target: it gathers
 * the changes its subscription delivers, and at a progress time {@code c} (every time before it
 * delivered) writes the changes of the times before {@code c} as messages, with {@code c} as the
 * sink's progress, in one Kafka transaction ({@link KafkaSinkWriter}); then it records {@code c}
 * as the cursor in its relation, as a job does, so the history it reads is held from there.
 * Kafka's progress is what decides what was written: the relation's cursor is never ahead of it
 * (it is recorded after Kafka's commit), so a restart opens the writer first (which fences every
 * older writer of the sink, a crashed server's included, and reads Kafka's progress), and
 * subscribes from the later of the two. Each message carries its time in the header
 * {@value #TIME_HEADER} (milliseconds since the epoch, as text), so a reader can tell times apart.
 *
 * <p>The writer's transactional id and progress key are the sink's name and a token made once
 * per sink and kept in its relation ({@code writer}), so a sink made again under an old name does
 * not take the old one's progress for its own. A Kafka failure closes the writer and opens
 * another (every 0.5 s, doubling to 30 s, while the state says {@code waiting}); what the new one
 * reads as progress says whether the failed transaction committed after all.
 */
final class KafkaSinkRunner {
    private KafkaSinkRunner() {}

    /** The header of every message: the time of its change, in ms since the epoch, as decimal text. */
    static final String TIME_HEADER = "tributary.time";

    /** Commits of a progress alone (no changes) at most this often. */
    static final long PROGRESS_ONLY_MILLIS = 5000;

    /**
     * Run after a write's Kafka transaction and before its cursor is recorded: nothing but in
     * tests, which stop a sink there to stand for a crash between the two commits.
     */
    static volatile java.util.function.Consumer<Jobs.Job> betweenCommits = j -> {};

    /** What a sink's thread asks of the coordinator. */
    interface Host {
        /** The sink's writer token: read from its relation, or made and recorded there (durable) when it has none. */
        String token(Jobs.Job j) throws InterruptedException;

        /** Subscribes the sink to its relation after {@code resume} (a progress time; null: from a snapshot now). */
        void subscribe(Jobs.Job j, Long resume);

        /** Records {@code cursor} in the sink's relation and holds its history from there, returning once durable. */
        void commitCursor(Jobs.Job j, long cursor) throws InterruptedException;
    }

    /** A sink thread's loop (see the class comment); ends when the sink stops, fails or what it reads is dropped. */
    static void run(Jobs.Job j, Host host) {
        KafkaSinkWriter writer = null;
        String name = j.item.name();
        try {
            String token = host.token(j);
            writer = open(j, token);
            if (writer == null) return;
            long kafkaUpper = writer.resumeFrom();
            if (kafkaUpper >= 0) j.kafkaUpper = kafkaUpper;
            long relationCursor = j.cursor;
            // Kafka's progress is ahead of the relation's cursor when a crash fell between the two
            Long resume = kafkaUpper >= 0 && (relationCursor == Long.MIN_VALUE || kafkaUpper > relationCursor) ? Long.valueOf(kafkaUpper)
                    : relationCursor == Long.MIN_VALUE ? null : Long.valueOf(relationCursor);
            host.subscribe(j, resume);
            j.state = "running";
            j.changed();
            // the changes by time: those before the latest progress are ready to go with it
            TreeMap<Long, List<SinkEnvelope.Change>> open = new TreeMap<>();
            TreeMap<Long, List<SinkEnvelope.Change>> ready = new TreeMap<>();
            int readyCount = 0;
            long written = resume == null ? Long.MIN_VALUE : resume;
            long cursor = written;
            long lastWrite = System.nanoTime();
            int width = j.envelope.names().size();
            while (!j.stopping) {
                // with changes ready, only what is already queued is taken before they are written:
                // a write gathers whatever came during the one before, so waiting for a quiet
                // moment would only add latency (and under a steady stream might never come)
                Object ev = j.events.poll(!ready.isEmpty() ? 0 : cursor == written ? 1000 : 20, TimeUnit.MILLISECONDS);
                if (ev instanceof Result batch) {
                    for (Object[] r : batch.rows()) {
                        if (Boolean.TRUE.equals(r[1])) {
                            cursor = ((java.time.Instant) r[0]).toEpochMilli();
                            for (var e : open.entrySet()) {
                                ready.computeIfAbsent(e.getKey(), t -> new ArrayList<>()).addAll(e.getValue());
                                readyCount += e.getValue().size();
                            }
                            open.clear();
                            continue;
                        }
                        long time = ((java.time.Instant) r[0]).toEpochMilli();
                        open.computeIfAbsent(time, t -> new ArrayList<>()).add(new SinkEnvelope.Change(java.util.Arrays.copyOfRange(r, 3, 3 + width), (Long) r[2]));
                    }
                } else if (ev instanceof Jobs.Ended end) {
                    if (end.error() != null) throw end.error();
                    if (!ready.isEmpty() || cursor != written) writer = write(j, writer, token, ready, cursor, host);
                    j.state = "stopped: what it reads was dropped";
                    return;
                }
                boolean due = !ready.isEmpty() ? ev == null || readyCount >= 65_536
                        : cursor != written && System.nanoTime() - lastWrite >= PROGRESS_ONLY_MILLIS * 1_000_000;
                if (due && !j.stopping) {
                    writer = write(j, writer, token, ready, cursor, host);
                    if (writer == null) return;
                    ready.clear();
                    readyCount = 0;
                    written = cursor;
                    lastWrite = System.nanoTime();
                }
            }
        } catch (InterruptedException | dev.tributary.server.source.SourceStopped e) {
            Thread.currentThread().interrupt();
            // stopping
        } catch (KafkaSinkWriter.FencedOut e) {
            fail(j, "failed: " + e.getMessage());
            ServerLog.log("sink " + name + " stopped: " + e.getMessage());
        } catch (SqlException e) {
            fail(j, "failed: " + e.getMessage() + " [" + e.sqlState() + "]");
            ServerLog.log("sink " + name + " failed: " + e.getMessage());
        } catch (RuntimeException e) {
            if (!j.stopping) {
                fail(j, "failed: " + e);
                ServerLog.error("sink " + name + " failed: " + e, e);
            }
        } finally {
            if (writer != null) {
                // the producer's close waits for its sender thread, which an interrupt (a stop) would cut short
                boolean interrupted = Thread.interrupted();
                try {
                    writer.close();
                } catch (RuntimeException e) {
                    ServerLog.log("sink " + name + ": its Kafka writer did not close cleanly: " + e);
                }
                if (interrupted) Thread.currentThread().interrupt();
            }
            j.changed();
        }
    }

    private static void fail(Jobs.Job j, String state) {
        j.state = state;
        Subscription s = j.subscription;
        if (s != null) s.close();
    }

    /**
     * Writes the changes {@code ready} (by time) with progress {@code upper}, then records the
     * cursor; on a Kafka failure opens another writer and writes again what its progress says is
     * missing. Returns the writer to go on with (null: the sink stops).
     */
    private static KafkaSinkWriter write(Jobs.Job j, KafkaSinkWriter writer, String token, TreeMap<Long, List<SinkEnvelope.Change>> ready, long upper,
                                         Host host) throws InterruptedException {
        long from = j.kafkaUpper;
        while (true) {
            List<ProducerRecord<byte[], byte[]>> messages = messages(j, ready, from);
            try {
                writer.write(messages, upper);
                j.messages += messages.size();
                break;
            } catch (KafkaSinkWriter.FencedOut e) {
                throw e;
            } catch (RuntimeException e) {
                if (j.stopping) return null;
                ServerLog.log("sink " + j.item.name() + ": a write to Kafka failed, opening another writer: " + e);
                j.state = "waiting: Kafka at " + j.kafka.brokers() + ": " + e.getMessage();
                try {
                    writer.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
                writer = open(j, token);
                if (writer == null) return null;
                from = writer.resumeFrom();
                // the failed transaction committed after all: nothing of it goes twice
                if (from >= upper) break;
                j.state = "running";
            }
        }
        j.kafkaUpper = upper;
        j.state = "running";
        betweenCommits.accept(j);
        host.commitCursor(j, upper);
        return writer;
    }

    /** The messages of the times in {@code ready} not before {@code from} (what Kafka already holds), in time order. */
    private static List<ProducerRecord<byte[], byte[]>> messages(Jobs.Job j, TreeMap<Long, List<SinkEnvelope.Change>> ready, long from) {
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
        String topic = j.kafka.topic();
        for (Map.Entry<Long, List<SinkEnvelope.Change>> e : ready.tailMap(from, true).entrySet()) {
            byte[] time = Long.toString(e.getKey()).getBytes(StandardCharsets.UTF_8);
            for (SinkEnvelope.Message m : j.envelope.encode(e.getKey(), e.getValue())) {
                out.add(new ProducerRecord<>(topic, null, null, m.key(), m.value(), List.of(new RecordHeader(TIME_HEADER, time))));
            }
        }
        return out;
    }

    /** Opens the sink's writer, again and again (0.5 s, doubling to 30 s) while Kafka fails; null once the sink stops. */
    private static KafkaSinkWriter open(Jobs.Job j, String token) throws InterruptedException {
        long pause = 500;
        while (!j.stopping) {
            try {
                return KafkaSinkWriter.open(j.item.name() + "-" + token, j.kafka.brokers(), j.kafka.topic(), j.kafka.progressTopic());
            } catch (java.util.concurrent.ExecutionException | RuntimeException e) {
                if (j.stopping) return null;
                Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
                j.state = "waiting: Kafka at " + j.kafka.brokers() + ": " + cause.getMessage();
                j.changed();
                ServerLog.log("sink " + j.item.name() + " could not open its Kafka writer, trying again in " + pause + " ms: " + cause);
                // woken early by a stop (Jobs.stop), which does not interrupt a sink
                j.await(x -> x.stopping, pause);
                pause = Math.min(pause * 2, 30_000);
            }
        }
        return null;
    }
}
