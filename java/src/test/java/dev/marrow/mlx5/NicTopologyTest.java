// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The NIC closest to a GPU, on a sysfs tree built like a two-switch host's. */
class NicTopologyTest {

    /** /sys/devices/pci0000:00/<root port>/<switch up>/<switch down>/<function>, and the class/bus links. */
    private static Path function(Path sys, String... chain) throws Exception {
        Path p = sys.resolve("devices/pci0000:00");
        for (String c : chain) {
            p = p.resolve(c);
        }
        Files.createDirectories(p);
        return p;
    }

    private static void rdma(Path sys, String name, Path fn) throws Exception {
        Path d = sys.resolve("class/infiniband").resolve(name);
        Files.createDirectories(d);
        Files.createSymbolicLink(d.resolve("device"), fn);
    }

    @Test
    void theNicBehindTheGpusSwitchWins(@TempDir Path sys) throws Exception {
        Path gpu = function(sys, "0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:1b:00.0");
        Path nicFar = function(sys, "0000:00:03.0", "0000:05:00.0", "0000:06:00.0", "0000:07:00.0");
        Path nicNear = function(sys, "0000:00:01.0", "0000:01:00.0", "0000:02:01.0", "0000:1c:00.0");
        Files.createDirectories(sys.resolve("bus/pci/devices"));
        Files.createSymbolicLink(sys.resolve("bus/pci/devices/0000:1b:00.0"), gpu);
        rdma(sys, "mlx5_0", nicFar);
        rdma(sys, "mlx5_1", nicNear);
        Files.createDirectories(sys.resolve("class/infiniband/rxe0")); // not mlx5: ignored
        NicTopology.Choice c = NicTopology.closestMlx5(sys, "00000000:1B:00.0").orElseThrow();
        assertEquals("mlx5_1", c.device());
        assertEquals(4, c.hops()); // up to the switch's upstream port, down to the NIC
        assertTrue(c.describe().contains("00000000:1B:00.0"), c.describe());
    }

    @Test
    void nothingToResolveIsEmpty(@TempDir Path sys) throws Exception {
        assertTrue(NicTopology.closestMlx5(sys, "0000:1b:00.0").isEmpty());
        assertTrue(NicTopology.closestMlx5(sys, null).isEmpty());
        Path gpu = function(sys, "0000:00:01.0", "0000:1b:00.0");
        Files.createDirectories(sys.resolve("bus/pci/devices"));
        Files.createSymbolicLink(sys.resolve("bus/pci/devices/0000:1b:00.0"), gpu);
        Files.createDirectories(sys.resolve("class/infiniband/mlx5_0")); // no PCI function behind it
        assertTrue(NicTopology.closestMlx5(sys, "0000:1b:00.0").isEmpty());
    }

    @Test
    void busIdsAreReadInCudasAndSysfssSpelling() {
        assertEquals("0000:1b:00.0", NicTopology.normalise("00000000:1B:00.0"));
        assertEquals("0000:1b:00.0", NicTopology.normalise("0000:1b:00.0"));
    }
}
