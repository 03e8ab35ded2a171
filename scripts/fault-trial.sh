#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fault trial: runs the CLI as a careless or hostile user would and checks
# that each fault gets a clear error, the right exit code and loses nothing
# (docs/design/cli-errors.md, docs/design/records.md, docs/design/two-process.md).
#
#   scripts/fault-trial.sh [--markdown FILE]
#
# Every case is bounded in time; the script prints one row per case and exits 1
# if any case fails. A case the host cannot stage (no tmpfs mount without root,
# no /dev/shm) prints SKIP with the reason and counts as skipped, never passed.
# Traffic goes to 127.0.0.1 only.
set -uo pipefail
source "$(dirname "$0")/env.sh"
cd "$MARROW_ROOT"
markdown=""
if [ "${1:-}" = --markdown ]; then markdown="${2:?--markdown needs a file}"; fi

M="$MARROW_ROOT/scripts/marrow"
[ -f "$MARROW_ROOT/java/target/marrow-cli.jar" ] || { echo "fault-trial: build first (mvn package)" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/marrow-fault.XXXXXX")"
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
pass=0 fail=0 skip=0 rows=()
port=$((30000 + RANDOM % 20000))

row() { # case, expected, seen, verdict
  rows+=("| $1 | $2 | $3 | $4 |")
  printf '%-4s %s: %s (expected %s)\n' "$4" "$1" "$3" "$2"
  case "$4" in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; *) skip=$((skip + 1)) ;; esac
}

# run NAME TIMEOUT_S cmd...: runs the command with stdout/stderr in $work/NAME.{out,err};
# sets rc and secs.
run() {
  local name="$1" limit="$2" t0
  shift 2
  t0=$(date +%s%N)
  timeout -k 5 "$limit" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  secs=$(( ($(date +%s%N) - t0) / 1000000 ))
}

no_trace() { # file: no Java stack trace, no raw exception class name at line start
  ! grep -Eq '^\s+at [a-z]+\.|Exception in thread|^java\.[a-z.]+(Error|Exception)' "$1"
}

one_line_error() { # name: exit code in $rc already; stderr is short and has no trace
  local err="$work/$1.err"
  no_trace "$err" && [ "$(grep -c . "$err")" -le 3 ]
}

complete_json_lines() { # file: every line is one JSON object (a kill or a full disk leaves no torn line)
  [ -s "$1" ] && python3 - "$1" <<'EOF'
import json, sys
with open(sys.argv[1], 'rb') as f:
    data = f.read()
if not data.endswith(b'\n'):
    sys.exit(1)
for line in data.splitlines():
    json.loads(line)
EOF
}

expect_usage() { # name description cmd...: exit 2, one line, no trace
  local name="$1" what="$2"
  shift 2
  run "$name" 60 "$@"
  if [ "$rc" = 2 ] && one_line_error "$name"; then
    row "$what" "exit 2, one line" "exit $rc: $(head -1 "$work/$name.err" | cut -c1-90)" PASS
  else
    row "$what" "exit 2, one line" "exit $rc, $(grep -c . "$work/$name.err") stderr lines" FAIL
  fi
}

SMALL=(--iters 2000)

# ---- output destinations -------------------------------------------------------------------------
if mkdir -p "$work/ro" && mount -t tmpfs -o size=1m,ro tmpfs "$work/ro" 2>/dev/null; then
  mounts+=("$work/ro")
  run ro 60 "$M" softnic latency "${SMALL[@]}" --format json -o "$work/ro/x.jsonl"
  if [ "$rc" != 0 ] && [ "$secs" -lt 5000 ] && one_line_error ro && grep -qi 'read-only\|permission\|cannot write' "$work/ro.err"; then
    row "read-only output directory" "refused before the run" "exit $rc in ${secs} ms: $(head -1 "$work/ro.err" | cut -c1-90)" PASS
  else
    row "read-only output directory" "refused before the run" "exit $rc in ${secs} ms" FAIL
  fi
else
  row "read-only output directory" "refused before the run" "cannot mount a tmpfs here" SKIP
fi

if mkdir -p "$work/full" && mount -t tmpfs -o size=16k tmpfs "$work/full" 2>/dev/null; then
  mounts+=("$work/full")
  # Leave room for the header and a few rows only: the disk fills mid-run.
  head -c 12288 /dev/zero >"$work/full/ballast"
  run full 120 "$M" softnic rate --messages 20000 --warmup 1000 --repeats 1 --batch 1,2,4,8,16,32,64,128,256 \
    --format json -o "$work/full/x.jsonl"
  kept="$(ls "$work/full" | grep -v ballast | head -1)"
  if [ "$rc" = 1 ] && one_line_error full && grep -qi 'space\|full' "$work/full.err" \
     && { [ -z "$kept" ] || complete_json_lines "$work/full/$kept"; }; then
    row "disk full mid-run" "exit 1 with the reason, complete lines only" "exit $rc: $(grep -i 'space\|full' "$work/full.err" | head -1 | cut -c1-80); kept: ${kept:-none}" PASS
  else
    row "disk full mid-run" "exit 1 with the reason, complete lines only" "exit $rc, kept: ${kept:-none}" FAIL
  fi
else
  row "disk full mid-run" "exit 1, complete lines only" "cannot mount a tmpfs here" SKIP
fi

run devnull 60 "$M" softnic latency "${SMALL[@]}" --format json -o /dev/null
if [ "$rc" = 0 ] && [ ! -e /dev/null.1 ]; then
  row "-o /dev/null" "written as it is" "exit 0, no /dev/null.1" PASS
else
  row "-o /dev/null" "written as it is" "exit $rc$([ -e /dev/null.1 ] && echo ', /dev/null.1 created')" FAIL
  rm -f /dev/null.1
fi
expect_usage empty '-o ""' "$M" softnic latency "${SMALL[@]}" -o ""
mkdir -p "$work/adir"
expect_usage adir "-o an existing directory" "$M" softnic latency "${SMALL[@]}" -o "$work/adir"
expect_usage noparent "-o into a missing directory" "$M" softnic latency "${SMALL[@]}" -o "$work/missing/x.jsonl"

# ---- signals: what was measured is kept ----------------------------------------------------------
"$M" softnic rate --messages 200000 --warmup 1000 --repeats 3 --batch 1,2,4,8,16,32,64,128,256 \
  --format json -o "$work/sig.jsonl" >"$work/sig.out" 2>"$work/sig.err" &
pid=$!
for _ in $(seq 1 300); do
  # the first result row is on disk (in the partial file or the final one)
  if cat "$work"/.sig*.jsonl* "$work"/sig.jsonl* 2>/dev/null | grep -q '"result"'; then break; fi
  sleep 0.1
done
pkill -TERM -P "$pid" java 2>/dev/null || kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
sig_file="$(ls "$work"/sig*.jsonl 2>/dev/null | head -1)"
if [ -n "$sig_file" ] && complete_json_lines "$sig_file" && grep -q '"result"' "$sig_file"; then
  row "SIGTERM mid-run" "finished rows kept, complete lines" "$(grep -c '"result"' "$sig_file") rows in $(basename "$sig_file")" PASS
else
  row "SIGTERM mid-run" "finished rows kept, complete lines" "no complete file (${sig_file:-none})" FAIL
fi

tmpx="$work/tmpx"
mkdir -p "$tmpx"
MARROW_JAVA_OPTS="-Djava.io.tmpdir=$tmpx" "$M" softnic latency --iters 2000000 >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -n "$(ls "$tmpx" 2>/dev/null)" ] && break; sleep 0.1; done
sleep 0.5
pkill -KILL -P "$pid" java 2>/dev/null || kill -KILL "$pid"
wait "$pid" 2>/dev/null
before="$(ls "$tmpx" | wc -l)"
MARROW_JAVA_OPTS="-Djava.io.tmpdir=$tmpx" "$M" doctor >/dev/null 2>&1
after="$(ls "$tmpx" | wc -l)"
if [ "$before" -ge 1 ] && [ "$after" -lt "$before" ]; then
  row "SIGKILL, then a new run" "stale extraction folder swept" "$before folder(s) after the kill, $after after the next run" PASS
else
  row "SIGKILL, then a new run" "stale extraction folder swept" "$before folder(s) after the kill, $after after the next run" FAIL
fi

if [ -d /dev/shm ]; then
  shm_before="$(ls /dev/shm | grep -c '^marrow-wire-')"
  for sig in INT TERM; do
    # rank 1 makes its segment, then waits for rank 0, which never comes
    RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$M" gda latency --target cpu --nic softnic \
      "${SMALL[@]}" --peer-timeout-s 30 >"$work/wait.out" 2>"$work/wait.err" &
    pid=$!
    for _ in $(seq 1 100); do
      [ "$(ls /dev/shm | grep -c '^marrow-wire-')" -gt "$shm_before" ] && break
      sleep 0.1
    done
    made="$(ls /dev/shm | grep -c '^marrow-wire-')"
    pkill -"$sig" -P "$pid" java 2>/dev/null || kill -"$sig" "$pid"
    wait "$pid" 2>/dev/null
    shm_after="$(ls /dev/shm | grep -c '^marrow-wire-')"
    if [ "$made" -gt "$shm_before" ] && [ "$shm_after" -le "$shm_before" ]; then
      row "SIG$sig of a rank waiting for its peer" "no segment left in /dev/shm" "$((made - shm_before)) made, $((shm_after - shm_before)) left" PASS
    else
      row "SIG$sig of a rank waiting for its peer" "no segment left in /dev/shm" "$((made - shm_before)) made, $((shm_after - shm_before)) left" FAIL
    fi
    port=$((port + 1))
  done
  port=$((port + 1))
else
  row "SIGINT of rank 0 waiting for its peer" "no segment left" "no /dev/shm" SKIP
fi

# ---- hostile peers: rank 0 keeps waiting, tells them nothing, and serves the real rank 1 ----------
hostile() { # name description python-snippet (gets port p; connects to 127.0.0.1:p)
  local name="$1" what="$2" snippet="$3" got
  RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$M" gda latency --target cpu --nic softnic \
    "${SMALL[@]}" --peer-timeout-s 60 --format json -o "$work/$name.jsonl" >"$work/$name.out" 2>"$work/$name.err" &
  local r0=$!
  got="$(python3 - "$port" <<EOF
import socket, sys, time
p = int(sys.argv[1])
deadline = time.time() + 30
while True:
    try:
        s = socket.create_connection(("127.0.0.1", p), timeout=2)
        break
    except OSError:
        if time.time() > deadline:
            print("no-listener"); sys.exit(0)
        time.sleep(0.1)
$snippet
s.settimeout(2)
try:
    b = s.recv(4096)
except socket.timeout:
    b = b""
except OSError:
    b = b""
print(len(b))
EOF
)"
  sleep 0.5
  RANK=1 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$M" gda latency --target cpu --nic softnic \
    "${SMALL[@]}" --peer-timeout-s 60 >"$work/$name.r1.out" 2>"$work/$name.r1.err"
  local rc1=$?
  wait "$r0"
  local rc0=$?
  if [ "$got" = 0 ] && [ "$rc0" = 0 ] && [ "$rc1" = 0 ] && complete_json_lines "$work/$name.jsonl"; then
    row "$what" "no byte back; the real peer served" "0 bytes back; ranks exit $rc0/$rc1" PASS
  else
    row "$what" "no byte back; the real peer served" "$got bytes back; ranks exit $rc0/$rc1" FAIL
  fi
  port=$((port + 1))
}
hostile bare "peer connects and closes" "s.close(); s = socket.socket()"
hostile garbage "peer sends garbage" "s.sendall(b'\\x00\\x00\\x00\\x10' + b'\\xde\\xad\\xbe\\xef' * 4)"
hostile oldver "peer speaks the old protocol" \
  "import struct; s.sendall(struct.pack('>IIHH', 8 + 48, 0x4d525735, 3, 1) + bytes(48))"

# ---- hostile and huge inputs to the readers ------------------------------------------------------
expect_fast() { # name description limit_ms cmd...: refused (exit 2 or 1) within limit_ms, one line
  local name="$1" what="$2" lim="$3"
  shift 3
  run "$name" 60 "$@"
  if [ "$rc" != 0 ] && [ "$rc" != 124 ] && [ "$secs" -lt "$lim" ] && one_line_error "$name"; then
    row "$what" "refused in < ${lim} ms, one line" "exit $rc in ${secs} ms: $(head -1 "$work/$name.err" | cut -c1-80)" PASS
  else
    row "$what" "refused in < ${lim} ms, one line" "exit $rc in ${secs} ms" FAIL
  fi
}
expect_fast zero "merge-runs /dev/zero" 10000 "$M" merge-runs /dev/zero
mkfifo "$work/fifo"
expect_fast fifo "merge-runs on a FIFO" 10000 "$M" merge-runs "$work/fifo"
{ printf '{"record":"result","x":"'; head -c $((96 * 1024 * 1024)) /dev/zero | tr '\0' 'x'; printf '"}\n'; } >"$work/longline.jsonl"
MARROW_JAVA_OPTS=-Xmx64m expect_fast longline "merge-runs, a 96 MiB line, 64 MiB heap" 10000 "$M" merge-runs "$work/longline.jsonl"
expect_fast zeroreport "report --input /dev/zero" 10000 "$M" report --input /dev/zero --output "$work/rep"

# ---- bad flags --------------------------------------------------------------------------------
expect_usage bigsize "proxy rate --size 2 GiB" "$M" proxy rate --size 2147483648
expect_usage rings0 "proxy rate --rings 0" "$M" proxy rate --rings 0
expect_usage workers64 "proxy rate --workers 64" "$M" proxy rate --workers 64
expect_usage inf "softnic latency --iters 1e999999" "$M" softnic latency --iters 1e999999
expect_usage infs "softnic latency --max-seconds 1e999999" "$M" softnic latency --max-seconds 1e999999
expect_usage logsq "gda latency --log-sq 31" "$M" gda latency --target cpu --log-sq 31
expect_usage enginecpu "softnic latency --engine-cpu 99999" "$M" softnic latency "${SMALL[@]}" --engine-cpu 99999
expect_usage nosuch "marrow nosuch --help" "$M" nosuch --help
expect_usage bigthreads "gda rate --target cpu --threads 100000" "$M" gda rate --target cpu --threads 100000

run doctor 60 "$M" doctor
# Where there is a GPU the check does not apply: doctor then lists it.
if [ -e /dev/nvidiactl ]; then
  row "doctor on a host without a GPU" "the missing driver/GPU named first" "this host has a GPU" SKIP
elif grep -q 'no NVIDIA driver/GPU found' "$work/doctor.out" "$work/doctor.err" && no_trace "$work/doctor.err"; then
  row "doctor on a host without a GPU" "the missing driver/GPU named first" "exit $rc: 'no NVIDIA driver/GPU found (...)'" PASS
else
  row "doctor on a host without a GPU" "the missing driver/GPU named first" "exit $rc, cause not named" FAIL
fi

# ---- oversubscription is said and recorded -------------------------------------------------------
for i in 1 2 3; do
  "$M" softnic latency "${SMALL[@]}" --format json -o "$work/over$i.jsonl" 2>"$work/over$i.err" >/dev/null &
done
wait
if grep -qi 'oversubscri\|busy-polling threads' "$work"/over*.err && grep -q 'oversubscribed' "$work/over1.jsonl"; then
  row "three softnic runs on $(nproc) CPUs" "warned and recorded" "warning on stderr, field in the records" PASS
else
  row "three softnic runs on $(nproc) CPUs" "warned and recorded" "no warning or no field" FAIL
fi

echo "fault-trial: $pass passed, $fail failed, $skip skipped"
if [ -n "$markdown" ]; then
  {
    echo "| fault | expected | seen | verdict |"
    echo "| --- | --- | --- | --- |"
    printf '%s\n' "${rows[@]}"
  } >"$markdown"
fi
[ "$fail" = 0 ]
