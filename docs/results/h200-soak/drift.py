# Percentile drift over the soak: for each series, the median of the per-run
# p50 and p99 over the first and the last third of the runs, and their change.
# Run in this directory: python3 drift.py
import glob, json, statistics as st

def series(prefix, handoff=None):
    out = []
    for f in sorted(glob.glob(prefix + "-*.jsonl")):
        for line in open(f):
            r = json.loads(line)
            if r.get("record") == "result" and (handoff is None or r.get("handoff") == handoff):
                out.append(r)
    return out

def drift(name, rows, key):
    n = len(rows) // 3
    first = st.median(r[key] for r in rows[:n])
    last = st.median(r[key] for r in rows[-n:])
    print(f"| {name} | {key} | {len(rows)} | {first:.0f} | {last:.0f} | {100 * (last - first) / first:+.1f} % |")

print("| series | statistic | runs | first third (median, ns) | last third (median, ns) | change |")
print("| --- | --- | --- | --- | --- | --- |")
g = series("gda")
for k in ("putc_p50_ns", "putc_p99_ns"):
    drift("gda put+completion (cuda, gpu-fence, 10^6 iters/run)", g, k)
p = series("proxy")
for k in ("issue_p50_ns", "putc_p50_ns", "putc_p99_ns", "rtt_p50_ns", "rtt_p99_ns"):
    drift("proxy latency (cuda producers, tuned, 2x10^5 iters/run)", p, k)
