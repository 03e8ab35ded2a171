#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Regenerates the tables of docs/results/h200-gpu-resident.md from the raw JSON lines beside it:
#   python3 docs/results/h200-gpu-resident/tables.py
# Numbers are copied from the records unchanged (ns -> us is a division by 1000, rounded to 0.01).
import json, os, statistics
HERE = os.path.dirname(os.path.abspath(__file__))

def rows(path):
    with open(os.path.join(HERE, path)) as f:
        return [r for r in map(json.loads, f) if r.get("record", "result") == "result"]

us = lambda ns: f"{ns / 1000:.2f}"

def ordering_table(call):
    host = {(r["ordering"], r["payload"]): r for r in rows(f"{call}/gda-ordering-host.jsonl")}
    gpu = {(r["ordering"], r["payload"]): r for r in rows(f"{call}/gda-ordering-gpu.jsonl")}
    print(f"\n{call}: 8 B, 5000 iterations; µs; host = CPU engine, gpu = device engine on 1 SM\n")
    print("| ordering | payload | issue p50 host / gpu | issue p99 host / gpu | put+c p50 host / gpu | put+c p99 host / gpu | gpu − host put+c p50 | valid host / gpu |")
    print("|---|---|---|---|---|---|---|---|")
    for k, g in gpu.items():
        h = host[k]
        print(f"| {k[0]} | {k[1]} | {us(h['issue_p50_ns'])} / {us(g['issue_p50_ns'])} | {us(h['issue_p99_ns'])} / {us(g['issue_p99_ns'])} "
              f"| {us(h['putc_p50_ns'])} / {us(g['putc_p50_ns'])} | {us(h['putc_p99_ns'])} / {us(g['putc_p99_ns'])} "
              f"| +{us(g['putc_p50_ns'] - h['putc_p50_ns'])} | {str(h['valid']).lower()}"
              f"{' (payload_errors ' + str(h['payload_errors']) + ')' if not h['valid'] else ''} / {str(g['valid']).lower()} |")

def size_table():
    a, b = rows("call4/gda-size-gpu.jsonl"), rows("call5/gda-size-gpu.jsonl")
    print("\nGPU-resident queues, device engine 1 SM, gpu-fence inline; µs (call 4 | call 5)\n")
    print("| bytes | WQEBBs | issue p50 | issue p99 | put+c p50 | put+c p99 | valid |")
    print("|---|---|---|---|---|---|---|")
    for x, y in zip(a, b):
        print(f"| {x['size_bytes']} | {x['wqebbs']} | {us(x['issue_p50_ns'])} \\| {us(y['issue_p50_ns'])} | {us(x['issue_p99_ns'])} \\| {us(y['issue_p99_ns'])} "
              f"| {us(x['putc_p50_ns'])} \\| {us(y['putc_p50_ns'])} | {us(x['putc_p99_ns'])} \\| {us(y['putc_p99_ns'])} | {str(x['valid'] and y['valid']).lower()} |")

def rate_table():
    print("\nsoftnic_device_rate (C bench): 8 B inline WRITEs, batch 32, 100000 per QP, 3 repeats; M msg/s\n")
    print("| call | QPs | nic_sms | nic_sms_distinct | repeats (M msg/s) | median | max | error CQEs | valid |")
    print("|---|---|---|---|---|---|---|---|---|")
    for call in ("call4", "call5"):
        groups = {}
        for r in rows(f"{call}/rate.jsonl"):
            groups.setdefault((r["qps"], r["nic_sms"]), []).append(r)
        for (q, s), rs in sorted(groups.items()):
            v = [r["rate_mmsg_s"] for r in rs]
            print(f"| {call[-1]} | {q} | {s} | {rs[0]['nic_sms_distinct']} | {', '.join(map(str, v))} | {statistics.median(v)} | {max(v)} "
                  f"| {sum(r['emu_cqe_req_err'] for r in rs)} | {str(all(r['valid'] for r in rs)).lower()} |")

def devnic_table():
    d = os.path.join(HERE, "..", "h200-gda-rate", "devnic")
    print("\ngda rate --nic softnic-device (call 4), B=16, release-sys, slot publication\n")
    print("| file | blocks | QPs | nic_sms (distinct) | M msg/s [min, max] | repeats | limited_by | SQ-full share | SQ-full waits / doorbells | engine busy (passes) | valid |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in sorted(os.listdir(d)):
        if not name.endswith(".jsonl"):
            continue
        for r in rows(os.path.join(d, name)):
            print(f"| {name} | {r['blocks']} | {r['qps']} | {r['nic_sms']} ({r['nic_sms_distinct']}) | {r['rate_mmsg_s']} [{r['rate_min_mmsg_s']}, {r['rate_max_mmsg_s']}] "
                  f"| {r['repeats']} | {r['limited_by']} | {r['sq_full_share']} | {r['sq_full_waits']} / {r['doorbells']} | {r['engine_busy_ratio']} | {str(r['valid']).lower()} |")

for c in ("call4", "call5"):
    ordering_table(c)
size_table()
rate_table()
devnic_table()
