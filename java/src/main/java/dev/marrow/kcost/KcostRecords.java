// SPDX-License-Identifier: Apache-2.0
package dev.marrow.kcost;

import dev.marrow.fabric.Nic;

import dev.marrow.results.ResultRecord;

/**
 * One result record per kernel-cost point. Every time is the nearest-rank
 * median of the point's timed launches (cudaEvent). Records say what was
 * real: the GPU always is ("gpu_hardware": true); the NIC never is here
 * ("nic_hardware": false). The absent and dormant arms send nothing, so no
 * NIC takes part and "hardware" is true; the sending arms are served by the
 * software NIC (mini-gda's QPs, or the proxy workers' QPs), so "hardware"
 * is false and "nic" names the software NIC.
 */
public final class KcostRecords {
    public static final String BASELINE = "kernel-cost.baseline";

    private KcostRecords() {
    }

    /** Experiment name of a point's record: gda.kernel-cost, proxy.kernel-cost, or the baseline. */
    public static String experiment(KcostPoint p) {
        return p.transport() == Transport.NONE ? BASELINE : p.transport().label() + ".kernel-cost";
    }

    /**
     * The record of m against the baseline (the same caller and live values
     * without communication code) and, for send-wait-compute, send (the same
     * messages and size without waiting; null when it was not run).
     */
    public static ResultRecord record(KcostMeasurement m, KcostMeasurement baseline, KcostMeasurement send,
                                      KcostSettings s) {
        KcostPoint p = m.point();
        ResultRecord r = head(p, s)
                .param("caller", p.caller().label())
                .param("live_values", p.live())
                .param("transport", p.transport().label())
                .param("arm", p.arm().label())
                .param("msgs_per_block", p.msgs())
                .param("msg_size_bytes", p.msgSize())
                .param("blocks", s.blocks())
                .param("threads", s.threads())
                .param("work_per_thread", KcostMath.effectiveWork(s.workFor(p.caller()), p.live(), s.segments()))
                .param("launches", s.launches())
                .param("warmup_launches", s.warmup())
                .param("timing", "cudaEvent per launch, nearest-rank median");
        if (p.transport() == Transport.GDA) {
            r.param("ordering", "release-sys").param("qps", s.blocks());
        } else if (p.transport() == Transport.PROXY) {
            r.param("proxy_workers", s.proxyWorkers()).param("proxy_rings", s.proxyRings())
                    .param("handoff", "baseline");
        }
        double med = m.medianMs();
        double base = baseline.medianMs();
        r.metric("kernel_p50_ms", ResultRecord.round(med, 4))
                .metric("kernel_min_ms", ResultRecord.round(min(m.launchMs()), 4))
                .metric("kernel_max_ms", ResultRecord.round(max(m.launchMs()), 4))
                .metric("baseline_p50_ms", ResultRecord.round(base, 4))
                .metric("slowdown", ResultRecord.round(KcostMath.slowdown(base, med), 4))
                .metric("throughput_loss", ResultRecord.round(KcostMath.throughputLoss(base, med), 4));
        if (send != null && p.arm() == Arm.SEND_WAIT) {
            r.metric("waiting_loss", ResultRecord.round(KcostMath.waitingLoss(send.medianMs(), med), 4));
        }
        r.metric("regs_per_thread", m.regsPerThread())
                .metric("baseline_regs_per_thread", baseline.regsPerThread())
                .metric("local_bytes_per_thread", m.localBytes())
                .metric("blocks_per_sm", m.blocksPerSm())
                .metric("baseline_blocks_per_sm", baseline.blocksPerSm())
                .metric("sm_count", m.smCount())
                .metric("messages", m.messages())
                .metric("completions", m.completions())
                .metric("valid", m.messages() == m.completions()
                        && m.messages() == (long) p.msgs() * s.blocks() * (s.launches() + s.warmup()));
        return r;
    }

    /** backend, hardware and the NIC of a point: none for the arms that send nothing. */
    private static ResultRecord head(KcostPoint p, KcostSettings s) {
        Nic nic = p.arm().sends() ? s.nicOf(p) : null;
        boolean nicHardware = nic != null && nic.hardware();
        return new ResultRecord(experiment(p), nic == null ? "cuda" : "cuda+" + nic.label(), nic == null || nicHardware)
                .param("gpu_hardware", true)
                .param("nic_hardware", nicHardware)
                .param("nic", nic == null ? "none" : nic.label());
    }

    /** A point whose native run failed: its parameters, valid=false and the native error text. */
    public static ResultRecord failed(KcostPoint p, KcostSettings s, String error) {
        return head(p, s)
                .param("caller", p.caller().label())
                .param("live_values", p.live())
                .param("transport", p.transport().label())
                .param("arm", p.arm().label())
                .param("msgs_per_block", p.msgs())
                .param("msg_size_bytes", p.msgSize())
                .param("blocks", s.blocks())
                .param("threads", s.threads())
                .metric("valid", false)
                .metric("error", error);
    }

    private static double min(double[] v) {
        double x = Double.POSITIVE_INFINITY;
        for (double d : v) {
            x = Math.min(x, d);
        }
        return x;
    }

    private static double max(double[] v) {
        double x = Double.NEGATIVE_INFINITY;
        for (double d : v) {
            x = Math.max(x, d);
        }
        return x;
    }
}
