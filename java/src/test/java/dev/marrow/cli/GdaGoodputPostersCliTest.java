// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * gda goodput --posters on the cpu target and the software NIC: several
 * posting threads over several QPs with batched doorbells deliver exactly
 * the bytes and WRITEs posted at every size (the rate runner's slot check
 * and the engine's WRITE count), including sizes above 4 KiB; the records
 * carry the poster shape, batch, QPs, engine threads and the wire model,
 * and under a slow modeled port no point beats its line rate. Bad shapes
 * are usage errors (exit 2) naming the flag. No timing is asserted beyond
 * the model's bound.
 */
class GdaGoodputPostersCliTest {

    @Test
    void severalPostersAndQpsDeliverEveryByteUnderOnePort() throws Exception {
        // 2 Gb/s: 0.25 GB/s of line rate, far below the copy engine, so the model binds
        List<JsonNode> recs = GoodputLoadedCliTest.records(CliTest.run("gda", "goodput", "--target", "cpu",
                "--posters", "2x2", "--qps", "2", "--batch", "4", "--engine-threads", "1",
                "--sizes", "8,512,8192,65544", "--bytes-per-point", "262144", "--warmup", "8", "--signal-every", "8",
                "--wire-gbps", "2", "--format", "json", "--quiet"));
        assertEquals(5, recs.size());
        int[] sizes = {8, 512, 8192, 65544};
        for (int i = 0; i < 4; i++) {
            JsonNode n = recs.get(i);
            assertEquals("gda.goodput", n.get("experiment").asString());
            assertEquals("many-poster", n.get("mode").asString());
            assertFalse(n.get("hardware").asBoolean());
            assertFalse(n.has("gpu_hardware"), "cpu rows name no GPU: " + n);
            assertEquals(sizes[i], n.get("size_bytes").asInt());
            assertEquals("2x2", n.get("posters").asString());
            assertEquals(4, n.get("poster_threads").asInt());
            assertEquals(4, n.get("batch").asInt());
            assertEquals(2, n.get("qps").asInt());
            assertEquals(1, n.get("engine_threads").asInt());
            assertEquals(512, n.get("window").asInt(), "default: 256 per QP");
            assertEquals(256, n.get("window_per_qp").asInt());
            assertEquals(8, n.get("signal_every_per_qp").asInt());
            // every destination slot held its source bytes, and the NIC executed every WRITE once
            assertEquals(0, n.get("payload_errors").asLong(), n.toString());
            assertTrue(n.get("slots_checked").asLong() > 0, n.toString());
            assertTrue(n.get("valid").asBoolean(), n.toString());
            long posts = n.get("posts").asLong();
            assertEquals(posts, n.get("emu_wqe_rdma_write").asLong(), n.toString());
            assertEquals(n.get("messages").asLong() + n.get("warmup").asLong(), posts, n.toString());
            assertEquals(4 * n.get("messages_per_poster").asLong(), n.get("messages").asLong());
            assertEquals(0, n.get("messages_per_poster").asLong() % 4, "whole batches: " + n);
            assertTrue(n.get("messages_per_poster").asLong() >= 32 * n.get("warmup_per_poster").asLong(), n.toString());
            assertEquals(posts / 4, n.get("doorbells").asLong(), "one doorbell per batch of 4: " + n);
            // both QPs' bytes went through the one modeled port, which bounds the goodput
            assertEquals("infiniband-rc", n.get("wire_model").get("name").asString());
            assertTrue(n.get("wire_model_scope").asString().contains("one port"), n.toString());
            assertTrue(n.get("wire_bytes").asLong() >= posts * sizes[i], n.toString());
            double g = n.get("goodput_gbps").asDouble();
            assertTrue(g > 0, n.toString());
            assertTrue(g <= n.get("line_rate_gbps").asDouble(), "beat the modeled port: " + n);
            assertEquals(g / 0.25, n.get("fraction_of_line_rate").asDouble(), 1e-3);
        }
        JsonNode s = recs.get(4);
        assertEquals("gda.goodput.summary", s.get("experiment").asString());
        assertEquals("many-poster", s.get("mode").asString());
        assertEquals(4, s.get("poster_threads").asInt());
        assertEquals(4, s.get("goodput_gbps").size());
        assertTrue(s.get("first_size_at_90pct_line_rate").isNull() || s.get("first_size_at_90pct_line_rate").isInt());
    }

    @Test
    void oneBlockOfThreadsSharingQpsWithoutAModel() throws Exception {
        List<JsonNode> recs = GoodputLoadedCliTest.records(CliTest.run("gda", "goodput", "--posters", "1x3",
                "--qps", "2", "--batch", "2", "--engine-threads", "2", "--sizes", "64,4096", "--bytes-per-point",
                "65536", "--window", "16", "--warmup", "0", "--wire-gbps", "0", "--format", "json", "--quiet"));
        assertEquals(3, recs.size());
        for (JsonNode n : recs.subList(0, 2)) {
            assertEquals(3, n.get("poster_threads").asInt());
            assertEquals(8, n.get("window_per_qp").asInt());
            assertEquals(0, n.get("warmup").asLong());
            assertEquals(0, n.get("payload_errors").asLong(), n.toString());
            assertTrue(n.get("valid").asBoolean(), n.toString());
            assertEquals(n.get("posts").asLong(), n.get("emu_wqe_rdma_write").asLong(), n.toString());
            assertEquals("none", n.get("wire_model").get("name").asString());
            assertFalse(n.has("wire_model_scope"));
            assertFalse(n.has("fraction_of_line_rate"));
        }
        assertTrue(recs.get(2).get("first_size_at_90pct_line_rate").isNull());
    }

    @Test
    void badShapesAreUsageErrorsNamingTheFlag() {
        expectUsage("--posters", "--posters", "0");
        expectUsage("--posters", "--posters", "133");
        expectUsage("--posters", "--posters", "2x1025");
        expectUsage("--posters", "--posters", "4y2");
        expectUsage("--posters", "--posters", "2", "--qps", "4");       // a QP without a poster
        expectUsage("--batch", "--posters", "2", "--qps", "2", "--batch", "0");
        expectUsage("--batch", "--batch", "4");                          // no --posters: one doorbell per WQE
        expectUsage("--window", "--posters", "2", "--qps", "2", "--batch", "16", "--window", "16");
        expectUsage("--window", "--posters", "2", "--qps", "2", "--window", "4096");   // 2048 per QP > the SQ
        expectUsage("--engine-threads", "--posters", "2", "--qps", "2", "--engine-threads", "3");
        expectUsage("--single-op", "--posters", "2", "--single-op");
        expectUsage("--sizes", "--posters", "2", "--sizes", "4");       // below the rate poster's 8 B
        expectUsage("--posters", "--posters", "132x1024", "--sizes", "65536");  // slots beyond 1 GiB
    }

    private static void expectUsage(String named, String... flags) {
        boolean hasSizes = List.of(flags).contains("--sizes");
        List<String> args = new java.util.ArrayList<>(List.of("gda", "goodput"));
        args.addAll(List.of(flags));
        if (!hasSizes) {
            args.addAll(List.of("--sizes", "64"));
        }
        args.addAll(List.of("--quiet", "--bytes-per-point=4096"));
        CliTest.Run r = CliTest.run(args.toArray(String[]::new));
        assertEquals(ExitCodes.USAGE, r.code(), String.join(" ", args) + ": " + r.err());
        assertTrue(r.err().contains(named), String.join(" ", args) + ": " + r.err());
    }
}
