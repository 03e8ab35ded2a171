// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleBiFunction;

/**
 * A fake GPU for the probes: every role of a spec takes ALPHA + tile / rate
 * cycles at CLOCK cycles per ns, where the test supplies rate(spec, tile),
 * so offset, pressure, burst and store-variant effects are whatever the test
 * says. Bursts: each of the k bursts takes BURST_ALPHA + (tile / k) / rate
 * plus the gap between bursts; pressure warps report 8 accesses per lane per
 * 4 cycles.
 */
final class ProbeDevice implements DsmDevice {
    static final double CLOCK = 1.9;
    static final double ALPHA = 400;
    static final double BURST_ALPHA = 300;
    private final ToDoubleBiFunction<Spec, Integer> rate;

    ProbeDevice(ToDoubleBiFunction<Spec, Integer> rate) {
        this.rate = rate;
    }

    public DeviceInfo info() {
        return new DeviceInfo(0, "probe", 9, 0, 132, 232448, 204800, 1980000, 13000, 13000, new int[] {66, 30, 15, 7});
    }

    public TimerInfo timer(int windowUs) {
        long ns = windowUs * 1000L;
        return new TimerInfo(32, ns / 32, (long) (ns * CLOCK), ns, 0, 100000);
    }

    public List<Launch> run(Spec spec, int tile, int reps, int warmup, int runId) {
        Probe p = spec.probe();
        double r = rate.applyAsDouble(spec, tile);
        int k = p.bursts();
        double busy = k * BURST_ALPHA + tile / r;
        double span = k == 1 ? ALPHA + tile / r : busy + (k - 1) * p.burstGapCycles();
        List<Launch> out = new ArrayList<>();
        int n = spec.clusterSize();
        for (int rep = 0; rep < reps; rep++) {
            List<Sample> ranks = new ArrayList<>();
            for (int q = 0; q < n; q++) {
                long c0 = 10_000;
                long g0 = 50_000;
                long end = c0 + (long) span;
                long load = spec.loadFrom(q) >= 0 ? end : 0;
                long store = spec.storeTo(q) >= 0 ? end : 0;
                boolean recvTma = false;
                for (int s = 0; s < n; s++) {
                    recvTma |= spec.tmaTo(s) == q;
                }
                long recv = recvTma ? end : 0;
                boolean bursting = k > 1 && (load > 0 || store > 0);
                long ops = (p.pressureRanks() >> q & 1) != 0 ? 2L * 32 * p.pressureWarps() * Probe.PRESSURE_CYCLES : 0;
                ranks.add(new Sample(rep, q, 2 * q, 2 * q, 0, 0, c0, g0,
                        load, load > 0 ? g0 + ns(load - c0) : 0, store, store > 0 ? g0 + ns(store - c0) : 0,
                        recv, recv > 0 ? g0 + ns(recv - c0) : 0, 0, 1, 5, 5, 9, 9, ops,
                        bursting ? (long) busy : 0, bursting ? (long) (busy / k) : 0, bursting ? (long) (busy / k) : 0));
            }
            out.add(new Launch(tile, List.copyOf(ranks)));
        }
        return out;
    }

    private static long ns(long cycles) {
        return Math.round(cycles / CLOCK);
    }

    public List<LatSample> latency(int n, int reps, int hops) {
        throw new UnsupportedOperationException("no latency in the probe device");
    }

    public String backend() {
        return "synthetic";
    }

    public boolean hardware() {
        return false;
    }

    public int groupThreads() {
        return 480;
    }

    public int tmaChunkBytes() {
        return 16384;
    }

    static DsmContext ctx(ProbeDevice d) {
        return new DsmContext(d, 5, 1, DsmContext.DEFAULT_SIZES, null);
    }
}
