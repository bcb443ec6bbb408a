/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's options: struct perf_opts, which every layer reads, and its
 * parsers (opts.c, opts_compat.c, opts_files.c, opts_sweep.c, opts_size.c,
 * rpc_opts.c), which only main.c calls.
 */
#ifndef PERF_OPTS_H
#define PERF_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rdx_dev.h"
#include "rdx_sw.h"          /* enum rdx_sw_progress: the sw devargs */

#define PERF_MAX_SIZES 32
#define PERF_LABEL_MAX 64   /* --label: characters */

enum perf_mode { PERF_MODE_LAT = 0, PERF_MODE_BW };

/* --output: perftest's one-figure output (PERF_OUTPUT_TABLE: the table) */
enum perf_output {
	PERF_OUTPUT_TABLE = 0, PERF_OUTPUT_BW, PERF_OUTPUT_LAT, PERF_OUTPUT_MSG_RATE,
};
#define PERF_MAX_RATES 32

/* --transport: RC QPs (connected, reliable) or UD QPs (datagrams of at
 * most one path MTU, unreliable: see pingpong.c for lost datagrams): raw
 * QPs driven by the loops; or, for echo, one of lib/rpc's transports
 * (rpc_echo.c: endpoints, sessions, handlers; doc/apps.md). */
enum perf_transport {
	PERF_TRANSPORT_RC = 0,
	PERF_TRANSPORT_UD,
	PERF_TRANSPORT_INFRC,       /* lib/rpc "infrc" */
	PERF_TRANSPORT_BASIC_INFUD, /* lib/rpc "basic+infud" */
	PERF_TRANSPORT_HOMA_INFUD,  /* lib/rpc "homa+infud" */
	PERF_TRANSPORT_MAX,
};

/* The transport runs on lib/rpc (rpc_echo.c) rather than on raw QPs. */
static inline bool
perf_transport_rpc(unsigned int t)
{
	return t >= PERF_TRANSPORT_INFRC && t < PERF_TRANSPORT_MAX;
}

/* --mix: response sizes and their weights (echo on lib/rpc) */
#define PERF_MAX_MIX 8

/* UD: the Q_Key of every rdx-perf UD QP (perftest's default, 0x11111111) */
#define PERF_UD_QKEY 0x11111111u
/* UD ping-pong: an answer not seen this long after its request counts as a
 * loss and the request is sent again (pingpong.c) */
#define PERF_UD_TIMEOUT_MS 20u

struct perf_opts {
	const char *test;
	enum perf_mode mode;
	uint64_t sizes[PERF_MAX_SIZES];
	unsigned int nb_sizes;
	uint64_t iters;          /* -n, measured ops per QP */
	double duration;         /* -D seconds (0: iterations) */
	uint64_t warmup_iters;
	double warmup_s;
	uint32_t qps;            /* -q per lcore */
	uint32_t sweep_lo, sweep_hi;
	uint32_t sweep_factor;   /* 0: every count lo..hi; F: lo, lo*F, .. <= hi */
	uint32_t lsweep_lo, lsweep_hi, lsweep_factor; /* --lcore-sweep (0: none) */
	uint32_t tsweep_lo, tsweep_hi, tsweep_factor; /* --tx-depth-sweep (0: none) */
	uint32_t window;         /* -t */
	uint32_t post_list;      /* -l */
	uint32_t inline_max;     /* -I */
	uint32_t sig_every;      /* -Q */
	bool events;             /* -e */
	uint32_t mtu;            /* -m bytes; 0: port's active MTU */
	uint32_t rx_depth;       /* -r */
	enum rdx_mem_type mem;
	bool verify;
	const char *dev;
	const char *driver;
	bool server;
	bool default_window;     /* -t, -Q, -s were not given (perftest's differ) */
	bool default_sig;
	bool default_size;
	bool default_qps;        /* neither -q nor --qp-sweep given */
	const char *connect;
	char connect_buf[300];   /* HOST given without :PORT, joined with -p */
	uint16_t port;
	bool loopback;
	bool split;              /* loopback: server ends on the main lcore */
	bool bad_rkey;           /* fault injection: use a wrong rkey (tests) */
	double boot_timeout;
	bool boot_timeout_given; /* else a server waits for its client until Ctrl-C */
	enum rdx_sw_progress sw_progress;
	bool sw_progress_given;  /* --sw-progress on the command line */
	const char *json;
	const char *csv;
	const char *wrlog;
	bool gbits;
	const char *label;
	uint32_t concurrent;     /* echo: outstanding RPCs per client QP */
	uint32_t servers;        /* echo: server QPs answering one client */
	uint32_t keys;           /* atomics; write (bw) and read: remote addresses */
	uint32_t key_stride;     /* --key-stride bytes between keys (0: atomics 8,
				  * write/read the run's message size) */
	enum perf_transport transport; /* --transport */
	/* perftest compatibility (opts.c) */
	uint8_t ib_port;         /* -i: device port (0: the device's) */
	int gid_index;           /* -x / --gid-index (-1: the device's choice) */
	bool cpu_freq_ok;        /* -F: accepted; rdx-perf reads the TSC */
	bool bidir;              /* -b: traffic both ways (loopback, or both processes) */
	enum perf_output output; /* --output=bandwidth|latency|message_rate */
	bool infinite;           /* --run_infinitely: a line every -D s until Ctrl-C */
	bool verbose;            /* --verbose: knobs and per-lcore rows */
	bool clusterperf;        /* --clusterperf: the clusterperf lines */
	bool perftest_form;      /* run as ib_write_bw ..: perftest's defaults */
	bool rdma_cm;            /* -R */
	bool cpu_util;           /* --cpu_util: CPU_Util[%] of the lcores' CPUs */
	const char *counters;    /* -W NAME,..: sysfs port counters (host_stats.c) */
	const char *source_ip;   /* --source_ip: -R's bind address */
	/* open loop (rate.h): total ops/s of the client process; 0: closed loop */
	double rate;
	double rates[PERF_MAX_RATES]; /* --rate-sweep */
	unsigned int nb_rates;
	/* --mix SIZE:WEIGHT,..: echo on lib/rpc, one run of mixed responses */
	uint32_t nb_mix;
	uint64_t mix_size[PERF_MAX_MIX];
	uint32_t mix_weight[PERF_MAX_MIX];
	/* --test basic.read|basic.write: echo on lib/rpc against the KV
	 * service (rpc_echo.c); 0: echo */
	uint32_t rpc_kv;
	/* --rpc KEY=VALUE,..: struct rdx_rpc_conf fields (0: lib/rpc's default) */
	struct perf_rpc_knobs {
		uint32_t rto_us;
		uint32_t call_timeout_us;
		uint32_t window;
		uint32_t rtt_bytes;
		uint32_t overcommit;
		uint32_t mtu;
		uint32_t queue_depth;
		uint32_t msg_bufs;
		uint32_t signal;
	} rpc;
};

struct rdx_perf_engine;

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
