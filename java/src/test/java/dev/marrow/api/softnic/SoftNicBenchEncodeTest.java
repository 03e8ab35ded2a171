// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import dev.marrow.api.NativeException;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SoftNicBench.encode (what bench/'s WqeEncodeBenchmark calls): the binding reaches
 * marrow_emu_bench_encode, whose WQEs native/tests/test_softnic_bench_encode.c checks field by field;
 * here the control segment's first two words and the refusal of a ring larger than its memory.
 */
class SoftNicBenchEncodeTest {
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    @Test
    void writesAnRdmaWriteControlSegment() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sq = a.allocate(64 * 64, 64);
            SoftNicBench.encode(sq, 6, 0x42, 8, 64, 2);
            // opmod 0 | WQEBB counter << 8 | opcode RDMA WRITE (0x08); qpn << 8 | ds (8 bytes inline: 3)
            assertEquals(0x08, sq.get(BE32, 0));
            assertEquals(0x42 << 8 | 3, sq.get(BE32, 4));
            assertEquals(1 << 8 | 0x08, sq.get(BE32, 64), "the second WQE at WQEBB counter 1");
        }
    }

    @Test
    void refusesARingLargerThanItsMemory() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment sq = a.allocate(64 * 63, 64);
            NativeException e = assertThrows(NativeException.class, () -> SoftNicBench.encode(sq, 6, 1, 8, 64, 1));
            assertTrue(e.getMessage().contains("not the 4096 of 2^6 WQEBBs"), e.getMessage());
            assertEquals(0, sq.get(BE32, 0), "nothing written");
        }
    }
}
