package dev.tributary.server.source;

import dev.tributary.sql.types.Bytea;
import dev.tributary.sql.types.SqlType;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What {@code INCLUDE KEY, PARTITION, OFFSET, TIMESTAMP} adds to a Kafka source's rows, after
 * the columns its format fills, in the order INCLUDE names them: the message's key ({@code key}:
 * {@code bytea} for FORMAT BYTES, otherwise {@code text}, UTF-8), its partition ({@code partition
 * integer}), its offset ({@code offset bigint}) and its timestamp ({@code timestamp timestamptz},
 * as the producer or the broker set it; NULL when the message has none).
 */
public enum KafkaMetadata {
    KEY, PARTITION, OFFSET, TIMESTAMP;

    /** The column's name: the word in lower case. */
    public String column() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The column's type; the key's follows the format ({@code bytesKey} for FORMAT BYTES). */
    public SqlType type(boolean bytesKey) {
        return switch (this) {
            case KEY -> bytesKey ? SqlType.BYTEA : SqlType.TEXT;
            case PARTITION -> SqlType.INTEGER;
            case OFFSET -> SqlType.BIGINT;
            case TIMESTAMP -> SqlType.TIMESTAMPTZ;
        };
    }

    /** The metadata {@code INCLUDE} names, by word; an IllegalArgumentException naming what it takes. */
    public static KafkaMetadata of(String word) {
        try {
            return valueOf(word.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("INCLUDE takes KEY, PARTITION, OFFSET and TIMESTAMP, not " + word);
        }
    }

    /** Appends to {@code row} the values {@code include} names for {@code record}. */
    static Object[] append(Object[] row, List<KafkaMetadata> include, boolean bytesKey, ConsumerRecord<byte[], byte[]> record)
            throws DecodeException {
        Object[] out = java.util.Arrays.copyOf(row, row.length + include.size());
        for (int i = 0; i < include.size(); i++) {
            out[row.length + i] = switch (include.get(i)) {
                case KEY -> key(record.key(), bytesKey);
                case PARTITION -> (long) record.partition();
                case OFFSET -> record.offset();
                case TIMESTAMP -> record.timestamp() < 0 ? null : Instant.ofEpochMilli(record.timestamp());
            };
        }
        return out;
    }

    private static Object key(byte[] key, boolean bytes) throws DecodeException {
        if (key == null) return null;
        if (bytes) return Bytea.copyOf(key);
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(key)).toString();
        } catch (CharacterCodingException e) {
            throw new DecodeException("the key is not UTF-8 text (invalid byte sequence for encoding \"UTF8\"); FORMAT BYTES keeps keys as bytea");
        }
    }
}
