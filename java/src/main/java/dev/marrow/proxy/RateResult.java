// SPDX-License-Identifier: Apache-2.0
package dev.marrow.proxy;

import java.util.List;

/** One message-rate run: messages completed, time, producer-side waits and the workers' view. */
public record RateResult(long messages, long elapsedNs, long ringFullWaits, long cacheRefreshes, long verifyErrors,
                         List<WorkerStats> workers) {

    public double rateMmsgPerSec() {
        return elapsedNs == 0 ? 0 : messages * 1e3 / elapsedNs;
    }

    public double meanChainLength() {
        long req = 0, ch = 0;
        for (WorkerStats w : workers) {
            req += w.requests();
            ch += w.chains();
        }
        return ch == 0 ? 0 : (double) req / ch;
    }

    public double postsPerSecond() {
        long ch = 0;
        for (WorkerStats w : workers) {
            ch += w.chains();
        }
        return elapsedNs == 0 ? 0 : ch * 1e9 / elapsedNs;
    }

    public double emptyPollRatio() {
        long e = 0, p = 0;
        for (WorkerStats w : workers) {
            e += w.emptyPolls();
            p += w.polls();
        }
        return p == 0 ? 0 : (double) e / p;
    }
}
