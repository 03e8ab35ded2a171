// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.report.DsmPlots;
import dev.marrow.results.Environment;
import dev.marrow.results.OutputFormat;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.ResultWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JSON round trip into the plots and the table; all from synthetic results. */
class DsmPlotsTest {
    @Test
    void plotsAndTableFromSyntheticRun(@TempDir Path tmp) throws Exception {
        SyntheticDsmDevice d = new SyntheticDsmDevice(20, 18, 21, 0);
        DsmContext c = new DsmContext(d, 5, 1, DsmContext.DEFAULT_SIZES, null);
        List<ResultRecord> rows = new ArrayList<>();
        rows.addAll(new E2E4OneWay(OneWay.TMA).run(c));
        rows.addAll(new E5Bidirectional().run(c));
        rows.addAll(new E7RingScaling().run(c));
        Path json = tmp.resolve("dsm.jsonl");
        Files.writeString(json, ResultWriter.render(OutputFormat.JSON, rows, Map.of("host", "test")));
        List<Map<String, Object>> back = DsmPlots.read(json);
        assertEquals(rows.size(), back.size());
        List<Path> files = DsmPlots.render(back, tmp.resolve("plots"));
        assertTrue(files.contains(tmp.resolve("plots/bars-per-direction.png")));
        assertTrue(files.contains(tmp.resolve("plots/scaling-ring.png")));
        assertTrue(files.stream().anyMatch(p -> p.getFileName().toString().startsWith("fit-E4-tma_1_0")));
        for (Path p : files) {
            BufferedImage img = ImageIO.read(p.toFile());
            assertNotNull(img, p + " is not a PNG");
            assertTrue(img.getWidth() >= 800);
        }
        String table = DsmTable.render(rows, Environment.capture());
        assertTrue(table.contains("reference_inv_beta_b_per_cycle"));
        assertTrue(table.contains("## dsm.E4 / fit"));
        assertFalse(table.contains("residual_cycles"), "per-size points belong to json/csv only");
    }
}
