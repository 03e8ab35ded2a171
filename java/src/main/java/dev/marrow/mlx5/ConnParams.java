// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.internal.ffi.NativeLib;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * Connection knobs of struct marrow_mlx5_conn_params. {@link #defaults()}
 * asks the C library, so there is one source of the default values; the C
 * side checks ranges on connect.
 */
public record ConnParams(int pathMtu, int sl, int trafficClass, int hopLimit, int timeout, int retryCnt,
                         int rnrRetry, int minRnrTimer, int maxRdAtomic, int maxDestRdAtomic, boolean forceGrh) {

    public static ConnParams defaults() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment s = NativeLib.allocateSized(a, Mlx5Ffi.CONN_PARAMS);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.CONN_DEFAULT.invokeExact(s), "marrow_mlx5_conn_params_default");
            return new ConnParams(g(s, "path_mtu"), g(s, "sl"), g(s, "traffic_class"), g(s, "hop_limit"),
                    g(s, "timeout"), g(s, "retry_cnt"), g(s, "rnr_retry"), g(s, "min_rnr_timer"),
                    g(s, "max_rd_atomic"), g(s, "max_dest_rd_atomic"), (g(s, "flags") & 1) != 0);
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    /** Path MTU as enum ibv_mtu (1 = 256 .. 5 = 4096), 0 = the smaller of both active MTUs. */
    public ConnParams withPathMtu(int mtuEnum) {
        return new ConnParams(mtuEnum, sl, trafficClass, hopLimit, timeout, retryCnt, rnrRetry, minRnrTimer,
                maxRdAtomic, maxDestRdAtomic, forceGrh);
    }

    public ConnParams withForceGrh(boolean on) {
        return new ConnParams(pathMtu, sl, trafficClass, hopLimit, timeout, retryCnt, rnrRetry, minRnrTimer,
                maxRdAtomic, maxDestRdAtomic, on);
    }

    void toNative(MemorySegment s) {
        s.fill((byte) 0);
        s.set(JAVA_INT, 0, (int) Mlx5Ffi.CONN_PARAMS.byteSize());
        p(s, "path_mtu", pathMtu);
        p(s, "sl", sl);
        p(s, "traffic_class", trafficClass);
        p(s, "hop_limit", hopLimit);
        p(s, "timeout", timeout);
        p(s, "retry_cnt", retryCnt);
        p(s, "rnr_retry", rnrRetry);
        p(s, "min_rnr_timer", minRnrTimer);
        p(s, "max_rd_atomic", maxRdAtomic);
        p(s, "max_dest_rd_atomic", maxDestRdAtomic);
        p(s, "flags", forceGrh ? 1 : 0);
    }

    private static int g(MemorySegment s, String f) {
        return s.get(JAVA_INT, Mlx5Ffi.off(Mlx5Ffi.CONN_PARAMS, f));
    }

    private static void p(MemorySegment s, String f, int v) {
        s.set(JAVA_INT, Mlx5Ffi.off(Mlx5Ffi.CONN_PARAMS, f), v);
    }
}
