// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate.internal;

import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/** Downcall handles of the two rate runners; each holder loads its library and checks layouts and constants. */
public final class RateFfi {
    private RateFfi() {
    }

    private static final FunctionDescriptor RUN = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT,
            ADDRESS, ADDRESS);

    /** libmarrow_host.so: the CPU executor. */
    public static final class Host {
        private Host() {
        }

        public static final NativeLib LIB = load();
        /** int marrow_gda_rate_cpu_run(cfg*, eps*, n_eps, uint64 *samples_ns, result*) */
        public static final MethodHandle RUN_CPU = LIB.handle("marrow_gda_rate_cpu_run", RUN);

        private static NativeLib load() {
            NativeLib lib = NativeLib.shared("host");
            RateLayouts.ALL.size(); // built from this library: the layout handshake
            lib.verifyConstants(RateLayouts.CONSTANTS);
            return lib;
        }
    }

    /** libmarrow_cuda.so: the kernels. */
    public static final class Cuda {
        private Cuda() {
        }

        public static final NativeLib LIB = load();
        /** int marrow_gda_rate_cuda_run(cfg*, eps*, n_eps, uint64 *samples_ns, result*) */
        public static final MethodHandle RUN_CUDA = LIB.handle("marrow_gda_rate_cuda_run", RUN);

        private static NativeLib load() {
            NativeLib lib = NativeLib.shared("cuda");
            lib.verifyLayouts(RateLayouts.ALL);
            lib.verifySameConstants(RateLayouts.CONSTANTS);
            return lib;
        }
    }
}
