// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one worker did (over a measured window, or since start): requests
 * posted, chains (posts), loop passes, passes that found nothing, CQEs, and
 * its core with the core's frequency before and after (0 = Linux does not
 * expose it here).
 */
public record WorkerStats(int worker, int cpu, int state, long requests, long chains, long polls, long emptyPolls,
                          long cqes, long sqFull, long freqBeforeKhz, long freqAfterKhz, int error) {

    public double meanChainLength() {
        return chains == 0 ? 0 : (double) requests / chains;
    }

    public double emptyPollRatio() {
        return polls == 0 ? 0 : (double) emptyPolls / polls;
    }

    public double postsPerSecond(long elapsedNs) {
        return elapsedNs == 0 ? 0 : chains * 1e9 / elapsedNs;
    }

    /** Flat map for result records. */
    public Map<String, Object> describe(long elapsedNs) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("worker", worker);
        m.put("cpu", cpu);
        m.put("requests", requests);
        m.put("chains", chains);
        m.put("chain_len_mean", round(meanChainLength()));
        m.put("posts_per_s", Math.round(postsPerSecond(elapsedNs)));
        m.put("empty_poll_ratio", round(emptyPollRatio()));
        m.put("cqes", cqes);
        m.put("sq_full_passes", sqFull);
        m.put("freq_before_khz", freqBeforeKhz);
        m.put("freq_after_khz", freqAfterKhz);
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
