/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The WQE part of the NIC self-check (apps/rdx-selfcheck): every WQE shape
 * the mlx5 datapath posts is written by rdx's direct path on a QP in RESET
 * (the device reads no WQE before RTS) and by a reference for the same WR,
 * and the two are compared field by field.
 *
 * References:
 *  - rdx_mlx5_sc_ref_model: built here from the mlx5dv.h structures and
 *    helpers, following libmlx5's rules (providers/mlx5/qp.c), never
 *    through mlx5_wqe.h: the reference on the software device and in the
 *    unit tests.
 *  - rdx_mlx5_sc_ref_libmlx5 (mlx5_sc_hw.c): the WQE libmlx5 itself writes
 *    for the WR (ibv_wr_* on an extended QP in RESET), read back from its
 *    send queue through mlx5dv_init_obj: the ground truth on a NIC.
 *
 * Fields that must differ between two QPs (the QPN, the WQE index, the
 * signature byte) and the padding after inline data (written by neither)
 * are named in the field list and skipped. Control path only.
 */
#ifndef MLX5_SELFCHECK_H
#define MLX5_SELFCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>

#include "rdx_dev.h"
#include "rdx_mlx5.h"

/* Largest WQE compared: DS is 6 bits, 63 x 16 bytes. */
#define RDX_MLX5_SC_WQE_MAX 1024u
/* Gather lists of the shapes go up to this many SGEs (capped by the QP). */
#define RDX_MLX5_SC_MAX_SGE 16u
/* Differences kept in a report (the first ones). */
#define RDX_MLX5_SC_DIFFS 8u

/*
 * A reference: write the WQE it builds for wr into wqe (room for
 * RDX_MLX5_SC_WQE_MAX bytes, zeroed by the caller) and return its length
 * in bytes (DS x 16), -ENOTSUP when it has no such WR (the shape is then
 * counted as skipped), or another negative errno (the check fails).
 */
typedef int (*rdx_mlx5_sc_ref_fn)(void *ctx, const struct rdx_wr *wr, uint8_t *wqe);

/* What the WQE check posts with. */
struct rdx_mlx5_sc_wqe_conf {
	uint32_t max_inline;      /* the QP's (qp->conf.max_inline) */
	uint32_t max_send_sge;    /* the QP's (qp->conf.max_send_sge) */
	uint32_t max_ud_msg;      /* UD: largest message; 0: RC QP */
	const struct rdx_ah *ah;  /* UD: the destination (a struct rdx_mlx5_ah) */
	uint32_t remote_qpn;      /* UD */
	uint32_t remote_qkey;     /* UD */
	const uint8_t *payload;   /* host mapping of the gather buffer (inline data) */
	uint64_t laddr;           /* its address in SGEs */
	uint32_t payload_len;     /* >= max_inline and >= 8 */
	uint32_t lkey;
	uint64_t raddr;
	uint32_t rkey;
	/*
	 * Test-only fault injection (the self-check's hidden --test-wqe-flip
	 * flag, used by tests/func/selfcheck.sh only): >= 0 flips (XOR 0x5a)
	 * byte inject_byte of every WQE read back from rdx's ring that is at
	 * least that long, before the comparison; -1: off.
	 */
	int inject_byte;
};

/* One field that differs. */
struct rdx_mlx5_sc_diff {
	char shape[64];           /* "WRITE inline=17 sig wrap" */
	char field[32];           /* "raddr.rkey", "ctrl.ds", "sge[2].lkey" */
	uint32_t off;             /* byte offset of the field in the WQE */
	uint64_t rdx;             /* the field's value (big-endian bytes as a number) */
	uint64_t ref;
};

struct rdx_mlx5_sc_wqe_report {
	uint32_t shapes;          /* WRs posted */
	uint32_t passed;
	uint32_t failed;
	uint32_t skipped;         /* shapes the reference has no WR for */
	uint64_t fields;          /* fields compared */
	uint32_t nb_diffs;        /* entries of diffs (first failures, one per shape) */
	struct rdx_mlx5_sc_diff diffs[RDX_MLX5_SC_DIFFS];
	char error[128];          /* set when the check could not run */
};

/*
 * Post every shape through rdx's direct path on qp and compare each WQE with
 * the one ref builds for the same WR.
 *
 * qp: an mlx5-datapath QP (drivers "mlx5" and "sw") in RESET, with
 * sig_interval >= 2 and room for 2 WRs, that nothing else posts to. Each
 * WQE is placed at the start of the ring and, for WQEs of more than one
 * WQEBB, also at its last WQEBB so that it wraps; after each comparison the
 * WQE is retired by hand (the device never reads a RESET QP's ring), so
 * the QP must be destroyed, never connected, afterwards.
 *
 * Returns 0 when the check ran (rep says whether it passed), or a negative
 * errno with rep->error set.
 */
int rdx_mlx5_sc_wqe_check(struct rdx_qp *qp, const struct rdx_mlx5_sc_wqe_conf *conf,
			  rdx_mlx5_sc_ref_fn ref, void *ref_ctx,
			  struct rdx_mlx5_sc_wqe_report *rep);

/* The model reference's context: the QP's type (rdx_wr's UD fields share
 * bytes with the RC ones). */
struct rdx_mlx5_sc_model {
	bool ud;
};

/* The model reference (ctx: a struct rdx_mlx5_sc_model). */
int rdx_mlx5_sc_ref_model(void *ctx, const struct rdx_wr *wr, uint8_t *wqe);

/*
 * Compare two WQEs built for wr field by field: the fields are named from
 * the layout wr must give on a UD (ud) or RC QP, the QPN, WQE index,
 * signature and inline padding skipped; both buffers hold
 * RDX_MLX5_SC_WQE_MAX bytes (zero past each WQE). Returns the number of fields compared; *diff (may be
 * NULL) gets the first that differs (field[0] stays '\0' when none does).
 */
uint32_t rdx_mlx5_sc_wqe_cmp(const struct rdx_wr *wr, bool ud, const uint8_t *rdx,
			     const uint8_t *ref, uint32_t ref_len, struct rdx_mlx5_sc_diff *diff);

/* ---- the libmlx5 reference (mlx5_sc_hw.c) ---- */

/*
 * A libmlx5 QP to post reference WRs on: the extended QP, its send queue as
 * mlx5dv_init_obj gave it, the WQEBB counter of the next WQE (libmlx5
 * starts at 0 after RESET) and how to bring it back to RESET (when its
 * ring is full: libmlx5 then restarts its indices).
 */
struct rdx_mlx5_sc_libmlx5 {
	struct ibv_qp_ex *qpx;
	uint8_t *sq_buf;
	uint32_t sq_wqe_cnt;      /* WQEBBs, power of two */
	uint32_t cur_bb;
	struct ibv_ah *ah;        /* UD: the destination (ibv_wr_set_ud_addr) */
	int (*reset)(struct rdx_mlx5_sc_libmlx5 *l);
	void *drv;                /* the owner's (hardware: the ibv_qp, CQ) */
};

/* The libmlx5 reference (ctx: a struct rdx_mlx5_sc_libmlx5). */
int rdx_mlx5_sc_ref_libmlx5(void *ctx, const struct rdx_wr *wr, uint8_t *wqe);

/*
 * On an mlx5 hardware device (driver "mlx5"): create the libmlx5 twin of an
 * rdx QP of type type (RC or UD) with these limits on the device's PD, in
 * RESET, and fill l. UD: ah is the rdx AH whose ibv_ah the WRs use.
 * Returns 0 or a negative errno (-ENOTSUP on another driver, or when
 * libmlx5 lacks the extended QP); the reason is in err.
 */
int rdx_mlx5_sc_libmlx5_create(struct rdx_dev *dev, uint8_t type, uint32_t max_inline,
			       uint32_t max_send_sge, const struct rdx_ah *ah,
			       struct rdx_mlx5_sc_libmlx5 *l, char *err, size_t err_len);
void rdx_mlx5_sc_libmlx5_destroy(struct rdx_mlx5_sc_libmlx5 *l);

/* What the card is, as the hardware driver sees it (driver "mlx5"). */
struct rdx_mlx5_sc_card {
	char fw_ver[64];
	char pci[32];             /* the PCI address ("0000:3b:00.0"), "" if unknown */
	char pcie_speed[32];      /* sysfs current_link_speed ("8.0 GT/s PCIe") */
	char pcie_width[8];       /* sysfs current_link_width ("16") */
	uint32_t vendor_part_id;
	uint8_t port_state;       /* enum ibv_port_state */
	uint8_t active_width;
	uint8_t active_speed;
	uint16_t max_mtu_bytes;
	uint16_t active_mtu_bytes;
};

/* Fill card from an open hardware device: 0, or -ENOTSUP on another driver. */
int rdx_mlx5_sc_card_get(struct rdx_dev *dev, struct rdx_mlx5_sc_card *card);

#endif /* MLX5_SELFCHECK_H */
