// SPDX-License-Identifier: Apache-2.0
package dev.marrow.fabric.internal;

import dev.marrow.internal.ffi.CEnum;

/** Bits of marrow_gda_endpoint.flags (enum marrow_gda_endpoint_flags); values from libmarrow_host.so. */
public enum EndpointFlag implements CEnum {
    /** The UAR is device MMIO: the CUDA runner maps it as IO memory. */
    UAR_MMIO,
    /** The destination is another host's memory: never mapped or read here. */
    REMOTE_DST;

    @Override
    public String component() {
        return "host";
    }

    @Override
    public String cName() {
        return "MARROW_GDA_EP_" + name();
    }
}
