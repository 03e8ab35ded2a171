// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.presets.Preset;
import dev.marrow.presets.Presets;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The points of marrow paper: the experiments of "GPU-Initiated
 * Communication: Dissecting Down to the Bone" as the result pages ran them
 * (scripts/device-run.sh, docs/results/h200-*.md), one command line each,
 * named by the report section(s) it feeds (report-sections.json ids).
 * docs/design/paper-run.md lists them and what was left out. CPU pinning is
 * left to each command's default: the pages' pins name CPUs of the 16-core
 * device host.
 */
final class PaperMatrix {
    private PaperMatrix() {
    }

    /**
     * One point: id (its file name), the sections it feeds, the CPUs its spinning threads need (engine,
     * producers, workers and the polling main thread, as the pages pinned them) and its command line.
     */
    record Point(String id, List<String> sections, int cpus, List<String> argv) {
        boolean selectedBy(Set<String> only) {
            if (only.isEmpty() || only.contains(norm(id))) {
                return true;
            }
            for (String s : sections) {
                if (only.contains(norm(s))) {
                    return true;
                }
            }
            return false;
        }
    }

    /** "Table 5", "table-5" and "table5" are one name. */
    static String norm(String s) {
        return s.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    }

    /** The NICs a point can take; softnic-only points (device engine, emulator scaling) keep softnic. */
    static final List<String> NICS = List.of("softnic", "mlx5");

    /** The matrix for one NIC; tests substitute a small one of their own. */
    static volatile java.util.function.Function<String, List<Point>> source = PaperMatrix::matrix;

    static List<Point> points(String nic) {
        return source.apply(nic);
    }

    static List<Point> matrix(String nic) {
        List<Point> p = new ArrayList<>();
        // the proxy names a real NIC "verbs" (it posts through libibverbs); mini-gda names it mlx5
        String proxyNic = nic.equals("mlx5") ? "verbs" : nic;
        String gdaLat = "gda latency --target cuda --nic " + nic;
        String gdaRate = "gda rate --target cuda --nic " + nic + " --timeout-ms 5000";
        // Tables 3 and 4, Fig. 3a: one 8 B operation (h200-softnic-gda-latency, h200-softnic-proxy)
        add(p, "gda-ordering", "table-3,table-4", 2, gdaLat + " --sweep ordering --iters 20000 --warmup 2000");
        add(p, "gda-rtt", "table-3", 2, gdaLat + " --sweep ordering --experiments rtt --iters 10000 --warmup 1000");
        add(p, "gda-size", "fig-3", 2, gdaLat + " --sweep size --ordering gpu-fence --iters 20000 --warmup 2000");
        add(p, "proxy-cuda", "table-3", 4, "proxy latency --nic " + proxyNic + " --producer cuda --handoff both "
                + "--iters 20000 --warmup 2000");
        add(p, "proxy-cpu", "table-3", 4, "proxy latency --nic " + proxyNic + " --producer cpu --handoff both "
                + "--iters 20000 --warmup 2000");
        if (nic.equals("softnic")) { // the device engine is the software NIC on SMs (h200-gpu-resident)
            add(p, "devengine-gpu", "table-3,table-4", 1, "gda latency --target cuda --nic softnic --placement gpu "
                    + "--nic-sms 1 --sweep ordering --experiments issue,putc --iters 5000 --warmup 500");
        }
        // Table 5 / Fig. 3b, Fig. 4 / Table 7, Table 13: message rate (h200-gda-rate)
        add(p, "rate-batching", "table-5", 2, gdaRate + " --blocks 1 --threads 1 --qps 1 --batch 1,16 "
                + "--messages 200000 --warmup 20000 --repeats 3");
        add(p, "rate-16x16", "table-5", 2, gdaRate + " --blocks 16 --threads 1 --qps 16 --qp-map block --batch 1,16 "
                + "--messages 100000 --warmup 10000");
        add(p, "rate-fig3b-inline", "table-5,fig-3", 2, gdaRate + " --blocks 16 --threads 1 --qps 16 --batch 16 "
                + "--payload inline --size 8,16,28,60,92,124,220 --messages 50000 --warmup 4800");
        add(p, "rate-hostdb", "table-5", 3, gdaRate + " --blocks 16 --threads 1 --qps 16 --batch 16 --doorbell host "
                + "--messages 100000 --warmup 9600");
        add(p, "rate-scope", "fig-4,table-7", 2, gdaRate + " --experiment scope --scope all-qp,used-qp,per-qp,signal "
                + "--qps 1,2,4,8,16,32 --messages 2000 --warmup 200");
        add(p, "rate-oneqp-lock32", "table-13", 2, gdaRate + " --threads 32 --qps 1 --publication lock --batch 1 "
                + "--messages 5000 --warmup 500 --repeats 3");
        add(p, "rate-oneqp-slot32", "table-13", 2, gdaRate + " --threads 32 --qps 1 --publication slot --batch 1 "
                + "--messages 5000 --warmup 500 --repeats 3");
        add(p, "rate-oneqp-warp32", "table-13,table-5", 2, gdaRate + " --threads 32 --qps 1 --publication warp "
                + "--batch 32 --messages 20000 --warmup 2000 --repeats 3");
        // Fig. 6 / Table 11: probe round trip under load (h200-loaded)
        add(p, "gda-loaded-cuda", "fig-6,table-11", 3, "gda loaded --target cuda --background 0,1,4,16,64 --queue both "
                + "--iters 2000 --warmup 200");
        add(p, "proxy-loaded-cpu", "fig-6,table-11", 7, "proxy loaded --nic " + proxyNic + " --background 0,1,4,16,64 "
                + "--queue both --workers 4 --batch 16 --engine-threads 2 --iters 2000 --warmup 200");
        // Fig. 8 / Table 12 and Fig. 11: goodput and single-operation latency against payload (h200-goodput)
        add(p, "gda-goodput-cuda-w200", "fig-8,table-12", 2, "gda goodput --target cuda --wire-gbps 200 "
                + "--bytes-per-point 67108864");
        add(p, "gda-goodput-cpu-w200", "fig-8,table-12", 2, "gda goodput --target cpu --wire-gbps 200 "
                + "--bytes-per-point 33554432");
        add(p, "proxy-goodput-cpu-w200", "fig-8,table-12", 7, "proxy goodput --nic " + proxyNic + " --producer cpu "
                + "--workers 4 --rings 8 --batch 16 --engine-threads 2 --wire-gbps 200 --bytes-per-point 33554432");
        add(p, "gda-singleop-cuda-w200", "fig-11,fig-8", 2, "gda goodput --single-op --target cuda --wire-gbps 200 "
                + "--sizes 8-1048576 --iters 500 --warmup 50");
        // Fig. 9 / Table 14: what sending costs the enclosing kernel (h200-kernel-cost)
        add(p, "kernel-cost-dormant", "fig-9,table-14", 1, "kernel-cost --arms dormant --live 8,16,32,160,224 "
                + "--launches 15 --warmup 3");
        add(p, "kernel-cost-gda", "fig-9,table-14", 2, "kernel-cost --transport gda --launches 7 --warmup 2");
        add(p, "kernel-cost-proxy", "fig-9,table-14", 2, "kernel-cost --transport proxy --launches 7 --warmup 2");
        // Fig. 10: software-NIC scaling (h200-softnic-scaling); Tables 8-10: proxy message rate (h200-softnic-proxy)
        for (int n : new int[] {1, 2, 4, 8}) {
            add(p, "scaling-p" + n, "fig-10", 2 * n + 1, "softnic rate --size 8 --batch 16 --producers " + n
                    + " --engine-threads " + n + " --poll hot --repeats 5");
        }
        add(p, "proxy-rate", "tables-8-10,table-10", 9, "proxy rate --nic " + proxyNic + " --producer cuda "
                + "--handoff tuned "
                + "--workers 1,2,4 --rings 32 --batch 16,32 --engine-threads 4 --messages 2000000 --warmup 100000");
        // Library presets (h200-presets): each with the command that can run it
        for (Preset pr : Presets.all().values()) {
            List<String> runs = PresetsCommand.runsWith(pr);
            String args = runs.contains("gda latency") ? gdaLat + " --experiments putc --iters 5000 --warmup 500"
                    : runs.contains("gda rate") ? gdaRate + " --blocks 16 --threads 32 --messages 8192 --warmup 1024 "
                    + "--repeats 3"
                    : runs.contains("proxy rate") ? "proxy rate --nic " + proxyNic + " --messages 200000 --warmup 20000"
                    : runs.contains("proxy latency") ? "proxy latency --nic " + proxyNic + " --iters 5000 --warmup 500"
                    : null;
            if (args != null) {
                add(p, "preset-" + pr.name(), "presets", pr.suite().equals("gda") ? 2 : 4,
                        args + " --preset " + pr.name());
            }
        }
        // DSM B3-B13 (h200-dsm): Hopper distributed shared memory, sm_90 and later
        add(p, "dsm-e2-e3", "dsm", 1, "dsm run --experiment E2,E3");
        return p;
    }

    private static void add(List<Point> p, String id, String sections, int cpus, String args) {
        List<String> argv = new ArrayList<>(Arrays.asList(args.split(" ")));
        p.add(new Point(id, List.of(sections.split(",")), cpus, argv));
    }

    /** Every name --only accepts: section ids, the tables and figures they carry, and point ids. */
    static Set<String> names(List<Point> points) {
        Set<String> out = new LinkedHashSet<>();
        for (Point pt : points) {
            pt.sections().forEach(s -> out.add(norm(s)));
        }
        for (Point pt : points) {
            out.add(norm(pt.id()));
        }
        return out;
    }
}
