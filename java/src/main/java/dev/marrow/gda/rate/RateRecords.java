// SPDX-License-Identifier: Apache-2.0
package dev.marrow.gda.rate;

import dev.marrow.fabric.Target;
import dev.marrow.results.ResultRecord;
import dev.marrow.results.Stats;

import java.util.Arrays;

/**
 * Result records of the rate suite: "gda.rate" (message rate) and
 * "gda.scope" (put+completion latency of a completion scope). Backend
 * "target+nic"; "hardware" is true only for mlx5; cuda records also say
 * gpu_hardware=true, nic_hardware=false on the software NIC (either
 * engine; placement "gpu" when the queues live in GPU memory on the device
 * engine, which also records nic_sms and the SMs it took). Every record
 * shows which side limited it (limited_by, docs/design/methods.md).
 */
public final class RateRecords {
    private RateRecords() {
    }

    public static final String RATE = "gda.rate";
    public static final String SCOPE = "gda.scope";

    public static ResultRecord record(RateResult r) {
        RateSpec s = r.spec();
        boolean scope = s.experiment() == RateExperiment.SCOPE;
        ResultRecord rec = new ResultRecord(scope ? SCOPE : RATE, s.target().label() + "+" + s.nic().label(),
                s.nic().hardware())
                .param("target", s.target().label()).param("nic", s.nic().label())
                .param("gpu_hardware", s.target() == Target.CUDA).param("nic_hardware", s.nic().hardware())
                .param("blocks", s.blocks()).param("threads", s.threads()).param("qps", s.qps())
                .param("qp_map", s.qpMapping().label()).param("publication", s.publication().label())
                .param("batch", s.batch()).param("signal_period", s.signalPeriod()).param("window", s.window())
                .param("payload", s.payload().label()).param("size_bytes", s.size())
                .param("ordering", s.ordering().label()).param("doorbell", s.doorbell().label())
                .param("rate_path", s.path().label())
                .param("messages_per_thread", s.messages()).param("warmup_per_thread", s.warmup())
                .param("log_sq", s.logSq()).param("engine_threads", s.engineThreads())
                .param("engine_cpus", s.engineCpus() == null ? "none" : Arrays.toString(s.engineCpus()))
                .param("doorbell_cpu", s.doorbellCpu());
        if (s.nic() == RateNic.SOFTNIC) {
            rec.param("poll_mode", s.idlePoll() ? "idle (oversubscribed)" : "hot");
        }
        rec.param("placement", s.nic() == RateNic.SOFTNIC_DEVICE ? "gpu" : "host");
        if (r.deviceEngine() instanceof DeviceEngineUse d) { // the engine kernel's SMs, as the engine reported them
            rec.param("nic_sms", d.nicSms()).param("nic_sms_distinct", d.distinctSms())
                    .param("nic_blocks_per_sm_max", d.maxBlocksPerSm()).param("device_sms", d.deviceSms())
                    .param("shares_sms_with_engine", d.sharedSms()).param("nic_engine_layout", d.layout())
                    .param("nic_engine_threads_per_sm", d.threadsPerSm());
        }
        if (scope) {
            rec.param("scope", s.scope().label()).param("percentiles", Stats.PERCENTILE_DEFINITION)
                    .latency("putc", Stats.of(r.samplesNs()));
        } else {
            String unit = r.ticksAreCycles() ? "_cycles" : "_ns";
            rec.metric("rate_mmsg_s", ResultRecord.round(r.rateMmsgPerSec(), 3))
                    .metric("rate_per_qp_mmsg_s", ResultRecord.round(r.rateMmsgPerSec() / s.qps(), 3))
                    .metric("ns_per_msg_per_thread", ResultRecord.round(r.nsPerMessagePerThread(), 2))
                    .metric("elapsed_ns", r.elapsedNs())
                    .metric("sq_full_wait" + unit, r.sqFullTicks())
                    .metric("publish_wait" + unit, r.publishTicks())
                    .metric("reap" + unit, r.reapTicks())
                    .metric("sq_full_share", ResultRecord.round(r.sqFullShare(), 4))
                    .metric("publish_share", ResultRecord.round(r.publishShare(), 4))
                    .metric("fence" + unit, r.fenceTicks())
                    .metric("wqe" + unit, r.wqeTicks())
                    .metric("fence_share", ResultRecord.round(r.fenceShare(), 4))
                    .metric("wqe_share", ResultRecord.round(r.wqeShare(), 4))
                    .metric("reap_share", ResultRecord.round(r.reapShare(), 4))
                    .metric("limited_by", r.limitedBy())
                    .metric("poster_stage", r.posterStage())
                    .metric("rate_path_run", r.pathRun().label());
        }
        rec.metric("messages", r.messages()).metric("posts", r.posts()).metric("doorbells", r.doorbells())
                .metric("doorbells_per_msg", ResultRecord.round(r.doorbellsPerMessage(), 4))
                .metric("signaled", r.signaled()).metric("cqes", r.cqes())
                .metric("sq_full_waits", r.sqFullWaits())
                .metric("signal_period_effective", r.signalPeriodEffective())
                .metric("window_effective", r.windowEffective()).metric("wqebbs", r.wqebbsPerWqe())
                .metric("slots_checked", r.slotsChecked()).metric("payload_errors", r.payloadErrors())
                .metric("exactly_once", r.exactlyOnce()).metric("valid", r.exactlyOnce());
        if (s.doorbell() == DoorbellMode.HOST) {
            rec.metric("host_rings", r.hostRings()).metric("host_polls", r.hostPolls());
        }
        if (!r.emuCounters().isEmpty()) {
            rec.metric("engine_busy_ratio", ResultRecord.round(r.engineBusyRatio(), 4))
                    .metric("emu_doorbells_observed", r.emuCounters().getOrDefault("emu_doorbells_observed", 0L))
                    .metric("emu_wqe_rdma_write", r.emuCounters().getOrDefault("emu_wqe_rdma_write", 0L))
                    .metric("emu_busy_passes", r.emuCounters().getOrDefault("emu_busy_passes", 0L))
                    .metric("emu_idle_passes", r.emuCounters().getOrDefault("emu_idle_passes", 0L));
        }
        return rec;
    }
}
