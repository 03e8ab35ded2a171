// SPDX-License-Identifier: Apache-2.0
package dev.marrow.launch;

import dev.marrow.api.Backend;
import dev.marrow.api.RdmaCore;
import dev.marrow.internal.loader.NativeLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The CLI on the mlx5 model (MARROW_RDMA_CORE=model, docs/design/mlx5-model.md): the proxy's
 * verbs backend opens, connects and runs its QPs through the model's libibverbs surface; mini-gda's
 * CPU executor posts through the QP views and the UAR page of mlx5dv_init_obj and checks the bytes;
 * the records say nic mlx5-model, hardware false. A selector that is neither value is refused
 * with the value named. The CLI runs in a child JVM: the selector is an environment variable.
 */
class Mlx5ModelCliTest {
    private static void requireModel() {
        assumeTrue(Backend.SOFTNIC.isAvailable(), "native libraries not loadable here");
        assumeTrue(NativeLoader.manifest().has("mlx5model"),
                "libmarrow_mlx5model.so was not built: " + NativeLoader.manifest().buildNote("mlx5model"));
    }

    @Test
    void proxyOverVerbsRunsOnTheModelAndIsLabelledNotHardware(@TempDir Path dir) throws Exception {
        requireModel();
        Process p = TwoProcessSoftNicTest.start(dir, "proxy", Map.of(RdmaCore.ENV, "model"), "proxy", "latency",
                "--nic", "verbs", "--iters", "400", "--warmup", "40", "--handoff", "tuned", "--poll", "idle",
                "--quiet", "--format", "json", "-o", "out.jsonl");
        int rc = TwoProcessSoftNicTest.await(p, 120, dir, "proxy");
        String err = read(dir, "proxy.err");
        assertEquals(0, rc, "stderr: " + err);
        List<String> lines = Files.readAllLines(dir.resolve("out.jsonl"));
        List<String> records = lines.stream().filter(l -> l.contains("\"experiment\":\"proxy.latency\"")).toList();
        assertEquals(1, records.size(), () -> String.join("\n", lines));
        String r = records.getFirst();
        assertTrue(r.contains("\"hardware\":false"), r);
        assertTrue(r.contains("\"nic\":\"mlx5-model\""), r);
        assertTrue(r.contains("\"backend\":\"verbs\""), r);
    }

    @Test
    void gdaOnTheCpuPostsThroughTheModelsUarAndDeliversEveryByte(@TempDir Path dir) throws Exception {
        requireModel();
        Process p = TwoProcessSoftNicTest.start(dir, "gda", Map.of(RdmaCore.ENV, "model"), "gda", "latency",
                "--target", "cpu", "--nic", "mlx5", "--iters", "300", "--warmup", "30", "--quiet", "--format", "json",
                "-o", "out.jsonl");
        int rc = TwoProcessSoftNicTest.await(p, 120, dir, "gda");
        String err = read(dir, "gda.err");
        assertEquals(0, rc, "stderr: " + err);
        List<String> records = Files.readAllLines(dir.resolve("out.jsonl")).stream()
                .filter(l -> l.contains("\"experiment\":\"gda.latency\"")).toList();
        assertTrue(!records.isEmpty(), err);
        for (String r : records) { // each experiment checks the bytes that landed in the peer's inbox
            assertTrue(r.contains("\"hardware\":false") && r.contains("\"nic\":\"mlx5-model\""), r);
            assertTrue(r.contains("\"payload_errors\":0") && r.contains("\"valid\":true"), r);
            assertTrue(r.contains("\"mlx5_device\":\"mlx5_model0\""), r);
        }
    }

    @Test
    void doctorNamesTheModelAndDoesNotCallItHardware(@TempDir Path dir) throws Exception {
        requireModel();
        Process p = TwoProcessSoftNicTest.start(dir, "doctor", Map.of(RdmaCore.ENV, "model"), "doctor");
        int rc = TwoProcessSoftNicTest.await(p, 60, dir, "doctor");
        String out = read(dir, "doctor.out");
        assertEquals(0, rc, out + read(dir, "doctor.err"));
        String verbs = out.lines().filter(l -> l.trim().startsWith("verbs ")).findFirst().orElse("");
        assertTrue(verbs.contains("available") && verbs.contains("software emulator"), out);
        assertTrue(out.contains("mlx5_model0") && out.contains("libmarrow_mlx5model.so"), out);
    }

    @Test
    void aSelectorThatIsNeitherValueIsRefusedByName(@TempDir Path dir) throws Exception {
        requireModel();
        Process p = TwoProcessSoftNicTest.start(dir, "bad", Map.of(RdmaCore.ENV, "modle"), "proxy", "latency",
                "--nic", "verbs", "--iters", "10", "--warmup", "0", "--quiet");
        int rc = TwoProcessSoftNicTest.await(p, 60, dir, "bad");
        String err = read(dir, "bad.err");
        assertEquals(77, rc, err);
        assertTrue(err.contains("MARROW_RDMA_CORE=modle") && err.contains("'model'"), err);
    }

    private static String read(Path dir, String f) throws Exception {
        return Files.readString(dir.resolve(f));
    }
}
