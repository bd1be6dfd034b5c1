package dev.tributary.arrangements;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link BytesColumn#reserve} makes room and nothing else: the values before and after it are as added. */
class BytesColumnReserveTest {
    @Test
    void reserveKeepsTheValuesAndMakesRoomOnce() {
        BytesColumn c = new BytesColumn(1, 4);
        c.add(new byte[] {1, 2, 3});
        c.reserve(1000);
        byte[] slab = c.slab();
        assertThat(slab.length).isGreaterThanOrEqualTo(1003);
        for (int i = 0; i < 100; i++) c.add(new byte[] {(byte) i, 7, 7, 7, 7, 7, 7, 7, 7, 7});
        assertThat(c.slab()).as("no growth within the room reserved").isSameAs(slab);
        assertThat(c.size()).isEqualTo(101);
        assertThat(c.bytesUsed()).isEqualTo(1003);
        assertThat(c.getBytes(0)).containsExactly(1, 2, 3);
        assertThat(c.getBytes(100)).containsExactly(99, 7, 7, 7, 7, 7, 7, 7, 7, 7);
        c.reserve(0);
        assertThat(c.slab()).isSameAs(slab);
    }
}
