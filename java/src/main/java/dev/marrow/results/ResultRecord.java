// SPDX-License-Identifier: Apache-2.0
package dev.marrow.results;

import dev.marrow.api.RdmaCore;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One measured point. Independent variables (parameters) are kept apart from
 * measured ones (metrics, whose names carry their unit: *_ns, rate_mmsg_s,
 * goodput_gb_s, ...). {@code hardware} is false for anything that ran on the
 * software NIC, and for a NIC path that the mlx5 model served (MARROW_RDMA_CORE=model): a record
 * that names its "nic" then says "mlx5-model" (docs/design/mlx5-model.md §1).
 */
public final class ResultRecord {
    private final String experiment;
    private final String backend;
    private boolean hardware;
    private final Map<String, Object> params = new LinkedHashMap<>();
    private final Map<String, Object> metrics = new LinkedHashMap<>();

    public ResultRecord(String experiment, String backend, boolean hardware) {
        this.experiment = experiment;
        this.backend = backend;
        this.hardware = hardware;
    }

    public ResultRecord param(String name, Object value) {
        if (hardware && "nic".equals(name) && RdmaCore.model()) { // the model answered for the NIC
            hardware = false;
            value = RdmaCore.MODEL_NIC;
        }
        params.put(name, value);
        return this;
    }

    public ResultRecord metric(String name, Object value) {
        metrics.put(name, value);
        return this;
    }

    /** Adds min/p50/p90/p99/p999/max/mean/stdev of a latency sample as prefix_*_ns. */
    public ResultRecord latency(String prefix, Stats s) {
        metric(prefix + "_min_ns", s.min());
        metric(prefix + "_p50_ns", s.p50());
        metric(prefix + "_p90_ns", s.p90());
        metric(prefix + "_p99_ns", s.p99());
        metric(prefix + "_p999_ns", s.p999());
        metric(prefix + "_max_ns", s.max());
        metric(prefix + "_mean_ns", round(s.mean(), 1));
        metric(prefix + "_stdev_ns", round(s.stdev(), 1));
        metric("samples", s.n());
        return this;
    }

    public static double round(double v, int digits) {
        double f = Math.pow(10, digits);
        return Math.round(v * f) / f;
    }

    public String experiment() {
        return experiment;
    }

    public String backend() {
        return backend;
    }

    public boolean hardware() {
        return hardware;
    }

    public Map<String, Object> params() {
        return Collections.unmodifiableMap(params);
    }

    public Map<String, Object> metrics() {
        return Collections.unmodifiableMap(metrics);
    }

    public Object metric(String name) {
        return metrics.get(name);
    }

    /** Flat view: record, experiment, backend, hardware, params..., metrics... */
    public Map<String, Object> flat() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("record", "result");
        m.put("experiment", experiment);
        m.put("backend", backend);
        m.put("hardware", hardware);
        m.putAll(params);
        m.putAll(metrics);
        return m;
    }
}
