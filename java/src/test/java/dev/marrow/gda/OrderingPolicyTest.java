// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Placement;
import dev.marrow.fabric.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The placement-driven default ordering and the hardware guard (docs/design/orderings.md §3). */
class OrderingPolicyTest {

    @Test
    void defaultFollowsPlacement() {
        assertEquals(Ordering.RELEASE_SYS, OrderingPolicy.defaultFor(Placement.HOST));
        assertEquals(Ordering.GPU_FENCE, OrderingPolicy.defaultFor(Placement.GPU));
    }

    @Test
    void hostResidentQueuesAreSafeOnlyWithSystemScope() {
        for (Ordering o : Ordering.values()) {
            boolean expected = o == Ordering.RELEASE_SYS || o == Ordering.FENCE_SYS;
            assertEquals(expected, OrderingPolicy.safeOnHardware(o, Placement.HOST), o.label());
        }
    }

    @Test
    void gpuResidentQueuesAreSafeWithEveryFencedVariant() {
        for (Ordering o : Ordering.values()) {
            assertEquals(o != Ordering.NONE, OrderingPolicy.safeOnHardware(o, Placement.GPU), o.label());
        }
    }

    @Test
    void theDefaultIsSafeOnHardwareForEveryPlacement() {
        for (Placement p : Placement.values()) {
            assertTrue(OrderingPolicy.safeOnHardware(OrderingPolicy.defaultFor(p), p), p.label());
        }
    }

    @ParameterizedTest
    @EnumSource(value = Ordering.class, names = {"NONE", "GPU_FENCE", "GPU_FENCE_DBREC", "RELEASE_GPU", "THREADFENCE"})
    void mlx5WithHostQueuesRefusesUnsafeVariantsUnlessAllowed(Ordering o) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> OrderingPolicy.requireAllowed(Nic.MLX5, Placement.HOST, o, false));
        assertTrue(e.getMessage().contains("--ordering " + o.label()) && e.getMessage().contains("--allow-unsafe-ordering")
                && e.getMessage().contains("release-sys"), e.getMessage());
        assertDoesNotThrow(() -> OrderingPolicy.requireAllowed(Nic.MLX5, Placement.HOST, o, true));
        assertDoesNotThrow(() -> OrderingPolicy.requireAllowed(Nic.SOFTNIC, Placement.HOST, o, false));
    }

    @ParameterizedTest
    @EnumSource(value = Ordering.class, names = {"RELEASE_SYS", "FENCE_SYS"})
    void systemScopeVariantsNeedNoFlag(Ordering o) {
        assertDoesNotThrow(() -> OrderingPolicy.requireAllowed(Nic.MLX5, Placement.HOST, o, false));
    }

    @Test
    void gpuPlacementAllowsGpuScopeOnMlx5ButNotNone() {
        assertDoesNotThrow(() -> OrderingPolicy.requireAllowed(Nic.MLX5, Placement.GPU, Ordering.GPU_FENCE, false));
        assertThrows(IllegalArgumentException.class,
                () -> OrderingPolicy.requireAllowed(Nic.MLX5, Placement.GPU, Ordering.NONE, false));
    }

    @Test
    void recordsCarryTheFlagComputedForThePlacementOnTheSoftwareNicToo() {
        GdaSetup s = GdaSetup.defaults(Target.CPU);
        GdaRun unsafe = new GdaRun(s, GdaRunSpec.of(Experiment.ISSUE, Ordering.GPU_FENCE, Payload.INLINE, 8), new GdaRun.Samples(new long[] {1, 2, 3}, null, 3, 0),
                new GdaRun.Counters(3, 3, 3, 0, 0), new GdaRun.WqeShape(2, 1), java.util.Map.of());
        GdaRun safe = new GdaRun(s, GdaRunSpec.of(Experiment.ISSUE, Ordering.FENCE_SYS, Payload.INLINE, 8), new GdaRun.Samples(new long[] {1, 2, 3}, null, 3, 0),
                new GdaRun.Counters(3, 3, 3, 0, 0), new GdaRun.WqeShape(2, 1), java.util.Map.of());
        assertEquals(false, GdaRecords.record(java.util.List.of(unsafe)).params().get("ordering_safe_on_hardware"));
        assertEquals(true, GdaRecords.record(java.util.List.of(safe)).params().get("ordering_safe_on_hardware"));
        assertEquals(1 << s.logSq(), GdaRecords.record(java.util.List.of(safe)).params().get("sq_wqebbs"),
                "the SQ size in WQEBBs");
    }
}
