// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.internal.ffi.NativeLib;
import dev.marrow.api.Backend;
import dev.marrow.api.BackendUnavailableException;
import dev.marrow.api.MarrowException;
import dev.marrow.api.NativeException;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.ArrayList;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** The H200 (or any sm_90+ GPU) through libmarrow_cuda.so's DSM entry points. */
public final class NativeDsmDevice implements DsmDevice {
    /** MARROW_ENODEV. */
    private static final int ENODEV = -19;
    public static final String NEEDS = "needs a Hopper-class GPU (sm_90+)";

    private final int ordinal;
    private final DeviceInfo info;
    private final KernelConfig config;

    private NativeDsmDevice(int ordinal, DeviceInfo info, KernelConfig config) {
        this.ordinal = ordinal;
        this.info = info;
        this.config = config;
    }

    /**
     * Opens GPU ordinal for the suite, or throws {@link BackendUnavailableException}
     * whose message starts with "needs a Hopper-class GPU (sm_90+), found ...".
     */
    public static NativeDsmDevice open(int ordinal, int groupThreads, int tmaChunk) {
        return open(ordinal, groupThreads, tmaChunk, LoadKernel.INFLIGHT);
    }

    /** As {@link #open(int, int, int)}, with a choice of load kernel. */
    public static NativeDsmDevice open(int ordinal, int groupThreads, int tmaChunk, LoadKernel loadKernel) {
        return open(ordinal, new KernelConfig(groupThreads, tmaChunk, loadKernel, KernelConfig.DEFAULT_WIDTH,
                KernelConfig.DEFAULT_WIDTH));
    }

    /** As {@link #open(int, int, int)}, with every kernel knob (load kernel, store and load width). */
    public static NativeDsmDevice open(int ordinal, KernelConfig config) {
        if (!Backend.CUDA.isAvailable()) {
            Throwable c = Backend.CUDA.unavailabilityCause();
            throw new BackendUnavailableException(NEEDS + ", found no usable CUDA GPU: " + c.getMessage(), c);
        }
        try {
            return new NativeDsmDevice(ordinal, describe(ordinal), config);
        } catch (NativeException e) {
            if (e.status() == ENODEV) {
                String msg = DsmFfi.LIB.lastError();
                throw new BackendUnavailableException(msg.startsWith(NEEDS) ? msg : NEEDS + ": " + msg, e);
            }
            throw e;
        }
    }

    /** Calls marrow_dsm_device_info; throws NativeException (ENODEV without a Hopper GPU). */
    static DeviceInfo describe(int ordinal) {
        StructLayout L = DsmLayouts.DEVICE_INFO;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = NativeLib.allocateSized(a, L);
            int rc = (int) DsmFfi.DEVICE_INFO.invokeExact(ordinal, s);
            DsmFfi.LIB.check(rc, "marrow_dsm_device_info");
            int[] mac = new int[4];
            long mo = DsmLayouts.offset(L, "max_active_clusters");
            for (int i = 0; i < 4; i++) {
                mac[i] = s.get(JAVA_INT, mo + 4L * i);
            }
            return new DeviceInfo(i(s, L, "ordinal"), s.asSlice(DsmLayouts.offset(L, "name"), 128).getString(0),
                    i(s, L, "cc_major"), i(s, L, "cc_minor"), i(s, L, "sm_count"), i(s, L, "max_smem_optin"),
                    i(s, L, "smem_per_cta"), i(s, L, "clock_rate_khz"), i(s, L, "driver_version"),
                    i(s, L, "runtime_version"), mac);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_dsm_device_info: " + t, t);
        }
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public TimerInfo timer(int windowUs) {
        StructLayout L = DsmLayouts.TIMER_INFO;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = NativeLib.allocateSized(a, L);
            int rc = (int) DsmFfi.TIMER_PROBE.invokeExact(ordinal, windowUs, s);
            DsmFfi.LIB.check(rc, "marrow_dsm_timer_probe");
            return new TimerInfo(l(s, L, "gt_min_step_ns"), l(s, L, "gt_steps"), l(s, L, "clk_delta"),
                    l(s, L, "gt_delta_ns"), i(s, L, "smid"), i(s, L, "reads"));
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_dsm_timer_probe: " + t, t);
        }
    }

    @Override
    public List<Launch> run(Spec spec, int tileBytes, int reps, int warmup, int runId) {
        StructLayout P = DsmLayouts.PARAMS;
        StructLayout S = DsmLayouts.SAMPLE;
        int n = spec.clusterSize();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(P);
            writeParams(p, ordinal, config, spec, tileBytes, reps, warmup, runId);
            int count = reps * n;
            MemorySegment out = a.allocate(S, count);
            int rc = (int) DsmFfi.RUN.invokeExact(p, out, count);
            DsmFfi.LIB.check(rc, "marrow_dsm_run(" + spec.name() + ", " + tileBytes + " B)");
            List<Launch> launches = new ArrayList<>(reps);
            for (int rep = 0; rep < reps; rep++) {
                List<Sample> ranks = new ArrayList<>(n);
                for (int r = 0; r < n; r++) {
                    ranks.add(sample(out.asSlice((long) (rep * n + r) * S.byteSize(), S.byteSize())));
                }
                launches.add(new Launch(tileBytes, List.copyOf(ranks)));
            }
            return launches;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_dsm_run: " + t, t);
        }
    }

    /**
     * Fills a marrow_dsm_params (p: DsmLayouts.PARAMS, zeroed) for one call:
     * size = sizeof, comp_mask = 0, every knob of config, the roles of spec
     * (-1 beyond the cluster). Separate so that tests can check what reaches
     * the struct without a GPU.
     */
    static void writeParams(MemorySegment p, int ordinal, KernelConfig config, Spec spec, int tileBytes, int reps,
            int warmup, int runId) {
        StructLayout P = DsmLayouts.PARAMS;
        int n = spec.clusterSize();
        setI(p, P, "size", (int) P.byteSize());
        setI(p, P, "comp_mask", 0);
        setI(p, P, "device", ordinal);
        setI(p, P, "cluster_size", n);
        setI(p, P, "tile_bytes", tileBytes);
        setI(p, P, "reps", reps);
        setI(p, P, "warmup", warmup);
        setI(p, P, "group_threads", spec.probe().threads(config.groupThreads()));
        setI(p, P, "tma_chunk_bytes", config.tmaChunkBytes());
        setI(p, P, "load_kernel", config.loadKernel().ordinal());
        setI(p, P, "store_width", spec.probe().width(config.storeWidth()));
        setI(p, P, "load_width", config.loadWidth());
        setI(p, P, "run_id", runId);
        writeProbe(p, spec.probe());
        long lo = DsmLayouts.offset(P, "load_from");
        long so = DsmLayouts.offset(P, "store_to");
        long to = DsmLayouts.offset(P, "tma_to");
        for (int r = 0; r < DsmLayouts.MAX_RANKS; r++) {
            p.set(JAVA_BYTE, lo + r, (byte) (r < n ? spec.loadFrom(r) : -1));
            p.set(JAVA_BYTE, so + r, (byte) (r < n ? spec.storeTo(r) : -1));
            p.set(JAVA_BYTE, to + r, (byte) (r < n ? spec.tmaTo(r) : -1));
        }
    }

    /** The probe fields appended to marrow_dsm_params (all 0 for Probe.NONE). */
    private static void writeProbe(MemorySegment p, Probe q) {
        StructLayout P = DsmLayouts.PARAMS;
        setI(p, P, "remote_offset", q.remoteOffset());
        setI(p, P, "pressure_warps", q.pressureWarps());
        setI(p, P, "pressure_ranks", q.pressureRanks());
        setI(p, P, "pressure_pattern", q.conflict() ? 1 : 0);
        setI(p, P, "bursts", q.bursts());
        setI(p, P, "store_kernel", q.genericStore() ? 1 : 0);
        p.set(JAVA_LONG, DsmLayouts.offset(P, "burst_gap_cycles"), q.burstGapCycles());
        p.set(JAVA_LONG, DsmLayouts.offset(P, "pressure_cycles"), q.pressureWarps() > 0 ? Probe.PRESSURE_CYCLES : 0);
        setI(p, P, "store_unroll", q.storeUnroll());
        setI(p, P, "store_end", q.rendezvousEnd() ? 1 : 0);
        setI(p, P, "probe_build", q.probeBuild() ? 1 : 0);
    }

    private static Sample sample(MemorySegment s) {
        StructLayout S = DsmLayouts.SAMPLE;
        return new Sample(i(s, S, "rep"), i(s, S, "rank"), i(s, S, "smid_start"), i(s, S, "smid_end"),
                i(s, S, "flags"), i(s, S, "roles"), l(s, S, "clk_start"), l(s, S, "gt_start"),
                l(s, S, "clk_load_end"), l(s, S, "gt_load_end"), l(s, S, "clk_store_end"), l(s, S, "gt_store_end"),
                l(s, S, "clk_recv_end"), l(s, S, "gt_recv_end"), l(s, S, "clk_tma_issued"), l(s, S, "wait_polls"),
                l(s, S, "load_sum"), l(s, S, "load_expect"), l(s, S, "recv_sum"), l(s, S, "recv_expect"),
                l(s, S, "pressure_ops"), l(s, S, "burst_busy_cycles"), l(s, S, "burst_first_cycles"),
                l(s, S, "burst_min_cycles"));
    }

    @Override
    public List<LatSample> latency(int clusterSize, int reps, int hops) {
        StructLayout P = DsmLayouts.LAT_PARAMS;
        StructLayout S = DsmLayouts.LAT_SAMPLE;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = NativeLib.allocateSized(a, P);
            setI(p, P, "device", ordinal);
            setI(p, P, "cluster_size", clusterSize);
            setI(p, P, "hops", hops);
            setI(p, P, "reps", reps);
            int count = reps * clusterSize * clusterSize;
            MemorySegment out = a.allocate(S, count);
            int rc = (int) DsmFfi.LATENCY.invokeExact(p, out, count);
            DsmFfi.LIB.check(rc, "marrow_dsm_latency");
            List<LatSample> list = new ArrayList<>(count);
            for (int k = 0; k < count; k++) {
                MemorySegment x = out.asSlice(k * S.byteSize(), S.byteSize());
                list.add(new LatSample(i(x, S, "rep"), i(x, S, "src"), i(x, S, "dst"), i(x, S, "smid_src"),
                        i(x, S, "smid_dst"), i(x, S, "flags"), l(x, S, "cycles"), l(x, S, "final_index"),
                        l(x, S, "expect_index")));
            }
            return list;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new MarrowException("marrow_dsm_latency: " + t, t);
        }
    }

    @Override
    public String backend() {
        return "cuda";
    }

    @Override
    public boolean hardware() {
        return true;
    }

    @Override
    public int groupThreads() {
        return config.groupThreads();
    }

    @Override
    public int tmaChunkBytes() {
        return config.tmaChunkBytes();
    }

    @Override
    public LoadKernel loadKernel() {
        return config.loadKernel();
    }

    @Override
    public int storeWidth() {
        return config.storeWidth();
    }

    @Override
    public int loadWidth() {
        return config.loadWidth();
    }

    public KernelConfig config() {
        return config;
    }

    private static int i(MemorySegment s, StructLayout l, String f) {
        return s.get(JAVA_INT, DsmLayouts.offset(l, f));
    }

    private static long l(MemorySegment s, StructLayout l, String f) {
        return s.get(JAVA_LONG, DsmLayouts.offset(l, f));
    }

    private static void setI(MemorySegment s, StructLayout l, String f, int v) {
        s.set(JAVA_INT, DsmLayouts.offset(l, f), v);
    }
}
