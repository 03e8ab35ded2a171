#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Gets this checkout ready for one batched call to the GPU machine (scripts/device-run.sh), which
# has no Java, no Maven and no build of ours: everything it runs is built here and carried.
#
#   scripts/device-prep.sh build     the GPU-side helpers of phases lane9/lane9b into .jrt/bin from the
#                                    current sources (the device-engine fidelity test, the stage and
#                                    rate drivers, sm_handoff; with SCOPE10=1 also sysmem_store_rate,
#                                    1 MB, for scope10's phases), and the jlinked runtime into
#                                    .jrt/jrt when it is missing
#   scripts/device-prep.sh check     exit 1 when the call would be refused or its records would not say
#                                    what ran: a jar built from a dirty tree or from another commit
#                                    than HEAD, natives missing from the jar, .jrt/bin older than the
#                                    sources it was built from, or the tree plus CARRY over 60 MiB
#                                    (the device tool takes 64 MiB by its own count, which is not
#                                    ours: calls near the limit were refused). Prints the carry list.
#
# CARRY (the run tool's carry list) defaults to ".jrt/jrt .jrt/bin java/target/marrow-cli.jar"; with
# JUNIT=1 (phases junit, lane9c) it adds the JUnit console .jrt/junit.jar and java/target/test-classes.
set -euo pipefail
cd "$(dirname "$0")/.."
JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
CARRY=${CARRY:-.jrt/jrt .jrt/bin java/target/marrow-cli.jar}
[ "${JUNIT:-0}" = 1 ] && CARRY="$CARRY .jrt/junit.jar java/target/test-classes"
LIMIT=$((60 * 1024 * 1024))   # the tool allows 64 MiB; its count is not this one
JAR=java/target/marrow-cli.jar
SO=./native/target/stage/lib/libmarrow_cuda.so   # where the device call extracts the jar's natives

die() { echo "device-prep: $*" >&2; exit 1; }

build() {
	mkdir -p .jrt/bin
	grep -qx '.jrt/' .git/info/exclude 2>/dev/null || echo '.jrt/' >>.git/info/exclude
	if [ ! -x .jrt/jrt/bin/java ]; then
		"$JAVA_HOME/bin/jlink" --add-modules java.base,jdk.unsupported,java.management,java.logging \
			--strip-debug --no-header-files --no-man-pages --output .jrt/jrt
	fi
	# The fidelity test dlopens the library at the path the call extracts it to.
	gcc -std=gnu11 -O2 -Inative/include -Inative/src -Inative/tests -DMARROW_CUDA_SO="\"$SO\"" \
		native/tests/test_softnic_device_fidelity.c native/src/softnic/*.c native/src/common/*.c \
		-lpthread -ldl -o .jrt/bin/test_softnic_device_fidelity
	gcc -std=gnu11 -O2 -Inative/include native/bench/softnic_device_stages.c -ldl -o .jrt/bin/softnic_device_stages
	gcc -std=gnu11 -O2 -Inative/include native/bench/softnic_device_rate.c -ldl -o .jrt/bin/softnic_device_rate
	command -v nvcc >/dev/null || PATH=$PATH:/usr/local/cuda/bin
	nvcc -O3 -arch=sm_90 -Inative/include native/bench/sm_handoff.cu -o .jrt/bin/sm_handoff
	if [ "${SCOPE10:-0}" = 1 ]; then
		nvcc -O3 -arch=sm_90 native/bench/sysmem_store_rate.cu -o .jrt/bin/sysmem_store_rate
	else
		rm -f .jrt/bin/sysmem_store_rate   # 1 MB the lane9 phases do not use
	fi
	ls -la .jrt/bin
}

# Nothing moves aside before a call: results are summaries plus one small archive per page
# (docs/results/README.md), and the HTML report is a build product that is never in the tree.

# Bytes of what a call sends: tracked files present, untracked files git does not ignore, the carry.
bytes() {
	{ git ls-files -z --cached --others --exclude-standard | xargs -0 -r sh -c 'for f; do [ -f "$f" ] && [ ! -L "$f" ] && printf "%s\0" "$f"; done' sh
	  for c in $CARRY; do [ -e "$c" ] && find "$c" -type f -print0; done
	} | xargs -0 -r stat -c %s | awk '{ s += $1 } END { print s + 0 }'
}

check() {
	local bad=0 m sha dirty head
	[ -f "$JAR" ] || die "$JAR missing: build it (mvn -o package -DskipTests) from a committed tree"
	m=$(unzip -p "$JAR" META-INF/native/linux-x86_64/native-manifest.properties 2>/dev/null) \
		|| die "$JAR has no native manifest (natives not packed)"
	sha=$(sed -n 's/^git_sha=//p' <<<"$m")
	dirty=$(sed -n 's/^git_dirty=//p' <<<"$m")
	head=$(git rev-parse --short=12 HEAD)
	[ "$dirty" = false ] || { echo "device-prep: the jar was built from a dirty tree (git_dirty=$dirty)"; bad=1; }
	[ "$sha" = "$head" ] || { echo "device-prep: the jar is from $sha, HEAD is $head: rebuild"; bad=1; }
	grep -q '^components=.*cuda' <<<"$m" || { echo "device-prep: the jar's natives have no cuda component"; bad=1; }
	local b newest
	for b in test_softnic_device_fidelity softnic_device_stages softnic_device_rate sm_handoff; do
		[ -x .jrt/bin/$b ] || { echo "device-prep: .jrt/bin/$b missing: run '$0 build'"; bad=1; continue; }
	done
	newest=$(git ls-files native/src native/include native/bench native/tests | xargs stat -c %Y | sort -n | tail -1)
	for b in .jrt/bin/*; do
		[ "$(stat -c %Y "$b")" -ge "$newest" ] || { echo "device-prep: $b is older than the native sources: run '$0 build'"; bad=1; }
	done
	local n; n=$(bytes)
	printf 'device-prep: tree + carry = %d MiB of %d MiB\n' $((n / 1048576)) $((LIMIT / 1048576))
	if [ "$n" -gt "$LIMIT" ]; then
		echo "device-prep: over the limit: find what grew (git ls-files | xargs du -cb | sort -n | tail)"
		bad=1
	fi
	[ $bad = 0 ] || exit 1
	printf 'device-prep: ready; carry: ['; printf '"%s", ' $CARRY | sed 's/, $//'; printf ']\n'
}

case "${1:-}" in
build) build ;;
check) check ;;
*) sed -n '3,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
