// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Fuzzes the CLI in-process: argument vectors built from the real command
 * and option vocabulary (read from picocli's model, so new options join by
 * themselves) plus junk. Every run must end with 0 (ran), 2 (usage error)
 * or 77 (backend unavailable), print no stack trace and no "null" message.
 * Commands that would run for real get tiny iteration counts, so a case
 * that succeeds stays fast; the whole test is bounded in time. A failure
 * prints the exact argument vector.
 */
@Tag("hardening") // long: scripts/test leaves it out, .ci/run runs it (README "Tests")
class CliFuzzTest {
    static final long SEED = 0x636c_6966_757aL;
    static final int CASES = 200;
    static final long BUDGET_NS = 25_000_000_000L;
    /** A case slower than this is reported: it means a tiny-workload preset is missing. */
    static final long SLOW_NS = 2_000_000_000L;

    @TempDir
    Path tmp;

    record Cmd(List<String> path, CommandSpec spec) {
    }

    record Run(int code, String out, String err) {
    }

    static Run run(List<String> args) {
        CommandLine cl = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args.toArray(String[]::new));
        return new Run(code, out.toString(), err.toString());
    }

    static void collect(CommandSpec spec, List<String> path, List<Cmd> out) {
        out.add(new Cmd(path, spec));
        for (Map.Entry<String, CommandLine> e : spec.subcommands().entrySet()) {
            if (e.getValue().getCommandSpec() == spec || path.contains(e.getKey())) {
                continue;
            }
            List<String> p = new ArrayList<>(path);
            p.add(e.getKey());
            collect(e.getValue().getCommandSpec(), p, out);
        }
    }

    /**
     * Tiny workloads for commands that run for real: applied unless the case
     * chose its own value. Keys are command paths.
     */
    static final Map<String, List<String>> FAST = new LinkedHashMap<>();

    static {
        FAST.put("softnic rate", List.of("--messages", "2000", "--warmup", "100", "--repeats", "1"));
        FAST.put("softnic latency", List.of("--iters", "200", "--warmup", "10"));
        FAST.put("gda latency", List.of("--iters", "100", "--warmup", "10", "--peer-timeout-s", "1"));
        FAST.put("gda rate", List.of("--messages", "64", "--warmup", "0", "--repeats", "1"));
        // proxy runs at least four spinning threads: on a 2-core machine a
        // handful of operations already takes seconds (see HEAVY_BUDGET_NS)
        FAST.put("proxy latency", List.of("--iters", "5", "--warmup", "1", "--poll", "idle", "--precondition-seconds", "0"));
        FAST.put("proxy rate", List.of("--messages", "64", "--warmup", "0", "--poll", "idle", "--precondition-seconds", "0"));
        FAST.put("dsm run", List.of("--reps", "1", "--warmup", "0"));
        FAST.put("gda goodput", List.of("--sizes", "8,64", "--bytes-per-point", "4096", "--iters", "10", "--warmup", "2"));
        FAST.put("gda loaded", List.of("--background", "1", "--queue", "reserved", "--iters", "5", "--warmup", "1"));
        FAST.put("proxy goodput", List.of("--sizes", "8,64", "--bytes-per-point", "4096", "--poll", "idle",
                "--precondition-seconds", "0"));
        FAST.put("proxy loaded", List.of("--background", "0,1", "--iters", "5", "--warmup", "1", "--poll", "idle",
                "--precondition-seconds", "0"));
        FAST.put("gda timer-check", List.of("--iters", "100", "--warmup", "10"));
        // the whole matrix of "GPU-Initiated Communication: Dissecting Down to the Bone"
        // takes its 30-minute budget: one section, seconds
        FAST.put("paper", List.of("--only", "dsm", "--budget", "5s"));
    }

    /** Options whose valid values would make a case slow or reach the network: junk values only. */
    static final Set<String> JUNK_ONLY = Set.of("--peer", "--peer-timeout-s", "--precondition-seconds", "--sweep");
    /** The same, for one command: a hot-polling proxy run oversubscribes small machines for minutes. */
    static final Set<String> JUNK_ONLY_IN = Set.of("proxy latency --poll", "proxy rate --poll", "proxy goodput --poll",
            "proxy loaded --poll");
    /**
     * Time that runs which got past parsing may take in all (a proxy or gda
     * run takes seconds on a loaded 2-core machine); once spent, cases of
     * commands that would run get an unknown option, so they only parse.
     */
    static final long RUN_BUDGET_NS = 10_000_000_000L;
    private long runSpentNs;

    static final String[] JUNK = {"", "x", "-", "--", "-1", "0", "2147483648", "-9223372036854775809", "1,,2", " ",
        "NaN", "\u00e9", "=", "--help=x", "%n", "${DEFAULT-VALUE}", "1e3", "0x10", ":", "a:b:c"};

    static final Map<String, String[]> VALUES = new LinkedHashMap<>();

    static {
        String[] counts = {"0", "1", "2", "3", "-1", "abc", "", "2147483648", "1,2"};
        for (String o : List.of("--messages", "--warmup", "--iters", "--repeats", "--reps", "--producers", "--workers",
                "--rings", "--batch", "--engine-threads")) {
            VALUES.put(o, counts);
        }
        for (String o : List.of("--log-sq", "--log-slots")) {
            VALUES.put(o, new String[] {"0", "1", "4", "16", "31", "64", "-1", "x"});
        }
        VALUES.put("--size", new String[] {"1", "8", "220", "221", "4096", "0", "-5", "1048577", "x"});
        VALUES.put("--max-inline", new String[] {"0", "8", "220", "221", "1024", "-1", "x"});
        VALUES.put("--timeout-ms", new String[] {"0", "-1", "x", "99999999999999999999", "5000"});
        VALUES.put("--engine-cpu", new String[] {"-1", "0", "1", "9999", "-2", "x"});
        VALUES.put("--cpus", new String[] {"0", "0,1", "x", "-1", "9999", ",", "0,0"});
        VALUES.put("--format", new String[] {"table", "json", "csv", "xml", ""});
        VALUES.put("--poll", new String[] {"hot", "idle", "cold"});
        VALUES.put("--target", new String[] {"cpu", "cuda", "gpu"});
        VALUES.put("--nic", new String[] {"softnic", "mlx5", "verbs", "x"});
        VALUES.put("--producer", new String[] {"cpu", "cuda", "x"});
        VALUES.put("--ordering", new String[] {"none", "gpu-fence", "gpu-fence-dbrec", "release-gpu", "threadfence",
            "release-sys", "fence-sys", "GPU_FENCE", "x"});
        VALUES.put("--payload", new String[] {"inline", "pointer", "x"});
        VALUES.put("--placement", new String[] {"host", "gpu", "x"});
        VALUES.put("--handoff", new String[] {"baseline", "tuned", "both", "x"});
        VALUES.put("--experiments", new String[] {"latency", "x", "latency,x", ""});
        VALUES.put("--experiment", new String[] {"all", "E0", "E11", "latency", "x", ",", "preflight,x"});
        VALUES.put("--sweep", new String[] {"x", "", "sizes"});
        VALUES.put("--peer", new String[] {"", "nohostport", "host:", ":99999", ":-1", "h:p", "::1:7000", "[::1"});
        VALUES.put("--peer-role", new String[] {"initiator", "responder", "x"});
        VALUES.put("--peer-timeout-s", new String[] {"0", "-1", "x"});
        VALUES.put("--precondition-seconds", new String[] {"-1", "x", "1e9"});
        VALUES.put("--device", new String[] {"0", "-1", "mlx5_0", "x", ""});
        VALUES.put("--cuda-device", new String[] {"0", "-1", "x"});
        VALUES.put("--gpu", new String[] {"0", "-1", "x"});
        VALUES.put("--gid-index", new String[] {"-1", "0", "3", "256", "x"});
        VALUES.put("--store-width", new String[] {"4", "8", "16", "3", "x"});
        VALUES.put("--load-width", new String[] {"4", "8", "16", "32", "x"});
        VALUES.put("--load-kernel", new String[] {"INFLIGHT", "inflight", "x"});
        VALUES.put("--group-threads", new String[] {"480", "0", "-1", "1025", "x"});
        VALUES.put("--tma-chunk", new String[] {"16384", "0", "15", "x"});
    }

    private List<String> build(Random r, List<Cmd> cmds) throws IOException {
        List<String> args = new ArrayList<>();
        Cmd c = cmds.get(r.nextInt(cmds.size()));
        args.addAll(c.path());
        if (!args.isEmpty() && r.nextInt(12) == 0) {
            args.set(r.nextInt(args.size()), JUNK[r.nextInt(JUNK.length)]); // misspelt command
        }
        String key = String.join(" ", c.path());
        List<OptionSpec> opts = c.spec().options();
        Set<String> chosen = new HashSet<>();
        for (int n = r.nextInt(5); n > 0; n--) {
            int pick = r.nextInt(10);
            if (pick == 0 || opts.isEmpty()) {
                args.add(r.nextBoolean() ? "--" + JUNK[r.nextInt(JUNK.length)] : JUNK[r.nextInt(JUNK.length)]);
                continue;
            }
            OptionSpec o = opts.get(r.nextInt(opts.size()));
            String name = o.names()[r.nextInt(o.names().length)];
            if (o.arity().max() == 0 && junkOnly(key, o.longestName())) {
                continue; // e.g. proxy rate --sweep: the full sweep takes minutes
            }
            chosen.add(o.longestName());
            if (o.arity().max() == 0) {
                args.add(name);
                continue;
            }
            String v = value(key, o, r);
            if (r.nextInt(6) == 0) {
                args.add(name + "=" + v);
            } else {
                args.add(name);
                if (r.nextInt(15) != 0) { // sometimes the value is missing
                    args.add(v);
                }
            }
        }
        if (key.equals("quickstart") && chosen.isEmpty()) {
            args.add("--" + JUNK[1 + r.nextInt(JUNK.length - 1)]); // the real quickstart takes seconds
        }
        List<String> fast = FAST.getOrDefault(key, List.of());
        for (int i = 0; i < fast.size(); i += 2) {
            if (!chosen.contains(fast.get(i))) {
                args.add(fast.get(i));
                args.add(fast.get(i + 1));
            }
        }
        if ((FAST.containsKey(key) || key.equals("doctor")) && runSpentNs > RUN_BUDGET_NS) {
            args.add("--fuzz-junk"); // run budget spent: parse only
        }
        if (key.equals("dsm plot") && !chosen.contains("--output-dir")) {
            args.add("--output-dir");
            args.add(tmp.resolve("plots").toString());
        }
        return args;
    }

    static boolean junkOnly(String cmd, String option) {
        return JUNK_ONLY.contains(option) || JUNK_ONLY_IN.contains(cmd + " " + option);
    }

    private String value(String cmd, OptionSpec o, Random r) throws IOException {
        String n = o.longestName();
        if (n.equals("--output") || n.equals("--output-dir")) {
            return r.nextInt(4) == 0 ? "" : tmp.resolve("out" + r.nextInt(1000)).toString();
        }
        if (n.equals("--input")) {
            Path f = Files.createTempFile(tmp, "in", ".jsonl");
            byte[] junk = new byte[r.nextInt(64)];
            r.nextBytes(junk);
            Files.write(f, r.nextBoolean() ? junk : "{\"record\":\"header\"}\n{}\n".getBytes());
            return r.nextInt(5) == 0 ? tmp.resolve("missing.jsonl").toString() : f.toString();
        }
        String[] known = VALUES.get(n);
        if (junkOnly(cmd, n)) {
            return known != null && JUNK_ONLY.contains(n) ? known[r.nextInt(known.length)] : "x";
        }
        if (known != null && r.nextInt(8) != 0) {
            return known[r.nextInt(known.length)];
        }
        if (o.type() == int.class || o.type() == long.class || o.type() == Integer.class || o.type() == Long.class) {
            return VALUES.get("--messages")[r.nextInt(VALUES.get("--messages").length)];
        }
        return JUNK[r.nextInt(JUNK.length)];
    }

    static String verdict(Run run) {
        // a failed timer check is a measured finding (a small host's time slices exceed the tolerance)
        // and so is a failed preflight check, a compare regression or a paper point that failed
        boolean finding = run.code() == 1 && (run.err().contains("marrow: timer check FAILED")
                || run.err().startsWith("marrow: preflight: ") || run.err().startsWith("marrow: compare: ")
                || run.err().startsWith("marrow: paper: ")
                // a wait bound the machine cannot meet (--timeout-ms 2 on a loaded host) is a failure with
                // its cause, the contract's exit 1, not a crash
                || run.err().contains(": ETIMEDOUT (-110): "));
        if (!finding && run.code() != 0 && run.code() != 2 && run.code() != Main.EXIT_UNAVAILABLE) {
            return "exit code " + run.code() + " (expected 0, 2 or 77)";
        }
        for (String s : new String[] {run.out(), run.err()}) {
            if (s.contains("\tat ") || s.contains("Exception in thread") || s.contains("Caused by:")) {
                return "a stack trace";
            }
        }
        if (run.err().contains("marrow: null")) {
            return "an error without a message";
        }
        return null;
    }

    @Test
    void randomArgumentVectorsEndCleanly() throws IOException {
        List<Cmd> cmds = new ArrayList<>();
        collect(Main.commandLine().getCommandSpec(), List.of(), cmds);
        assertTrue(cmds.size() >= 10, "the command tree was not read: " + cmds.size());
        Random seeds = new Random(SEED);
        long start = System.nanoTime();
        int ran = 0, ok = 0, usage = 0, unavailable = 0;
        List<String> failures = new ArrayList<>();
        List<String> slow = new ArrayList<>();
        for (int c = 0; c < CASES && System.nanoTime() - start < BUDGET_NS; c++) {
            Random r = new Random(seeds.nextLong());
            List<String> args = build(r, cmds);
            long t0 = System.nanoTime();
            Run run = run(args);
            long took = System.nanoTime() - t0;
            if (run.code() != 2) {
                runSpentNs += took;
            }
            if (took > SLOW_NS) {
                slow.add(String.format("case %d took %.1f s: marrow %s", c, took / 1e9, quote(args)));
            }
            ran++;
            switch (run.code()) {
                case 0 -> ok++;
                case 2 -> usage++;
                case Main.EXIT_UNAVAILABLE -> unavailable++;
                default -> { }
            }
            String bad = verdict(run);
            if (bad != null) {
                failures.add("case " + c + ": marrow " + quote(args) + " -> " + bad + "\nstderr: "
                        + run.err().strip().lines().limit(12).reduce("", (a, b) -> a + "\n  " + b));
            }
        }
        System.out.printf("CliFuzzTest: %d cases in %.1f s: %d exit 0, %d exit 2, %d exit 77%n", ran,
                (System.nanoTime() - start) / 1e9, ok, usage, unavailable);
        slow.forEach(System.out::println);
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + ran + " cases did not end cleanly:\n" + String.join("\n", failures));
        }
        // A generator that only ever produced usage errors would test nothing.
        assertTrue(ran >= 50, "only " + ran + " cases ran within the time budget");
        assertTrue(ok >= ran / 20 && usage >= ran / 5, "outcomes too one-sided: " + ok + " ok, " + usage + " usage");
    }

    static String quote(List<String> args) {
        StringBuilder b = new StringBuilder();
        for (String a : args) {
            b.append(a.isEmpty() || a.contains(" ") ? "'" + a + "'" : a).append(' ');
        }
        return b.toString().strip();
    }
}
