// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The experiments of "GPU-Initiated Communication: Dissecting Down to the
 * Bone" in one resumable command: docs/design/paper-run.md.
 */
@Command(name = "paper", mixinStandardHelpOptions = true,
        description = {"Runs the matrix of the paper \"GPU-Initiated Communication: Dissecting Down to the Bone\" "
                + "(Tables 3-5, 7, 10-14, Figs. 3, 4, 6, 8-11, the library presets and DSM where the GPU has it) "
                + "by running the existing commands in this process, each point bounded by its share of "
                + "--budget, then builds the report (DIR/report/index.html).",
                "Each point is written to DIR/points/ID.jsonl when it completes; DIR/paper-status.jsonl gets one "
                        + "line per point run. Run the same command again to resume: complete points are skipped. "
                        + "Exit 0 when every point completed or is unavailable here (exit 77: no GPU or NIC for "
                        + "it) or skipped (more spinning threads than CPUs), 1 when one failed or the budget ran out "
                + "first, 2 on a usage error."})
public final class PaperCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = {"--output", "-o"}, required = true, paramLabel = "DIR",
            description = "Directory for the points, their logs, the status lines and the report (created)")
    Path dir;

    @Option(names = "--nic", defaultValue = "softnic", description = "softnic or mlx5: the NIC of every point that "
            + "takes one (device-engine and emulator-scaling points keep the software NIC). Default: ${DEFAULT-VALUE}")
    String nic;

    @Option(names = "--budget", defaultValue = "30m", paramLabel = "TIME", description = "Wall time for all points "
            + "(90s, 30m, 2h): each point gets --max-seconds of what is left over the points left. "
            + "Default: ${DEFAULT-VALUE}")
    String budget;

    @Option(names = "--only", split = ",", paramLabel = "NAME", description = "Only these sections or points: "
            + "report section ids (table-3, table5, fig-6, fig11, presets, dsm, ...) or point ids")
    List<String> only = new ArrayList<>();

    @Option(names = "--oversubscribe", description = "Also run points whose spinning threads need more CPUs than "
            + "this machine has (their numbers then measure CPU sharing); without it they are skipped")
    boolean oversubscribe;

    /** Test hook: called after each point run; a test throws from it to stop the run midway, as a kill would. */
    static volatile Consumer<String> afterPoint = id -> { };

    /** Below this many seconds left no point starts: it could not measure anything. */
    static final double MIN_POINT_SECONDS = 2;

    static final JsonMapper JSON = JsonMapper.builder().build();

    @Override
    public Integer call() {
        if (!PaperMatrix.NICS.contains(nic)) {
            throw new IllegalArgumentException("--nic must be one of " + String.join(", ", PaperMatrix.NICS)
                    + ", not '" + nic + "'");
        }
        double budgetS = parseBudget(budget);
        List<PaperMatrix.Point> all = PaperMatrix.points(nic);
        Set<String> wanted = new LinkedHashSet<>();
        Set<String> known = PaperMatrix.names(all);
        for (String o : only) {
            String n = PaperMatrix.norm(o);
            if (!known.contains(n)) {
                throw new IllegalArgumentException("--only: no section or point '" + o + "'; names: "
                        + String.join(", ", known));
            }
            wanted.add(n);
        }
        List<PaperMatrix.Point> points = all.stream().filter(p -> p.selectedBy(wanted)).toList();
        Path pointsDir = dir.resolve("points");
        Path logs = dir.resolve("logs");
        try {
            Files.createDirectories(pointsDir);
            Files.createDirectories(logs);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot create " + dir + ": " + e.getMessage());
        }
        Path status = dir.resolve("paper-status.jsonl");
        checkSameNic(status);
        try (FileChannel lockFile = FileChannel.open(dir.resolve(".paper.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockFile.tryLock()) {
            if (lock == null) {
                throw new IllegalArgumentException("another marrow paper is running on " + dir);
            }
            return run(points, pointsDir, logs, status, budgetS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + dir + ": " + e.getMessage(), e);
        }
    }

    private int run(List<PaperMatrix.Point> points, Path pointsDir, Path logs, Path status, double budgetS)
            throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        long deadline = System.nanoTime() + (long) (budgetS * 1e9);
        List<String> failed = new ArrayList<>();
        List<String> unavailable = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        int notRun = 0;
        int done = 0;
        for (int i = 0; i < points.size(); i++) {
            PaperMatrix.Point p = points.get(i);
            Path file = pointsDir.resolve(p.id() + ".jsonl");
            String tag = String.format(Locale.ROOT, "[%d/%d] %-24s", i + 1, points.size(), p.id());
            if (complete(file)) {
                out.println(tag + " complete (kept from an earlier run)");
                out.flush();
                done++;
                continue;
            }
            int cpus = Runtime.getRuntime().availableProcessors();
            if (p.cpus() > cpus && !oversubscribe) {
                String why = "needs " + p.cpus() + " CPUs for its spinning threads, this machine has " + cpus
                        + " (--oversubscribe runs it anyway)";
                appendStatus(status, p, p.argv(), -1, "skipped", 0, 0, why);
                skipped.add(p.id());
                out.println(tag + " skipped: " + why);
                out.flush();
                continue;
            }
            double left = (deadline - System.nanoTime()) / 1e9;
            long pointsLeft = points.subList(i, points.size()).stream()
                    .filter(q -> !complete(pointsDir.resolve(q.id() + ".jsonl"))
                            && (oversubscribe || q.cpus() <= Runtime.getRuntime().availableProcessors())).count();
            if (left < MIN_POINT_SECONDS) {
                notRun = (int) pointsLeft;
                out.println(tag + " not run: the budget is spent (" + notRun + " point(s) left)");
                out.flush();
                break;
            }
            setAside(pointsDir, file, p.id());
            double maxS = Math.max(1, Math.floor(left / pointsLeft * 10) / 10);
            List<String> argv = new ArrayList<>(p.argv());
            argv.addAll(List.of("--format", "json", "--quiet", "--max-seconds", String.valueOf(maxS), "--output",
                    file.toString()));
            long t0 = System.nanoTime();
            int rc;
            String last;
            try (PrintWriter log = new PrintWriter(Files.newBufferedWriter(logs.resolve(p.id() + ".log"),
                    StandardCharsets.UTF_8))) {
                log.println("marrow " + String.join(" ", argv));
                log.flush();
                CommandLine cl = Main.commandLine();
                java.io.StringWriter err = new java.io.StringWriter();
                PrintWriter errw = new PrintWriter(err);
                cl.setOut(log);
                cl.setErr(errw);
                rc = cl.execute(argv.toArray(String[]::new));
                errw.flush();
                log.print(err);
                last = err.toString().lines().filter(l -> !l.isBlank() && !l.startsWith("see '")).reduce((a, b) -> b)
                        .orElse("");
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            String state = rc == ExitCodes.OK && complete(file) ? "complete"
                    : rc == ExitCodes.UNAVAILABLE ? "unavailable" : "failed";
            appendStatus(status, p, argv, rc, state, secs, maxS, state.equals("complete") ? "" : last);
            if (state.equals("complete")) {
                done++;
            } else if (state.equals("unavailable")) {
                unavailable.add(p.id());
            } else {
                failed.add(p.id());
            }
            out.printf(Locale.ROOT, "%s %s (exit %d, %.1f s of %.1f)%s%n", tag, state, rc, secs, maxS,
                    state.equals("complete") ? "" : ": " + last);
            out.flush();
            afterPoint.accept(p.id());
        }
        int reportRc = report(pointsDir, logs, out);
        out.printf("%d complete, %d unavailable here, %d skipped (too few CPUs), %d failed, %d not run; points in "
                + "%s, status in %s%n", done, unavailable.size(), skipped.size(), failed.size(), notRun, pointsDir,
                status);
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        if (!failed.isEmpty() || notRun > 0 || reportRc != ExitCodes.OK) {
            List<String> why = new ArrayList<>();
            if (!failed.isEmpty()) {
                why.add(failed.size() + " point(s) failed (" + String.join(", ", failed) + "; their logs are in "
                        + logs + ")");
            }
            if (notRun > 0) {
                why.add(notRun + " point(s) not run: the budget ran out; run the same command again to resume");
            }
            if (reportRc != ExitCodes.OK) {
                why.add("the report failed (" + logs.resolve("report.log") + ")");
            }
            err.println("marrow: paper: " + String.join("; ", why));
            err.flush();
            return ExitCodes.FAILED;
        }
        return ExitCodes.OK;
    }

    /** The HTML report over every complete point; OK without one when no point produced records. */
    private int report(Path pointsDir, Path logs, PrintWriter out) throws IOException {
        List<String> files = new ArrayList<>();
        try (var s = Files.list(pointsDir)) {
            s.filter(p -> p.getFileName().toString().endsWith(".jsonl") && complete(p)).sorted()
                    .forEach(p -> files.add(p.toString()));
        }
        if (files.isEmpty()) {
            out.println("report: no point produced records here; no report written");
            return ExitCodes.OK;
        }
        List<String> argv = new ArrayList<>(List.of("report", "--output", dir.resolve("report").toString(),
                "--input"));
        argv.addAll(files);
        try (PrintWriter log = new PrintWriter(Files.newBufferedWriter(logs.resolve("report.log"),
                StandardCharsets.UTF_8))) {
            CommandLine cl = Main.commandLine();
            cl.setOut(log);
            cl.setErr(log);
            int rc = cl.execute(argv.toArray(String[]::new));
            out.println("report: " + (rc == 0 ? dir.resolve("report").resolve("index.html") + " (" + files.size()
                    + " point file(s))" : "failed, exit " + rc + " (" + logs.resolve("report.log") + ")"));
            return rc;
        }
    }

    /** A point file that ends with a footer saying complete: what a resumed run skips. */
    static boolean complete(Path file) {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    Map<?, ?> m = JSON.readValue(lines.get(i), Map.class);
                    return "footer".equals(m.get("record")) && "complete".equals(m.get("status"));
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    /**
     * Before a point reruns: an incomplete file of an earlier attempt moves to DIR/attempts (nothing is lost),
     * and the temporary files of a killed run of it (".ID.jsonl.partial-PID"; the lock says none is running) go.
     */
    private void setAside(Path pointsDir, Path file, String id) throws IOException {
        if (Files.exists(file)) {
            Path attempts = Files.createDirectories(dir.resolve("attempts"));
            int n = 1;
            while (Files.exists(attempts.resolve(id + "." + n + ".jsonl"))) {
                n++;
            }
            Files.move(file, attempts.resolve(id + "." + n + ".jsonl"));
        }
        try (var s = Files.list(pointsDir)) {
            for (Path p : s.filter(q -> q.getFileName().toString().startsWith("." + id + ".jsonl.partial-")).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    private void appendStatus(Path status, PaperMatrix.Point p, List<String> argv, int rc, String state, double secs,
                              double maxS, String why) throws IOException {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("point", p.id());
        m.put("sections", p.sections());
        m.put("nic", nic);
        m.put("status", state);
        m.put("exit", rc);
        m.put("seconds", Math.round(secs * 10) / 10.0);
        m.put("max_seconds", maxS);
        m.put("ended_at", Instant.now().toString());
        if (!why.isEmpty()) {
            m.put("why", why);
        }
        m.put("argv", argv);
        Files.writeString(status, JSON.writeValueAsString(m) + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
    }

    /** A DIR begun with one --nic is resumed with the same one: its points would otherwise mix two NICs. */
    private void checkSameNic(Path status) {
        if (!Files.isRegularFile(status)) {
            return;
        }
        try {
            for (String line : Files.readAllLines(status, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                Object was = JSON.readValue(line, Map.class).get("nic");
                if (was != null && !nic.equals(was)) {
                    throw new IllegalArgumentException(dir + " holds a --nic " + was + " run; resume it with --nic "
                            + was + " or give another --output");
                }
            }
        } catch (IOException | tools.jackson.core.JacksonException e) {
            throw new IllegalArgumentException("cannot read " + status + ": " + e.getMessage());
        }
    }

    /** "90s", "30m", "2h", "1h30m" or plain seconds; > 0. */
    static double parseBudget(String s) {
        String t = s.strip().toLowerCase(Locale.ROOT);
        Matcher whole = Pattern.compile("(\\d+(?:\\.\\d+)?)").matcher(t);
        if (whole.matches()) {
            return positive(Double.parseDouble(t), s);
        }
        Matcher m = Pattern.compile("(\\d+(?:\\.\\d+)?)([hms])").matcher(t);
        double total = 0;
        int end = 0;
        while (m.find()) {
            if (m.start() != end) {
                break;
            }
            double v = Double.parseDouble(m.group(1));
            total += v * switch (m.group(2)) {
                case "h" -> 3600;
                case "m" -> 60;
                default -> 1;
            };
            end = m.end();
        }
        if (end != t.length() || end == 0) {
            throw new IllegalArgumentException("--budget must be a time such as 90s, 30m, 2h or 1h30m, not '" + s
                    + "'");
        }
        return positive(total, s);
    }

    private static double positive(double v, String s) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException("--budget must be > 0, not '" + s + "'");
        }
        return v;
    }
}
