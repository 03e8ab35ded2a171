// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * gda loaded, gda goodput and kernel-cost take --nic from the fabric (dev.marrow.fabric.Fabric): the
 * help lists mlx5, and without a ConnectX --nic mlx5 ends with exit 77 and the fabric's reason,
 * before any point runs and without records. Flags that only a software NIC has are usage errors.
 */
class FabricNicCliTest {
    static final List<List<String>> COMMANDS = List.of(List.of("gda", "loaded"), List.of("gda", "goodput"),
            List.of("kernel-cost"));

    static String[] args(List<String> cmd, String... more) {
        List<String> a = new java.util.ArrayList<>(cmd);
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    @Test
    void helpListsTheFabricNics() {
        for (List<String> cmd : COMMANDS) {
            CliTest.Run r = CliTest.run(args(cmd, "--help"));
            assertEquals(0, r.code(), cmd + ": " + r.err());
            assertTrue(r.out().contains("--nic"), cmd + " lists --nic: " + r.out());
            assertTrue(r.out().contains("softnic, mlx5"), cmd + " lists the fabric's NICs: " + r.out());
        }
    }

    @Test
    void mlx5WithoutAConnectXExits77WithTheReason() {
        assumeFalse(Backend.VERBS.isAvailable(), "this host has an mlx5 device; the refusal is tested where none is");
        for (List<String> cmd : COMMANDS) {
            String[] a = cmd.getFirst().equals("kernel-cost")
                    ? args(cmd, "--nic", "mlx5", "--transport", "gda", "--format", "json")
                    : args(cmd, "--nic", "mlx5", "--target", "cuda", "--format", "json");
            CliTest.Run r = CliTest.run(a);
            assertEquals(Main.EXIT_UNAVAILABLE, r.code(), cmd + ": " + r.err());
            assertTrue(r.err().contains("verbs"), cmd + " names the missing backend: " + r.err());
            assertEquals("", r.out(), cmd + ": no records for a run that did not happen");
        }
    }

    @Test
    void softwareNicFlagsAreUsageErrorsOnMlx5() {
        CliTest.Run loaded = CliTest.run("gda", "loaded", "--nic", "mlx5", "--target", "cuda", "--engine-threads", "2");
        assertEquals(ExitCodes.USAGE, loaded.code(), loaded.err());
        assertTrue(loaded.err().contains("--engine-threads applies to --nic softnic only"), loaded.err());
        CliTest.Run goodput = CliTest.run("gda", "goodput", "--nic", "mlx5", "--target", "cuda", "--wire-gbps", "100");
        assertEquals(ExitCodes.USAGE, goodput.code(), goodput.err());
        assertTrue(goodput.err().contains("--wire-gbps models the software NIC's wire"), goodput.err());
    }

    @Test
    void anUnknownNicIsAUsageErrorNamingTheFlag() {
        for (List<String> cmd : COMMANDS) {
            CliTest.Run r = CliTest.run(args(cmd, "--nic", "cx9"));
            assertEquals(ExitCodes.USAGE, r.code(), cmd + ": " + r.err());
            assertTrue(r.err().contains("--nic must be softnic or mlx5"), cmd + ": " + r.err());
        }
    }
}
