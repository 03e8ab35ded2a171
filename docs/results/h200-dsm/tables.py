#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints the tables of docs/results/h200-dsm.md from the raw JSON lines in this folder.
Usage: python3 tables.py   (run from this folder). Reference values are read from the
rows' reference_* fields (written by the suite), never used in any computation here except
the printed percentage difference."""
import json, statistics as st

def rows(f):
    return [json.loads(l) for l in open(f)]

R = rows('h200-dsm.jsonl')
def sel(exp, row=None):
    return [r for r in R if r.get('experiment') == 'dsm.' + exp and (row is None or r.get('row') == row)]

print('# E0'); [print(' ', {k: v for k, v in r.items() if k not in ('record', 'backend', 'hardware')}) for r in sel('E0')]

print('\n# one-way fits (E2-E4): series, B/cycle, GB/s, alpha, RMSE% cycles, RMSE% ns, eff clock, ref, diff%')
clocks = []
for e in ('E2', 'E3', 'E4'):
    for r in sel(e, 'fit'):
        clocks.append(r['eff_clock_ghz'])
        print(f"  {e} {r['series']:16s} {r['inv_beta_b_per_cycle']:6.2f} {r.get('inv_beta_gb_s', float('nan')):5.1f} "
              f"{r['alpha_cycles']:6.0f} {r['rmse_share_of_rise_cycles_pct']:5.2f} {r['rmse_share_of_rise_ns_pct']:5.2f} "
              f"{r['eff_clock_ghz']:.3f} {r.get('reference_inv_beta_b_per_cycle')} {r.get('vs_reference_pct')}")
print('  eff clock range over E2-E4 fits: %.3f-%.3f GHz' % (min(clocks), max(clocks)))

def side(f, exps=('dsm.E2', 'dsm.E3')):
    for r in rows(f):
        if r.get('row') == 'fit' and r['experiment'] in exps:
            print(f"  {f:20s} {r['load_kernel']:8s} G={r['group_threads']:3d} {r['series']:16s} "
                  f"{r['inv_beta_b_per_cycle']:6.2f} B/cyc {r.get('inv_beta_gb_s', float('nan')):5.1f} GB/s "
                  f"alpha {r['alpha_cycles']:5.0f} rmse {r['rmse_share_of_rise_cycles_pct']:4.2f}% (ns {r['rmse_share_of_rise_ns_pct']:4.2f}%)")
print('\n# load kernels and thread counts (same device call)')
for f in ('h200-dsm.jsonl', 'load-batched.jsonl', 'threads-256.jsonl', 'threads-128.jsonl'):
    side(f)

print('\n# E2 medians (KiB: cycles) per kernel')
for f in ('h200-dsm.jsonl', 'load-batched.jsonl'):
    for s in ('load 1->0', 'load 0->1', 'load 1->0 cl16'):
        pts = [(r['size_bytes'] // 1024, r['median_cycles']) for r in rows(f)
               if r.get('experiment') == 'dsm.E2' and r.get('row') == 'point' and r['series'] == s]
        steps = [round(b[1] - a[1]) for a, b in zip(pts, pts[1:])]
        print(f"  {f:20s} {s:16s} steps per 8 KiB: {steps}  (median {st.median(steps)})")

for e in ('E5', 'E6', 'E7', 'E8', 'E9', 'E10'):
    print(f'\n# {e} summaries')
    for r in sel(e, 'summary'):
        print(' ', {k: v for k, v in r.items() if k not in ('record', 'backend', 'hardware', 'experiment', 'row',
                                                           'reference_source', 'placement')})
print('\n# E1')
for r in sel('E1'):
    if r.get('row') != 'pair':
        print(' ', {k: v for k, v in r.items() if k not in ('record', 'backend', 'hardware', 'experiment')})
rej = [r for r in R if r.get('row') == 'fit' and r.get('rejected_runs')]
print('\n# fits with rejected launches:', len(rej), 'of', len([r for r in R if r.get('row') == 'fit']))

# ---- access-width sweep (issue 5 open item: store width); one device call, files *-width-*.jsonl
import os
if os.path.exists('store-width-4.jsonl'):
    def fits(f, exp):
        return [r for r in rows(f) if r.get('row') == 'fit' and r['experiment'] == 'dsm.' + exp]
    def pts(f, exp, s):
        return [(r['size_bytes'] // 1024, r['median_cycles']) for r in rows(f)
                if r.get('experiment') == 'dsm.' + exp and r.get('row') == 'point' and r['series'] == s]
    def wrow(f, r):
        print(f"  {f:22s} sw={r['store_width']:2d} lw={r['load_width']:2d} {r['series']:15s} "
              f"{r['inv_beta_b_per_cycle']:6.2f} B/cyc {r['inv_beta_gb_s']:5.1f} GB/s alpha {r['alpha_cycles']:5.0f} "
              f"rmse {r['rmse_share_of_rise_cycles_pct']:4.2f}% (ns {r['rmse_share_of_rise_ns_pct']:4.2f}%) "
              f"clk {r['eff_clock_ghz']:.3f} rej {r['rejected_runs']} | ref {r['reference_inv_beta_b_per_cycle']} "
              f"({r['vs_reference_pct']:+.1f}%)")
    print('\n# E3 store by store width (B/cycle per SM, fit over 16..96 KiB); reference = study 18.87')
    for f in ('width-default.jsonl', 'store-width-4.jsonl', 'store-width-8.jsonl', 'store-width-16.jsonl'):
        for r in fits(f, 'E3'):
            wrow(f, r)
    print('  mean of the three series per file (B/cycle):')
    per = {}
    for f in ('width-default.jsonl', 'store-width-4.jsonl', 'store-width-8.jsonl', 'store-width-16.jsonl'):
        v = [r['inv_beta_b_per_cycle'] for r in fits(f, 'E3')]
        per[f] = st.mean(v)
        print(f"    {f:22s} {st.mean(v):6.2f}  (range {min(v):.2f}-{max(v):.2f})")
    print('  64 KiB median cycles, store 1->0:', {f: dict(pts(f, 'E3', 'store 1->0')).get(64)
          for f in ('width-default.jsonl', 'store-width-4.jsonl', 'store-width-8.jsonl', 'store-width-16.jsonl')})
    print('\n# E2 load (INFLIGHT) by load width; reference = study 19.87')
    for f in ('width-default.jsonl', 'load-width-4.jsonl', 'load-width-8.jsonl'):
        for r in fits(f, 'E2'):
            wrow(f, r)
    for f in ('width-default.jsonl', 'load-width-4.jsonl', 'load-width-8.jsonl'):
        v = [r['inv_beta_gb_s'] for r in fits(f, 'E2')]
        print(f"    {f:22s} ns slopes {min(v):.1f}-{max(v):.1f} GB/s = {min(v) / 1.98:.2f}-{max(v) / 1.98:.2f} B/cycle at 1.98 GHz")
    for f in ('width-default.jsonl', 'load-width-4.jsonl', 'load-width-8.jsonl'):
        p = pts(f, 'E2', 'load 1->0')
        print(f"  {f:22s} load 1->0 medians (KiB: cycles): {p}")
        print(f"  {'':22s} steps per 8 KiB: {[round(b[1] - a[1]) for a, b in zip(p, p[1:])]}; "
              f"end to end at 96 KiB: {96 * 1024 / p[-1][1]:.2f} B/cycle")
    print('  fits with rejected launches in the width files:',
          sum(1 for f in ('width-default.jsonl', 'store-width-4.jsonl', 'store-width-8.jsonl', 'store-width-16.jsonl',
                          'load-width-4.jsonl', 'load-width-8.jsonl')
              for r in rows(f) if r.get('row') == 'fit' and r.get('rejected_runs')))
