// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.ArrayList;
import java.util.List;

/**
 * A fake GPU with known answers: each stream takes alpha + bytes / rate cycles
 * at `clock` cycles per ns; every `badEvery`-th launch has a wrong receive
 * checksum so that the rejection path is exercised.
 */
final class SyntheticDsmDevice implements DsmDevice {
    static final double CLOCK = 1.9;
    static final double ALPHA = 400;
    final double loadRate;
    final double storeRate;
    final double tmaRate;
    final int badEvery;
    final KernelConfig config;
    int launches;

    SyntheticDsmDevice(double loadRate, double storeRate, double tmaRate, int badEvery) {
        this(loadRate, storeRate, tmaRate, badEvery, KernelConfig.DEFAULT);
    }

    SyntheticDsmDevice(double loadRate, double storeRate, double tmaRate, int badEvery, KernelConfig config) {
        this.loadRate = loadRate;
        this.storeRate = storeRate;
        this.tmaRate = tmaRate;
        this.badEvery = badEvery;
        this.config = config;
    }

    public DeviceInfo info() {
        return new DeviceInfo(0, "synthetic", 9, 0, 132, 232448, 204800, 1980000, 13000, 13000, new int[] {66, 30, 15, 7});
    }

    public TimerInfo timer(int windowUs) {
        long ns = windowUs * 1000L;
        return new TimerInfo(32, ns / 32, (long) (ns * CLOCK), ns, 0, 100000);
    }

    public List<Launch> run(Spec spec, int tile, int reps, int warmup, int runId) {
        List<Launch> out = new ArrayList<>();
        int n = spec.clusterSize();
        for (int rep = 0; rep < reps; rep++) {
            launches++;
            boolean bad = badEvery > 0 && launches % badEvery == 0;
            List<Sample> ranks = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                long c0 = 10_000;
                long g0 = 50_000;
                long load = spec.loadFrom(r) >= 0 ? c0 + (long) (ALPHA + tile / loadRate) : 0;
                long store = spec.storeTo(r) >= 0 ? c0 + (long) (ALPHA + tile / storeRate) : 0;
                boolean recvTma = false;
                for (int q = 0; q < n; q++) {
                    recvTma |= spec.tmaTo(q) == r;
                }
                long recv = recvTma ? c0 + (long) (ALPHA + tile / tmaRate) : 0;
                int roles = (load > 0 ? Sample.ROLE_LOAD : 0) | (store > 0 ? Sample.ROLE_STORE : 0)
                        | (spec.tmaTo(r) >= 0 ? Sample.ROLE_TMA : 0) | (recvTma ? Sample.ROLE_RECV_TMA : 0);
                int flags = bad && r == 0 ? Sample.F_RECV_SUM : 0;
                ranks.add(new Sample(rep, r, 2 * r, 2 * r, flags, roles, c0, g0,
                        load, load > 0 ? g0 + ns(load - c0) : 0, store, store > 0 ? g0 + ns(store - c0) : 0,
                        recv, recv > 0 ? g0 + ns(recv - c0) : 0, 0, 1, 5, 5, bad && r == 0 ? 1 : 9, 9));
            }
            out.add(new Launch(tile, List.copyOf(ranks)));
        }
        return out;
    }

    private static long ns(long cycles) {
        return Math.round(cycles / CLOCK);
    }

    public List<LatSample> latency(int n, int reps, int hops) {
        List<LatSample> l = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    l.add(new LatSample(rep, i, j, 2 * i, 2 * j, 0, (long) (i == j ? 33 : 190) * hops, 3, 3));
                }
            }
        }
        return l;
    }

    public String backend() {
        return "synthetic";
    }

    public boolean hardware() {
        return false;
    }

    public int groupThreads() {
        return config.groupThreads();
    }

    public int tmaChunkBytes() {
        return config.tmaChunkBytes();
    }

    public LoadKernel loadKernel() {
        return config.loadKernel();
    }

    public int storeWidth() {
        return config.storeWidth();
    }

    public int loadWidth() {
        return config.loadWidth();
    }
}
