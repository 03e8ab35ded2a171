// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.internal;

import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Downcall handles of the two mini-gda runners. Each holder class loads its
 * library on first use and runs the layout handshake for the marrow_gda.h
 * structs against it.
 */
public final class GdaFfi {
    private GdaFfi() {
    }

    /** libmarrow_host.so: the CPU executor. */
    public static final class Host {
        private Host() {
        }

        public static final NativeLib LIB = load();
        /** int marrow_gda_cpu_run(cfg*, ep*, peer*, uint64 *samples_ns, result*) */
        public static final MethodHandle CPU_RUN = LIB.handle("marrow_gda_cpu_run",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        /** int marrow_gda_cpu_serve(cfg*, ep*, result*): the round trip's peer role alone */
        public static final MethodHandle CPU_SERVE = LIB.handle("marrow_gda_cpu_serve",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        /** int marrow_gda_config_check(cfg*): the one check of a run's parameters */
        public static final MethodHandle CONFIG_CHECK = LIB.handle("marrow_gda_config_check",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));

        /** const char *marrow_gda_ordering_name(int ordering): C's name of a variant, or NULL */
        private static final MethodHandle ORDERING_NAME = LIB.handle("marrow_gda_ordering_name",
                FunctionDescriptor.of(ADDRESS, JAVA_INT));

        /** The library's name of the ordering whose C value is code; null when C defines none. */
        public static String orderingName(int code) {
            try {
                MemorySegment s = (MemorySegment) ORDERING_NAME.invokeExact(code);
                return s.equals(MemorySegment.NULL) ? null : s.reinterpret(64).getString(0);
            } catch (Throwable t) {
                throw NativeLib.rethrow(t);
            }
        }

        static {
            GdaConstants.verifyOrderingNames(); // after ORDERING_NAME: the names are C's (marrow_gda.h)
        }

        private static NativeLib load() {
            NativeLib lib = NativeLib.shared("host");
            GdaLayouts.ALL.size(); // built from this library: the layout handshake
            lib.verifyConstants(GdaConstants.ALL);
            return lib;
        }
    }

    /** libmarrow_cuda.so: the GPU kernels. */
    public static final class Cuda {
        private Cuda() {
        }

        public static final NativeLib LIB = load();
        /** int marrow_gda_cuda_run(cfg*, ep*, peer*, uint64 *samples_ns, uint64 *samples_cycles, result*) */
        public static final MethodHandle CUDA_RUN = LIB.handle("marrow_gda_cuda_run",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        /** int marrow_gda_cuda_serve(cfg*, ep*, result*): the round trip's peer role alone, on the GPU */
        public static final MethodHandle CUDA_SERVE = LIB.handle("marrow_gda_cuda_serve",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        /** int marrow_gda_cuda_prepare(int device): select it and create its context */
        public static final MethodHandle CUDA_PREPARE = LIB.handle("marrow_gda_cuda_prepare",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        /**
         * int marrow_gda_devnic_open(int cuda_device, uint32 nic_sms, uint32 log_sq, uint32 log_cq,
         * uint32 cq_flags, uint32 max_inline, uint64 buffer_bytes, devnic **out, ep *a, ep *b)
         */
        public static final MethodHandle DEVNIC_OPEN = LIB.handle("marrow_gda_devnic_open",
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG,
                        ADDRESS, ADDRESS, ADDRESS));
        /** int marrow_gda_devnic_close(devnic*) */
        public static final MethodHandle DEVNIC_CLOSE = LIB.handle("marrow_gda_devnic_close",
                FunctionDescriptor.of(JAVA_INT, ADDRESS));
        /** struct marrow_softnic_device *marrow_gda_devnic_device(devnic*) */
        public static final MethodHandle DEVNIC_DEVICE = LIB.handle("marrow_gda_devnic_device",
                FunctionDescriptor.of(ADDRESS, ADDRESS));
        /** int marrow_gda_devnic_sms(devnic*, uint32 *distinct_sms, uint32 *max_blocks_per_sm) */
        public static final MethodHandle DEVNIC_SMS = LIB.handle("marrow_gda_devnic_sms",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        /** int marrow_gda_devnic_layout(devnic*, uint32 *exec_mode, uint32 *threads_per_sm) */
        public static final MethodHandle DEVNIC_LAYOUT = LIB.handle("marrow_gda_devnic_layout",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        /** int marrow_softnic_device_counters(dev*, uint64 *values, uint32 n) */
        public static final MethodHandle SNDEV_COUNTERS = LIB.handle("marrow_softnic_device_counters",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        /** int marrow_softnic_device_dump(dev*, uint32 qp, char *buf, uint32 len) */
        public static final MethodHandle SNDEV_DUMP = LIB.handle("marrow_softnic_device_dump",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));

        private static NativeLib load() {
            NativeLib lib = NativeLib.shared("cuda");
            lib.verifyLayouts(GdaLayouts.ALL); // the host library's layouts must be the CUDA library's too
            lib.verifySameConstants(GdaConstants.ALL); // the values Java took from libmarrow_host.so
            return lib;
        }
    }
}
