/* SPDX-License-Identifier: BSD-3-Clause */
/* rdx-perf option parsing (opts.c). */
#ifndef PERF_OPTS_H
#define PERF_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "perf_app.h"

/* Which options the user gave (defaults depend on them). */
struct perf_opts_given {
	bool sizes;
	bool warmup;
	bool qps;
	bool window;
	bool inline_max;
	bool sig_every;
	bool port;
	bool concurrent;
	bool help;
};

void perf_usage(FILE *f);
int perf_parse_size(const char *s, uint64_t *out);
int perf_size_name(uint64_t size, char *buf, size_t len);
/* engines.c */
const struct rdx_perf_engine *perf_engine_find(const char *name);
void perf_engine_names(char *buf, size_t len, const char *sep, const char *last);
/* Parse the app's arguments (argv[0] is a program name). 0 or -EINVAL after
 * printing one line. */
int perf_opts_parse(int argc, char **argv, struct perf_opts *o, struct perf_opts_given *g);
int perf_opts_defaults(struct perf_opts *o, const struct perf_opts_given *g);
/* rpc_echo.c: a lib/rpc transport by name (PERF_TRANSPORT_INFRC..) or
 * -EINVAL; --mix "SIZE:WEIGHT,.." into o (0, or -EINVAL after one line) */
int perf_transport_parse(const char *name);
int perf_mix_parse(const char *s, struct perf_opts *o);
/* --rpc "rto_us=5000,window=16,.." into o->rpc (0, or -EINVAL after one line) */
int perf_rpc_knobs_parse(const char *s, struct perf_opts *o);
#define PERF_RPC_KNOBS 8
/* the name and value of knob i (0..PERF_RPC_KNOBS-1) */
const char *perf_rpc_knob(const struct perf_opts *o, unsigned int i, uint32_t *value);

#endif /* PERF_OPTS_H */
