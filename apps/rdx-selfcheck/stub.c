/* SPDX-License-Identifier: BSD-3-Clause */
/* The completion and doorbell checks, not yet written: they say so. */
#include "selfcheck.h"

void
sc_cqe_check(struct rdx_dev *dev, const char *name, struct sc_dev_report *r)
{
	(void)dev;
	(void)name;
	sc_row_add(r, "cqe", SC_FAIL, "not implemented");
}

void
sc_db_check(struct rdx_dev *dev, const struct sc_opts *o, struct sc_dev_report *r)
{
	(void)dev;
	(void)o;
	sc_row_add(r, "doorbell", SC_FAIL, "not implemented");
}
