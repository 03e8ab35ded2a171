// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.api.softnic.SoftNic;

/**
 * What {@link MiniGda#open} builds: the execution target, the NIC that owns
 * the queues, where the queues live, the queue shapes, the software NIC's
 * engine and (for {@link Nic#MLX5}) the device and peer. Start from
 * {@link #defaults} and change one group with the {@code with*} methods.
 *
 * @param queues     the QPs' and CQs' shapes and the buffers' size
 * @param engine     the software NIC's engine thread (not used on mlx5)
 * @param cudaDevice CUDA ordinal for {@link Target#CUDA}
 * @param mlx5       device, GID and peer of {@link Nic#MLX5}
 */
public record GdaSetup(Target target, Nic nic, Placement placement, Queues queues, Engine engine, int cudaDevice,
                       Mlx5Options mlx5) {

    /**
     * The queue shapes; the limits are the native side's (the software NIC
     * and libmlx5 refuse what they cannot build).
     *
     * @param maxInline   the QPs' max_inline_data (bytes); longer inline payloads are rejected
     * @param logSq       log2 of the SQ size in WQEBBs, on both NICs (verbs is asked for the matching
     *                    max_send_wr; the setup of an open mlx5 session holds what libmlx5 granted)
     * @param logCq       log2 of the CQ size in CQEs
     * @param collapsedCq cc = 1 CQs (completion by wqe_counter in slot 0; software NIC only)
     * @param bufferBytes size of each side's source and inbox buffer (pointer payloads up to this)
     */
    public record Queues(int maxInline, int logSq, int logCq, boolean collapsedCq, long bufferBytes) {
        public static Queues defaults() {
            return new Queues(220, 8, 10, false, 64 * 1024);
        }
    }

    /**
     * The software NIC engine.
     *
     * @param pollMode engine polling (HOT for measurements)
     * @param cpu      pin the engine thread to this CPU (-1: no pinning)
     * @param nicSms   {@link Placement#GPU}: SMs the device engine's persistent kernel takes (one block
     *                 each; docs/design/device-engine.md)
     * @param threads  the CPU engine's threads (one process on the software NIC; QPs sharded by QPN
     *                 unless placed, docs/design/software-nic.md section 2)
     */
    public record Engine(SoftNic.PollMode pollMode, int cpu, int nicSms, int threads) {
        public Engine {
            if (nicSms < 1) {
                throw new IllegalArgumentException("--nic-sms must be >= 1, not " + nicSms);
            }
            if (threads < 1) {
                throw new IllegalArgumentException("--engine-threads must be >= 1, not " + threads);
            }
        }

        public Engine(SoftNic.PollMode pollMode, int cpu, int nicSms) {
            this(pollMode, cpu, nicSms, 1);
        }

        public Engine(SoftNic.PollMode pollMode, int cpu) {
            this(pollMode, cpu, 1);
        }

        public static Engine defaults() {
            return new Engine(SoftNic.PollMode.HOT, -1, 1);
        }
    }

    public GdaSetup {
        queues = queues == null ? Queues.defaults() : queues;
        engine = engine == null ? Engine.defaults() : engine;
        mlx5 = mlx5 == null ? Mlx5Options.defaults() : mlx5;
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
        return new GdaSetup(target, Nic.SOFTNIC, Placement.HOST, Queues.defaults(), Engine.defaults(), 0,
                Mlx5Options.defaults());
    }

    public int maxInline() {
        return queues.maxInline();
    }

    public int logSq() {
        return queues.logSq();
    }

    public int logCq() {
        return queues.logCq();
    }

    public boolean collapsedCq() {
        return queues.collapsedCq();
    }

    public long bufferBytes() {
        return queues.bufferBytes();
    }

    public SoftNic.PollMode pollMode() {
        return engine.pollMode();
    }

    public int engineCpu() {
        return engine.cpu();
    }

    public GdaSetup withNic(Nic n) {
        return new GdaSetup(target, n, placement, queues, engine, cudaDevice, mlx5);
    }

    public GdaSetup withPlacement(Placement p) {
        return new GdaSetup(target, nic, p, queues, engine, cudaDevice, mlx5);
    }

    public GdaSetup withQueues(Queues q) {
        return new GdaSetup(target, nic, placement, q, engine, cudaDevice, mlx5);
    }

    public GdaSetup withMaxInline(int n) {
        return withQueues(new Queues(n, logSq(), logCq(), collapsedCq(), bufferBytes()));
    }

    public GdaSetup withQueues(int logSqWqebbs, int logCqEntries, boolean collapsed) {
        return withQueues(new Queues(maxInline(), logSqWqebbs, logCqEntries, collapsed, bufferBytes()));
    }

    public GdaSetup withBufferBytes(long n) {
        return withQueues(new Queues(maxInline(), logSq(), logCq(), collapsedCq(), n));
    }

    public GdaSetup withPollMode(SoftNic.PollMode m) {
        return new GdaSetup(target, nic, placement, queues, new Engine(m, engine.cpu(), engine.nicSms(), engine.threads()), cudaDevice, mlx5);
    }

    public GdaSetup withEngineCpu(int cpu) {
        return new GdaSetup(target, nic, placement, queues, new Engine(engine.pollMode(), cpu, engine.nicSms(), engine.threads()), cudaDevice, mlx5);
    }

    public GdaSetup withEngineThreads(int n) {
        return new GdaSetup(target, nic, placement, queues, new Engine(engine.pollMode(), engine.cpu(), engine.nicSms(), n),
                cudaDevice, mlx5);
    }

    public int engineThreads() {
        return engine.threads();
    }

    public GdaSetup withCudaDevice(int dev) {
        return new GdaSetup(target, nic, placement, queues, engine, dev, mlx5);
    }

    public GdaSetup withMlx5(Mlx5Options o) {
        return new GdaSetup(target, nic, placement, queues, engine, cudaDevice, o);
    }

    public GdaSetup withNicSms(int n) {
        return new GdaSetup(target, nic, placement, queues, new Engine(engine.pollMode(), engine.cpu(), n, engine.threads()),
                cudaDevice, mlx5);
    }

    public int nicSms() {
        return engine.nicSms();
    }

    /** GPU-resident queues on the software NIC: its device engine serves them. */
    public boolean deviceEngine() {
        return nic == Nic.SOFTNIC && placement == Placement.GPU;
    }

    /** The NIC as results name it: "softnic-device" for the device engine, else the NIC's label. */
    public String nicLabel() {
        return nic.label(placement);
    }

    /** "cpu+softnic", "cuda+softnic", ... as results name the backend. */
    public String backendName() {
        return target.label() + "+" + nicLabel();
    }
}
