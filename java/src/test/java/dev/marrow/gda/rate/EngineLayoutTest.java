// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.gda.EngineLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The engine layout a --nic softnic-device record names comes from the library's enum values. */
class EngineLayoutTest {
    @Test
    void labelsFollowTheLibrarysValues() {
        assertNotEquals(EngineLayout.THREAD.code(), EngineLayout.LANE.code());
        assertEquals("thread", EngineLayout.labelOf(EngineLayout.THREAD.code()));
        assertEquals("lane", EngineLayout.labelOf(EngineLayout.LANE.code()));
    }

    @Test
    void anUnknownValueIsNamedAsANumber() {
        int unknown = Math.max(EngineLayout.THREAD.code(), EngineLayout.LANE.code()) + 7;
        assertEquals("unknown (" + unknown + ")", EngineLayout.labelOf(unknown));
    }
}
