// SPDX-License-Identifier: Apache-2.0
package dev.marrow.api.softnic;

import static org.junit.jupiter.api.Assertions.assertEquals;

final class SoftnicAssert {
    private SoftnicAssert() {
    }

    /** The first n destination bytes equal the source bytes. */
    static void samePrefix(LoopbackRig rig, int n) {
        assertEquals(-1L, rig.source().memory().asSlice(0, n).mismatch(rig.destination().memory().asSlice(0, n)),
                "destination differs from source");
    }
}
