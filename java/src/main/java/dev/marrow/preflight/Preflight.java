// SPDX-License-Identifier: Apache-2.0
package dev.marrow.preflight;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Why GPU-initiated RDMA will or will not work on this node, before a run:
 * each check reads sysfs/procfs under {@link Host#root()} (and, for the real
 * root only, nvidia-smi and the native DevX probe), never changes anything,
 * and answers ok, warn or fail with a one-line fix. What each check reads and
 * why is in docs/design/preflight.md.
 */
public final class Preflight {
    private Preflight() {
    }

    /** The checks in the order they print; names are stable (tests and JSON use them). */
    public static final List<String> CHECKS = List.of("gpu", "peer-mapping", "gpu-memory-registration", "devx",
            "memlock", "pcie-path", "link", "roce-qos", "cpu-governor", "cpu-turbo", "gpu-clocks", "iommu-acs");

    public static List<Finding> run(Host h) {
        List<Finding> out = new ArrayList<>();
        for (String c : CHECKS) {
            out.add(check(h, c));
        }
        return out;
    }

    public static Finding check(Host h, String name) {
        return switch (name) {
            case "gpu" -> gpu(h);
            case "peer-mapping" -> peerMapping(h);
            case "gpu-memory-registration" -> gpuMemoryRegistration(h);
            case "devx" -> devx(h);
            case "memlock" -> memlock(h);
            case "pcie-path" -> pciePath(h);
            case "link" -> link(h);
            case "roce-qos" -> roceQos(h);
            case "cpu-governor" -> cpuGovernor(h);
            case "cpu-turbo" -> cpuTurbo(h);
            case "gpu-clocks" -> gpuClocks(h);
            case "iommu-acs" -> iommuAcs(h);
            default -> throw new IllegalArgumentException("no preflight check '" + name + "'; checks: "
                    + String.join(", ", CHECKS));
        };
    }

    static final String NO_DRIVER_FIX = "load the NVIDIA driver (modprobe nvidia, an admin step) or run on a node "
            + "where nvidia-smi works";

    /** The NVRM line of /proc/driver/nvidia/version: "... Kernel Module [for x86_64]  550.54.15  ...". */
    record Driver(String version, int major, boolean open) {
        static Optional<Driver> read(Host h) {
            Optional<String> v = h.read("/proc/driver/nvidia/version");
            if (v.isEmpty()) {
                return Optional.empty();
            }
            String line = v.get().lines().findFirst().orElse("");
            Matcher m = Pattern.compile("Kernel Module(?: for \\S+)?\\s+(\\d+)\\.(\\d+(?:\\.\\d+)?)").matcher(line);
            if (!m.find()) {
                return Optional.of(new Driver("unknown", 0, line.contains("Open Kernel Module")));
            }
            return Optional.of(new Driver(m.group(1) + "." + m.group(2), Integer.parseInt(m.group(1)),
                    line.contains("Open Kernel Module")));
        }

        String describe() {
            return "driver " + version + (open ? " (open kernel module)" : " (proprietary kernel module)");
        }
    }

    static Finding gpu(Host h) {
        List<String> gpus = Pcie.gpus(h);
        if (gpus.isEmpty()) {
            return Finding.fail("gpu", "no NVIDIA GPU on the PCI bus (/sys/bus/pci/devices)",
                    "run on a GPU node (Slurm: --gpus-per-node=1); --nic softnic with --target cpu runs without one");
        }
        Optional<Driver> d = Driver.read(h);
        if (d.isEmpty()) {
            return Finding.fail("gpu", gpus.size() + " NVIDIA GPU(s) (" + String.join(", ", gpus)
                    + ") but no driver: /proc/driver/nvidia/version is missing", NO_DRIVER_FIX);
        }
        return Finding.ok("gpu", gpus.size() + " NVIDIA GPU(s) (" + String.join(", ", gpus) + "), "
                + d.get().describe());
    }

    /** uid 0 maps MMIO into the GPU without the regkey (docs/design/preflight.md). */
    static boolean root(Host h) {
        return h.read("/proc/self/status").flatMap(s -> s.lines().filter(l -> l.startsWith("Uid:")).findFirst())
                .map(l -> l.split("\\s+").length > 2 && l.split("\\s+")[2].equals("0")).orElse(false);
    }

    /** CAP_IPC_LOCK (bit 14 of CapEff) lets a process pin memory past RLIMIT_MEMLOCK; without CapEff: uid 0. */
    static boolean ipcLock(Host h) {
        Optional<String> cap = h.read("/proc/self/status").flatMap(s -> s.lines().filter(l -> l.startsWith("CapEff:"))
                .findFirst());
        if (cap.isEmpty()) {
            return root(h);
        }
        try {
            return (Long.parseUnsignedLong(cap.get().substring("CapEff:".length()).strip(), 16) & (1L << 14)) != 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static final String PMO_FIX = "an admin adds 'options nvidia NVreg_RegistryDwords=\"PeerMappingOverride=1;\"' "
            + "to /etc/modprobe.d/nvidia.conf and reloads the driver";

    static Finding peerMapping(Host h) {
        Optional<String> params = h.read("/proc/driver/nvidia/params");
        if (params.isEmpty()) {
            return Finding.fail("peer-mapping", "/proc/driver/nvidia/params is not readable (no NVIDIA driver): "
                    + "the GPU cannot map the NIC's doorbell page (UAR)", NO_DRIVER_FIX);
        }
        String dwords = params.get().lines().filter(l -> l.startsWith("RegistryDwords:"))
                .map(l -> l.substring("RegistryDwords:".length()).strip()).findFirst().orElse("");
        String compact = dwords.replace(" ", "").replace("\"", "").toLowerCase(Locale.ROOT);
        boolean set = false;
        for (String kv : compact.split(";")) {
            if (kv.equals("peermappingoverride=1") || kv.equals("peermappingoverride=0x1")) {
                set = true;
            }
        }
        if (set) {
            return Finding.ok("peer-mapping", "PeerMappingOverride=1 (RegistryDwords " + dwords + "): an "
                    + "unprivileged process may map the UAR into the GPU");
        }
        String shown = dwords.isEmpty() ? "RegistryDwords empty" : "RegistryDwords " + dwords;
        if (root(h)) {
            return Finding.warn("peer-mapping", "PeerMappingOverride not set (" + shown + "); this process is root, "
                    + "which may map the UAR anyway, but an unprivileged run will not", PMO_FIX);
        }
        return Finding.fail("peer-mapping", "PeerMappingOverride not set (" + shown + "): an unprivileged process "
                + "cannot map the NIC's doorbell page (UAR) into the GPU, so --nic mlx5 from a kernel fails", PMO_FIX);
    }

    static final String REG_FIX = "an admin loads nvidia_peermem (modprobe nvidia_peermem), or installs the open "
            + "GPU kernel modules (driver >= 515) on Linux >= 5.12 for dma-buf";

    static Finding gpuMemoryRegistration(Host h) {
        String check = "gpu-memory-registration";
        boolean peermem = h.exists("/sys/module/nvidia_peermem") || h.read("/proc/modules")
                .map(m -> m.lines().anyMatch(l -> l.startsWith("nvidia_peermem ") || l.startsWith("nv_peer_mem ")))
                .orElse(false);
        Optional<Driver> d = Driver.read(h);
        String kernel = h.read("/proc/sys/kernel/osrelease").orElse("");
        boolean kernelDmabuf = kernelAtLeast(kernel, 5, 12);
        boolean dmabuf = d.isPresent() && d.get().open() && d.get().major() >= 515 && kernelDmabuf;
        if (peermem) {
            return Finding.ok(check, "nvidia_peermem is loaded: the NIC can register GPU memory"
                    + (dmabuf ? "; dma-buf is possible as well" : ""));
        }
        if (dmabuf) {
            return Finding.ok(check, "dma-buf: " + d.get().describe() + " on Linux " + kernel
                    + " (nvidia_peermem not loaded)");
        }
        String why = d.isEmpty() ? "no NVIDIA driver"
                : d.get().describe() + " on Linux " + (kernel.isEmpty() ? "?" : kernel)
                + (!d.get().open() ? ": dma-buf needs the open kernel module"
                : d.get().major() < 515 ? ": dma-buf needs driver >= 515" : ": dma-buf needs Linux >= 5.12");
        return Finding.fail(check, "nvidia_peermem is not loaded and dma-buf is not possible (" + why + "): "
                + "GPU-resident queues (--placement gpu) cannot be registered", REG_FIX);
    }

    static boolean kernelAtLeast(String release, int major, int minor) {
        Matcher m = Pattern.compile("^(\\d+)\\.(\\d+)").matcher(release);
        if (!m.find()) {
            return false;
        }
        int a = Integer.parseInt(m.group(1));
        int b = Integer.parseInt(m.group(2));
        return a > major || (a == major && b >= minor);
    }

    static final String NO_NIC_FIX = "run on a node with a ConnectX NIC and mlx5_ib loaded; --nic softnic needs none";

    static Finding devx(Host h) {
        List<String> nics = Pcie.mlx5(h);
        if (nics.isEmpty()) {
            return Finding.fail("devx", "no mlx5 (ConnectX) RDMA device in /sys/class/infiniband", NO_NIC_FIX);
        }
        List<Path> uverbs = h.list("/dev/infiniband", "uverbs*");
        if (uverbs.isEmpty()) {
            return Finding.fail("devx", nics.size() + " mlx5 device(s) but no /dev/infiniband/uverbs*: user-space "
                    + "verbs cannot open them",
                    "an admin loads ib_uverbs; in a container pass --device=/dev/infiniband");
        }
        String nic = choice(h).orElse(nics.get(0));
        if (h.devxProbe().isEmpty()) {
            return Finding.warn("devx", "mlx5 device(s) " + String.join(", ", nics) + " with " + uverbs.size()
                    + " uverbs node(s); DevX not opened (libmarrow_verbs.so not built, or --root given)",
                    "build the native verbs library (scripts/marrow builds it) and run preflight without --root");
        }
        String why = h.devxProbe().get().apply(nic);
        if (why == null) {
            return Finding.ok("devx", "DevX opens on " + nic + " (the device Marrow picks)");
        }
        return Finding.fail("devx", "DevX does not open on " + nic + ": " + why,
                "DevX needs rdma-core's libmlx5 with the mlx5dv_devx entry points and firmware that allows DevX "
                        + "user contexts; check `ibv_devinfo -d " + nic + "` and the rdma-core version");
    }

    /** 64 MiB: the floor below which a run's registered buffers and queues are likely to hit the limit. */
    static final long MEMLOCK_FLOOR = 64L << 20;
    static final String MEMLOCK_FIX = "ulimit -l unlimited (the hard limit: 'memlock unlimited' in "
            + "/etc/security/limits.conf; under Slurm also LimitMEMLOCK=infinity for slurmd, which srun inherits)";

    static Finding memlock(Host h) {
        Optional<String> line = h.read("/proc/self/limits")
                .flatMap(s -> s.lines().filter(l -> l.startsWith("Max locked memory")).findFirst());
        if (line.isEmpty()) {
            return Finding.warn("memlock", "/proc/self/limits has no 'Max locked memory' line: limit unknown",
                    "check `ulimit -l`; it should print unlimited");
        }
        String[] f = line.get().substring("Max locked memory".length()).strip().split("\\s+");
        String soft = f[0];
        if (soft.equals("unlimited")) {
            return Finding.ok("memlock", "locked memory unlimited");
        }
        long bytes;
        try {
            bytes = Long.parseLong(soft);
        } catch (NumberFormatException e) {
            return Finding.warn("memlock", "unreadable limit '" + soft + "'", "check `ulimit -l`");
        }
        String shown = "locked memory limited to " + mib(bytes) + " (soft; hard " + (f.length > 1 ? hardText(f[1])
                : "?") + ")";
        if (ipcLock(h)) {
            return Finding.ok("memlock", shown + "; this process has CAP_IPC_LOCK, which pins past it");
        }
        if (bytes < MEMLOCK_FLOOR) {
            return Finding.fail("memlock", shown + ": memory registration (ibv_reg_mr, DevX umem) pins pages "
                    + "against it and fails past it", MEMLOCK_FIX);
        }
        return Finding.warn("memlock", shown + ": enough for small runs; large buffers or many QPs may not fit",
                MEMLOCK_FIX);
    }

    private static String hardText(String s) {
        try {
            return mib(Long.parseLong(s));
        } catch (NumberFormatException e) {
            return s;
        }
    }

    private static String mib(long bytes) {
        return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }

    /** The mlx5 device Marrow picks for the default GPU (the default of --device), when sysfs can tell. */
    static Optional<String> choice(Host h) {
        return Pcie.defaultGpu(h, Pcie.gpus(h)).flatMap(g -> Pcie.pair(h, g)).map(p -> p.nic().device());
    }

    static final String TOPO_FIX = "pick a GPU and NIC under one PCIe switch (`nvidia-smi topo -m`; --cuda-device/"
            + "--device) and bind the run to their NUMA node (numactl --cpunodebind=N --membind=N)";

    static Finding pciePath(Host h) {
        List<String> gpus = Pcie.gpus(h);
        List<String> nics = Pcie.mlx5(h);
        if (gpus.isEmpty() || nics.isEmpty()) {
            return Finding.fail("pcie-path", "nothing to pair: " + gpus.size() + " GPU(s), " + nics.size()
                    + " mlx5 device(s)", gpus.isEmpty() ? "see the gpu check" : NO_NIC_FIX);
        }
        String gpu = Pcie.defaultGpu(h, gpus).orElseThrow();
        Optional<Pcie.Pair> p = Pcie.pair(h, gpu);
        if (p.isEmpty()) {
            return Finding.warn("pcie-path", "the PCIe path from GPU " + gpu + " to " + String.join(", ", nics)
                    + " cannot be resolved in sysfs; Marrow will take the first mlx5 device",
                    "pass --device explicitly, chosen by `nvidia-smi topo -m`");
        }
        Pcie.Pair pair = p.get();
        String gNuma = Pcie.numa(pair.gpuPath());
        String nNuma = Pcie.numa(pair.nicPath());
        String common = pair.common();
        String where = "GPU " + gpu + " (NUMA " + gNuma + ") -> " + pair.nic().device() + " (NUMA " + nNuma + ", "
                + pair.nic().hops() + " hops): Marrow picks " + pair.nic().device() + " for it (default --device)";
        boolean numaDiffers = !gNuma.equals(nNuma) && !gNuma.startsWith("-") && !nNuma.startsWith("-");
        if (common == null || !common.startsWith("pci") && !Pcie.BDF.matcher(common).matches()) {
            return Finding.warn("pcie-path", where + "; they share no PCIe root complex, so every doorbell and DMA "
                    + "crosses the CPU interconnect", TOPO_FIX);
        }
        if (common.startsWith("pci")) {
            return Finding.warn("pcie-path", where + "; they meet at host bridge " + common + " (no shared PCIe "
                    + "switch): traffic goes through the CPU root complex", TOPO_FIX);
        }
        if (numaDiffers) {
            return Finding.warn("pcie-path", where + "; behind bridge " + common + " but on different NUMA nodes",
                    TOPO_FIX);
        }
        return Finding.ok("pcie-path", where + "; both behind PCIe bridge " + common);
    }

    /** The NIC the link checks look at: Marrow's pick, else the first mlx5 device. */
    static Optional<String> linkNic(Host h) {
        List<String> nics = Pcie.mlx5(h);
        return nics.isEmpty() ? Optional.empty() : Optional.of(choice(h).orElse(nics.get(0)));
    }

    static Optional<String> netdev(Host h, String nic) {
        return h.list("/sys/class/infiniband/" + nic + "/device/net", "*").stream()
                .map(p -> p.getFileName().toString()).findFirst();
    }

    static Finding link(Host h) {
        Optional<String> nic = linkNic(h);
        if (nic.isEmpty()) {
            return Finding.fail("link", "no mlx5 device: no link to check", NO_NIC_FIX);
        }
        String port = "/sys/class/infiniband/" + nic.get() + "/ports/1/";
        String state = h.read(port + "state").orElse("?");
        String layer = h.read(port + "link_layer").orElse("?");
        String rate = h.read(port + "rate").orElse("?");
        String head = nic.get() + " port 1: " + layer + ", " + state + ", " + rate;
        if (!state.contains("ACTIVE")) {
            return Finding.fail("link", head + ": the port is not ACTIVE", layer.equals("InfiniBand")
                    ? "check the cable and that a subnet manager runs on the fabric (opensm or the switch's)"
                    : "check the cable and the switch port; `ip link` must show the netdev UP");
        }
        if (!layer.equals("Ethernet")) {
            return Finding.ok("link", head);
        }
        Optional<String> ifname = netdev(h, nic.get());
        String mtu = ifname.flatMap(i -> h.read("/sys/class/infiniband/" + nic.get() + "/device/net/" + i + "/mtu"))
                .orElse("?");
        List<String> v2 = new ArrayList<>();
        for (Path t : h.list(port + "gid_attrs/types", "*")) {
            String idx = t.getFileName().toString();
            String gid = h.read(port + "gids/" + idx).orElse("");
            if (Host.read(t).orElse("").equalsIgnoreCase("RoCE v2") && !gid.isEmpty()
                    && !gid.replace("0", "").replace(":", "").isEmpty()) {
                v2.add(idx + " " + gid);
            }
        }
        v2.sort((a, b) -> Integer.compare(Integer.parseInt(a.split(" ")[0]), Integer.parseInt(b.split(" ")[0])));
        String shown = head + ", netdev " + ifname.orElse("?") + " MTU " + mtu;
        if (v2.isEmpty()) {
            return Finding.fail("link", shown + ": no RoCE v2 GID", "give " + ifname.orElse("the netdev")
                    + " an IP address (RoCE v2 GIDs follow the interface's addresses) and bring it up");
        }
        shown += ", RoCE v2 GID " + v2.get(0) + (v2.size() > 1 ? " (+" + (v2.size() - 1) + ")" : "");
        int m;
        try {
            m = Integer.parseInt(mtu);
        } catch (NumberFormatException e) {
            m = -1;
        }
        if (m >= 0 && m < 4200) {
            return Finding.warn("link", shown + ": below 4200 the RoCE path MTU is under 4096 bytes",
                    "an admin sets MTU 9000 on " + ifname.orElse("the netdev") + " and the switch ports");
        }
        return Finding.ok("link", shown);
    }

    static Finding roceQos(Host h) {
        Optional<String> nic = linkNic(h);
        if (nic.isEmpty()) {
            return Finding.fail("roce-qos", "no mlx5 device", NO_NIC_FIX);
        }
        String layer = h.read("/sys/class/infiniband/" + nic.get() + "/ports/1/link_layer").orElse("?");
        if (!layer.equals("Ethernet")) {
            return Finding.ok("roce-qos", nic.get() + " is " + layer + ": no DSCP/ECN to check (InfiniBand uses "
                    + "service levels and fabric-managed congestion control)");
        }
        Optional<String> ifname = netdev(h, nic.get());
        List<String> parts = new ArrayList<>();
        h.read("/sys/kernel/config/rdma_cm/" + nic.get() + "/ports/1/default_roce_tos")
                .ifPresent(t -> parts.add("rdma_cm default ToS " + t));
        h.read("/sys/class/infiniband/" + nic.get() + "/tc/1/traffic_class").ifPresent(t -> parts.add(t));
        List<Integer> np = new ArrayList<>();
        List<Integer> rp = new ArrayList<>();
        boolean ecnReadable = false;
        if (ifname.isPresent()) {
            String ecn = "/sys/class/infiniband/" + nic.get() + "/device/net/" + ifname.get() + "/ecn/";
            for (int prio = 0; prio < 8; prio++) {
                Optional<String> n = h.read(ecn + "roce_np/enable/" + prio);
                Optional<String> r = h.read(ecn + "roce_rp/enable/" + prio);
                ecnReadable |= n.isPresent() || r.isPresent();
                if (n.orElse("0").equals("1")) {
                    np.add(prio);
                }
                if (r.orElse("0").equals("1")) {
                    rp.add(prio);
                }
            }
        }
        if (ecnReadable) {
            parts.add("ECN notification point on priorities " + (np.isEmpty() ? "none" : np)
                    + ", reaction point on " + (rp.isEmpty() ? "none" : rp));
        }
        String fixLook = "check with `mlnx_qos -i " + ifname.orElse("IF") + "` and the switch: RoCE wants PFC or ECN "
                + "(DCQCN) on the priority its traffic uses";
        if (parts.isEmpty()) {
            return Finding.warn("roce-qos", nic.get() + " (RoCE): priority, DSCP and ECN are not readable here "
                    + "(no ecn/ or rdma_cm configfs entries)", fixLook);
        }
        if (ecnReadable && (np.isEmpty() || rp.isEmpty())) {
            return Finding.warn("roce-qos", nic.get() + ": " + String.join("; ", parts) + ": DCQCN needs both ends",
                    "an admin enables ECN on the RoCE priority P: echo 1 > /sys/class/net/" + ifname.orElse("IF")
                            + "/ecn/roce_np/enable/P and .../roce_rp/enable/P");
        }
        return Finding.ok("roce-qos", nic.get() + ": " + String.join("; ", parts));
    }

    static Finding cpuGovernor(Host h) {
        List<Path> cpus = h.list("/sys/devices/system/cpu", "cpu[0-9]*");
        java.util.Map<String, Integer> counts = new java.util.TreeMap<>();
        for (Path c : cpus) {
            Host.read(c.resolve("cpufreq/scaling_governor")).ifPresent(g -> counts.merge(g, 1, Integer::sum));
        }
        if (counts.isEmpty()) {
            return Finding.warn("cpu-governor", "no cpufreq governor in sysfs (a virtual machine, or P-states "
                    + "managed by firmware): the host clock is not known", "on bare metal an admin enables cpufreq "
                    + "and the performance governor; in a VM record this with the results");
        }
        String shown = counts.toString().replace("{", "").replace("}", "").replace("=", " on ") + " CPU(s)";
        if (counts.size() == 1 && counts.containsKey("performance")) {
            return Finding.ok("cpu-governor", "performance on all " + counts.get("performance") + " CPU(s)");
        }
        return Finding.warn("cpu-governor", "governor " + shown + ": host-side timings (proxy, softnic) follow "
                + "the clock the governor picks", "an admin runs `cpupower frequency-set -g performance`");
    }

    static Finding cpuTurbo(Host h) {
        Optional<String> noTurbo = h.read("/sys/devices/system/cpu/intel_pstate/no_turbo");
        Optional<String> boost = h.read("/sys/devices/system/cpu/cpufreq/boost");
        Boolean on = noTurbo.map(v -> v.equals("0")).orElse(boost.map(v -> v.equals("1")).orElse(null));
        String source = noTurbo.isPresent() ? "intel_pstate/no_turbo=" + noTurbo.get()
                : boost.map(v -> "cpufreq/boost=" + v).orElse("");
        if (on == null) {
            return Finding.warn("cpu-turbo", "turbo state not readable (neither intel_pstate/no_turbo nor "
                    + "cpufreq/boost)", "record the turbo state with the results (BIOS setting on this node)");
        }
        if (on) {
            return Finding.warn("cpu-turbo", "turbo on (" + source + "): the CPU clock follows load and temperature, "
                    + "so host-side timings vary run to run", "for stable host-side numbers an admin turns turbo off "
                    + "(no_turbo=1 or boost=0); otherwise report it with the results");
        }
        return Finding.ok("cpu-turbo", "turbo off (" + source + ")");
    }

    /** Read only: nvidia-smi queries; nothing is ever set (docs/design/preflight.md). */
    static final List<String> CLOCK_QUERY = List.of("nvidia-smi", "--query-gpu=index,pci.bus_id,clocks.sm,"
            + "clocks.max.sm,clocks.applications.graphics,persistence_mode", "--format=csv,noheader,nounits");

    static Finding gpuClocks(Host h) {
        Optional<String> out = h.commands().apply(CLOCK_QUERY);
        if (out.isEmpty() || out.get().isBlank()) {
            return Finding.warn("gpu-clocks", "nvidia-smi not run or gave nothing (missing, no GPU, or --root "
                    + "given): GPU clocks not read", "run on the GPU node with the driver's nvidia-smi on PATH");
        }
        List<String> shown = new ArrayList<>();
        List<String> low = new ArrayList<>();
        boolean persistenceOff = false;
        for (String line : out.get().strip().split("\n")) {
            String[] f = line.split(",\\s*");
            if (f.length < 6) {
                continue;
            }
            shown.add("GPU" + f[0].strip() + " SM " + f[2].strip() + "/" + f[3].strip() + " MHz, application "
                    + f[4].strip() + " MHz, persistence " + f[5].strip());
            try {
                if (Integer.parseInt(f[4].strip()) < Integer.parseInt(f[3].strip())) {
                    low.add("GPU" + f[0].strip());
                }
            } catch (NumberFormatException e) {
                // "[N/A]": nothing to compare
            }
            persistenceOff |= f[5].strip().equalsIgnoreCase("Disabled");
        }
        if (shown.isEmpty()) {
            return Finding.warn("gpu-clocks", "nvidia-smi output not understood: " + out.get().lines().findFirst()
                    .orElse(""), "run " + String.join(" ", CLOCK_QUERY) + " by hand");
        }
        String detail = String.join("; ", shown);
        if (!low.isEmpty()) {
            return Finding.warn("gpu-clocks", detail + ": application clocks below the maximum on " + low,
                    "an admin resets them (nvidia-smi -rac); preflight never changes clocks");
        }
        if (persistenceOff) {
            return Finding.warn("gpu-clocks", detail + ": without persistence the driver re-initialises the GPU for "
                    + "every process (slow first run)", "an admin enables persistence (nvidia-persistenced or "
                    + "nvidia-smi -pm 1)");
        }
        return Finding.ok("gpu-clocks", detail);
    }

    static Finding iommuAcs(Host h) {
        String cmdline = h.read("/proc/cmdline").orElse("");
        boolean iommuOn = !h.list("/sys/class/iommu", "*").isEmpty();
        boolean passthrough = List.of(cmdline.split("\\s+")).contains("iommu=pt");
        List<String> notes = new ArrayList<>();
        String fix = "";
        Finding.Status status = Finding.Status.OK;
        if (iommuOn && !passthrough) {
            status = Finding.Status.WARN;
            notes.add("IOMMU translating DMA (no iommu=pt on the kernel command line): peer-to-peer between GPU and "
                    + "NIC may be slower or blocked");
            fix = "an admin boots with iommu=pt (with intel_iommu=on or amd_iommu=on)";
        } else {
            notes.add(iommuOn ? "IOMMU in passthrough (iommu=pt)" : "no IOMMU active");
        }
        Optional<Pcie.Pair> pair = Pcie.defaultGpu(h, Pcie.gpus(h)).flatMap(g -> Pcie.pair(h, g));
        if (pair.isPresent()) {
            List<String> redirect = new ArrayList<>();
            boolean unreadable = false;
            for (Path b : pair.get().bridges()) {
                Pcie.Acs a = Pcie.acs(b);
                unreadable |= !a.readable();
                if (a.redirects()) {
                    redirect.add(b.getFileName().toString());
                }
            }
            if (!redirect.isEmpty()) {
                status = Finding.Status.WARN;
                notes.add("ACS peer-to-peer redirect on bridge(s) " + redirect + ": GPU-NIC traffic is sent up to "
                        + "the root complex");
                fix = (fix.isEmpty() ? "" : fix + "; ") + "an admin disables ACS redirect on those switch ports "
                        + "(setpci, or the BIOS)";
            } else if (unreadable) {
                notes.add("ACS on the GPU-NIC path not readable (extended config space needs root; "
                        + "`sudo lspci -vvv | grep ACSCtl`)");
            } else {
                notes.add("no ACS redirect on the " + pair.get().bridges().size() + " bridge(s) between GPU and NIC");
            }
        }
        String detail = String.join("; ", notes);
        return status == Finding.Status.OK ? Finding.ok("iommu-acs", detail)
                : Finding.warn("iommu-acs", detail, fix);
    }

    /** The number of FAIL findings: the exit status of preflight is non-zero when it is. */
    public static long failures(List<Finding> findings) {
        return findings.stream().filter(f -> f.status() == Finding.Status.FAIL).count();
    }
}
