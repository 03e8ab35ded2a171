// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.internal.ffi.CStruct;
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

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.getLong;
import static dev.marrow.internal.ffi.CStruct.setInt;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** The H200 (or any sm_90+ GPU) through libmarrow_cuda.so's DSM entry points. */
public final class NativeDsmDevice implements DsmDevice {
    public static final String NEEDS = "needs a Hopper-class GPU (sm_90+)";

    private final int ordinal;
    private final DeviceInfo info;
    private final KernelConfig config;
    /** Host watchdog of every native call in ms; 0: the library's default (MARROW_DSM_DEFAULT_TIMEOUT_MS). */
    private volatile int watchdogMs;

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

    /**
     * A longer host watchdog for every later call (ms, 0 = the library's
     * default): a sanitizer's instrumentation slows the kernels far beyond
     * what the default bound expects.
     */
    public NativeDsmDevice withWatchdogMs(int ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("watchdog " + ms + " ms");
        }
        watchdogMs = ms;
        return this;
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
            String msg = DsmFfi.LIB.lastError();
            throw e.unavailableIfNoDevice(msg.startsWith(NEEDS) ? msg : NEEDS + ": " + msg);
        }
    }

    /** Calls marrow_dsm_device_info; throws NativeException (ENODEV without a Hopper GPU). */
    static DeviceInfo describe(int ordinal) {
        StructLayout L = DsmLayouts.DEVICE_INFO;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = CStruct.allocate(a, L);
            int rc = (int) DsmFfi.DEVICE_INFO.invokeExact(ordinal, s);
            DsmFfi.LIB.check(rc, "marrow_dsm_device_info");
            int[] mac = CStruct.slice(s, L, "max_active_clusters").toArray(JAVA_INT);
            return new DeviceInfo(getInt(s, L, "ordinal"), CStruct.getString(s, L, "name"),
                    getInt(s, L, "cc_major"), getInt(s, L, "cc_minor"), getInt(s, L, "sm_count"), getInt(s, L, "max_smem_optin"),
                    getInt(s, L, "smem_per_cta"), getInt(s, L, "clock_rate_khz"), getInt(s, L, "driver_version"),
                    getInt(s, L, "runtime_version"), mac);
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
            MemorySegment s = CStruct.allocate(a, L);
            int rc = (int) DsmFfi.TIMER_PROBE.invokeExact(ordinal, windowUs, s);
            DsmFfi.LIB.check(rc, "marrow_dsm_timer_probe");
            return new TimerInfo(getLong(s, L, "gt_min_step_ns"), getLong(s, L, "gt_steps"), getLong(s, L, "clk_delta"),
                    getLong(s, L, "gt_delta_ns"), getInt(s, L, "smid"), getInt(s, L, "reads"));
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
            setInt(p, P, "timeout_ms", watchdogMs);
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
        setInt(p, P, "size", (int) P.byteSize());
        setInt(p, P, "comp_mask", 0);
        setInt(p, P, "device", ordinal);
        setInt(p, P, "cluster_size", n);
        setInt(p, P, "tile_bytes", tileBytes);
        setInt(p, P, "reps", reps);
        setInt(p, P, "warmup", warmup);
        setInt(p, P, "group_threads", spec.probe().threads(config.groupThreads()));
        setInt(p, P, "tma_chunk_bytes", config.tmaChunkBytes());
        setInt(p, P, "load_kernel", config.loadKernel().code());
        setInt(p, P, "store_width", spec.probe().width(config.storeWidth()));
        setInt(p, P, "load_width", config.loadWidth());
        setInt(p, P, "run_id", runId);
        writeProbe(p, spec.probe());
        MemorySegment lo = CStruct.slice(p, P, "load_from");
        MemorySegment so = CStruct.slice(p, P, "store_to");
        MemorySegment to = CStruct.slice(p, P, "tma_to");
        for (int r = 0; r < DsmLayouts.MAX_RANKS; r++) {
            lo.set(JAVA_BYTE, r, (byte) (r < n ? spec.loadFrom(r) : -1));
            so.set(JAVA_BYTE, r, (byte) (r < n ? spec.storeTo(r) : -1));
            to.set(JAVA_BYTE, r, (byte) (r < n ? spec.tmaTo(r) : -1));
        }
    }

    /** The probe fields appended to marrow_dsm_params (all 0 for Probe.NONE). */
    private static void writeProbe(MemorySegment p, Probe q) {
        StructLayout P = DsmLayouts.PARAMS;
        setInt(p, P, "remote_offset", q.remoteOffset());
        setInt(p, P, "pressure_warps", q.pressureWarps());
        setInt(p, P, "pressure_ranks", q.pressureRanks());
        setInt(p, P, "pressure_pattern", q.conflict() ? 1 : 0);
        setInt(p, P, "bursts", q.bursts());
        setInt(p, P, "store_kernel", q.genericStore() ? 1 : 0);
        CStruct.setLong(p, P, "burst_gap_cycles", q.burstGapCycles());
        CStruct.setLong(p, P, "pressure_cycles", q.pressureWarps() > 0 ? Probe.PRESSURE_CYCLES : 0);
        setInt(p, P, "store_unroll", q.storeUnroll());
        setInt(p, P, "store_end", q.rendezvousEnd() ? 1 : 0);
        setInt(p, P, "probe_build", q.probeBuild() ? 1 : 0);
    }

    private static Sample sample(MemorySegment s) {
        StructLayout S = DsmLayouts.SAMPLE;
        return new Sample(getInt(s, S, "rep"), getInt(s, S, "rank"), getInt(s, S, "smid_start"), getInt(s, S, "smid_end"),
                getInt(s, S, "flags"), getInt(s, S, "roles"), getLong(s, S, "clk_start"), getLong(s, S, "gt_start"),
                getLong(s, S, "clk_load_end"), getLong(s, S, "gt_load_end"), getLong(s, S, "clk_store_end"), getLong(s, S, "gt_store_end"),
                getLong(s, S, "clk_recv_end"), getLong(s, S, "gt_recv_end"), getLong(s, S, "clk_tma_issued"), getLong(s, S, "wait_polls"),
                getLong(s, S, "load_sum"), getLong(s, S, "load_expect"), getLong(s, S, "recv_sum"), getLong(s, S, "recv_expect"),
                getLong(s, S, "pressure_ops"), getLong(s, S, "burst_busy_cycles"), getLong(s, S, "burst_first_cycles"),
                getLong(s, S, "burst_min_cycles"));
    }

    @Override
    public List<LatSample> latency(int clusterSize, int reps, int hops) {
        StructLayout P = DsmLayouts.LAT_PARAMS;
        StructLayout S = DsmLayouts.LAT_SAMPLE;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = CStruct.allocate(a, P);
            setInt(p, P, "device", ordinal);
            setInt(p, P, "cluster_size", clusterSize);
            setInt(p, P, "hops", hops);
            setInt(p, P, "reps", reps);
            setInt(p, P, "timeout_ms", watchdogMs);
            int count = reps * clusterSize * clusterSize;
            MemorySegment out = a.allocate(S, count);
            int rc = (int) DsmFfi.LATENCY.invokeExact(p, out, count);
            DsmFfi.LIB.check(rc, "marrow_dsm_latency");
            List<LatSample> list = new ArrayList<>(count);
            for (int k = 0; k < count; k++) {
                MemorySegment x = out.asSlice(k * S.byteSize(), S.byteSize());
                list.add(new LatSample(getInt(x, S, "rep"), getInt(x, S, "src"), getInt(x, S, "dst"), getInt(x, S, "smid_src"),
                        getInt(x, S, "smid_dst"), getInt(x, S, "flags"), getLong(x, S, "cycles"), getLong(x, S, "final_index"),
                        getLong(x, S, "expect_index")));
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



}
