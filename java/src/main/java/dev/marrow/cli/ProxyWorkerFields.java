// SPDX-License-Identifier: Apache-2.0
package dev.marrow.cli;

import dev.marrow.proxy.WorkerStats;
import dev.marrow.results.ResultRecord;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The proxy records' worker fields: the workers' CPUs, their clock before and after, and per worker. */
final class ProxyWorkerFields {
    private ProxyWorkerFields() {
    }

    static void add(ResultRecord r, List<WorkerStats> ws, long elapsedNs, boolean table) {
        StringBuilder cores = new StringBuilder();
        StringBuilder freq = new StringBuilder();
        for (WorkerStats w : ws) {
            cores.append(cores.isEmpty() ? "" : "/").append(w.cpu());
            freq.append(freq.isEmpty() ? "" : "/").append(w.freqBeforeKhz() / 1000).append("->").append(w.freqAfterKhz() / 1000);
        }
        r.metric("worker_cpus", cores.toString());
        r.metric("worker_mhz_before_after", freq.toString());
        if (!table) {
            List<Map<String, Object>> l = new ArrayList<>();
            for (WorkerStats w : ws) {
                l.add(w.describe(elapsedNs));
            }
            r.metric("per_worker", l); // not "workers": that name is the T parameter
        }
    }
}
