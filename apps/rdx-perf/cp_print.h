/* SPDX-License-Identifier: BSD-3-Clause */
/* clusterperf's report lines (cp_print.c). */
#ifndef PERF_CP_PRINT_H
#define PERF_CP_PRINT_H

#include <stdio.h>

struct rdx_report;

/*
 * The lines of every total row of rep (--mix classes excluded) in
 * clusterperf's format for test ("echo", "basic.read" or "basic.write";
 * anything else is echo), clusterperf's lines first, then rdx's extra
 * .9999 and .max; the status lines end it. The caller prints the section
 * header (the transport's name) and its own "#" lines first.
 * @return 0, or -EIO when f has an error.
 */
int perf_cp_print_rows(const struct rdx_report *rep, const char *test, FILE *f);

#endif /* PERF_CP_PRINT_H */
