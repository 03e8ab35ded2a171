// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.internal;

import dev.marrow.gda.Experiment;
import dev.marrow.gda.Ordering;
import dev.marrow.gda.Payload;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.internal.EndpointFlag;
import dev.marrow.internal.ffi.CEnum;

/** The marrow_gda.h enums Java uses; each runner library must export every value. */
final class GdaConstants {
    private GdaConstants() {
    }

    /**
     * The ordering labels are C's (marrow_gda_ordering_name, the table the runners print): a Java
     * label that differs refuses the library, as a missing constant does.
     */
    static void verifyOrderingNames() {
        for (Ordering o : Ordering.values()) {
            String c = GdaFfi.Host.orderingName(o.code());
            if (!o.label().equals(c)) {
                throw new dev.marrow.api.MarrowException("libmarrow_host.so names ordering " + o.cName() + " '" + c
                        + "', Java '" + o.label() + "': rebuild the native library (marrow_gda.h is the source)");
            }
        }
    }

    static final CEnum[][] ALL = {Experiment.values(), Ordering.values(), Payload.values(), Placement.values(),
            EndpointFlag.values()};
}
