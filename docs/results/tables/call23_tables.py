#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Markdown tables of docs/results/h200-{goodput,loaded,kernel-cost,method}.md from their raw
JSON-lines folders. Prints every number as the records hold it; computes only ratios that the
docs label as ratios. Usage: call23_tables.py goodput|loaded|loaded2|kcost|method DIR"""
import json, sys, glob, os

def recs(path):
    return [json.loads(l) for l in open(path) if l.strip() and json.loads(l).get("record") == "result"]

def size(b):
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB" if b >= 1024 else f"{b} B"

def goodput(d):
    files = ["gda-goodput-cuda-w200", "gda-goodput-cpu-w200", "gda-goodput-cuda-nowire",
             "proxy-goodput-cuda-w200", "proxy-goodput-cpu-w200", "proxy-goodput-cpu-nowire"]
    rows = {f: {r["size_bytes"]: r for r in recs(f"{d}/{f}.jsonl") if "size_bytes" in r} for f in files}
    print("| size | " + " | ".join(files) + " | wire ceiling (200 Gb/s model) |")
    print("|---" * (len(files) + 2) + "|")
    for s in sorted(rows[files[0]]):
        cells = []
        for f in files:
            r = rows[f].get(s)
            cells.append("—" if r is None else f"{r['goodput_gbps']:.3f}" + ("" if r.get("valid") else " INVALID"))
        print(f"| {size(s)} | " + " | ".join(cells) + f" | {rows[files[0]][s]['wire_ceiling_gbps']} |")
    print()
    print("| file | first size at 90 % of line rate | note |")
    print("|---|---|---|")
    for f in files:
        summ = [r for r in recs(f"{d}/{f}.jsonl") if r["experiment"].endswith(".summary")][0]
        print(f"| {f} | {summ['first_size_at_90pct_line_rate']} | {summ['note']} |")
    print()
    print("Single-op put+completion (gda-singleop-cuda-w200), ns:")
    print()
    print("| size | p50 | p99 | min | max | wire_cqe_hold_ns | valid | truncated |")
    print("|---|---|---|---|---|---|---|---|")
    for r in recs(f"{d}/gda-singleop-cuda-w200.jsonl"):
        print(f"| {size(r['size_bytes'])} | {r['putc_p50_ns']} | {r['putc_p99_ns']} | {r['putc_min_ns']} | "
              f"{r['putc_max_ns']} | {r['wire_cqe_hold_ns']} | {r['valid']} | {r['truncated']} |")

def loaded(d):
    for f in ["gda-loaded-cuda", "gda-loaded-cuda-paced", "proxy-loaded-cpu", "proxy-loaded-cpu-paced"]:
        print(f"**{f}.jsonl**")
        print()
        print("| queue | background | pace msg/s | probe p50 ns | p99 ns | p99.9 ns | p50 / idle p50 | background M msg/s | slot errors | spinning threads | cpu_oversubscribed | valid |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        rs = recs(f"{d}/{f}.jsonl")
        idle = [r for r in recs(f"{d}/{f.replace('-paced', '')}.jsonl") if r["queue"] == "idle"]
        for r in rs:
            ratio = f"{r['probe_p50_ns'] / idle[0]['probe_p50_ns']:.2f}" if idle else "—"
            v = "true" if r["valid"] else "**FALSE**"
            print(f"| {r['queue']} | {r['background_streams']} | {r['pace_msgs_per_s']} | {r['probe_p50_ns']} | "
                  f"{r['probe_p99_ns']} | {r['probe_p999_ns']} | {ratio} | {r['background_mmsg_s']} | "
                  f"{r['background_slot_errors']} | {r['spinning_threads']} | {r['cpu_oversubscribed']} | {v} |")
        print()

def loaded2(d):
    """Loaded RTT tables for a re-run folder (call 4/5 layout): every *loaded*.jsonl present, with
    the CPU background cap fields (background_streams_requested / _capped) where the record has them."""
    order = ["gda-loaded-cuda", "gda-loaded-cuda-paced", "gda-loaded-cpu", "gda-loaded-cpu-paced",
             "proxy-loaded-cpu", "proxy-loaded-cpu-paced"]
    for f in [f for f in order if os.path.exists(f"{d}/{f}.jsonl")]:
        print(f"**{f}.jsonl**")
        print()
        print("| queue | background (requested) | capped | pace msg/s | probe p50 ns | p99 ns | p99.9 ns | p50 / idle p50 | background M msg/s | slot errors | spinning threads | cpu_oversubscribed | valid |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        idle = [r for r in recs(f"{d}/{f.replace('-paced', '')}.jsonl") if r["queue"] == "idle"]
        for r in recs(f"{d}/{f}.jsonl"):
            ratio = f"{r['probe_p50_ns'] / idle[0]['probe_p50_ns']:.2f}" if idle else "—"
            v = "true" if r["valid"] else "**FALSE**"
            req = r.get("background_streams_requested", r["background_streams"])
            print(f"| {r['queue']} | {r['background_streams']} ({req}) | {r.get('background_streams_capped', '—')} | "
                  f"{r['pace_msgs_per_s']} | {r['probe_p50_ns']} | {r['probe_p99_ns']} | {r['probe_p999_ns']} | {ratio} | "
                  f"{r['background_mmsg_s']} | {r['background_slot_errors']} | {r['spinning_threads']} | "
                  f"{r['cpu_oversubscribed']} | {v} |")
        print()

def kcost(d):
    print("Dormant arm (code present, never sends; no NIC used):")
    print()
    print("| file | transport | caller | live values | blocks | blocks/SM (base→arm) | regs/thread (base→arm) | kernel p50 ms | baseline p50 ms | slowdown | throughput loss |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for f in ["kernel-cost-dormant", "kernel-cost-dormant-1056", "kernel-cost-gda", "kernel-cost-proxy"]:
        for r in recs(f"{d}/{f}.jsonl"):
            if r["arm"] != "dormant":
                continue
            print(f"| {f} | {r['transport']} | {r['caller']} | {r['live_values']} | {r['blocks']} | "
                  f"{r['baseline_blocks_per_sm']}→{r['blocks_per_sm']} | {r['baseline_regs_per_thread']}→{r['regs_per_thread']} | "
                  f"{r['kernel_p50_ms']} | {r['baseline_p50_ms']} | {r['slowdown'] * 100:.1f} % | {r['throughput_loss'] * 100:.1f} % |")
    print()
    for f in ["kernel-cost-gda", "kernel-cost-proxy"]:
        print(f"Sending arms, {f}.jsonl (EMULATED NIC: software NIC; slowdown / waiting_loss in %):")
        print()
        print("| caller | live | msgs/block | size | send-then-compute slowdown | send-wait-compute slowdown | waiting_loss | regs (send-wait) | all valid |")
        print("|---|---|---|---|---|---|---|---|---|")
        key = {}
        for r in recs(f"{d}/{f}.jsonl"):
            if r["arm"] in ("send-then-compute", "send-wait-compute"):
                key.setdefault((r["caller"], r["live_values"], r["msgs_per_block"], r["msg_size_bytes"]), {})[r["arm"]] = r
        for (c, lv, m, s), a in key.items():
            sc, sw = a.get("send-then-compute"), a.get("send-wait-compute")
            fmt = lambda r: "—" if r is None else f"{r['slowdown'] * 100:.1f}"
            wl = "—" if sw is None or "waiting_loss" not in sw else f"{sw['waiting_loss'] * 100:.1f}"
            ok = all(x["valid"] for x in a.values())
            print(f"| {c} | {lv} | {m} | {size(s)} | {fmt(sc)} | {fmt(sw)} | {wl} | "
                  f"{'—' if sw is None else sw['regs_per_thread']} | {ok} |")
        print()

def method(d):
    r = recs(f"{d}/db2cqe.jsonl")[0]
    print("| quantity | p50 ns | p99 ns | min ns | max ns | iters | valid |")
    print("|---|---|---|---|---|---|---|")
    for q in ("db2cqe", "putc"):
        print(f"| {q} | {r[q + '_p50_ns']} | {r[q + '_p99_ns']} | {r[q + '_min_ns']} | {r[q + '_max_ns']} | {r['iters']} | {r['valid']} |")
    print()
    t = [x for x in recs(f"{d}/timer-check.jsonl") if x["experiment"] == "gda.timer-check"][0]
    print("| RTT p50 ns (no delay) | RTT p50 ns (50 µs delay) | shift ns | error ns | tolerance ns | pass |")
    print("|---|---|---|---|---|---|")
    print(f"| {t['rtt_p50_ns']} | {t['rtt_delayed_p50_ns']} | {t['shift_ns']} | {t['shift_error_ns']} | {t['tolerance_ns']} | {t['pass']} |")
    print()
    print("Three process runs, p50 as median [min, max] of the three runs' p50s:")
    print()
    print("| file | path | issue p50 ns | put+completion p50 ns | RTT p50 ns | runs |")
    print("|---|---|---|---|---|---|")
    for f in ("gda-latency-3runs", "proxy-latency-3runs"):
        for x in recs(f"{d}/{f}.jsonl"):
            label = x.get("handoff", x.get("payload", "")) + " " + size(x["size_bytes"])
            cell = lambda q: "—" if q + "_p50_ns" not in x else f"{x[q + '_p50_ns']} [{x[q + '_p50_ns_min']}, {x[q + '_p50_ns_max']}]"
            print(f"| {f} | {label} | {cell('issue')} | {cell('putc')} | {cell('rtt')} | {x.get('runs')} |")

if __name__ == "__main__":
    {"goodput": goodput, "loaded": loaded, "loaded2": loaded2, "kcost": kcost, "method": method}[sys.argv[1]](sys.argv[2])
