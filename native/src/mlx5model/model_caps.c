/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Copyright (c) 2026 The Marrow authors
 *
 * The model's configurable facts: MARROW_MLX5MODEL="key=value,..." read at
 * every ibv_open_device (docs/design/mlx5-model.md §2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model_internal.h"

static void caps_default(struct model_caps *c)
{
	memset(c, 0, sizeof(*c));
	c->devx = 1;
	c->ts_free = 1;
	c->ts_default = 1;
	c->gid_tbl_len = 4;
	c->active_mtu = IBV_MTU_4096;
	c->max_rd_atomic = 16;
	c->max_qp_wr = 32768;   /* the software NIC's largest SQ: 2^15 WQEBBs */
	c->max_cqe = 65535;     /* its largest CQ: 2^16 entries, one kept free */
	c->port_state = IBV_PORT_ACTIVE;
	snprintf(c->fw_ver, sizeof(c->fw_ver), "28.39.1002 (mlx5-model)");
}

static int parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long x = strtoul(v, &end, 0);

	if (*v == '\0' || *end != '\0' || x < lo || x > hi)
		return -1;
	*out = (uint32_t)x;
	return 0;
}

/* One key=value; -1 with why filled when the pair is not understood. */
static int caps_one(struct model_caps *c, const char *k, const char *v, char *why, size_t why_len)
{
	uint32_t x;

	if (strcmp(k, "link") == 0 && (strcmp(v, "ib") == 0 || strcmp(v, "roce") == 0)) {
		c->roce = strcmp(v, "roce") == 0;
		return 0;
	}
	if (strcmp(k, "ts") == 0 && (!strcmp(v, "free") || !strcmp(v, "default") || !strcmp(v, "both"))) {
		c->ts_free = strcmp(v, "default") != 0;
		c->ts_default = strcmp(v, "free") != 0;
		return 0;
	}
	if (strcmp(k, "poll") == 0 && (!strcmp(v, "hot") || !strcmp(v, "idle"))) {
		c->hot = strcmp(v, "hot") == 0;
		return 0;
	}
	if (strcmp(k, "port") == 0 && (!strcmp(v, "active") || !strcmp(v, "down"))) {
		c->port_state = strcmp(v, "active") == 0 ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
		return 0;
	}
	if (strcmp(k, "fw") == 0 && v[0] != '\0') {
		snprintf(c->fw_ver, sizeof(c->fw_ver), "%s", v);
		return 0;
	}
	if ((strcmp(k, "lag") == 0 || strcmp(k, "devx") == 0) && parse_u32(v, 0, 1, &x) == 0) {
		*(strcmp(k, "lag") == 0 ? &c->lag : &c->devx) = (int)x;
		return 0;
	}
	if (strcmp(k, "gids") == 0 && parse_u32(v, 1, MODEL_GID_MAX, &x) == 0) {
		c->gid_tbl_len = x;
		return 0;
	}
	if (strcmp(k, "mtu") == 0 && parse_u32(v, 256, 4096, &x) == 0 && (x & (x - 1)) == 0) {
		c->active_mtu = x == 256 ? IBV_MTU_256 : x == 512 ? IBV_MTU_512 : x == 1024 ? IBV_MTU_1024 :
				x == 2048 ? IBV_MTU_2048 : IBV_MTU_4096;
		return 0;
	}
	if (strcmp(k, "max_rd_atomic") == 0 && parse_u32(v, 1, 64, &x) == 0 && (x & (x - 1)) == 0) {
		c->max_rd_atomic = x;
		return 0;
	}
	if (strcmp(k, "max_qp_wr") == 0 && parse_u32(v, 2, 32768, &x) == 0 && (x & (x - 1)) == 0) {
		c->max_qp_wr = x;
		return 0;
	}
	snprintf(why, why_len, "MARROW_MLX5MODEL: '%s=%s' not understood (keys: link=ib|roce, lag=0|1, "
		 "devx=0|1, ts=free|default|both, gids=1..%d, mtu=256..4096, max_rd_atomic=1..64 (power of two), "
		 "max_qp_wr=2..32768 (power of two), port=active|down, poll=hot|idle, fw=TEXT)",
		 k, v, MODEL_GID_MAX);
	return -1;
}

int model_caps_parse(const char *spec, struct model_caps *c, char *why, size_t why_len)
{
	char buf[512], *save = NULL, *tok;

	caps_default(c);
	why[0] = '\0';
	if (spec == NULL || spec[0] == '\0')
		return 0;
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(why, why_len, "MARROW_MLX5MODEL is longer than %zu bytes", sizeof(buf) - 1);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL) {
			snprintf(why, why_len, "MARROW_MLX5MODEL: '%s' is not key=value", tok);
			return -1;
		}
		*eq = '\0';
		if (caps_one(c, tok, eq + 1, why, why_len))
			return -1;
	}
	return 0;
}

/*
 * IB: entry 0 is the subnet prefix fe80::/64 and the port GUID, as an SM
 * assigns it. RoCE: entry 0 the link-local address of a modified EUI-64
 * from a MAC derived from the GUID, entry 1 an IPv4-mapped address
 * (::ffff:10.x.y.z), as a netdev with an IPv4 address populates it; the
 * rest stay zero (unpopulated).
 */
void model_gid_table(const struct model_caps *c, uint64_t guid, union ibv_gid *gids)
{
	memset(gids, 0, sizeof(*gids) * MODEL_GID_MAX);
	gids[0].raw[0] = 0xfe;
	gids[0].raw[1] = 0x80;
	for (int i = 0; i < 8; i++)
		gids[0].raw[8 + i] = (uint8_t)(guid >> (56 - 8 * i));
	if (c->roce) {
		gids[0].raw[8] ^= 0x02; /* the universal/local bit of a modified EUI-64 */
		gids[0].raw[11] = 0xff;
		gids[0].raw[12] = 0xfe;
		if (c->gid_tbl_len > 1) {
			gids[1].raw[10] = 0xff;
			gids[1].raw[11] = 0xff;
			gids[1].raw[12] = 10;
			gids[1].raw[13] = (uint8_t)(guid >> 16);
			gids[1].raw[14] = (uint8_t)(guid >> 8);
			gids[1].raw[15] = (uint8_t)guid;
		}
	}
}
