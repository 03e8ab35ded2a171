// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * marrow paper (the matrix of "GPU-Initiated Communication: Dissecting Down to the Bone"):
 * the matrix is made of valid command lines, --only and --budget, and a run that is stopped
 * midway (as a kill would) resumes: complete points are kept, the rest run, then the report.
 * The resume tests swap in a small matrix of points that run here in seconds.
 */
class PaperCommandTest {
    @TempDir
    Path tmp;

    /** The CLI in-process, as every CLI test runs it (CliTest). */
    static CliTest.Run run(String... args) {
        return CliTest.run(args);
    }

    @AfterEach
    void restore() {
        PaperMatrix.source = PaperMatrix::matrix;
        PaperCommand.afterPoint = id -> { };
    }

    static PaperMatrix.Point point(String id, int cpus, String args) {
        return new PaperMatrix.Point(id, List.of("test-section"), cpus, List.of(args.split(" ")));
    }

    /** Two software-NIC points that run on any machine, one that needs a GPU, one that needs 10,000 CPUs. */
    static void smallMatrix() {
        PaperMatrix.source = nic -> List.of(
                point("softnic-latency", 1, "softnic latency --iters 200 --warmup 10"),
                point("needs-gpu", 1, "gda latency --target cuda --nic " + nic + " --iters 100 --warmup 10"),
                point("softnic-rate", 2, "softnic rate --messages 2000 --warmup 100 --repeats 1"),
                point("too-many-cpus", 10_000, "softnic rate --messages 2000 --warmup 100 --repeats 1"));
    }

    @Test
    void everyPointOfTheMatrixIsAValidCommandLine() {
        for (String nic : PaperMatrix.NICS) {
            List<PaperMatrix.Point> points = PaperMatrix.matrix(nic);
            assertTrue(points.size() > 25, "points: " + points.size());
            for (PaperMatrix.Point p : points) {
                List<String> argv = new ArrayList<>(p.argv());
                argv.addAll(List.of("--format", "json", "--quiet", "--max-seconds", "5", "--output", "x.jsonl"));
                CommandLine.ParseResult r = Main.commandLine().parseArgs(argv.toArray(String[]::new));
                assertTrue(r.hasSubcommand(), p.id());
                assertTrue(p.cpus() >= 1, p.id());
            }
            assertEquals(points.size(), points.stream().map(PaperMatrix.Point::id).distinct().count(),
                    "point ids are file names: unique");
        }
        assertTrue(PaperMatrix.matrix("mlx5").stream().noneMatch(p -> p.id().equals("devengine-gpu")));
        assertTrue(PaperMatrix.matrix("mlx5").stream().filter(p -> p.id().equals("gda-ordering")).findFirst()
                .orElseThrow().argv().containsAll(List.of("--nic", "mlx5")));
    }

    @Test
    void onlySelectsSectionsTheirTablesAndPoints() {
        List<PaperMatrix.Point> all = PaperMatrix.matrix("softnic");
        java.util.Set<String> table5 = java.util.Set.of(PaperMatrix.norm("Table 5"));
        List<String> ids = all.stream().filter(p -> p.selectedBy(table5)).map(PaperMatrix.Point::id).toList();
        assertTrue(ids.contains("rate-16x16") && ids.contains("rate-oneqp-warp32"), ids.toString());
        assertFalse(ids.contains("gda-ordering"), ids.toString());
        assertTrue(PaperMatrix.names(all).containsAll(List.of("fig6", "table11", "fig11", "dsm", "presets",
                "gdaordering")));
        CliTest.Run r = run("paper", "--output", tmp.resolve("o").toString(), "--only", "table99");
        assertEquals(2, r.code());
        assertTrue(r.err().contains("no section or point 'table99'"), r.err());
    }

    @Test
    void budgetTakesSecondsMinutesAndHours() {
        assertEquals(90, PaperCommand.parseBudget("90s"));
        assertEquals(1800, PaperCommand.parseBudget("30m"));
        assertEquals(5400, PaperCommand.parseBudget("1h30m"));
        assertEquals(45, PaperCommand.parseBudget("45"));
        for (String bad : List.of("", "x", "0", "5x", "m", "-3m", "30m5")) {
            assertThrows(IllegalArgumentException.class, () -> PaperCommand.parseBudget(bad), bad);
        }
        assertEquals(2, run("paper", "--output", tmp.toString(), "--budget", "soon").code());
        assertEquals(2, run("paper", "--output", tmp.toString(), "--nic", "verbs").code());
    }

    @Test
    void aRunStoppedMidwayResumesAndEndsWithTheReport() throws IOException {
        smallMatrix();
        Path dir = tmp.resolve("paper");
        Path points = dir.resolve("points");
        PaperCommand.afterPoint = id -> {
            throw new IllegalStateException("simulated kill after " + id);
        };
        CliTest.Run first = run("paper", "--nic", "softnic", "--budget", "2m", "--output", dir.toString());
        assertEquals(1, first.code(), first.out() + first.err());
        assertTrue(first.err().contains("simulated kill after softnic-latency"), first.err());
        assertTrue(PaperCommand.complete(points.resolve("softnic-latency.jsonl")), first.out());
        assertFalse(Files.exists(points.resolve("softnic-rate.jsonl")));
        assertFalse(Files.exists(dir.resolve("report")));
        byte[] kept = Files.readAllBytes(points.resolve("softnic-latency.jsonl"));
        // what a kill in the middle of a point leaves: its temporary file
        Path partial = Files.writeString(points.resolve(".softnic-rate.jsonl.partial-99999"), "{\"record\":\"hea");

        PaperCommand.afterPoint = id -> { };
        CliTest.Run second = run("paper", "--nic", "softnic", "--budget", "2m", "--output", dir.toString());
        assertEquals(0, second.code(), second.out() + second.err());
        assertTrue(second.out().contains("softnic-latency          complete (kept from an earlier run)"),
                second.out());
        assertArrayEquals(kept, Files.readAllBytes(points.resolve("softnic-latency.jsonl")));
        assertTrue(PaperCommand.complete(points.resolve("softnic-rate.jsonl")), second.out());
        assertFalse(Files.exists(partial));
        assertTrue(second.out().lines().anyMatch(l -> l.contains("needs-gpu") && (l.contains(" unavailable (exit 77")
                || l.contains(" complete (exit 0"))), second.out());
        assertTrue(second.out().contains("too-many-cpus            skipped: needs 10000 CPUs"), second.out());
        assertTrue(Files.isRegularFile(dir.resolve("report/index.html")), second.out());
        List<String> status = Files.readAllLines(dir.resolve("paper-status.jsonl"));
        assertEquals(1, status.stream().filter(l -> l.contains("\"point\":\"softnic-latency\"")).count(),
                "run once: " + status);
        assertTrue(status.stream().anyMatch(l -> l.contains("\"point\":\"softnic-rate\"")
                && l.contains("\"status\":\"complete\"")), status.toString());

        CliTest.Run third = run("paper", "--nic", "softnic", "--budget", "2m", "--output", dir.toString());
        assertEquals(0, third.code(), third.out() + third.err());
        assertTrue(third.out().contains("softnic-rate             complete (kept from an earlier run)"), third.out());
        assertEquals(2, run("paper", "--nic", "mlx5", "--output", dir.toString()).code(),
                "a DIR begun with softnic is not resumed with mlx5");
    }

    @Test
    void anIncompletePointFileIsSetAsideAndTheBudgetBoundsTheRun() throws IOException {
        smallMatrix();
        Path dir = tmp.resolve("paper");
        Files.createDirectories(dir.resolve("points"));
        Files.writeString(dir.resolve("points/softnic-latency.jsonl"), "{\"record\":\"header\"}\n");
        PaperCommand.afterPoint = id -> {
            try {
                Thread.sleep(2500); // the 3 s budget is spent after the first point
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CliTest.Run r = run("paper", "--budget", "3s", "--output", dir.toString());
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.err().contains("not run: the budget ran out; run the same command again to resume"), r.err());
        assertEquals("{\"record\":\"header\"}\n", Files.readString(dir.resolve("attempts/softnic-latency.1.jsonl")));
        assertTrue(PaperCommand.complete(dir.resolve("points/softnic-latency.jsonl")), r.out());
    }
}
