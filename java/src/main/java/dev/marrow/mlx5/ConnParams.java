// SPDX-License-Identifier: Apache-2.0
package dev.marrow.mlx5;

import dev.marrow.internal.ffi.CStruct;
import dev.marrow.internal.ffi.NativeLib;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static dev.marrow.internal.ffi.CStruct.getInt;
import static dev.marrow.internal.ffi.CStruct.setInt;
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
            MemorySegment s = CStruct.allocate(a, Mlx5Ffi.CONN_PARAMS);
            Mlx5Ffi.V.LIB.check((int) Mlx5Ffi.V.CONN_DEFAULT.invokeExact(s), "marrow_mlx5_conn_params_default");
            return new ConnParams(getInt(s, Mlx5Ffi.CONN_PARAMS, "path_mtu"), getInt(s, Mlx5Ffi.CONN_PARAMS, "sl"), getInt(s, Mlx5Ffi.CONN_PARAMS, "traffic_class"), getInt(s, Mlx5Ffi.CONN_PARAMS, "hop_limit"),
                    getInt(s, Mlx5Ffi.CONN_PARAMS, "timeout"), getInt(s, Mlx5Ffi.CONN_PARAMS, "retry_cnt"), getInt(s, Mlx5Ffi.CONN_PARAMS, "rnr_retry"), getInt(s, Mlx5Ffi.CONN_PARAMS, "min_rnr_timer"),
                    getInt(s, Mlx5Ffi.CONN_PARAMS, "max_rd_atomic"), getInt(s, Mlx5Ffi.CONN_PARAMS, "max_dest_rd_atomic"), (getInt(s, Mlx5Ffi.CONN_PARAMS, "flags") & 1) != 0);
        } catch (Throwable t) {
            throw Mlx5Ffi.rethrow(t);
        }
    }

    void toNative(MemorySegment s) {
        s.fill((byte) 0);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "size", (int) Mlx5Ffi.CONN_PARAMS.byteSize());
        setInt(s, Mlx5Ffi.CONN_PARAMS, "path_mtu", pathMtu);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "sl", sl);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "traffic_class", trafficClass);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "hop_limit", hopLimit);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "timeout", timeout);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "retry_cnt", retryCnt);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "rnr_retry", rnrRetry);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "min_rnr_timer", minRnrTimer);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "max_rd_atomic", maxRdAtomic);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "max_dest_rd_atomic", maxDestRdAtomic);
        setInt(s, Mlx5Ffi.CONN_PARAMS, "flags", forceGrh ? Mlx5Ffi.V.LIB.intConstant("MARROW_MLX5_CONN_FORCE_GRH") : 0);
    }


}
