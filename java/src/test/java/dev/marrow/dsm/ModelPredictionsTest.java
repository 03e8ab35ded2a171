// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.cli.DsmCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The model's arithmetic against the study's published inputs and outputs
 * ("How does Hopper distributed shared memory actually move data?"), and its
 * inputs read from a run's JSON lines.
 */
class ModelPredictionsTest {
    @Test
    void theStudysInputsGiveItsPublishedOutputs() {
        ModelPredictions m = ModelPredictions.study();
        assertEquals(21.333, ModelPredictions.capPerSm(), 5e-4);           // 4 x 32 / 6
        assertEquals(1.5, ModelPredictions.cyclesPerFlit(), 1e-12);         // 6 / 4
        assertEquals(17.067, ModelPredictions.idealDuplex(128), 5e-4);     // 128 / 7.5
        assertEquals(15.90, m.predictedDuplex(), 0.005);                    // published 15.90
        assertEquals(6.441, m.cyclesPer128OneWay(), 5e-4);                  // published 6.441
        assertEquals(8.327, m.cyclesPer128Duplex(), 5e-4);                  // published 8.327
        assertEquals(1.886, m.extraCyclesPer128(), 5e-4);                   // published 1.886
        assertEquals(3.4, m.predictionAboveMeasuredPct(), 0.05);            // "only 3.4 % lower"
        assertEquals(20.0, m.predictedLossPct(), 1e-9);                     // 1 flit in 5
        assertEquals(22.65, m.measuredLossPct(), 0.01);                     // 22.6-22.7 %
        assertEquals(128, m.bestQuantum());
        // Other quanta under one command flit: q / (q + 32) of the one-way rate.
        assertEquals(19.874 * 0.5, m.predictedDuplex(32), 1e-9);
        assertEquals(19.874 * 2 / 3, m.predictedDuplex(64), 1e-9);
        assertEquals(19.874 * 8 / 9, m.predictedDuplex(256), 1e-9);
    }

    @Test
    void badRatesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ModelPredictions(0, 15));
        assertThrows(IllegalArgumentException.class, () -> new ModelPredictions(20, Double.NaN));
    }

    private static Map<String, Object> row(String exp, String rowKind, String series, Object... kv) {
        java.util.LinkedHashMap<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("record", "result");
        m.put("experiment", exp);
        m.put("row", rowKind);
        m.put("series", series);
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void inputsComeFromTheE2FitsAndTheE5Summary() {
        List<Map<String, Object>> rows = List.of(
                row("dsm.E2", "fit", "load 1->0", "inv_beta_b_per_cycle", 21.0),
                row("dsm.E2", "fit", "load 0->1", "inv_beta_b_per_cycle", 22.0),
                row("dsm.E2", "fit", "load 1->0 cl16", "inv_beta_b_per_cycle", 99.0),
                row("dsm.E5", "summary", "load 0<->1", "kind", "load", "per_direction_b_per_cycle", 17.0),
                row("dsm.E5", "summary", "tma 0<->1", "kind", "tma", "per_direction_b_per_cycle", 5.0));
        ModelPredictions m = ModelInputs.fromRows(rows, "test");
        assertEquals(21.5, m.oneWay(), 1e-12);
        assertEquals(17.0, m.duplex(), 1e-12);
        assertEquals(21.5 * 0.8, m.predictedDuplex(), 1e-9);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ModelInputs.fromRows(rows.subList(0, 3), "run.jsonl"));
        assertTrue(e.getMessage().contains("run.jsonl lacks the E5 load summary"), e.getMessage());
    }

    private record Result(int code, String out, String err) {
    }

    private static Result exec(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new DsmCommand());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        return new Result(cl.execute(args), out.toString(), err.toString());
    }

    @Test
    void theModelCommandNeedsNoGpu(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("run.jsonl");
        Files.writeString(f, String.join("\n",
                "{\"record\":\"header\",\"git_sha\":\"x\"}",
                "{\"record\":\"result\",\"experiment\":\"dsm.E2\",\"row\":\"fit\",\"series\":\"load 1->0\",\"inv_beta_b_per_cycle\":19.874}",
                "{\"record\":\"result\",\"experiment\":\"dsm.E5\",\"row\":\"summary\",\"series\":\"load 0<->1\",\"kind\":\"load\",\"per_direction_b_per_cycle\":15.372}",
                ""));
        Result r = exec("model", "--input", f.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("| predicted_duplex_b_per_cycle | 15.899 | 15.899 | 15.900 |"), r.out());
        assertTrue(r.out().contains("| cycles_per_128b_duplex | 8.327 | 8.327 | 8.327 |"), r.out());
        Path noE5 = dir.resolve("e2.jsonl");
        Files.writeString(noE5, "{\"record\":\"result\",\"experiment\":\"dsm.E2\",\"row\":\"fit\",\"series\":\"load 1->0\",\"inv_beta_b_per_cycle\":19.874}\n");
        Result bad = exec("model", "--input", noE5.toString());
        assertEquals(CommandLine.ExitCode.USAGE, bad.code(), "a file without the fits is bad input: " + bad.err());
        assertTrue(bad.err().contains("lacks the E5 load summary"), bad.err());
        Result missing = exec("model", "--input", dir.resolve("nope.jsonl").toString());
        assertEquals(CommandLine.ExitCode.USAGE, missing.code());
        assertTrue(missing.err().contains("is not a file"), missing.err());
        Path junk = dir.resolve("junk.jsonl");
        Files.write(junk, new byte[] {(byte) 0xff, (byte) 0xfe, 0x00, (byte) 0x80});
        Result notText = exec("model", "--input", junk.toString());
        assertEquals(CommandLine.ExitCode.USAGE, notText.code(), "bytes that are not JSON lines are bad input");
        assertTrue(notText.err().contains("is not a JSON-lines result file"), notText.err());
    }
}
