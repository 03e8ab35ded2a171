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

    static final CEnum[][] ALL = {Experiment.values(), Ordering.values(), Payload.values(), Placement.values(),
            EndpointFlag.values()};
}
