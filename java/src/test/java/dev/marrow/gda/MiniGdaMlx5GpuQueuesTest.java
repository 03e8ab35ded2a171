// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.mlx5.Mlx5GpuQueuePair.Indexes;
import org.junit.jupiter.api.Test;

import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * mini-gda on mlx5 with GPU-resident queues (DevX, docs/design/mlx5-queue-formats.md §7) on a
 * machine that lacks the GPU, the NIC or DevX: the CLI and the API reach the DevX path and stop
 * there with exit 77 and the first missing piece; and the host-side resume check of the doorbell
 * records (read back with cudaMemcpy after a run) accepts exactly the counters the run moved.
 */
class MiniGdaMlx5GpuQueuesTest {

    private static void assumeSomethingMissing() {
        assumeFalse(Backend.CUDA.isAvailable() && Backend.VERBS.isAvailable(),
                "a GPU and an mlx5 device are present: the hardware tests run this path there");
    }

    /** The reason the combination is unavailable here, in the order the session checks it. */
    private static void assertNamesTheFirstMissingPiece(String err) {
        assertTrue(err.contains(MiniGda.GPU_QUEUES), err);
        if (!Backend.CUDA.isAvailable()) {
            assertTrue(err.contains("no usable GPU to hold the queues"), err);
            assertTrue(err.contains(Backend.CUDA.unavailabilityCause().getMessage()), err);
        } else {
            assertTrue(err.contains("no mlx5 device"), err);
            assertTrue(err.contains(Backend.VERBS.unavailabilityCause().getMessage()), err);
        }
        assertFalse(err.toLowerCase(Locale.ROOT).contains("not implemented"), err);
        assertFalse(err.contains("does not yet wire"), err);
    }

    @Test
    void latencyOnOneHostExits77WithTheReason() {
        assumeSomethingMissing();
        GdaCommandTest.Out r = GdaCommandTest.run("gda", "latency", "--target", "cuda", "--nic", "mlx5",
                "--placement", "gpu", "--iters", "10", "--warmup", "1");
        assertEquals(77, r.exit(), r.err());
        assertNamesTheFirstMissingPiece(r.err());
    }

    @Test
    void twoHostInitiatorStopsBeforeAnyExchange() {
        assumeSomethingMissing();
        // Nothing listens on port 9: reaching the TCP exchange would fail differently (exit 1).
        GdaCommandTest.Out r = GdaCommandTest.run("gda", "latency", "--target", "cuda", "--nic", "mlx5",
                "--placement", "gpu", "--peer", "127.0.0.1:9", "--iters", "10", "--warmup", "1");
        assertEquals(77, r.exit(), r.err());
        assertNamesTheFirstMissingPiece(r.err());
    }

    @Test
    void theApiThrowsUnavailableAndTheCpuTargetIsAUsageError() {
        assumeSomethingMissing();
        GdaSetup gpu = GdaSetup.defaults(Target.CUDA).withNic(Nic.MLX5).withPlacement(Placement.GPU);
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> MiniGda.open(gpu));
        assertNamesTheFirstMissingPiece(e.getMessage());
        GdaSetup cpu = GdaSetup.defaults(Target.CPU).withNic(Nic.MLX5).withPlacement(Placement.GPU);
        IllegalArgumentException u = assertThrows(IllegalArgumentException.class, () -> MiniGda.open(cpu));
        assertTrue(u.getMessage().contains("--target cuda"), u.getMessage());
    }

    @Test
    void resumeAcceptsCountersThatMovedByTheRunAcrossTheirWrap() {
        // 16-bit SQ producer counter, 24-bit CQ consumer index: both wrap during this run.
        Indexes before = new Indexes(0xfff0, 0xfffff0);
        Indexes after = new Indexes(0x0030, 0x000010);
        assertNull(MiniGda.resumeMismatch(before, after, 0x40, 0x20));
        assertNull(MiniGda.resumeMismatch(after, after, 0, 0), "a QP that did not post stays put");
    }

    @Test
    void resumeRefusesCountersThatDisagreeWithTheRun() {
        Indexes before = new Indexes(0x100, 0x80);
        String sq = MiniGda.resumeMismatch(before, new Indexes(0x13f, 0xa0), 0x40, 0x20);
        assertNotNull(sq, "one WQEBB missing");
        assertTrue(sq.contains("0x100 -> 0x13f") && sq.contains("64 WQEBBs posted"), sq);
        String cq = MiniGda.resumeMismatch(before, new Indexes(0x140, 0x9f), 0x40, 0x20);
        assertNotNull(cq, "one CQE not consumed");
        assertTrue(cq.contains("0x80 -> 0x9f") && cq.contains("32 CQEs consumed"), cq);
    }
}
