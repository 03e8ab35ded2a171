// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.api.Backend;
import dev.marrow.testing.RequiresBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gda goodput --posters on cuda + the CPU software NIC: GPU threads post
 * pointer WRITEs up to 1 MiB (the staging and check kernels spread each slot
 * over a block); every slot holds its source bytes and the NIC executed each
 * WRITE once; records say gpu_hardware=true, nic_hardware=false,
 * hardware=false, and no point beats the modeled port.
 */
@Tag("gpu")
@RequiresBackend(Backend.CUDA)
class GdaGoodputPostersGpuTest {

    @Test
    void gpuPostersDeliverEveryByteUpToOneMebibyte() throws Exception {
        List<JsonNode> recs = GoodputLoadedCliTest.records(CliTest.run("gda", "goodput", "--target", "cuda",
                "--posters", "4x2", "--qps", "4", "--batch", "4", "--engine-threads", "2",
                "--sizes", "8,4096,65544,1048576", "--bytes-per-point", "16777216", "--wire-gbps", "200",
                "--format", "json", "--quiet"));
        assertEquals(5, recs.size());
        for (JsonNode n : recs.subList(0, 4)) {
            assertEquals("many-poster", n.get("mode").asString());
            assertFalse(n.get("hardware").asBoolean());
            assertTrue(n.get("gpu_hardware").asBoolean());
            assertFalse(n.get("nic_hardware").asBoolean());
            assertEquals(8, n.get("poster_threads").asInt());
            assertEquals(0, n.get("payload_errors").asLong(), n.toString());
            assertTrue(n.get("valid").asBoolean(), n.toString());
            assertEquals(n.get("posts").asLong(), n.get("emu_wqe_rdma_write").asLong(), n.toString());
            double g = n.get("goodput_gbps").asDouble();
            assertTrue(g > 0 && g <= n.get("line_rate_gbps").asDouble(), "beat the modeled port: " + n);
        }
        assertEquals("gda.goodput.summary", recs.get(4).get("experiment").asString());
    }
}
