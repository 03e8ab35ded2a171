// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;

/**
 * Which mlx5 device is closest to a GPU in the PCIe tree, read from sysfs:
 * each RDMA device's {@code /sys/class/infiniband/NAME/device} and the GPU's
 * {@code /sys/bus/pci/devices/BUS_ID} resolve to paths through the PCIe
 * hierarchy ({@code /sys/devices/pci0000:00/0000:00:01.0/...}); the distance
 * is the number of hops from one to the other through their deepest common
 * bridge. The nearest wins (ties: the smaller name), which is how a GPU and
 * its NIC behind one PCIe switch are paired. The default of --device when a
 * GPU is known; recorded in the result as how the device was chosen.
 */
public final class NicTopology {
    private NicTopology() {
    }

    /** @param hops PCIe hops between the GPU and the device (0: the same function) */
    public record Choice(String device, int hops, String gpuPciBusId) {
        public String describe() {
            return "closest to GPU " + gpuPciBusId + " in the PCIe tree (" + hops + " hops)";
        }
    }

    /** sysfsRoot: "/sys" (tests pass a tree of their own). Empty when nothing can be resolved. */
    public static Optional<Choice> closestMlx5(Path sysfsRoot, String gpuPciBusId) {
        if (gpuPciBusId == null || gpuPciBusId.isBlank()) {
            return Optional.empty();
        }
        Path gpu;
        try {
            gpu = sysfsRoot.resolve("bus/pci/devices").resolve(normalise(gpuPciBusId)).toRealPath();
        } catch (IOException e) {
            return Optional.empty();
        }
        Choice best = null;
        try (DirectoryStream<Path> devs = Files.newDirectoryStream(sysfsRoot.resolve("class/infiniband"), "mlx5*")) {
            for (Path d : devs) {
                Path pci;
                try {
                    pci = d.resolve("device").toRealPath();
                } catch (IOException e) {
                    continue; // a device without a PCI function (e.g. a software RDMA device)
                }
                int hops = hops(gpu, pci);
                String name = d.getFileName().toString();
                if (best == null || hops < best.hops() || (hops == best.hops() && name.compareTo(best.device()) < 0)) {
                    best = new Choice(name, hops, gpuPciBusId);
                }
            }
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(best);
    }

    /** Hops between two sysfs device paths through their deepest common ancestor. */
    static int hops(Path a, Path b) {
        int common = 0;
        int n = Math.min(a.getNameCount(), b.getNameCount());
        while (common < n && a.getName(common).equals(b.getName(common))) {
            common++;
        }
        return (a.getNameCount() - common) + (b.getNameCount() - common);
    }

    /** CUDA prints "00000000:1B:00.0"; sysfs names it "0000:1b:00.0". */
    static String normalise(String busId) {
        String s = busId.strip().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        if (colon > 4 && s.indexOf(':', colon + 1) > 0) {
            s = s.substring(colon - 4);
        }
        return s;
    }
}
