// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.api.softnic.SoftNic;

/**
 * What {@link MiniGda#open} builds: the execution target, the NIC that owns
 * the queues, where the queues live, and the queue shapes.
 *
 * @param maxInline     the QPs' max_inline_data (bytes); longer inline payloads are rejected
 * @param logSq         log2 of the SQ size in WQEBBs, on both NICs (verbs is asked for the matching
 *                      max_send_wr; the setup of an open mlx5 session holds what libmlx5 granted)
 * @param logCq         log2 of the CQ size in CQEs
 * @param collapsedCq   cc = 1 CQs (completion by wqe_counter in slot 0)
 * @param bufferBytes   size of each side's source and inbox buffer (pointer payloads up to this)
 * @param pollMode      software NIC engine polling (HOT for measurements)
 * @param engineCpu     pin the engine thread to this CPU (-1: no pinning)
 * @param cudaDevice    CUDA ordinal for {@link Target#CUDA}
 * @param mlx5          device, GID and peer of {@link Nic#MLX5} (pollMode, engineCpu and collapsedCq
 *                      are software NIC knobs and do not apply there)
 * @param nicSms        {@link Placement#GPU} on the software NIC: SMs the device engine's persistent
 *                      kernel takes (one block each; docs/design/device-engine.md)
 */
public record GdaSetup(Target target, Nic nic, Placement placement, int maxInline, int logSq, int logCq,
                       boolean collapsedCq, long bufferBytes, SoftNic.PollMode pollMode, int engineCpu,
                       int cudaDevice, Mlx5Options mlx5, int nicSms) {

    public GdaSetup {
        if (mlx5 == null) {
            mlx5 = Mlx5Options.defaults();
        }
        if (nicSms < 1) {
            throw new IllegalArgumentException("--nic-sms must be >= 1, not " + nicSms);
        }
    }

    /**
     * Refuses a log2 SQ size outside the range C accepts on every backend
     * (marrow_check_log_sq), with C's message after {@code flag}; before any
     * device is opened.
     */
    public static void requireLogSq(int logSq, String flag) {
        dev.marrow.api.Backend.SOFTNIC.ensureAvailability();
        int rc;
        try {
            rc = (int) dev.marrow.internal.ffi.EmuFfi.CHECK_LOG_SQ.invokeExact(logSq);
        } catch (Throwable t) {
            throw new dev.marrow.api.MarrowException("marrow_check_log_sq failed: " + t, t);
        }
        if (rc != 0) {
            throw new IllegalArgumentException(flag + " " + logSq + ": " + dev.marrow.internal.ffi.EmuFfi.LIB.lastError());
        }
    }

    public static GdaSetup defaults(Target target) {
        return new GdaSetup(target, Nic.SOFTNIC, Placement.HOST, 220, 8, 10, false, 64 * 1024,
                SoftNic.PollMode.HOT, -1, 0, Mlx5Options.defaults(), 1);
    }

    public GdaSetup withNic(Nic n) {
        return new GdaSetup(target, n, placement, maxInline, logSq, logCq, collapsedCq, bufferBytes, pollMode, engineCpu, cudaDevice, mlx5, nicSms);
    }

    public GdaSetup withPlacement(Placement p) {
        return new GdaSetup(target, nic, p, maxInline, logSq, logCq, collapsedCq, bufferBytes, pollMode, engineCpu, cudaDevice, mlx5, nicSms);
    }

    public GdaSetup withMaxInline(int n) {
        return new GdaSetup(target, nic, placement, n, logSq, logCq, collapsedCq, bufferBytes, pollMode, engineCpu, cudaDevice, mlx5, nicSms);
    }

    public GdaSetup withQueues(int logSqWqebbs, int logCqEntries, boolean collapsed) {
        return new GdaSetup(target, nic, placement, maxInline, logSqWqebbs, logCqEntries, collapsed, bufferBytes, pollMode, engineCpu, cudaDevice, mlx5, nicSms);
    }

    public GdaSetup withBufferBytes(long n) {
        return new GdaSetup(target, nic, placement, maxInline, logSq, logCq, collapsedCq, n, pollMode, engineCpu, cudaDevice, mlx5, nicSms);
    }

    public GdaSetup withPollMode(SoftNic.PollMode m) {
        return new GdaSetup(target, nic, placement, maxInline, logSq, logCq, collapsedCq, bufferBytes, m, engineCpu, cudaDevice, mlx5, nicSms);
    }

    public GdaSetup withEngineCpu(int cpu) {
        return new GdaSetup(target, nic, placement, maxInline, logSq, logCq, collapsedCq, bufferBytes, pollMode, cpu, cudaDevice, mlx5, nicSms);
    }

    public GdaSetup withCudaDevice(int dev) {
        return new GdaSetup(target, nic, placement, maxInline, logSq, logCq, collapsedCq, bufferBytes, pollMode, engineCpu, dev, mlx5, nicSms);
    }

    public GdaSetup withMlx5(Mlx5Options o) {
        return new GdaSetup(target, nic, placement, maxInline, logSq, logCq, collapsedCq, bufferBytes, pollMode, engineCpu, cudaDevice, o, nicSms);
    }

    public GdaSetup withNicSms(int n) {
        return new GdaSetup(target, nic, placement, maxInline, logSq, logCq, collapsedCq, bufferBytes, pollMode, engineCpu, cudaDevice, mlx5, n);
    }

    /** GPU-resident queues on the software NIC: its device engine serves them. */
    public boolean deviceEngine() {
        return nic == Nic.SOFTNIC && placement == Placement.GPU;
    }

    /** The NIC as results name it: "softnic-device" for the device engine, else the NIC's label. */
    public String nicLabel() {
        return deviceEngine() ? "softnic-device" : nic.label();
    }

    /** "cpu+softnic", "cuda+softnic", "cuda+softnic-device", ... as results name the backend. */
    public String backendName() {
        return target.label() + "+" + nicLabel();
    }
}
