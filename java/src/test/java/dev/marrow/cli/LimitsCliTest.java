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

    private static void refused(String expected, String... args) {
        CliTest.Run r = CliTest.run(args);
        assertEquals(ExitCodes.USAGE, r.code(), String.join(" ", args) + ": " + r.err());
        assertTrue(r.err().contains(expected), "the library's message, not a Java copy: " + r.err());
    }

    @Test
    void gdaLimitsComeFromTheRunners() {
        refused("iters 0 must be 1..2^32-1", "gda", "latency", "--iters", "0");
        refused("warmup -1 must be 0..", "gda", "latency", "--warmup", "-1");
        refused("timeout -1000000 ns must be > 0", "gda", "latency", "--timeout-ms", "-1");
        refused("round trip polls one 8-byte data word: size must be 8, not 16", "gda", "latency",
                "--experiments", "rtt", "--size", "16");
    }

    @Test
    void proxyLimitsComeFromTheProxyLibrary() {
        refused("batch 0 must be 1..256", "proxy", "rate", "--batch", "0", "--messages", "10");
        refused("workers 100 must be 1..64", "proxy", "latency", "--workers", "100");
        refused("log-slots 21 must be 1..20", "proxy", "latency", "--log-slots", "21");
        refused("size 65 must be 8..64", "proxy", "latency", "--size", "65");
        refused("messages 0 must be >= 1", "proxy", "rate", "--messages", "0");
        refused("size 12 must be a multiple of 8", "proxy", "rate", "--size", "12");
    }
}
