#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Tables and derived numbers of ../h200-softnic-gda-latency.md, from the JSON lines beside it.

    python3 tables.py                  # print every table and every derived number
    python3 tables.py --render FILE    # print FILE with {name} replaced by those values

Only the standard library. Times in the records are ns; the tables show µs.
"""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OLD = os.path.join(HERE, "run1-dbrec-triggered")
ORDERINGS = ["none", "gpu-fence", "gpu-fence-dbrec", "release-gpu", "threadfence", "release-sys", "fence-sys"]
PAYLOADS = ["inline", "pointer"]
ISSUE_TARGET_NS = 800
PUTC_TARGET_NS = 3600

# Labelled references, quoted from the paper "GPU-Initiated Communication: Dissecting Down to the Bone":
# Table 4, P-IB issue column (µs), rows in the order of ORDERINGS.
PAPER_T4_PIB_ISSUE = dict(zip(ORDERINGS, [0.19, 0.70, 0.93, 0.70, 1.22, 2.37, 2.62]))
# Table 3, P-IB, mini-gda inline: issue, put+completion, round trip (µs).
PAPER_T3_PIB_INLINE = (0.70, 4.03, 6.85)


def load(path):
    header, rows = None, []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            if r["record"] == "header":
                header = r
            else:
                rows.append(r)
    return header, rows


def key(r):
    return (r["ordering"], r["payload"])


def us(ns, nd=2):
    return "—" if ns is None else f"{ns / 1000:.{nd}f}"


def median(xs):
    return statistics.median(xs)


def failure(r):
    if r.get("error"):
        return r["error"].replace("marrow_gda_cuda_run failed: ", "").replace("|", "\\|")
    if r.get("payload_errors"):
        return f"{r['payload_errors']} of {r['iters'] + r['warmup']} iterations delivered wrong bytes"
    return ""


class Data:
    def __init__(self):
        self.runs = [load(os.path.join(HERE, n))[1] for n in
                     ("cuda-ordering.jsonl", "cuda-ordering-run2.jsonl", "cuda-ordering-run3.jsonl")]
        self.headers = [load(os.path.join(HERE, n))[0] for n in
                        ("cuda-ordering.jsonl", "cuda-ordering-run2.jsonl", "cuda-ordering-run3.jsonl",
                         "cuda-size.jsonl", "cuda-rtt.jsonl")]
        self.size = load(os.path.join(HERE, "cuda-size.jsonl"))[1]
        self.rtt = load(os.path.join(HERE, "cuda-rtt.jsonl"))[1]
        self.old_ord = load(os.path.join(OLD, "cuda-ordering.jsonl"))[1]
        self.old_size = load(os.path.join(OLD, "cuda-size.jsonl"))[1]
        self.old_rtt = load(os.path.join(OLD, "cuda-rtt.jsonl"))[1]
        self.old_hdr = load(os.path.join(OLD, "cuda-ordering.jsonl"))[0]
        self.cpu = load(os.path.join(OLD, "cpu-ordering.jsonl"))[1]
        self.by = [{key(r): r for r in run} for run in self.runs]
        for run in self.runs:
            assert [key(r) for r in run] == [(o, p) for o in ORDERINGS for p in PAYLOADS]

    def cell(self, i, o, p):
        return self.by[i][(o, p)]

    def p50s(self, o, p, metric):
        """The three p50s of a cell (None where that run's cell is invalid)."""
        return [self.cell(i, o, p)[f"{metric}_p50_ns"] if self.cell(i, o, p)["valid"] else None for i in range(3)]

    def med3(self, o, p, metric):
        xs = self.p50s(o, p, metric)
        return None if None in xs else median(xs)


def ordering_table(d, metric):
    out = [f"| ordering | payload | run 1 p50 | run 1 p99 | run 1 min | run 1 max | run 2 p50 | run 3 p50 | **median of 3 p50** | valid (runs 1/2/3) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for o in ORDERINGS:
        for p in PAYLOADS:
            r1 = d.cell(0, o, p)
            ok = r1["valid"]
            g = (lambda s: r1.get(f"{metric}_{s}_ns")) if ok else (lambda s: None)
            p50s = d.p50s(o, p, metric)
            m = d.med3(o, p, metric)
            valid = "/".join("yes" if d.cell(i, o, p)["valid"] else "**no**" for i in range(3))
            out.append(f"| {o} | {p} | {us(g('p50'))} | {us(g('p99'))} | {us(g('min'))} | {us(g('max'))} | "
                       f"{us(p50s[1])} | {us(p50s[2])} | {'**' + us(m) + '**' if m is not None else '—'} | {valid} |")
    return "\n".join(out)


def failed_cells(d):
    out = ["| sweep | run | ordering | payload | failure (the record's `error` / `payload_errors`) |", "|---|---|---|---|---|"]
    for i, run in enumerate(d.runs):
        for r in run:
            if not r["valid"]:
                out.append(f"| ordering | {i + 1} | {r['ordering']} | {r['payload']} | {failure(r)} |")
    for r in d.size:
        if not r["valid"]:
            out.append(f"| size | 1 | {r['ordering']} | {r['payload']} {r['size_bytes']} B | {failure(r)} |")
    for r in d.rtt:
        if not r["valid"]:
            out.append(f"| rtt | 1 | {r['ordering']} | {r['payload']} | {failure(r)} |")
    return "\n".join(out)


def size_table(d):
    out = ["| size B | WQEBBs | issue p50 | issue p99 | issue min | issue max | put+c p50 | put+c p99 | put+c min | put+c max | valid |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in d.size:
        ok = r["valid"]
        g = (lambda m: r.get(m)) if ok else (lambda m: None)
        out.append(f"| {r['size_bytes']} | {r['wqebbs']} | " + " | ".join(
            us(g(f"{x}_{s}_ns")) for x in ("issue", "putc") for s in ("p50", "p99", "min", "max")) +
                   f" | {'yes' if ok else '**no**: ' + failure(r)} |")
    return "\n".join(out)


def rtt_table(d):
    out = ["| ordering | payload | rtt p50 | rtt p99 | rtt min | rtt max | put+c p50 (median of 3) | rtt p50 / put+c p50 | valid |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in d.rtt:
        o, p = key(r)
        if not r["valid"]:
            out.append(f"| {o} | {p} | — | — | — | — | {us(d.med3(o, p, 'putc'))} | — | **no** (see failed cells) |")
            continue
        m = d.med3(o, p, "putc")
        ratio = r["rtt_p50_ns"] / m if m else None
        rs = "—" if ratio is None else (f"**{ratio:.2f}×**" if ratio > 2 else f"{ratio:.2f}×")
        out.append(f"| {o} | {p} | " + " | ".join(us(r[f"rtt_{s}_ns"]) for s in ("p50", "p99", "min", "max")) +
                   f" | {us(m)} | {rs} | yes |")
    return "\n".join(out)


def old_table(d):
    oldrtt = {key(r): r for r in d.old_rtt}
    out = ["| ordering | payload | issue p50 | put+c p50 | rtt p50 | valid | failure |", "|---|---|---|---|---|---|---|"]
    for r in d.old_ord:
        o, p = key(r)
        rt = oldrtt[(o, p)]
        # the old none/inline cell has numbers but wrong bytes: show them, it is the finding
        out.append(f"| {o} | {p} | {us(r.get('issue_p50_ns'))} | {us(r.get('putc_p50_ns'))} | "
                   f"{us(rt.get('rtt_p50_ns')) if rt['valid'] else '—'} | {'yes' if r['valid'] else '**no**'} | {failure(r)} |")
    return "\n".join(out)


def cpu_table(d):
    out = ["| ordering | payload | issue p50 | issue p99 | put+c p50 | put+c p99 | valid |", "|---|---|---|---|---|---|---|"]
    for r in d.cpu:
        out.append(f"| {r['ordering']} | {r['payload']} | {us(r['issue_p50_ns'])} | {us(r['issue_p99_ns'])} | "
                   f"{us(r['putc_p50_ns'])} | {us(r['putc_p99_ns'])} | {'yes' if r['valid'] else 'no'} |")
    return "\n".join(out)


def target_table(d):
    out = ["| run | issue p50 | ≤ 800 ns? | put+c p50 | ≤ 3600 ns? | margin to 3600 ns |", "|---|---|---|---|---|---|"]
    for i in range(3):
        r = d.cell(i, "gpu-fence", "inline")
        out.append(f"| ordering run {i + 1} | {r['issue_p50_ns']} ns | {'met' if r['issue_p50_ns'] <= ISSUE_TARGET_NS else '**missed**'} | "
                   f"{r['putc_p50_ns']} ns | {'met' if r['putc_p50_ns'] <= PUTC_TARGET_NS else '**missed**'} | "
                   f"{PUTC_TARGET_NS - r['putc_p50_ns']} ns |")
    r = next(x for x in d.size if x["size_bytes"] == 8)
    out.append(f"| size sweep (run 1 process), 8 B | {r['issue_p50_ns']} ns | {'met' if r['issue_p50_ns'] <= ISSUE_TARGET_NS else '**missed**'} | "
               f"{r['putc_p50_ns']} ns | {'met' if r['putc_p50_ns'] <= PUTC_TARGET_NS else '**missed**'} | {PUTC_TARGET_NS - r['putc_p50_ns']} ns |")
    i3 = d.med3("gpu-fence", "inline", "issue")
    p3 = d.med3("gpu-fence", "inline", "putc")
    out.append(f"| **median of the 3 ordering runs** | **{i3:.0f} ns** | {'met' if i3 <= ISSUE_TARGET_NS else '**missed**'} | "
               f"**{p3:.0f} ns** | {'met' if p3 <= PUTC_TARGET_NS else '**missed**'} | {PUTC_TARGET_NS - p3:.0f} ns |")
    return "\n".join(out)


def scope_table(d):
    out = ["| payload | pair | GPU scope issue p50 | system scope issue p50 | system / GPU | paper P-IB (Table 4), reference |",
           "|---|---|---|---|---|---|"]
    for p in PAYLOADS:
        for g, s in (("release-gpu", "release-sys"), ("gpu-fence", "fence-sys")):
            a, b = d.med3(g, p, "issue"), d.med3(s, p, "issue")
            pa, pb = PAPER_T4_PIB_ISSUE[g], PAPER_T4_PIB_ISSUE[s]
            out.append(f"| {p} | {g} → {s} | {us(a)} | {us(b)} | {b / a:.2f}× | {pa:.2f} → {pb:.2f} µs ({pb / pa:.2f}×) |")
    return "\n".join(out)


def issue_vs_paper(d):
    out = ["| ordering | ours: issue p50, inline, median of 3 | ours: pointer | paper P-IB issue (Table 4), reference |", "|---|---|---|---|"]
    for o in ORDERINGS:
        out.append(f"| {o} | {us(d.med3(o, 'inline', 'issue'))} | {us(d.med3(o, 'pointer', 'issue'))} | {PAPER_T4_PIB_ISSUE[o]:.2f} |")
    return "\n".join(out)


def facts(d):
    f = {}
    all_new = [r for run in d.runs for r in run] + d.size + d.rtt
    # effective SM clock, every clock field of every new record
    clocks = sorted({r[k] for r in all_new for k in r if k.endswith("_sm_clock_ghz")})
    f["sm_clocks"] = ", ".join(f"{c:g}" for c in clocks)
    f["sm_clock_fields"] = sum(1 for r in all_new for k in r if k.endswith("_sm_clock_ghz"))
    f["max_sm_clock_mhz"] = d.headers[0]["env"]["gpu0_max_sm_clock_khz"] // 1000
    cyc = d.cell(0, "gpu-fence", "inline")
    f["gf_issue_cycles_r1"] = cyc["issue_p50_cycles"]
    f["gf_putc_cycles_r1"] = cyc["putc_p50_cycles"]
    # timer granularity: every ns value a multiple of 32?
    ns = [v for r in all_new for k, v in r.items() if k.endswith("_ns") and isinstance(v, int) and "timeout" not in k]
    f["ns_values"] = len(ns)
    f["ns_all_mult32"] = "yes" if all(v % 32 == 0 for v in ns) else "no"
    f["git_sha"] = ", ".join(sorted({h["env"]["git_sha"] for h in d.headers}))
    f["native_sha"] = ", ".join(sorted({h["env"]["native_git_sha"] for h in d.headers}))
    f["old_sha"] = d.old_hdr["env"]["git_sha"]
    f["start_times"] = "; ".join(h["env"]["start_time"][:19] + "Z" for h in d.headers)
    # validity
    correct = [o for o in ORDERINGS if o != "none"]
    cr = [d.cell(i, o, p) for i in range(3) for o in correct for p in PAYLOADS]
    f["correct_cells"] = len(cr)
    f["correct_valid"] = sum(r["valid"] for r in cr)
    f["size_valid"] = sum(r["valid"] for r in d.size)
    f["size_cells"] = len(d.size)
    rc = [r for r in d.rtt if r["ordering"] != "none"]
    f["rtt_correct_valid"] = sum(r["valid"] for r in rc)
    f["rtt_correct_cells"] = len(rc)
    f["correct_cqe_err"] = sum(r.get("emu_cqe_req_err", 0) for r in cr + d.size + rc)
    f["correct_payload_err"] = sum(r.get("payload_errors", 0) for r in cr + d.size + rc)
    f["none_inline_valid"] = "/".join("yes" if d.cell(i, "none", "inline")["valid"] else "no" for i in range(3))
    f["none_pointer_valid"] = "/".join("yes" if d.cell(i, "none", "pointer")["valid"] else "no" for i in range(3))
    ni = [d.cell(i, "none", "inline") for i in range(3) if d.cell(i, "none", "inline")["valid"]]
    f["none_inline_issue"] = " and ".join(us(r["issue_p50_ns"]) for r in ni)
    f["none_inline_putc"] = " and ".join(us(r["putc_p50_ns"]) for r in ni)
    # targets
    for i in range(3):
        r = d.cell(i, "gpu-fence", "inline")
        f[f"gf_issue_r{i + 1}"] = r["issue_p50_ns"]
        f[f"gf_putc_r{i + 1}"] = r["putc_p50_ns"]
    f["gf_issue_med"] = f"{d.med3('gpu-fence', 'inline', 'issue'):.0f}"
    f["gf_putc_med"] = f"{d.med3('gpu-fence', 'inline', 'putc'):.0f}"
    f["gf_putc_p99_r1"] = us(d.cell(0, "gpu-fence", "inline")["putc_p99_ns"])
    gfp = [d.cell(i, "gpu-fence", "inline")["putc_p50_ns"] for i in range(3)]
    f["gf_putc_spread"] = max(gfp) - min(gfp)
    f["gf_putc_max_margin"] = PUTC_TARGET_NS - min(gfp)
    f["gf_putc_min_margin"] = PUTC_TARGET_NS - max(gfp)
    f["gf_putc_min_steps"] = f"{(PUTC_TARGET_NS - max(gfp)) / 32:g}"
    f["gf_putc_max_steps"] = f"{(PUTC_TARGET_NS - min(gfp)) / 32:g}"
    # ranges of the correct variants (median of 3 p50)
    med_issue = {(o, p): d.med3(o, p, "issue") for o in correct for p in PAYLOADS}
    med_putc = {(o, p): d.med3(o, p, "putc") for o in correct for p in PAYLOADS}
    f["putc_med_lo"], f["putc_med_hi"] = us(min(med_putc.values())), us(max(med_putc.values()))
    gpu_scope = ["gpu-fence", "gpu-fence-dbrec", "release-gpu", "threadfence"]
    gs = [med_putc[(o, p)] for o in gpu_scope for p in PAYLOADS]
    f["putc_gpu_lo"], f["putc_gpu_hi"] = us(min(gs)), us(max(gs))
    f["putc_relsys_in"] = us(med_putc[("release-sys", "inline")])
    f["putc_relsys_ptr"] = us(med_putc[("release-sys", "pointer")])
    f["putc_fsys_in"] = us(med_putc[("fence-sys", "inline")])
    f["putc_fsys_ptr"] = us(med_putc[("fence-sys", "pointer")])
    for o in correct:
        for p in PAYLOADS:
            f[f"mi_{o}_{p}".replace("-", "_")] = us(med_issue[(o, p)])
            f[f"mp_{o}_{p}".replace("-", "_")] = us(med_putc[(o, p)])
    rs = lambda o, p: med_issue[(o, p)]
    f["relsys_over_relgpu_in"] = f"{rs('release-sys', 'inline') / rs('release-gpu', 'inline'):.2f}"
    f["relsys_over_relgpu_ptr"] = f"{rs('release-sys', 'pointer') / rs('release-gpu', 'pointer'):.2f}"
    f["fsys_over_gf_in"] = f"{rs('fence-sys', 'inline') / rs('gpu-fence', 'inline'):.2f}"
    f["fsys_over_gf_ptr"] = f"{rs('fence-sys', 'pointer') / rs('gpu-fence', 'pointer'):.2f}"
    f["relsys_minus_relgpu_in"] = us(rs("release-sys", "inline") - rs("release-gpu", "inline"))
    f["fsys_minus_gf_in"] = us(rs("fence-sys", "inline") - rs("gpu-fence", "inline"))
    f["paper_fsys_over_gf"] = f"{PAPER_T4_PIB_ISSUE['fence-sys'] / PAPER_T4_PIB_ISSUE['gpu-fence']:.2f}"
    f["paper_relsys_over_relgpu"] = f"{PAPER_T4_PIB_ISSUE['release-sys'] / PAPER_T4_PIB_ISSUE['release-gpu']:.2f}"
    f["safe_issue_ratio"] = f"{max(med_issue.values()) / min(med_issue.values()):.2f}"
    f["safe_issue_max"] = us(max(med_issue.values()))
    f["safe_issue_min"] = us(min(med_issue.values()))
    f["paper_safe_issue_ratio"] = f"{max(PAPER_T4_PIB_ISSUE[o] for o in correct) / min(PAPER_T4_PIB_ISSUE[o] for o in correct):.2f}"
    f["paper_t3_issue"], f["paper_t3_putc"], f["paper_t3_rtt"] = (f"{x:.2f}" for x in PAPER_T3_PIB_INLINE)
    # inline vs pointer put+c, gpu-fence
    f["gf_in_minus_ptr_putc"] = us(med_putc[("gpu-fence", "inline")] - med_putc[("gpu-fence", "pointer")])
    # size sweep
    s = {r["size_bytes"]: r for r in d.size}
    sizes = sorted(s)
    f["size_issue_8"], f["size_issue_max"] = us(s[sizes[0]]["issue_p50_ns"]), us(s[sizes[-1]]["issue_p50_ns"])
    f["size_putc_8"], f["size_putc_max"] = us(s[sizes[0]]["putc_p50_ns"]), us(s[sizes[-1]]["putc_p50_ns"])
    f["size_max"] = sizes[-1]
    xs = [x for x in sizes]
    ys = [s[x]["issue_p50_ns"] for x in xs]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    f["size_issue_ns_per_16B"] = f"{slope * 16:.0f}"
    ys2 = [s[x]["putc_p50_ns"] for x in xs]
    my2 = statistics.mean(ys2)
    slope2 = sum((x - mx) * (y - my2) for x, y in zip(xs, ys2)) / sum((x - mx) ** 2 for x in xs)
    f["size_putc_ns_per_16B"] = f"{slope2 * 16:.0f}"
    f["size_putc_max_max"] = us(max(r["putc_max_ns"] for r in d.size if r["valid"]))
    worst = max((r for r in d.size if r["valid"]), key=lambda r: r["putc_max_ns"])
    f["size_putc_max_at"] = worst["size_bytes"]
    f["size_putc_p99_at_worst"] = us(worst["putc_p99_ns"])
    # round trip
    rv = {key(r): r for r in d.rtt if r["valid"]}
    ratios = {k: r["rtt_p50_ns"] / d.med3(*k, "putc") for k, r in rv.items()}
    over = [k for k, v in ratios.items() if v > 2]
    f["rtt_over2"] = ", ".join(f"{o}/{p} ({ratios[(o, p)]:.2f}×)" for o, p in over) or "none"
    f["rtt_ratio_lo"] = f"{min(ratios.values()):.2f}"
    f["rtt_ratio_hi"] = f"{max(ratios.values()):.2f}"
    f["rtt_gf_in"] = us(rv[("gpu-fence", "inline")]["rtt_p50_ns"])
    f["rtt_gf_in_ratio"] = f"{ratios[('gpu-fence', 'inline')]:.2f}"
    f["rtt_relsys_in"] = us(rv[("release-sys", "inline")]["rtt_p50_ns"])
    f["rtt_relsys_ptr"] = us(rv[("release-sys", "pointer")]["rtt_p50_ns"])
    f["rtt_relgpu_in"] = us(rv[("release-gpu", "inline")]["rtt_p50_ns"])
    f["rtt_relsys_minus_relgpu_in"] = us(rv[("release-sys", "inline")]["rtt_p50_ns"] - rv[("release-gpu", "inline")]["rtt_p50_ns"])
    f["putc_relsys_minus_relgpu_in"] = us(med_putc[("release-sys", "inline")] - med_putc[("release-gpu", "inline")])
    gaps = {k: r["rtt_p50_ns"] - r["rtt_min_ns"] for k, r in rv.items()}
    f["rtt_gap_lo"] = us(min(gaps.values()))
    f["rtt_gap_lo_at"] = "/".join(min(gaps, key=gaps.get))
    f["rtt_gap_hi"] = us(max(gaps.values()))
    f["rtt_gap_hi_at"] = "/".join(max(gaps, key=gaps.get))
    f["rtt_ratio_hi_le2"] = f"{max(v for v in ratios.values() if v <= 2):.2f}"
    inl_gt_ptr = [o for o in correct if rv[(o, "inline")]["rtt_p50_ns"] - rv[(o, "pointer")]["rtt_p50_ns"] > 500]
    igaps = [rv[(o, "inline")]["rtt_p50_ns"] - rv[(o, "pointer")]["rtt_p50_ns"] for o in inl_gt_ptr]
    f["rtt_inline_gap_lo"], f["rtt_inline_gap_hi"] = us(min(igaps)), us(max(igaps))
    ogaps = [abs(rv[(o, "inline")]["rtt_p50_ns"] - rv[(o, "pointer")]["rtt_p50_ns"]) for o in correct if o not in inl_gt_ptr]
    f["rtt_other_gap_max"] = us(max(ogaps))
    f["rtt_inline_slower"] = ", ".join(
        f"{o} {us(rv[(o, 'inline')]['rtt_p50_ns'])} vs {us(rv[(o, 'pointer')]['rtt_p50_ns'])}" for o in inl_gt_ptr)
    # old run vs new
    oo = {key(r): r for r in d.old_ord}
    orr = {key(r): r for r in d.old_rtt}
    f["old_gf_in_issue"] = us(oo[("gpu-fence", "inline")]["issue_p50_ns"])
    f["old_gf_in_putc"] = us(oo[("gpu-fence", "inline")]["putc_p50_ns"])
    f["old_gf_in_rtt"] = us(orr[("gpu-fence", "inline")]["rtt_p50_ns"])
    f["old_relsys_in_rtt"] = us(orr[("release-sys", "inline")]["rtt_p50_ns"])
    f["old_none_in_rtt"] = us(orr[("none", "inline")]["rtt_p50_ns"])
    f["old_none_in_putc"] = us(oo[("none", "inline")]["putc_p50_ns"])
    f["putc_drop_gf_in"] = us(oo[("gpu-fence", "inline")]["putc_p50_ns"] - med_putc[("gpu-fence", "inline")])
    f["rtt_rise_gf_in"] = us(rv[("gpu-fence", "inline")]["rtt_p50_ns"] - orr[("gpu-fence", "inline")]["rtt_p50_ns"])
    old_putc = [r["putc_p50_ns"] for r in d.old_ord if r["valid"]]
    f["old_putc_lo"], f["old_putc_hi"] = us(min(old_putc)), us(max(old_putc))
    f["old_none_in_perr"] = oo[("none", "inline")]["payload_errors"]
    f["old_size32_perr"] = next(r for r in d.old_size if r["size_bytes"] == 32)["payload_errors"]
    f["old_iters"] = oo[("none", "inline")]["iters"] + oo[("none", "inline")]["warmup"]
    # cpu reference range
    f["cpu_putc_lo"] = us(min(r["putc_p50_ns"] for r in d.cpu))
    f["cpu_putc_hi"] = us(max(r["putc_p50_ns"] for r in d.cpu))
    return f


def sections(d):
    return {
        "T_ISSUE": ordering_table(d, "issue"),
        "T_PUTC": ordering_table(d, "putc"),
        "T_FAILED": failed_cells(d),
        "T_SIZE": size_table(d),
        "T_RTT": rtt_table(d),
        "T_TARGET": target_table(d),
        "T_SCOPE": scope_table(d),
        "T_PAPER_ISSUE": issue_vs_paper(d),
        "T_OLD": old_table(d),
        "T_CPU": cpu_table(d),
    }


def main():
    d = Data()
    values = {**facts(d), **sections(d)}
    if len(sys.argv) == 3 and sys.argv[1] == "--render":
        with open(sys.argv[2]) as t:
            sys.stdout.write(t.read().format(**values))
        return
    for k, v in values.items():
        if k.startswith("T_"):
            print(f"\n## {k}\n{v}")
        else:
            print(f"{k} = {v}")


if __name__ == "__main__":
    main()
