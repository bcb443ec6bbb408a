/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software mlx5 device: the memory side of a WQE, shared by RC (sw_exec.c)
 * and UD (sw_exec_ud.c): key translation, the payload's spans, and the
 * copy rule (each byte stored once, in order, the final unit last). The
 * WQE fetch both run first is static inline (sw_engine_priv.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_log.h>

#include "sw_engine_priv.h"

/* ------------------------------------------------------------------ */
/* Memory                                                              */

/*
 * Check key/bounds/access and translate: NULL when any check fails, or the
 * region is process memory of another process (not reachable from here).
 * A segment this process owns is translated with its process-local MR
 * table (d->shadow); another process's table is untrusted: each field is
 * read once and the result must lie inside its segment. Process memory
 * (SW_MR_LOCAL) is reachable only through a trusted table, so a forged
 * entry can never make the engine write to an address of its choice.
 */
uint8_t *
sw_mr_resolve(const struct sw_domain *d, uint32_t key, uint64_t addr, uint64_t len,
	      uint32_t need, pid_t pid)
{
	return sw_mr_xlate(d, key, addr, len, need, pid);
}

/*
 * Stream len bytes from the src spans into the dst spans (gather/scatter):
 * every destination byte stored exactly once, in stream order, and the
 * final unit last after a release fence: the last 8 bytes as one 8-byte
 * store when len >= 8 and they lie in one destination span, else the last
 * byte. The source is read once. Zero-length spans are skipped; the spans
 * must cover len (the callers check).
 */
void
sw_copy(const struct sw_span *dst, uint32_t nd, const struct sw_span *src,
	uint32_t ns, uint64_t len)
{
	uint64_t doff = 0, soff = 0, body, i;
	uint32_t di = 0, si = 0, tail;
	uint8_t t[8];

	if (len == 0)
		return;
	tail = len >= 8 ? 8 : 1;
	body = len - tail;
	if (nd == 1 && ns == 1 && dst[0].len >= len && src[0].len >= len) {
		/* one span each (inline payloads, one SGE) */
		sw_copy1(dst[0].p, src[0].p, len);
		return;
	}
	while (body > 0 && di < nd && si < ns) {
		uint64_t n = RTE_MIN(dst[di].len - doff, src[si].len - soff);

		n = RTE_MIN(n, body);
		sw_store_once(dst[di].p + doff, src[si].p + soff, n);
		doff += n;
		soff += n;
		body -= n;
		if (doff == dst[di].len) {
			di++;
			doff = 0;
		}
		if (soff == src[si].len) {
			si++;
			soff = 0;
		}
	}
	/* the tail's source bytes, read once (one load when contiguous) */
	while (si < ns && soff == src[si].len) {
		si++;
		soff = 0;
	}
	if (tail == 8 && si < ns && src[si].len - soff >= 8) {
		memcpy(t, src[si].p + soff, 8);
		i = 8;
	} else {
		i = 0;
	}
	for (; i < tail && si < ns; i++) {
		while (si < ns && soff == src[si].len) {
			si++;
			soff = 0;
		}
		if (si == ns)
			return;
		t[i] = src[si].p[soff++];
	}
	while (di < nd && doff == dst[di].len) {
		di++;
		doff = 0;
	}
	if (di == nd)
		return;
	if (tail == 8 && dst[di].len - doff >= 8) {
		__atomic_thread_fence(__ATOMIC_RELEASE);
		sw_store_once(dst[di].p + doff, t, 8);
		return;
	}
	/* the tail spans destination segments: byte by byte, last one last */
	for (i = 0; i < tail; i++) {
		while (di < nd && doff == dst[di].len) {
			di++;
			doff = 0;
		}
		if (di == nd)
			return;
		if (i == tail - 1)
			__atomic_thread_fence(__ATOMIC_RELEASE);
		sw_store_once(dst[di].p + doff, &t[i], 1);
		doff++;
	}
}

/*
 * Payload of a SEND/WRITE (gather) or READ (scatter) starting at byte off
 * of the WQE: an inline segment or data segments. Fills spans; returns 0,
 * or a syndrome (0x04 bad lkey), or 0x02 (malformed) with *what set.
 */
uint8_t
sw_payload(struct sw_engine *e, struct sw_lqp *q, struct sw_wqe *w, uint32_t off,
	   bool scatter, struct sw_span *sp, uint32_t *nsp, uint64_t *total,
	   const char **what)
{
	uint32_t n, i, hdr;

	*nsp = 0;
	*total = 0;
	if (off == w->ds * 16)
		return 0;
	memcpy(&hdr, w->b + off, 4);
	hdr = be32toh(hdr);
	if (hdr & MLX5_INLINE_SEG) {
		uint32_t len = hdr & ~(uint32_t)MLX5_INLINE_SEG;

		if (scatter) {
			*what = "inline segment in a READ";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		if (len > q->max_inline) {
			*what = "inline length above max_inline";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		if (off / 16 + RTE_ALIGN_CEIL(4 + len, 16U) / 16 != w->ds) {
			*what = "DS does not match the inline length";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		sp[0].p = w->b + off + 4;
		sp[0].len = len;
		*nsp = len != 0;
		*total = len;
		return 0;
	}
	n = w->ds - off / 16;
	if (n > q->max_send_sge) {
		*what = "more data segments than max_send_sge";
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	for (i = 0; i < n; i++) {
		const struct mlx5_wqe_data_seg *ds =
			(const struct mlx5_wqe_data_seg *)(void *)(w->b + off + 16 * i);
		uint32_t len = be32toh(ds->byte_count);
		uint64_t addr = be64toh(ds->addr);

		if (len == 0 || (len & MLX5_INLINE_SEG)) {
			*what = "zero-length or inline-flagged data segment";
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		/* local gather needs no access flag; scatter needs LOCAL_WRITE */
		sp[i].p = sw_mr_resolve(e->self, be32toh(ds->lkey), addr, len,
					scatter ? IBV_ACCESS_LOCAL_WRITE : 0, e->pid);
		if (sp[i].p == NULL)
			return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		sp[i].len = len;
		*total += len;
	}
	*nsp = n;
	if (*total > SW_MAX_MSG)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	return 0;
}

