/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-selfcheck: what its files share. main.c owns the options and the
 * device loop; each check is one file (sc_card.c, sc_wqe.c, sc_cqe.c,
 * sc_db.c) that adds rows to a device's report (sc_report.c, which also
 * prints the table and the JSON report); sc_pair.c makes the loopback QP
 * pairs the checks run on.
 */
#ifndef RDX_SELFCHECK_H
#define RDX_SELFCHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "rdx_dev.h"

enum sc_verdict {
	SC_PASS = 0,
	SC_FAIL,
	SC_SKIP,                  /* does not apply to this device (says why) */
};

#define SC_MAX_ROWS 32

/* One row of the verdict table (and of the JSON report). */
struct sc_row {
	char check[24];           /* "wqe.rc", "cqe.rc", "doorbell", ... */
	enum sc_verdict verdict;
	char detail[160];         /* one line: what was checked, or the first failure */
	json_t *data;             /* the row's figures for the JSON report (owned) */
};

struct sc_opts {
	int test_wqe_flip;        /* test-only: --test-wqe-flip (-1: off) */
	uint32_t db_wrs;          /* WRs per posting lcore in the doorbell check */
};

/* One device's report. */
struct sc_dev_report {
	char name[64];
	char driver[16];
	bool software;
	json_t *card;             /* what the card is (owned) */
	unsigned int nb_rows;
	struct sc_row rows[SC_MAX_ROWS];
};

/* Add a row (printf-style detail); returns it so figures can be attached. */
struct sc_row *sc_row_add(struct sc_dev_report *r, const char *check, enum sc_verdict v,
			  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* ---- the reports (sc_report.c) ---- */

/* Failed rows of r. */
unsigned int sc_failed(const struct sc_dev_report *r);
/* r's verdict table on stdout. */
void sc_table(const struct sc_dev_report *r);
/* The JSON report of n devices (a new reference), or NULL. */
json_t *sc_json(const struct sc_dev_report *reps, unsigned int n, unsigned int failed);
/* Release what r holds (card, row figures). */
void sc_report_free(struct sc_dev_report *r);

/* The checks. Each adds its rows; none stops the others. */
void sc_card_check(struct rdx_dev *dev, struct sc_dev_report *r);
void sc_wqe_check(struct rdx_dev *dev, const struct sc_opts *o, struct sc_dev_report *r);
void sc_cqe_check(struct rdx_dev *dev, const char *name, struct sc_dev_report *r);
void sc_db_check(struct rdx_dev *dev, const struct sc_opts *o, struct sc_dev_report *r);

/* ---- loopback pairs (sc_pair.c) ---- */

#define SC_BUF 65536u

struct sc_pair {
	struct rdx_dev *dev;
	struct rdx_cq *cq[2];     /* send and receive completions of side k */
	struct rdx_qp *qp[2];
	struct rdx_mem *mem[2];   /* SC_BUF bytes each, host memory, all access */
	struct rdx_ah *ah[2];     /* UD: the route to side k */
	struct rdx_qp_info info[2];
	uint8_t type;
};

/*
 * Two QPs of type on dev connected to each other (UD: both in RTS, each
 * with an AH to the other). post_lcore for both (0: own registers).
 * 0, or a negative errno with err set.
 */
int sc_pair_create(struct rdx_dev *dev, uint8_t type, uint32_t post_lcore,
		   uint32_t sq_depth, uint32_t max_inline, struct sc_pair *p,
		   char *err, size_t len);
void sc_pair_destroy(struct sc_pair *p);
/* Post one receive of len bytes at offset off of side k's buffer. */
int sc_pair_recv(struct sc_pair *p, int k, uint64_t wr_id, uint32_t off, uint32_t len);
/* Poll cq until one completion is there or about 2 s pass; 1, or 0 on timeout. */
int sc_poll1(struct rdx_cq *cq, struct rdx_wc *wc);

#endif /* RDX_SELFCHECK_H */
