// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.gda.Ordering;
import dev.marrow.gda.OrderingPolicy;
import dev.marrow.fabric.Placement;
import dev.marrow.gda.rate.RatePath;
import dev.marrow.gda.rate.RateSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** gda rate's defaults that depend on the set-up: the ordering follows the queues' placement; the posting path. */
class GdaRateDefaultsTest {
    private static List<RateSpec> points(String... args) {
        GdaRateCommand c = new GdaRateCommand();
        new CommandLine(c).parseArgs(args);
        return c.points();
    }

    @Test
    void orderingDefaultFollowsThePlacementAsLatencysDoes() {
        // GPU-resident queues (the device engine): gpu-fence, the rule gda latency uses
        assertEquals(Ordering.GPU_FENCE, points("--target", "cuda", "--nic", "softnic-device").getFirst().ordering());
        assertEquals(OrderingPolicy.defaultFor(Placement.GPU),
                points("--target", "cuda", "--nic", "softnic-device").getFirst().ordering());
        // host queues (CPU engines, ConnectX views): release-sys
        assertEquals(Ordering.RELEASE_SYS, points("--nic", "softnic").getFirst().ordering());
        assertEquals(Ordering.RELEASE_SYS, points("--target", "cuda", "--nic", "mlx5").getFirst().ordering());
        // an explicit flag wins on either placement
        assertEquals(Ordering.RELEASE_SYS, points("--target", "cuda", "--nic", "softnic-device", "--ordering",
                "release-sys").getFirst().ordering());
        assertEquals(Ordering.GPU_FENCE, points("--ordering", "gpu-fence").getFirst().ordering());
    }

    @Test
    void ratePathIsAutoUnlessAskedForShared() {
        assertEquals(RatePath.AUTO, points().getFirst().path());
        assertEquals(RatePath.SHARED, points("--rate-path", "shared").getFirst().path());
        assertThrows(CommandLine.ParameterException.class, () -> points("--rate-path", "solo"));
    }
}
