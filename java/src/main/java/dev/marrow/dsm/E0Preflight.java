// SPDX-License-Identifier: Apache-2.0
package dev.marrow.dsm;

import dev.marrow.results.ResultRecord;

import java.util.List;

/**
 * E0: what the GPU reports and what the timers do. The effective clock is
 * measured (clock64 cycles per globaltimer ns), the advertised peak clock is
 * printed only for comparison.
 */
public final class E0Preflight implements Experiment {
    public String id() {
        return "E0";
    }

    public String name() {
        return "preflight";
    }

    public String title() {
        return "device, opt-in shared memory, cluster occupancy, globaltimer step, effective SM clock";
    }

    public List<ResultRecord> run(DsmContext ctx) {
        DeviceInfo d = ctx.device().info();
        ResultRecord dev = Report.record(ctx, id(), "info", "device")
                .param("gpu", d.name())
                .param("compute_capability", "sm_" + d.ccMajor() + d.ccMinor())
                .param("driver_version", d.driverVersion())
                .param("runtime_version", d.runtimeVersion())
                .metric("sm_count", d.smCount())
                .metric("max_smem_optin_bytes", d.maxSmemOptin())
                .metric("smem_per_cta_bytes", d.smemPerCta())
                .metric("reported_peak_clock_mhz", d.clockRateKhz() / 1000.0);
        Report.reference(dev, "max_smem_optin_bytes", d.maxSmemOptin(), Reference.SMEM_OPTIN);
        for (int i = 0; i < DeviceInfo.CLUSTER_SIZES.length; i++) {
            dev.metric("max_active_clusters_n" + DeviceInfo.CLUSTER_SIZES[i], d.maxActiveClusters()[i]);
        }
        TimerInfo t = ctx.device().timer(2000);
        ResultRecord timer = Report.record(ctx, id(), "info", "timers")
                .param("window_ns", t.gtDeltaNs())
                .metric("globaltimer_min_step_ns", t.gtMinStepNs())
                .metric("globaltimer_steps", t.gtSteps())
                .metric("timer_reads", t.reads())
                .metric("clock64_delta_cycles", t.clkDelta())
                .metric("eff_clock_ghz", Report.round(t.clockGhz(), 4))
                .metric("smid", t.smid());
        Report.reference(timer, "globaltimer_min_step_ns", t.gtMinStepNs(), Reference.GLOBALTIMER_STEP);
        timer.metric("reference_nominal_clock_ghz", Reference.NOMINAL_CLOCK.value());
        ctx.progress(String.format("E0: %s, %d SMs, clock %.3f GHz (measured), globaltimer step %d ns",
                d.name(), d.smCount(), t.clockGhz(), t.gtMinStepNs()));
        return List.of(dev, timer);
    }
}
