// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mini-gda and mini-proxy limits are checked once, in C; a bad flag is
 * still a usage error (exit 2) before anything is built, carrying C's text.
 */
class LimitsCliTest {

    private static void assertRefused(String expected, String... args) {
        CliTest.Run r = CliTest.run(args);
        assertEquals(ExitCodes.USAGE, r.code(), String.join(" ", args) + ": " + r.err());
        assertTrue(r.err().contains(expected), "the library's message, not a Java copy: " + r.err());
    }

    @Test
    void gdaLimitsComeFromTheRunners() {
        assertRefused("iters 0 must be 1..2^32-1", "gda", "latency", "--iters", "0");
        assertRefused("warmup -1 must be 0..", "gda", "latency", "--warmup", "-1");
        assertRefused("timeout -1000000 ns must be > 0", "gda", "latency", "--timeout-ms", "-1");
        assertRefused("round trip polls one 8-byte data word: size must be 8, not 16", "gda", "latency",
                "--experiments", "rtt", "--size", "16");
    }

    @Test
    void proxyLimitsComeFromTheProxyLibrary() {
        assertRefused("batch 0 must be 1..256", "proxy", "rate", "--batch", "0", "--messages", "10");
        assertRefused("workers 100 must be 1..64", "proxy", "latency", "--workers", "100");
        assertRefused("log-slots 21 must be 1..20", "proxy", "latency", "--log-slots", "21");
        assertRefused("size 65 must be 8..64", "proxy", "latency", "--size", "65");
        assertRefused("messages 0 must be >= 1", "proxy", "rate", "--messages", "0");
        assertRefused("size 12 must be a multiple of 8", "proxy", "rate", "--size", "12");
    }

    /** Read from /proc (the GPU machine's runtime has no jdk.management): at least the heap this JVM may use. */
    @Test
    void physicalMemoryIsReadWithoutJdkManagement() {
        long phys = RunBounds.physicalMemoryBytes();
        assertTrue(phys >= Runtime.getRuntime().maxMemory(), phys + " B < the JVM's max heap "
                + Runtime.getRuntime().maxMemory());
        assertEquals(Math.min(16L << 30, phys / 4), RunBounds.maxBufferBytes());
    }
}
