/* SPDX-License-Identifier: Apache-2.0
 * Copyright (c) 2026 The Marrow authors
 *
 * The wire model (docs/design/wire-model.md): serialization arithmetic for
 * known sizes, model validation, and that a CQE is never visible before the
 * modeled moment its message (and every message queued on the port before
 * it, from any QP or engine thread) has left the port. The rates used are
 * slow on purpose (1-10 Gb/s) so that the modeled times (milliseconds)
 * dwarf the copy engine's own time and scheduler noise.
 */
#include "emu_test_util.h"

static void arithmetic(void)
{
	struct marrow_emu_wire_model m;

	OK(marrow_emu_wire_ib_defaults(&m, 200000000000ull));
	CHECK(m.mtu == 4096 && m.packet_overhead == 26 && m.write_overhead == 16 && m.imm_overhead == 4,
	      "IB defaults mtu %u packet %u write %u imm %u", m.mtu, m.packet_overhead, m.write_overhead,
	      m.imm_overhead);
	/* 8 B: one packet, 8 + 26 + 16 = 50 B = 400 bits = 2 ns at 200 Gb/s. */
	CHECK(marrow_emu_wire_bytes(&m, 8, 0) == 50, "8 B -> %llu", (unsigned long long)marrow_emu_wire_bytes(&m, 8, 0));
	CHECK(marrow_emu_wire_time_ps(&m, 8, 0) == 2000, "8 B -> %llu ps",
	      (unsigned long long)marrow_emu_wire_time_ps(&m, 8, 0));
	CHECK(marrow_emu_wire_bytes(&m, 8, 1) == 54, "8 B imm");
	/* 0 B still sends one packet. */
	CHECK(marrow_emu_wire_bytes(&m, 0, 0) == 42, "0 B -> %llu", (unsigned long long)marrow_emu_wire_bytes(&m, 0, 0));
	/* 4096 B: one full packet; 4097 B: two. */
	CHECK(marrow_emu_wire_bytes(&m, 4096, 0) == 4138, "4096 B");
	CHECK(marrow_emu_wire_time_ps(&m, 4096, 0) == 165520, "4096 B -> %llu ps",
	      (unsigned long long)marrow_emu_wire_time_ps(&m, 4096, 0));
	CHECK(marrow_emu_wire_bytes(&m, 4097, 0) == 4097 + 52 + 16, "4097 B");
	/* 1 MiB: 256 packets: 1048576 + 6656 + 16 = 1055248 B = 42209.92 ns. */
	CHECK(marrow_emu_wire_bytes(&m, 1u << 20, 0) == 1055248, "1 MiB");
	CHECK(marrow_emu_wire_time_ps(&m, 1u << 20, 0) == 42209920, "1 MiB -> %llu ps",
	      (unsigned long long)marrow_emu_wire_time_ps(&m, 1u << 20, 0));
	/* 2 KiB at 200 Gb/s: 2090 B -> 83.6 ns; efficiency 2048/2090 = 98 %. */
	CHECK(marrow_emu_wire_time_ps(&m, 2048, 0) == 83600, "2 KiB");
	/* Odd rates round up to whole picoseconds. */
	OK(marrow_emu_wire_ib_defaults(&m, 3000000000ull));
	CHECK(marrow_emu_wire_time_ps(&m, 8, 0) == 133334, "8 B at 3 Gb/s -> %llu ps",
	      (unsigned long long)marrow_emu_wire_time_ps(&m, 8, 0));
	m.bits_per_s = 0;
	CHECK(marrow_emu_wire_time_ps(&m, 4096, 0) == 0, "no rate, no time");
}

static void validation(struct marrow_emu_device *dev)
{
	struct marrow_emu_wire_model m;
	uint64_t st[5];

	OK(marrow_emu_wire_ib_defaults(&m, 100000000000ull));
	m.mtu = 1000;
	FAILS(MARROW_EINVAL, marrow_emu_device_set_wire(dev, &m));
	m.mtu = 8192;
	FAILS(MARROW_EINVAL, marrow_emu_device_set_wire(dev, &m));
	OK(marrow_emu_wire_ib_defaults(&m, 20000000000000ull));
	FAILS(MARROW_EINVAL, marrow_emu_device_set_wire(dev, &m));
	OK(marrow_emu_wire_ib_defaults(&m, 100000000000ull));
	m.size = 8;
	FAILS(MARROW_EINVAL, marrow_emu_device_set_wire(dev, &m));
	FAILS(MARROW_EINVAL, marrow_emu_wire_ib_defaults(NULL, 1));
	FAILS(MARROW_EINVAL, marrow_emu_wire_stats(dev, st, 6));
	/* Clearing works with NULL and with a zero rate. */
	OK(marrow_emu_device_set_wire(dev, NULL));
	OK(marrow_emu_wire_ib_defaults(&m, 0));
	OK(marrow_emu_device_set_wire(dev, &m));
	OK(marrow_emu_wire_stats(dev, st, 5));
	CHECK(st[0] == 0 && st[2] == 0, "stats without a model");
}

/* n pointer WRITEs of len bytes on one QP, the last signaled, rung once:
 * the CQE may not show before the n messages' serialization time. */
static void back_to_back(struct marrow_emu_device *dev, struct marrow_emu_pd *pd, uint8_t *src, uint32_t src_key,
			 uint8_t *dst, uint32_t dst_key)
{
	struct marrow_emu_wire_model m;
	struct t_cq cq;
	struct t_qp qp;
	const uint32_t n = 4, len = 256 * 1024;
	uint64_t st[5], model_ps = 0, t0, t1, want_wire = 0;
	uint8_t cqe[64];
	uint16_t last = 0;

	OK(marrow_emu_wire_ib_defaults(&m, 1000000000ull));   /* 1 Gb/s: ~2.1 ms per 256 KiB */
	OK(marrow_emu_device_set_wire(dev, &m));
	t_cq_create(dev, 6, 0, &cq);
	t_qp_create(pd, &cq, 8, 64, &qp);
	t_connect(&qp, qp.v.qpn);
	memset(dst, 0, (size_t)n * len);
	for (uint32_t i = 0; i < n; i++) {
		struct t_sge sg = { (uint64_t)(uintptr_t)(src + (size_t)i * len), len, src_key };

		last = t_post_sge(&qp, (uint64_t)(uintptr_t)(dst + (size_t)i * len), dst_key, &sg, 1, i == n - 1);
		model_ps += marrow_emu_wire_time_ps(&m, len, 0);
		want_wire += marrow_emu_wire_bytes(&m, len, 0);
	}
	t0 = t_now_ns();
	t_ring(&qp);
	if (t_expect_cqe(&cq, MX_CQE_REQ, 0, qp.v.qpn, last, cqe)) {
		t1 = t_now_ns();
		CHECK((t1 - t0) * 1000 >= model_ps, "CQE after %llu ns, before the modeled %llu ns",
		      (unsigned long long)(t1 - t0), (unsigned long long)(model_ps / 1000));
		CHECK(memcmp(dst, src, (size_t)n * len) == 0, "bytes not delivered");
		printf("  ok back-to-back %u x %u B at 1 Gb/s: CQE after %.3f ms, model %.3f ms\n", n, len,
		       (t1 - t0) / 1e6, model_ps / 1e9);
	}
	OK(marrow_emu_wire_stats(dev, st, 5));
	CHECK(st[0] == n && st[1] == (uint64_t)n * len && st[2] == want_wire && st[3] == n * 64u,
	      "stats messages %llu payload %llu wire %llu packets %llu", (unsigned long long)st[0],
	      (unsigned long long)st[1], (unsigned long long)st[2], (unsigned long long)st[3]);
	CHECK(st[4] > 0, "the engine never held a CQE back");
	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_device_set_wire(dev, NULL));
}

/* Two QPs on two engine threads each send one 512 KiB message at once: the
 * port is shared, so the later of the two CQEs comes no earlier than both
 * messages' time together. */
static void shared_port(struct marrow_emu_pd *pd, struct marrow_emu_device *dev, uint8_t *src, uint32_t src_key,
			uint8_t *dst, uint32_t dst_key)
{
	struct marrow_emu_wire_model m;
	struct t_cq cq[2];
	struct t_qp qp[2];
	const uint32_t len = 512 * 1024;
	uint64_t t0, t_last = 0, both_ps;
	uint16_t idx[2];
	uint8_t cqe[64];
	int got = 0;

	OK(marrow_emu_wire_ib_defaults(&m, 2000000000ull));   /* 2 Gb/s: ~2.1 ms per message */
	OK(marrow_emu_device_set_wire(dev, &m));
	both_ps = 2 * marrow_emu_wire_time_ps(&m, len, 0);
	for (int i = 0; i < 2; i++) {
		struct t_sge sg = { (uint64_t)(uintptr_t)(src + (size_t)i * len), len, src_key };

		t_cq_create(dev, 4, 0, &cq[i]);
		t_qp_create(pd, &cq[i], 6, 64, &qp[i]);
		t_connect(&qp[i], qp[i].v.qpn);
		idx[i] = t_post_sge(&qp[i], (uint64_t)(uintptr_t)(dst + (size_t)i * len), dst_key, &sg, 1, 1);
	}
	t0 = t_now_ns();
	t_ring(&qp[0]);
	t_ring(&qp[1]);
	for (int i = 0; i < 2; i++)
		if (t_expect_cqe(&cq[i], MX_CQE_REQ, 0, qp[i].v.qpn, idx[i], cqe)) {
			uint64_t t = t_now_ns();

			got++;
			if (t > t_last)
				t_last = t;
		}
	if (got == 2) {
		CHECK((t_last - t0) * 1000 >= both_ps, "last CQE after %llu ns, before the shared port's %llu ns",
		      (unsigned long long)(t_last - t0), (unsigned long long)(both_ps / 1000));
		printf("  ok shared port: 2 x %u B on two engine threads, last CQE after %.3f ms, model %.3f ms\n",
		       len, (t_last - t0) / 1e6, both_ps / 1e9);
	}
	for (int i = 0; i < 2; i++) {
		OK(marrow_emu_qp_destroy(qp[i].qp));
		OK(marrow_emu_cq_destroy(cq[i].cq));
	}
}

/* Three unsignaled WRITEs and no CQE: the engine thread's burst still goes
 * on the port at the end of its pass, so the stats count all three once the
 * bytes have landed and the engine has gone idle (bounded wait). */
static void unsignaled_burst(struct marrow_emu_device *dev, struct marrow_emu_pd *pd, uint8_t *src, uint32_t src_key,
			     uint8_t *dst, uint32_t dst_key)
{
	struct marrow_emu_wire_model m;
	struct t_cq cq;
	struct t_qp qp;
	const uint32_t n = 3, len = 4096;
	uint64_t st[5] = {0}, t0;

	OK(marrow_emu_wire_ib_defaults(&m, 200000000000ull));
	OK(marrow_emu_device_set_wire(dev, &m));
	t_cq_create(dev, 6, 0, &cq);
	t_qp_create(pd, &cq, 8, 64, &qp);
	t_connect(&qp, qp.v.qpn);
	memset(dst, 0, (size_t)n * len);
	for (uint32_t i = 0; i < n; i++) {
		struct t_sge sg = { (uint64_t)(uintptr_t)(src + (size_t)i * len), len, src_key };

		t_post_sge(&qp, (uint64_t)(uintptr_t)(dst + (size_t)i * len), dst_key, &sg, 1, 0);
	}
	t_ring(&qp);
	t0 = t_now_ns();
	while (t_now_ns() - t0 < 2000000000ull) {
		OK(marrow_emu_wire_stats(dev, st, 5));
		if (st[0] == n && memcmp(dst, src, (size_t)n * len) == 0)
			break;
	}
	CHECK(memcmp(dst, src, (size_t)n * len) == 0, "unsignaled bytes not delivered");
	CHECK(st[0] == n && st[1] == (uint64_t)n * len && st[2] == n * marrow_emu_wire_bytes(&m, len, 0),
	      "unsignaled burst: stats messages %llu payload %llu wire %llu, want %u messages",
	      (unsigned long long)st[0], (unsigned long long)st[1], (unsigned long long)st[2], n);
	OK(marrow_emu_qp_destroy(qp.qp));
	OK(marrow_emu_cq_destroy(cq.cq));
	OK(marrow_emu_device_set_wire(dev, NULL));
}

int main(void)
{
	const size_t sz = 1u << 20;
	struct marrow_emu_device *dev = t_open(MARROW_EMU_POLL_IDLE, 2);
	struct marrow_emu_pd *pd;
	struct marrow_emu_mr *src_mr, *dst_mr;
	uint32_t src_key, dst_key;
	uint8_t *src = t_alloc(sz, 0), *dst = t_alloc(sz, 0);
	uint64_t seed = 7;

	arithmetic();
	validation(dev);
	for (size_t i = 0; i < sz; i++)
		src[i] = (uint8_t)t_rand(&seed);
	OK(marrow_emu_pd_alloc(dev, &pd));
	OK(marrow_emu_mr_reg(pd, src, sz, MARROW_ACCESS_LOCAL_WRITE, &src_mr, &src_key, NULL));
	OK(marrow_emu_mr_reg(pd, dst, sz, MARROW_ACCESS_LOCAL_WRITE | MARROW_ACCESS_REMOTE_WRITE, &dst_mr, NULL,
			     &dst_key));
	back_to_back(dev, pd, src, src_key, dst, dst_key);
	shared_port(pd, dev, src, src_key, dst, dst_key);
	unsignaled_burst(dev, pd, src, src_key, dst, dst_key);
	OK(marrow_emu_mr_dereg(src_mr));
	OK(marrow_emu_mr_dereg(dst_mr));
	OK(marrow_emu_pd_free(pd));
	OK(marrow_emu_device_close(dev));   /* with a model still set: freed with the device */
	free(src);
	free(dst);
	return t_finish("test_softnic_wire");
}
