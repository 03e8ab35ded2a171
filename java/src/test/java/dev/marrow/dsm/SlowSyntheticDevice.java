// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import java.util.List;

/**
 * The synthetic device with a delay in every launch batch, so that a test
 * can watch a time bound (--max-seconds) end a run between native calls.
 * Public for the CLI tests in another package.
 */
public final class SlowSyntheticDevice implements DsmDevice {
    private final DsmDevice d = new SyntheticDsmDevice(19.87, 18.87, 21.25, 0);
    private final long delayMs;
    public int calls;
    /** Run before every native call (tests: look at the output while the run is still going). */
    public Runnable onCall = () -> { };

    public SlowSyntheticDevice(long delayMs) {
        this.delayMs = delayMs;
    }

    private void pause() {
        calls++;
        onCall.run();
        try {
            Thread.sleep(delayMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public DeviceInfo info() {
        return d.info();
    }

    public TimerInfo timer(int windowUs) {
        return d.timer(windowUs);
    }

    public List<Launch> run(Spec spec, int tile, int reps, int warmup, int runId) {
        pause();
        return d.run(spec, tile, reps, warmup, runId);
    }

    public List<LatSample> latency(int n, int reps, int hops) {
        pause();
        return d.latency(n, reps, hops);
    }

    public String backend() {
        return d.backend();
    }

    public boolean hardware() {
        return d.hardware();
    }

    public int groupThreads() {
        return d.groupThreads();
    }

    public int tmaChunkBytes() {
        return d.tmaChunkBytes();
    }

    public LoadKernel loadKernel() {
        return d.loadKernel();
    }

    public int storeWidth() {
        return d.storeWidth();
    }

    public int loadWidth() {
        return d.loadWidth();
    }
}
