// SPDX-License-Identifier: Apache-2.0
package dev.marrow.preflight;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import static dev.marrow.preflight.Finding.Status.FAIL;
import static dev.marrow.preflight.Finding.Status.OK;
import static dev.marrow.preflight.Finding.Status.WARN;
import static dev.marrow.preflight.PreflightFixtures.delete;
import static dev.marrow.preflight.PreflightFixtures.link;
import static dev.marrow.preflight.PreflightFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every check's ok, warn and fail path (a check whose worst outcome is warn:
 * ok and warn) against the fixture trees of src/test/resources/preflight:
 * "good" is an H200 + ConnectX node set up for GPU-initiated RDMA, "bare" a
 * virtual machine with neither; each test edits a copy of one.
 */
class PreflightTest {
    @TempDir
    Path tmp;
    Path good;

    static final String SMI = "0, 00000000:03:00.0, 1980, 1980, 1980, Enabled\n";
    static final String NIC = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0/";
    static final String PORT = "sys/class/infiniband/mlx5_0/ports/1/";

    @BeforeEach
    void copy() {
        good = PreflightFixtures.tree("good", tmp);
    }

    /** The good tree with nvidia-smi answering smi and a DevX probe answering why (null: opens). */
    static Host host(Path root, String smi, Function<String, String> devx) {
        return new Host(root, cmd -> cmd.get(0).equals("nvidia-smi") ? Optional.ofNullable(smi) : Optional.empty(),
                Optional.ofNullable(devx), Optional::empty);
    }

    Finding check(String name) {
        return Preflight.check(host(good, SMI, n -> null), name);
    }

    static void assertStatus(Finding.Status want, Finding f, String... inDetail) {
        assertEquals(want, f.status(), f.toString());
        for (String s : inDetail) {
            assertTrue(f.detail().contains(s), "'" + s + "' not in: " + f.detail());
        }
        assertEquals(want != OK, !f.fix().isEmpty(), "a fix exactly when not ok: " + f);
    }

    @Test
    void goodNodePassesEveryCheck() {
        List<Finding> all = Preflight.run(host(good, SMI, n -> null));
        assertEquals(Preflight.CHECKS, all.stream().map(Finding::check).toList());
        for (Finding f : all) {
            assertStatus(OK, f);
        }
        assertEquals(0, Preflight.failures(all));
    }

    @Test
    void bareMachineFailsWithAFixForEachFailure() {
        Path bare = PreflightFixtures.tree("bare", tmp);
        List<Finding> all = Preflight.run(Host.tree(bare));
        for (String c : List.of("gpu", "peer-mapping", "gpu-memory-registration", "devx", "memlock", "pcie-path",
                "link", "roce-qos")) {
            Finding f = all.get(Preflight.CHECKS.indexOf(c));
            assertStatus(FAIL, f);
        }
        assertEquals(8, Preflight.failures(all));
    }

    @Test
    void gpu() throws IOException {
        assertStatus(OK, check("gpu"), "0000:03:00.0", "550.54.15", "open kernel module");
        delete(good, "proc/driver/nvidia/version");
        assertStatus(FAIL, check("gpu"), "no driver");
    }

    @Test
    void peerMapping() throws IOException {
        assertStatus(OK, check("peer-mapping"), "PeerMappingOverride=1");
        String params = Files.readString(good.resolve("proc/driver/nvidia/params"));
        write(good, "proc/driver/nvidia/params", params.replace("\"PeerMappingOverride=1;\"", "\"RmMsg=0;\""));
        assertStatus(FAIL, check("peer-mapping"), "RmMsg=0");
        write(good, "proc/self/status", "Name:\tjava\nUid:\t0\t0\t0\t0\n");
        assertStatus(WARN, check("peer-mapping"), "root");
    }

    @Test
    void gpuMemoryRegistration() throws IOException {
        assertStatus(OK, check("gpu-memory-registration"), "nvidia_peermem");
        delete(good, "sys/module/nvidia_peermem");
        write(good, "proc/modules", "nvidia 54325248 0 - Live 0x0 (POE)\n");
        assertStatus(OK, check("gpu-memory-registration"), "dma-buf");
        write(good, "proc/sys/kernel/osrelease", "5.4.0-150-generic");
        assertStatus(FAIL, check("gpu-memory-registration"), "Linux >= 5.12");
        write(good, "proc/sys/kernel/osrelease", "6.8.0");
        write(good, "proc/driver/nvidia/version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.183.01  "
                + "Sun May 12 19:39:15 UTC 2024\n");
        assertStatus(FAIL, check("gpu-memory-registration"), "535.183.01", "proprietary");
        write(good, "proc/modules", "nv_peer_mem 16384 0 - Live 0x0\n");
        assertStatus(OK, check("gpu-memory-registration"));
    }

    @Test
    void devx() throws IOException {
        assertStatus(OK, check("devx"), "mlx5_0");
        assertStatus(WARN, Preflight.check(host(good, SMI, null), "devx"), "not opened");
        assertStatus(FAIL, Preflight.check(host(good, SMI, n -> "libmlx5 has no mlx5dv_devx_obj_create"), "devx"),
                "mlx5dv_devx_obj_create");
        delete(good, "dev/infiniband");
        assertStatus(FAIL, check("devx"), "uverbs");
    }

    @Test
    void memlock() throws IOException {
        assertStatus(OK, check("memlock"), "unlimited");
        String limits = Files.readString(good.resolve("proc/self/limits"));
        String locked = limits.lines().filter(l -> l.startsWith("Max locked")).findFirst().orElseThrow();
        write(good, "proc/self/limits", limits.replace(locked, "Max locked memory         8388608              "
                + "8388608              bytes"));
        assertStatus(FAIL, check("memlock"), "8 MiB");
        write(good, "proc/self/status", "Uid:\t0\t0\t0\t0\nCapEff:\t0000000000000000\n");
        assertStatus(FAIL, check("memlock"), "8 MiB"); // root in a container without CAP_IPC_LOCK
        write(good, "proc/self/status", "Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000004000\n");
        assertStatus(OK, check("memlock"), "CAP_IPC_LOCK");
        write(good, "proc/self/status", "Uid:\t1000\t1000\t1000\t1000\n");
        write(good, "proc/self/limits", limits.replace(locked, "Max locked memory         134217728            "
                + "unlimited            bytes"));
        assertStatus(WARN, check("memlock"), "128 MiB");
    }

    @Test
    void pciePath() throws IOException {
        assertStatus(OK, check("pcie-path"), "Marrow picks mlx5_0", "0000:01:00.0");
        write(good, NIC + "numa_node", "1\n");
        assertStatus(WARN, check("pcie-path"), "NUMA 1", "different NUMA nodes");
        // the NIC under another root port of the same host bridge
        String other = "sys/devices/pci0000:00/0000:00:02.0/0000:05:00.0";
        write(good, other + "/numa_node", "0\n");
        link(good, "sys/class/infiniband/mlx5_0/device", "../../../devices/pci0000:00/0000:00:02.0/0000:05:00.0");
        assertStatus(WARN, check("pcie-path"), "host bridge pci0000:00");
        // ... and under another root complex
        write(good, "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/numa_node", "1\n");
        link(good, "sys/class/infiniband/mlx5_0/device", "../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0");
        assertStatus(WARN, check("pcie-path"), "no PCIe root complex");
    }

    @Test
    void pciePathPicksTheNearestOfTwoNics() throws IOException {
        write(good, "sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0/numa_node", "1\n");
        write(good, "sys/class/infiniband/mlx5_1/ports/1/state", "4: ACTIVE\n");
        link(good, "sys/class/infiniband/mlx5_1/device", "../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0");
        // mlx5_1 sorts after mlx5_0 either way; make it the far one and then the near one
        assertStatus(OK, check("pcie-path"), "Marrow picks mlx5_0");
        link(good, "sys/class/infiniband/mlx5_0/device", "../../../devices/pci0000:80/0000:80:01.0/0000:81:00.0");
        link(good, "sys/class/infiniband/mlx5_1/device",
                "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/0000:04:00.0");
        assertStatus(OK, check("pcie-path"), "Marrow picks mlx5_1");
    }

    @Test
    void linkCheck() throws IOException {
        assertStatus(OK, check("link"), "Ethernet", "MTU 9000", "RoCE v2 GID 1 ");
        write(good, NIC + "net/ens1np0/mtu", "1500\n");
        assertStatus(WARN, check("link"), "MTU 1500");
        for (String i : List.of("1", "3")) {
            write(good, PORT + "gid_attrs/types/" + i, "IB/RoCE v1\n");
        }
        assertStatus(FAIL, check("link"), "no RoCE v2 GID");
        write(good, PORT + "state", "1: DOWN\n");
        assertStatus(FAIL, check("link"), "not ACTIVE");
        write(good, PORT + "state", "4: ACTIVE\n");
        write(good, PORT + "link_layer", "InfiniBand\n");
        assertStatus(OK, check("link"), "InfiniBand");
    }

    @Test
    void roceQos() throws IOException {
        assertStatus(OK, check("roce-qos"), "default ToS 106", "priorities [3]");
        write(good, NIC + "net/ens1np0/ecn/roce_rp/enable/3", "0\n");
        assertStatus(WARN, check("roce-qos"), "reaction point on none");
        delete(good, NIC + "net/ens1np0/ecn");
        delete(good, "sys/kernel/config");
        delete(good, "sys/class/infiniband/mlx5_0/tc");
        assertStatus(WARN, check("roce-qos"), "not readable");
        write(good, PORT + "link_layer", "InfiniBand\n");
        assertStatus(OK, check("roce-qos"), "InfiniBand");
    }

    @Test
    void cpuGovernorAndTurbo() throws IOException {
        assertStatus(OK, check("cpu-governor"), "performance on all 4");
        write(good, "sys/devices/system/cpu/cpu2/cpufreq/scaling_governor", "powersave\n");
        assertStatus(WARN, check("cpu-governor"), "performance on 3", "powersave on 1");
        for (int c = 0; c < 4; c++) {
            delete(good, "sys/devices/system/cpu/cpu" + c + "/cpufreq");
        }
        assertStatus(WARN, check("cpu-governor"), "no cpufreq");

        assertStatus(OK, check("cpu-turbo"), "turbo off");
        write(good, "sys/devices/system/cpu/intel_pstate/no_turbo", "0\n");
        assertStatus(WARN, check("cpu-turbo"), "turbo on");
        delete(good, "sys/devices/system/cpu/intel_pstate");
        write(good, "sys/devices/system/cpu/cpufreq/boost", "0\n");
        assertStatus(OK, check("cpu-turbo"), "boost=0");
        delete(good, "sys/devices/system/cpu/cpufreq");
        assertStatus(WARN, check("cpu-turbo"), "not readable");
    }

    @Test
    void gpuClocksAreOnlyRead() {
        assertStatus(OK, Preflight.check(host(good, SMI, n -> null), "gpu-clocks"), "SM 1980/1980 MHz");
        assertStatus(WARN, Preflight.check(host(good, "0, 00000000:03:00.0, 345, 1980, 1500, Enabled\n", null),
                "gpu-clocks"), "below the maximum");
        assertStatus(WARN, Preflight.check(host(good, "0, 00000000:03:00.0, 345, 1980, 1980, Disabled\n", null),
                "gpu-clocks"), "persistence");
        assertStatus(WARN, Preflight.check(host(good, null, null), "gpu-clocks"), "not read");
        List<List<String>> asked = new java.util.ArrayList<>();
        Preflight.check(new Host(good, c -> {
            asked.add(c);
            return Optional.of(SMI);
        }, Optional.empty(), Optional::empty), "gpu-clocks");
        assertEquals(1, asked.size());
        assertTrue(asked.get(0).stream().allMatch(a -> a.equals("nvidia-smi") || a.startsWith("--query-gpu=")
                || a.startsWith("--format=")), "only a query: " + asked);
    }

    @Test
    void iommuAcs() throws IOException {
        assertStatus(OK, check("iommu-acs"), "passthrough", "no ACS redirect on the 3 bridge(s)");
        write(good, "proc/cmdline", "ro intel_iommu=on quiet\n");
        assertStatus(WARN, check("iommu-acs"), "translating");
        write(good, "proc/cmdline", "ro intel_iommu=on iommu=pt quiet\n");
        Path cfg = good.resolve("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/config");
        byte[] b = Files.readAllBytes(cfg);
        // + P2P request and completion redirect
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putShort(0x14e, (short) 0x1f);
        Files.write(cfg, b);
        assertStatus(WARN, check("iommu-acs"), "0000:02:01.0");
        Files.write(cfg, new byte[64]); // what an unprivileged reader gets
        assertStatus(OK, check("iommu-acs"), "not readable");
        delete(good, "sys/class/iommu");
        write(good, "proc/cmdline", "ro quiet\n");
        assertStatus(OK, check("iommu-acs"), "no IOMMU");
    }

    @Test
    void unknownCheckIsRefused() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Preflight.check(Host.tree(good), "nope"));
        assertTrue(e.getMessage().contains("memlock"));
        assertFalse(Preflight.CHECKS.contains("nope"));
    }
}
