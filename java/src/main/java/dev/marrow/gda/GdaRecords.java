// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda;

import dev.marrow.fabric.Nic;
import dev.marrow.fabric.Mlx5Options;
import dev.marrow.api.TimeoutDump;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;

import java.util.List;
import java.util.Map;

/**
 * Turns the runs of one configuration point (one ordering, payload and size;
 * one run per experiment) into one result record: parameters, then per
 * experiment p50/p99/min/max in ns (and, on the GPU, the median cycles and
 * the effective SM clock), then validation and counters. The backend is
 * "target+nic" (cpu+softnic, cuda+softnic, cuda+mlx5); "hardware" is true
 * only for mlx5 ({@link Nic#hardware()}), whose records also name the
 * device, port, GID index, peer and role (initiator across hosts), and
 * carry no emulator counters. Across hosts payload_errors is the
 * responder's check of the final iteration (0 or 1), said in payload_check.
 */
public final class GdaRecords {
    public static final String EXPERIMENT = "gda.latency";

    private GdaRecords() {
    }

    public static ResultRecord record(List<GdaRun> runs) {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("no runs");
        }
        GdaRun first = runs.getFirst();
        return record(first.setup(), first.spec(), runs).param("percentiles", Stats.PERCENTILE_DEFINITION);
    }

    /**
     * A point whose run ended in an error CQE, wrong bytes or a timeout: the
     * runs that finished, then valid=false and the native error text; a
     * timeout's watchdog dump also as structured fields, "timeout_dump"
     * (docs/design/watchdog.md).
     */
    public static ResultRecord failed(GdaSetup s, GdaRunSpec spec, List<GdaRun> finished, String error) {
        ResultRecord r = record(s, spec, finished).metric("valid", false).metric("error", error);
        Map<String, Object> dump = TimeoutDump.parse(error);
        return dump.isEmpty() ? r : r.metric("timeout_dump", dump);
    }

    private static ResultRecord record(GdaSetup s, GdaRunSpec spec, List<GdaRun> runs) {
        ResultRecord r = new ResultRecord(EXPERIMENT, s.backendName(), s.nic().hardware())
                .param("target", s.target().label())
                .param("nic", s.nicLabel())
                .param("ordering", spec.ordering().label())
                .param("payload", spec.payload().label())
                .param("size_bytes", spec.size())
                .param("iters", spec.iters())
                .param("warmup", spec.warmup())
                .param("placement", s.placement().label())
                .param("sq_wqebbs", 1 << s.logSq()) // mlx5: what libmlx5 granted
                .param("ordering_safe_on_hardware", OrderingPolicy.safeOnHardware(spec.ordering(), s.placement()));
        if (s.deviceEngine()) { // the NIC is a persistent kernel on this many SMs of the GPU under test
            r.param("nic_sms", s.nicSms()).param("nic_engine", "device (persistent CUDA kernel)")
                    .param("gpu_hardware", true).param("nic_hardware", false);
            GdaRun.DeviceEngine d = runs.isEmpty() ? null : runs.getFirst().deviceEngine();
            if (d != null) { // as run: the same engine serves every run of the point
                r.param("nic_sms_distinct", d.distinctSms()).param("nic_engine_layout", d.layout())
                        .param("nic_engine_threads_per_sm", d.threadsPerSm());
            }
        }
        if (s.nic() == Nic.MLX5) { // real hardware: say which NIC and how the two QPs were connected
            Mlx5Options o = s.mlx5();
            r.param("mlx5_device", o.device()).param("mlx5_port", o.port()).param("gid_index", o.gidIndex())
                    .param("peer", o.twoHost() ? o.peer().toString() : "loopback (one host)")
                    .param("role", o.twoHost() ? o.role().label() : "both (one host)");
            if (o.twoHost()) { // the initiator cannot read the other host's memory: the responder checks once
                r.param("payload_check", "responder: final iteration's bytes in its inbox");
            }
        }
        for (GdaRun run : runs) {
            if (run.spec().responderDelayNs() != 0) { // the timer check's delayed round trip
                r.param("responder_delay_ns", run.spec().responderDelayNs());
            }
        }
        long payloadErrors = 0;
        long posts = 0;
        long emuWrites = 0;
        long emuCqes = 0;
        long emuErrCqes = 0;
        for (GdaRun run : runs) {
            String p = run.spec().experiment().metricPrefix();
            Stats st = run.stats();
            r.metric(p + "_p50_ns", st.p50()).metric(p + "_p99_ns", st.p99())
                    .metric(p + "_min_ns", st.min()).metric(p + "_max_ns", st.max());
            if (run.samplesCycles() != null) {
                r.metric(p + "_p50_cycles", run.p50Cycles())
                        .metric(p + "_sm_clock_ghz", ResultRecord.round(run.smClockGhz(), 3));
            }
            payloadErrors += run.payloadErrors();
            posts += run.posts() + run.peerPosts();
            emuWrites += run.emuCounters().getOrDefault("emu_wqe_rdma_write", 0L);
            emuCqes += run.emuCounters().getOrDefault("emu_cqe_req", 0L);
            emuErrCqes += run.emuCounters().getOrDefault("emu_cqe_req_err", 0L);
        }
        r.metric("wqebbs", runs.isEmpty() ? -1 : runs.getFirst().wqebbsPerWqe())
                .metric("payload_errors", payloadErrors)
                .metric("valid", payloadErrors == 0)
                .metric("posts", posts);
        if (!s.nic().hardware()) {
            r.metric("emu_wqe_rdma_write", emuWrites).metric("emu_cqe_req", emuCqes)
                    .metric("emu_cqe_req_err", emuErrCqes);
        }
        return r;
    }
}
