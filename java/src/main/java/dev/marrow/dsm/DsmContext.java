// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.api.MarrowException;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Shared state of one `dsm run`: the device, the sampling plan (30 accepted
 * runs per size after warm-up, sizes 16..96 KiB in 8 KiB steps), a run-id
 * counter so that every launch uses a fresh data pattern, progress output,
 * and a cache so that an experiment can reuse a series another one measured.
 */
public final class DsmContext {
    public static final int KIB = 1024;
    /** 16, 24, ..., 96 KiB: every address of the tile is touched once per sample. */
    public static final int[] DEFAULT_SIZES = sizes(16, 96, 8);

    private final DsmDevice device;
    private final int reps;
    private final int warmup;
    private final int[] sizes;
    private final PrintWriter progress;
    private int runId = 1;
    private final Map<String, Object> cache = new HashMap<>();
    private final Map<String, Integer> rejections = new TreeMap<>();
    private java.util.function.BooleanSupplier expired = () -> false;
    private int latencyHops = 1024;
    private int latencyLaunches = 5;

    /** Thrown by the next native call once the run's time is up (--max-seconds); the finished experiments stand. */
    public static final class OutOfTime extends RuntimeException {
        OutOfTime() {
            super("the run's time (--max-seconds) is up", null, false, false);
        }
    }

    /** Every later native call first asks expired; when it says true, the call throws {@link OutOfTime} instead. */
    public DsmContext withDeadline(java.util.function.BooleanSupplier expired) {
        this.expired = expired;
        return this;
    }

    /** The latency chase (E1): dependent loads per (src, dst) and launches per cluster size. */
    public DsmContext withLatencyChase(int hops, int launches) {
        if (hops < 1 || launches < 1) {
            throw new IllegalArgumentException("latency chase: hops and launches must be >= 1");
        }
        this.latencyHops = hops;
        this.latencyLaunches = launches;
        return this;
    }

    public int latencyHops() {
        return latencyHops;
    }

    public int latencyLaunches() {
        return latencyLaunches;
    }

    /** The latency chase of an n-CTA cluster with this context's hops and launches. */
    public List<LatSample> latency(int n) {
        checkTime();
        return device.latency(n, latencyLaunches, latencyHops);
    }

    private void checkTime() {
        if (expired.getAsBoolean()) {
            throw new OutOfTime();
        }
    }

    public DsmContext(DsmDevice device, int reps, int warmup, int[] sizes, PrintWriter progress) {
        if (reps < 1 || warmup < 0 || sizes.length < 2) {
            throw new IllegalArgumentException("need reps >= 1, warmup >= 0 and at least 2 sizes");
        }
        this.device = device;
        this.reps = reps;
        this.warmup = warmup;
        this.sizes = sizes.clone();
        this.progress = progress;
    }

    public static int[] sizes(int fromKib, int toKib, int stepKib) {
        List<Integer> l = new ArrayList<>();
        for (int k = fromKib; k <= toKib; k += stepKib) {
            l.add(k * KIB);
        }
        return l.stream().mapToInt(Integer::intValue).toArray();
    }

    public DsmDevice device() {
        return device;
    }

    public int reps() {
        return reps;
    }

    public int[] sizes() {
        return sizes.clone();
    }

    public void progress(String line) {
        if (progress != null) {
            progress.println("dsm: " + line);
            progress.flush();
        }
    }

    /** Accepted launches of one spec at one size. */
    public record Collected(List<Launch> accepted, int rejected) {
    }

    /**
     * Runs spec until `need` launches are accepted. Rejected launches are
     * counted by reason and re-run; more than need * 4 + 10 rejections
     * aborts the series (something is systematically wrong).
     */
    public Collected collect(Spec spec, int tileBytes, int need) {
        List<Launch> ok = new ArrayList<>(need);
        int rejected = 0;
        while (ok.size() < need) {
            checkTime();
            int ask = need - ok.size();
            List<Launch> got = device.run(spec, tileBytes, ask, warmup, runId);
            runId += ask;
            for (Launch l : got) {
                if (l.accepted()) {
                    ok.add(l);
                } else {
                    rejected++;
                    rejections.merge(Sample.flagNames(l.flagsUnion()), 1, Integer::sum);
                }
            }
            if (rejected > need * 4 + 10) {
                throw new MarrowException("dsm: " + spec + " at " + tileBytes + " B: " + rejected
                        + " rejected launches (reasons " + rejections + ")");
            }
        }
        return new Collected(ok, rejected);
    }

    public Collected collect(Spec spec, int tileBytes) {
        return collect(spec, tileBytes, reps);
    }

    /** Rejection counts by reason over the whole run. */
    public Map<String, Integer> rejections() {
        return Map.copyOf(rejections);
    }

    @SuppressWarnings("unchecked")
    public <T> T cached(String key, java.util.function.Supplier<T> compute) {
        Object v = cache.get(key);
        if (v == null) {
            v = compute.get();
            cache.put(key, v);
        }
        return (T) v;
    }
}
