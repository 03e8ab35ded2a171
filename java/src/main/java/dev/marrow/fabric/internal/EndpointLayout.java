// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric.internal;

import dev.marrow.internal.ffi.NativeLib;

import java.lang.foreign.StructLayout;

import static dev.marrow.internal.ffi.CStruct.i32;
import static dev.marrow.internal.ffi.CStruct.i64;
import static dev.marrow.internal.ffi.CStruct.layout;
import static dev.marrow.internal.ffi.CStruct.ptr;

/**
 * struct marrow_gda_endpoint (marrow_gda.h) as libmarrow_host.so describes it: the one
 * host-to-device contract for a connected queue pair that every runner takes. The fabric
 * fills it; the gda runners' other structs (GdaLayouts) stay with the experiments.
 */
public final class EndpointLayout {
    private EndpointLayout() {
    }

    public static final StructLayout ENDPOINT = layout(NativeLib.shared("host"), "marrow_gda_endpoint",
            i32("placement"), i32("lkey"), ptr("qp"), ptr("cq"), i64("local_addr"), i64("local_len"), i64("inbox_addr"),
            i64("remote_addr"), i64("remote_len"), i32("rkey"), i32("flags"));
}
