// SPDX-License-Identifier: Apache-2.0
package dev.marrow.preflight;

import dev.marrow.mlx5.NicTopology;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The PCIe facts the checks need, from sysfs under a root: the NVIDIA GPUs
 * and mlx5 devices, the GPU-NIC pair Marrow picks ({@link NicTopology}, the
 * default of --device) and the bridges between them, and ACS redirection on
 * those bridges when their extended config space is readable (root only).
 * docs/design/preflight.md describes the layout read here.
 */
final class Pcie {
    private Pcie() {
    }

    static final Pattern BDF = Pattern.compile("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]");
    static final String NVIDIA = "0x10de";

    /** An NVIDIA display or 3D controller (class 0x0300xx or 0x0302xx); sorted by bus id. */
    static List<String> gpus(Host h) {
        List<String> out = new ArrayList<>();
        for (Path d : h.list("/sys/bus/pci/devices", "*")) {
            String cls = Host.read(d.resolve("class")).orElse("");
            if (Host.read(d.resolve("vendor")).orElse("").equals(NVIDIA)
                    && (cls.startsWith("0x0300") || cls.startsWith("0x0302"))) {
                out.add(d.getFileName().toString());
            }
        }
        return out;
    }

    static List<String> mlx5(Host h) {
        return h.list("/sys/class/infiniband", "mlx5*").stream().map(p -> p.getFileName().toString()).toList();
    }

    /** The GPU the commands use by default: CUDA device 0 when CUDA says, else the lowest bus id. */
    static Optional<String> defaultGpu(Host h, List<String> gpus) {
        Optional<String> cuda = h.cudaGpu0().get();
        if (cuda.isPresent()) {
            return cuda;
        }
        return gpus.isEmpty() ? Optional.empty() : Optional.of(gpus.get(0));
    }

    /** A GPU, the NIC Marrow pairs with it, and the resolved sysfs paths of both. */
    record Pair(String gpu, NicTopology.Choice nic, Path gpuPath, Path nicPath) {
        /** The deepest element both paths share below /sys/devices: a bridge, a host bridge (pciDDDD:BB) or none. */
        String common() {
            String last = null;
            int n = Math.min(gpuPath.getNameCount(), nicPath.getNameCount());
            for (int i = 0; i < n && gpuPath.getName(i).equals(nicPath.getName(i)); i++) {
                last = gpuPath.getName(i).toString();
            }
            return last;
        }

        /** The PCI bridges from each end up to and including the shared one (the ends excluded). */
        List<Path> bridges() {
            List<Path> out = new ArrayList<>();
            for (Path end : List.of(gpuPath, nicPath)) {
                for (Path p = end.getParent(); p != null && BDF.matcher(p.getFileName().toString()).matches();
                     p = p.getParent()) {
                    if (!out.contains(p)) {
                        out.add(p);
                    }
                    if (gpuPath.startsWith(p) && nicPath.startsWith(p)) {
                        break;
                    }
                }
            }
            return out;
        }
    }

    static Optional<Pair> pair(Host h, String gpu) {
        Path sys = h.path("/sys");
        Optional<NicTopology.Choice> c = NicTopology.closestMlx5(sys, gpu);
        if (c.isEmpty()) {
            return Optional.empty();
        }
        try {
            Path g = sys.resolve("bus/pci/devices").resolve(gpu).toRealPath();
            Path n = sys.resolve("class/infiniband").resolve(c.get().device()).resolve("device").toRealPath();
            return Optional.of(new Pair(gpu, c.get(), g, n));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static String numa(Path device) {
        return Host.read(device.resolve("numa_node")).orElse("?");
    }

    /** The PCIe extended capability id of Access Control Services (PCIe base specification). */
    static final int ACS_CAP_ID = 0x000d;
    /** ACS control bits that send peer-to-peer requests and completions up to the root complex. */
    static final int ACS_P2P_REQUEST_REDIRECT = 1 << 2;
    static final int ACS_P2P_COMPLETION_REDIRECT = 1 << 3;

    /** A bridge's ACS state: whether its extended config space was readable (root only); control -1: no ACS. */
    record Acs(boolean readable, int control) {
        boolean redirects() {
            return control > 0 && (control & (ACS_P2P_REQUEST_REDIRECT | ACS_P2P_COMPLETION_REDIRECT)) != 0;
        }
    }

    /**
     * Walks the extended capability list from offset 0x100 (each header: id in bits 15:0, next offset in
     * 31:20) to ACS, whose control register is the 16 bits at +6. sysfs gives an unprivileged reader only the
     * first 64 bytes of config, so anything shorter than the extended space is "not readable".
     */
    static Acs acs(Path bridge) {
        byte[] cfg;
        try {
            cfg = Files.readAllBytes(bridge.resolve("config"));
        } catch (IOException | RuntimeException e) {
            return new Acs(false, -1);
        }
        if (cfg.length < 0x108) {
            return new Acs(false, -1);
        }
        ByteBuffer b = ByteBuffer.wrap(cfg).order(ByteOrder.LITTLE_ENDIAN);
        int off = 0x100;
        for (int hops = 0; off >= 0x100 && off + 8 <= cfg.length && hops < 64; hops++) {
            int header = b.getInt(off);
            if (header == 0 || header == -1) {
                break;
            }
            if ((header & 0xffff) == ACS_CAP_ID) {
                return new Acs(true, b.getShort(off + 6) & 0xffff);
            }
            off = (header >>> 20) & 0xffc;
        }
        return new Acs(true, -1);
    }
}
