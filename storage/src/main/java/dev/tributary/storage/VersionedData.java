package dev.tributary.storage;

import java.util.Arrays;

/**
 * One version of a consensus key's value: its sequence number (0 for the first, one more for
 * each compare-and-set after) and its bytes. The bytes are not copied: treat them as immutable.
 */
public record VersionedData(long seqNo, byte[] data) {
    public VersionedData {
        if (seqNo < 0) throw new IllegalArgumentException("a sequence number is not negative: " + seqNo);
        if (data == null) throw new IllegalArgumentException("versioned data needs bytes");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VersionedData v && v.seqNo == seqNo && Arrays.equals(v.data, data);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(seqNo) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "VersionedData[seqNo=" + seqNo + ", " + data.length + " bytes]";
    }
}
