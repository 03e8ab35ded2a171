/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * A hostile owner of a shared-memory wire (docs/design/two-process.md §4a):
 * this test crafts a segment by hand, with the real header layout
 * (emu_shmwire.h) but MR entries chosen to push the requester's copy out
 * of the heap, attaches it and WRITEs through it:
 *  - off + len wrapping around 2^64 so that dst lands on a heap buffer of
 *    this process (the canary);
 *  - base one past raddr with len 2^64 - 1 (raddr - base wraps: one byte
 *    before the heap);
 *  - off inside the header (off 0: the bytes would overwrite the magic);
 *  - len reaching past the mapping;
 *  - an entry whose off a second thread flips between a heap offset and
 *    the canary's while WRITEs run (the check and the copy must read the
 *    entry once);
 * each is refused with REMOTE_ACCESS (vendor 0xE5, range) and no byte lands
 * outside the heap; a well-formed entry next to them still works. Then
 * attach refuses a segment of mode 0644, and (as root) one owned by uid
 * 65534.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emu_test_util.h"
#include "softnic/emu_shmwire.h"

enum { HEAP = 64 * 1024, PORT_QPN = 0x777, LEN = 16, CANARY = 4096 };

struct seg {
	char name[MARROW_EMU_WIRE_NAME_MAX];
	uint8_t *map;      /* our own view, to craft and to check */
	uint64_t bytes;
	struct wire_hdr *hdr;
};

static uint64_t pidns(void)
{
	struct stat st;

	return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static void craft(struct seg *s, const char *tag, mode_t mode)
{
	int fd;

	snprintf(s->name, sizeof(s->name), "/marrow-wire-%d-hostile-%s", (int)getpid(), tag);
	shm_unlink(s->name);
	fd = shm_open(s->name, O_RDWR | O_CREAT | O_EXCL, 0600);
	REQUIRE(fd >= 0, "shm_open(%s)", s->name);
	REQUIRE(fchmod(fd, mode) == 0, "fchmod");
	s->bytes = WIRE_HDR_BYTES + HEAP;
	REQUIRE(ftruncate(fd, (off_t)s->bytes) == 0, "ftruncate");
	s->map = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	REQUIRE(s->map != MAP_FAILED, "mmap");
	s->hdr = (struct wire_hdr *)s->map;
	s->hdr->magic = WIRE_MAGIC;
	s->hdr->version = MARROW_EMU_WIRE_VERSION;
	s->hdr->total_bytes = s->bytes;
	s->hdr->owner_pid = (uint32_t)getpid();   /* alive: the pid check passes */
	s->hdr->owner_pidns = pidns();
	s->hdr->heartbeat_ns = emu_now_ns();
	s->hdr->port[0].state = MARROW_QPS_RTS;
	s->hdr->port[0].access = MARROW_ACCESS_REMOTE_WRITE;
	s->hdr->port[0].qpn = PORT_QPN;
}

/* Where attach mapped the segment in this process (its name, unlinked). */
static uint8_t *peer_base(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo = 0;

	REQUIRE(f != NULL, "/proc/self/maps");
	while (fgets(line, sizeof(line), f))
		if (strstr(line, name + 1) && sscanf(line, "%lx-", &lo) == 1)
			break;
	fclose(f);
	REQUIRE(lo != 0, "the peer's mapping of %s not found in /proc/self/maps", name);
	return (uint8_t *)lo;
}

static void set_mr(struct seg *s, uint32_t i, uint32_t key, uint64_t base, uint64_t len, uint64_t off)
{
	struct wire_mr *m = &s->hdr->mr[i];

	m->access = MARROW_ACCESS_REMOTE_WRITE;
	m->base = base;
	m->len = len;
	m->off = off;
	__atomic_store_n(&m->key, key, __ATOMIC_SEQ_CST);
}

/* A fresh QP connected to the crafted port (a refused WRITE leaves a QP in ERR). */
static void wire_qp(struct marrow_emu_pd *pd, struct t_cq *cq, struct marrow_emu_wire_peer *p, struct t_qp *q)
{
	t_qp_create(pd, cq, 4, 64, q);
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_INIT, 0));
	OK(marrow_emu_qp_connect_wire(q->qp, p, PORT_QPN));
	OK(marrow_emu_qp_modify(q->qp, MARROW_QPS_RTS, 0));
}

/* One inline WRITE of LEN bytes 0x5a; returns the CQE (REQ or REQ_ERR). */
static void write_once(struct marrow_emu_pd *pd, struct t_cq *cq, struct marrow_emu_wire_peer *p,
		       uint64_t raddr, uint32_t rkey, uint8_t *cqe)
{
	uint8_t data[LEN];
	struct t_qp q;
	uint16_t c;

	memset(data, 0x5a, sizeof(data));
	wire_qp(pd, cq, p, &q);
	c = t_post_inline(&q, raddr, rkey, data, LEN, 1);
	t_ring(&q);
	REQUIRE(t_poll(cq, cqe, 2000000000ull), "no CQE for the WRITE to rkey 0x%x", rkey);
	CHECK(mx_cqe_wqe_counter(cqe) == c, "wqe_counter");
	OK(marrow_emu_qp_destroy(q.qp));
}

static int untouched(const uint8_t *b, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != v)
			return 0;
	return 1;
}

static void expect_refused(const char *what, const uint8_t *cqe)
{
	int ok = mx_cqe_opcode(cqe) == MX_CQE_REQ_ERR && mx_cqe_syndrome(cqe) == MX_SYND_REMOTE_ACCESS &&
		 mx_cqe_vendor_syndrome(cqe) == EMU_VSYND_RKEY_RANGE;

	CHECK(ok, "%s: CQE opcode %u syndrome 0x%02x vendor 0x%02x, expected REQ_ERR REMOTE_ACCESS 0xE5", what,
	      mx_cqe_opcode(cqe), mx_cqe_syndrome(cqe), mx_cqe_vendor_syndrome(cqe));
	if (ok)
		printf("  ok refused (REMOTE_ACCESS 0xE5): %s\n", what);
}

struct flipper {
	volatile uint64_t *off;
	uint64_t a, b;
	int stop;
};

static void *flip(void *arg)
{
	struct flipper *f = arg;

	while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(f->off, f->a, __ATOMIC_RELAXED);
		__atomic_store_n(f->off, f->b, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void hostile_mrs(struct marrow_emu_device *dev)
{
	struct marrow_emu_pd *pd;
	struct marrow_emu_wire_peer *p;
	struct t_cq cq;
	struct seg s;
	uint8_t cqe[64], *pb, *canary;
	uint64_t raddr = 0x7000000000ull, d;
	uint8_t magic[8];

	printf("hostile MR entries\n");
	craft(&s, "mr", 0600);
	OK(marrow_emu_pd_alloc(dev, &pd));
	t_cq_create(dev, 6, 0, &cq);
	OK(marrow_emu_wire_attach(dev, s.name, 600000, &p));
	pb = peer_base(s.name);
	canary = malloc(CANARY);
	REQUIRE(canary != NULL, "malloc");
	memset(canary, 0xaa, CANARY);
	d = (uint64_t)(uintptr_t)canary - (uint64_t)(uintptr_t)pb;   /* canary - segment, mod 2^64 */
	memcpy(magic, s.map, sizeof(magic));

	/* A well-formed entry: the WRITE lands at heap offset 256. */
	set_mr(&s, 0, 0x100, raddr, 4096, WIRE_HDR_BYTES);
	write_once(pd, &cq, p, raddr + 256, 0x100, cqe);
	CHECK(mx_cqe_opcode(cqe) == MX_CQE_REQ, "the well-formed WRITE failed (opcode %u vendor 0x%02x)",
	      mx_cqe_opcode(cqe), mx_cqe_vendor_syndrome(cqe));
	CHECK(untouched(s.map + WIRE_HDR_BYTES + 256, LEN, 0x5a), "the well-formed WRITE's bytes are not there");

	/* off + len wraps to WIRE_HDR_BYTES; dst = segment + off = the canary. */
	set_mr(&s, 1, 0x101, raddr, (uint64_t)0 - d + WIRE_HDR_BYTES, d);
	write_once(pd, &cq, p, raddr, 0x101, cqe);
	expect_refused("off + len wraps past 2^64 (dst on this process's heap)", cqe);
	CHECK(untouched(canary, CANARY, 0xaa), "bytes landed in the canary (process heap)");

	/* raddr - base wraps: dst one byte before the heap. */
	set_mr(&s, 2, 0x102, raddr + 1, UINT64_MAX, WIRE_HDR_BYTES);
	write_once(pd, &cq, p, raddr, 0x102, cqe);
	expect_refused("base > raddr with len 2^64 - 1", cqe);
	CHECK(s.map[WIRE_HDR_BYTES - 1] == 0, "a byte landed before the heap (header pages)");

	/* len past the end of the mapping. */
	set_mr(&s, 3, 0x103, raddr, 1ull << 50, WIRE_HDR_BYTES);
	write_once(pd, &cq, p, raddr + HEAP, 0x103, cqe);
	expect_refused("len 2^50 past the mapping", cqe);

	/* The flipped entry: off alternates between the heap and the canary. */
	{
		struct flipper f = { (volatile uint64_t *)&s.hdr->mr[4].off, WIRE_HDR_BYTES, d, 0 };
		uint32_t placed = 0, refused = 0, other = 0;
		uint64_t t0 = t_now_ns();
		pthread_t tid;

		memset(canary, 0xaa, CANARY);   /* judged on its own, whatever came before */
		set_mr(&s, 4, 0x104, raddr, 4096, WIRE_HDR_BYTES);
		REQUIRE(pthread_create(&tid, NULL, flip, &f) == 0, "pthread_create");
		for (uint32_t i = 0; i < 3000 && t_now_ns() - t0 < 3000000000ull; i++) {
			write_once(pd, &cq, p, raddr + 512, 0x104, cqe);
			if (mx_cqe_opcode(cqe) == MX_CQE_REQ)
				placed++;
			else if (mx_cqe_opcode(cqe) == MX_CQE_REQ_ERR && mx_cqe_vendor_syndrome(cqe) == EMU_VSYND_RKEY_RANGE)
				refused++;
			else
				other++;
			if (!untouched(canary, CANARY, 0xaa))
				break;
		}
		__atomic_store_n(&f.stop, 1, __ATOMIC_RELEASE);
		pthread_join(tid, NULL);
		printf("  flipped entry: %u placed in the heap, %u refused, %u other\n", placed, refused, other);
		CHECK(other == 0, "%u WRITEs ended neither placed nor refused (range)", other);
		CHECK(untouched(canary, CANARY, 0xaa), "a WRITE through the flipped entry landed in the canary "
		      "(the entry was read again after the check)");
	}

	/* off inside the header: the bytes would overwrite the magic. Last, as
	 * on old code it breaks the segment. */
	set_mr(&s, 5, 0x105, raddr, 4096, 0);
	write_once(pd, &cq, p, raddr, 0x105, cqe);
	expect_refused("off 0 (the header)", cqe);
	CHECK(memcmp(magic, s.map, sizeof(magic)) == 0, "bytes landed in the header");

	OK(marrow_emu_wire_detach(p));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_pd_free(pd));
	munmap(s.map, s.bytes);
	free(canary);
}

static void refused_segments(struct marrow_emu_device *dev)
{
	struct marrow_emu_wire_peer *p = NULL;
	struct seg s;

	printf("attach refusals\n");
	craft(&s, "mode", 0644);
	FAILS(MARROW_EPERM, marrow_emu_wire_attach(dev, s.name, 0, &p));
	CHECK(strstr(marrow_last_error(), "0644") != NULL, "the message names the mode: %s", marrow_last_error());
	shm_unlink(s.name);
	munmap(s.map, s.bytes);

	craft(&s, "big", 0600);   /* a header claiming the size, but a segment past the cap */
	munmap(s.map, s.bytes);
	{
		int fd = shm_open(s.name, O_RDWR, 0);
		uint64_t big = WIRE_HDR_BYTES + WIRE_HEAP_MAX + 4096;

		REQUIRE(fd >= 0 && ftruncate(fd, (off_t)big) == 0, "ftruncate to %llu", (unsigned long long)big);
		REQUIRE(pwrite(fd, &big, sizeof(big), offsetof(struct wire_hdr, total_bytes)) == sizeof(big), "pwrite");
		close(fd);
		FAILS(MARROW_EPROTO, marrow_emu_wire_attach(dev, s.name, 0, &p));
		shm_unlink(s.name);
	}

	if (geteuid() != 0) {
		printf("  skip: a segment of another uid needs root to chown (running as uid %u)\n",
		       (unsigned)geteuid());
		return;
	}
	craft(&s, "uid", 0600);
	{
		int fd = shm_open(s.name, O_RDWR, 0);

		REQUIRE(fd >= 0 && fchown(fd, 65534, 65534) == 0, "fchown to 65534");
		close(fd);
	}
	FAILS(MARROW_EPERM, marrow_emu_wire_attach(dev, s.name, 0, &p));
	CHECK(strstr(marrow_last_error(), "uid 65534") != NULL, "the message names the owner: %s",
	      marrow_last_error());
	shm_unlink(s.name);
	munmap(s.map, s.bytes);
}

int main(void)
{
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 1);

	hostile_mrs(dev);
	refused_segments(dev);
	OK(marrow_emu_device_close(dev));
	return t_finish("test_softnic_shmwire_hostile");
}
