/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * Stale wire segments (docs/design/two-process.md §1): a process killed
 * before its peer attached leaves /dev/shm/marrow-wire-<pid>-*; the next
 * marrow_emu_wire_create of the same user removes those whose pid is gone
 * from this pid namespace, and only those:
 *  - removed: a segment of a dead pid (a forked child that exited) with a
 *    written header, and one whose header was never written;
 *  - kept: a segment of a live pid, one whose header names another pid
 *    namespace, and (as root) one owned by another uid.
 * The new wire's own name carries 128 random bits (32 hex digits);
 * marrow_emu_wire_unlink (a JVM shutdown hook's call) removes it at once.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_test_util.h"
#include "softnic/emu_shmwire.h"

static uint64_t pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* A segment named for pid, with a header naming (pid, ns) unless blank. */
static void make(char *name, size_t len, pid_t pid, const char *tag, int blank, uint64_t ns)
{
	struct wire_hdr h;
	int fd;

	snprintf(name, len, "/marrow-wire-%d-sweep-%s", (int)pid, tag);
	shm_unlink(name);
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0, "shm_open(%s)", name);
	REQUIRE(ftruncate(fd, WIRE_HDR_BYTES) == 0, "ftruncate");
	if (!blank) {
		memset(&h, 0, sizeof(h));
		h.magic = WIRE_MAGIC;
		h.version = MARROW_EMU_WIRE_VERSION;
		h.total_bytes = WIRE_HDR_BYTES;
		h.owner_pid = (uint32_t)pid;
		h.owner_pidns = ns;
		REQUIRE(pwrite(fd, &h, offsetof(struct wire_hdr, heartbeat_ns), 0) > 0, "pwrite");
	}
	close(fd);
}

static int exists(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/dev/shm%s", name);
	return stat(path, &st) == 0;
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);
	struct marrow_emu_wire *w;
	char stale[64], blank[64], live[64], otherns[64], uid[64], name[MARROW_EMU_WIRE_NAME_MAX];
	uint64_t ns = pidns();
	pid_t dead;
	size_t hex;
	int st, root = geteuid() == 0;

	if (ns == 0) {
		printf("test_softnic_shmwire_sweep: SKIP (no /proc/self/ns/pid: the pid namespace is unknown)\n");
		return 77;
	}
	fflush(stdout);
	dead = fork();
	REQUIRE(dead >= 0, "fork");
	if (dead == 0)
		_exit(0);
	REQUIRE(waitpid(dead, &st, 0) == dead, "waitpid");
	REQUIRE(kill(dead, 0) != 0, "pid %d still exists after waitpid", (int)dead);

	make(stale, sizeof(stale), dead, "stale", 0, ns);
	make(blank, sizeof(blank), dead, "blank", 1, 0);
	make(live, sizeof(live), getpid(), "live", 0, ns);
	make(otherns, sizeof(otherns), dead, "otherns", 0, ns + 1);
	if (root) {
		int fd;

		make(uid, sizeof(uid), dead, "uid", 0, ns);
		fd = shm_open(uid, O_RDWR, 0);
		REQUIRE(fd >= 0 && fchown(fd, 65534, 65534) == 0, "fchown");
		close(fd);
	}

	OK(marrow_emu_wire_create(dev, 4096, &w));
	CHECK(!exists(stale), "%s (dead pid %d) was not removed", stale, (int)dead);
	CHECK(!exists(blank), "%s (dead pid, header never written) was not removed", blank);
	CHECK(exists(live), "%s (live pid) was removed", live);
	CHECK(exists(otherns), "%s (another pid namespace) was removed", otherns);
	if (root)
		CHECK(exists(uid), "%s (uid 65534) was removed", uid);
	else
		printf("  skip: a segment of another uid needs root to chown (running as uid %u)\n", (unsigned)geteuid());

	OK(marrow_emu_wire_name(w, name, sizeof(name)));
	hex = strlen(name) - (size_t)(strrchr(name, '-') + 1 - name);
	printf("  new wire %s (%zu hex digits)\n", name, hex);
	CHECK(hex == 32 && strspn(strrchr(name, '-') + 1, "0123456789abcdef") == 32,
	      "the wire name's random part is not 128 bits of hex: %s", name);
	CHECK(exists(name), "the new wire %s is not in /dev/shm", name);
	/* What a JVM shutdown hook calls: the name goes, the wire still works. */
	OK(marrow_emu_wire_unlink(w));
	CHECK(!exists(name), "%s still in /dev/shm after marrow_emu_wire_unlink", name);
	OK(marrow_emu_wire_unlink(w));
	{
		void *mem;

		OK(marrow_emu_wire_alloc(w, 4096, &mem));
		memset(mem, 1, 4096);
	}
	OK(marrow_emu_wire_close(w));
	CHECK(!exists(name), "the closed wire %s is still in /dev/shm", name);

	shm_unlink(stale);
	shm_unlink(blank);
	shm_unlink(live);
	shm_unlink(otherns);
	if (root)
		shm_unlink(uid);
	OK(marrow_emu_device_close(dev));
	return t_finish("test_softnic_shmwire_sweep");
}
