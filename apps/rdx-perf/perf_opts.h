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
	bool version;
	bool rate;               /* --rate or --rate-sweep */
	bool host_positional;    /* the server host came as perftest's positional argument */
	bool post_list;
	bool rx_depth;
	bool keys;
	bool servers;
};

/* opts_compat.c: perftest's flags rdx-perf refuses, --output, rates */
#define PERF_OPT_REFUSED 1024
struct option;
size_t perf_compat_long_opts(struct option *out, size_t cap);
size_t perf_compat_short_opts(char *buf, size_t len);
int perf_compat_refuse(int c);
int perf_parse_output(const char *s, enum perf_output *out);
int perf_parse_rate(const char *opt, const char *s, double *out);
int perf_parse_rates(const char *s, double *rates, unsigned int *n);
/* The perftest-compatibility checks once every option is read: HOST
 * without :PORT takes -p, -R / -b / --rate combinations. 0 or -EINVAL. */
int perf_opts_compat_check(struct perf_opts *o, const struct perf_opts_given *g);

/* perftest_cli.c: argv[0]'s basename or argv[1] a perftest program
 * (ib_write_bw ..): the EAL's words from RDX_EAL and the app's from the
 * name and perftest's arguments. 1 done, 0 not that form, -EINVAL after
 * one line. */
int perf_perftest_argv(int argc, char **argv, int *eal_argc, char ***eal_argv, int *app_argc,
		       char **app_argv, int cap);

/* opts_files.c: "rdx-perf: bad value 'VAL' for OPT: WHY" (-EINVAL); an
 * output file writable now; -o, --json, --csv distinct; --label's form */
int perf_opt_bad(const char *opt, const char *val, const char *why);
int perf_output_check(const char *opt, const char *path);
int perf_outputs_distinct(const struct perf_opts *o);
int perf_label_check(const char *s);
/* opts_sweep.c: A-B or A-B*F, 1 <= A <= B <= max (0 or -EINVAL after one line) */
int perf_parse_sweep(const char *opt, const char *s, uint32_t max, uint32_t *lo, uint32_t *hi,
		     uint32_t *f);

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
/* each --rpc knob given is read by o->transport (0, or -EINVAL after one line) */
int perf_rpc_knobs_check(const struct perf_opts *o);
/* 1 when name is basic.read or basic.write (o->rpc_kv set, o->test
 * becomes echo, the engine that runs it), else 0 */
int perf_rpc_test_parse(const char *name, struct perf_opts *o);
/* the test's name as the reports print it: echo, basic.read, basic.write */
const char *perf_rpc_test_name(const struct perf_opts *o);
#define PERF_RPC_KNOBS 9
/* the name and value of knob i (0..PERF_RPC_KNOBS-1) */
const char *perf_rpc_knob(const struct perf_opts *o, unsigned int i, uint32_t *value);

#endif /* PERF_OPTS_H */
