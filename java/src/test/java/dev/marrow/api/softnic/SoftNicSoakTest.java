// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Soak through the Java API: 10,000 open/close cycles of a whole loopback rig
 * (device and engine thread, CQ, QP, two MRs, their arena), each carrying one
 * message, must leave the native heap and the open-file count flat.
 *
 * <p>The JVM's own RSS moves with JIT compilation and the Java heap, so the leak
 * signal is glibc's {@code mallinfo2()}: bytes in use by malloc (small blocks
 * plus mmapped ones), which is where both the software NIC and FFM arenas
 * allocate. RSS is printed beside it for the record.
 */
@Tag("hardening") // long: scripts/test leaves it out, .ci/run runs it (README "Tests")
class SoftNicSoakTest {
    private static final int WARMUP = 2_000;
    private static final int CYCLES = Integer.getInteger("marrow.soak.cycles", 10_000);
    private static final long BOUND_BYTES = 1L << 20;

    /** glibc's struct mallinfo2: ten size_t fields. */
    private static final StructLayout MALLINFO2 = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG.withName("arena"), ValueLayout.JAVA_LONG.withName("ordblks"),
            ValueLayout.JAVA_LONG.withName("smblks"), ValueLayout.JAVA_LONG.withName("hblks"),
            ValueLayout.JAVA_LONG.withName("hblkhd"), ValueLayout.JAVA_LONG.withName("usmblks"),
            ValueLayout.JAVA_LONG.withName("fsmblks"), ValueLayout.JAVA_LONG.withName("uordblks"),
            ValueLayout.JAVA_LONG.withName("fordblks"), ValueLayout.JAVA_LONG.withName("keepcost"));
    private static final MethodHandle MALLINFO2_FN = Linker.nativeLinker().defaultLookup().find("mallinfo2")
            .map(a -> Linker.nativeLinker().downcallHandle(a, FunctionDescriptor.of(MALLINFO2)))
            .orElse(null);

    private static long mallocInUse() throws Throwable {
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment m = (MemorySegment) MALLINFO2_FN.invokeExact((java.lang.foreign.SegmentAllocator) arena);
            long small = m.get(ValueLayout.JAVA_LONG, MALLINFO2.byteOffset(MemoryLayout.PathElement.groupElement("uordblks")));
            long mapped = m.get(ValueLayout.JAVA_LONG, MALLINFO2.byteOffset(MemoryLayout.PathElement.groupElement("hblkhd")));
            return small + mapped;
        }
    }

    private static long openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    private static long rssBytes() throws IOException {
        String[] f = Files.readString(Path.of("/proc/self/statm")).trim().split("\\s+");
        return Long.parseLong(f[1]) * 4096;
    }

    private static void cycle(int i) {
        try (LoopbackRig rig = new LoopbackRig(SoftNic.Options.defaults().withQuiet(true), 4, 4, 64, 64)) {
            long[] s = SoftNicBench.latency(rig.qp(), 8, 1, 0, rig.source(), rig.destination(), 5_000_000_000L);
            assertEquals(1, s.length, "cycle " + i);
            assertTrue(s[0] > 0, "cycle " + i + ": latency sample " + s[0]);
        }
    }

    @Test
    void tenThousandRigCyclesLeaveNativeMemoryAndFdsFlat() throws Throwable {
        org.junit.jupiter.api.Assumptions.assumeTrue(MALLINFO2_FN != null && Files.isDirectory(Path.of("/proc/self/fd")),
                "needs glibc's mallinfo2 and /proc (Linux)");
        for (int i = 0; i < WARMUP; i++) {
            cycle(i);
        }
        System.gc();
        long heap0 = mallocInUse(), fd0 = openFds(), rss0 = rssBytes();
        long t0 = System.nanoTime();
        for (int i = 0; i < CYCLES / 2; i++) {
            cycle(WARMUP + i);
        }
        System.gc();
        long heapHalf = mallocInUse();
        for (int i = CYCLES / 2; i < CYCLES; i++) {
            cycle(WARMUP + i);
        }
        System.gc();
        long heap1 = mallocInUse(), fd1 = openFds(), rss1 = rssBytes();
        // A leak grows in both halves alike; the JVM's own one-off mallocs (a C2
        // compilation's arena kept in its chunk pool: megabytes, seen in CI) land
        // in one. So the leak estimate is the smaller half, scaled to the whole run.
        long leak = 2 * Math.min(heapHalf - heap0, heap1 - heapHalf);
        System.out.printf("soak (Java API): %d cycles in %.1f s; malloc in use %d -> %d -> %d KiB (leak estimate %d KiB); "
                        + "RSS %d -> %d KiB; fds %d -> %d%n", CYCLES, (System.nanoTime() - t0) / 1e9,
                heap0 >> 10, heapHalf >> 10, heap1 >> 10, leak >> 10, rss0 >> 10, rss1 >> 10, fd0, fd1);
        assertEquals(fd0, fd1, "open file descriptors");
        assertTrue(leak < BOUND_BYTES,
                "native heap grew in both halves: " + (heapHalf - heap0) + " and " + (heap1 - heapHalf) + " bytes over "
                        + CYCLES / 2 + " cycles each");
    }
}
