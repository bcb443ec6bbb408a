/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf options: perftest's letters where the meaning matches. Every
 * value is range-checked here; a bad one gets one line on stderr and exit 2.
 * Checks that need the device (max message size, inline, queue depths) are
 * done in main.c once it is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>

#include "rdx_config.h"

#include "perf_app.h"
#include "perf_opts.h"

static const char usage_text[] =
"  --mode lat|bw        latency (one op in flight per QP) or bandwidth (window -t)\n"
"  -s SIZE              message size (K/M suffixes)      --sizes A,B,..  list\n"
"  -a                   sweep 2 B .. 8 MB                -n N  iterations per QP\n"
"  -D SECONDS           run for a duration               --warmup N|Ts  excluded warm-up\n"
"  -q N                 QPs per lcore                    --qp-sweep A-B[*F]  repeat per QP count\n"
"  --lcore-sweep A-B[*F]  repeat on the first A, .., B worker lcores (-q QPs each)\n"
"  --tx-depth-sweep A-B[*F]  repeat with A, .., B ops in flight per QP (-t; bw)\n"
"  -t N                 window (tx depth) per QP         -l N  post list (WRs per doorbell)\n"
"  -I BYTES             inline threshold                 -Q K  signal every K WRs\n"
"  -e                   completion events                -m MTU  256..4096\n"
"  -r N                 receive depth                    --mem host|huge|dm\n"
"  --verify             check every payload byte (atomics: exact final values)\n"
"  --dev NAME           RDMA device or sw                --driver auto|mlx5|verbs\n"
"  --server | --connect HOST:PORT   -p PORT            --loopback (one process)\n"
"  --loopback-lcores same|split     server ends on the client's lcore or on the main lcore\n"
"  --bootstrap-timeout S  bound each bootstrap step and wait (default 10 s, 60 s under\n"
"                       --pattern; a --server, raw or lib/rpc, waits for its client\n"
"                       until Ctrl-C without it)\n"
"  --sw-progress inline|poll|thread\n"
"  --json F --csv F -o F (per-WR log) --report_gbits --label TEXT\n"
"  --concurrent-ops N --servers N (echo)   --keys N [--key-stride B] (atomics, read, write bw)\n"
"  --transport rc|ud    RC QPs (default) or UD datagrams (send, echo; size <= MTU)\n"
"  --transport infrc|basic+infud|homa+infud   echo on lib/rpc   --mix SIZE:W,..  mixed responses\n"
"                       (also --test basic.read|basic.write: the KV service, clusterperf basic)\n"
"  --rpc rto_us=N,call_timeout_us=N,window=N,rtt_bytes=N,overcommit=N,mtu=N,queue_depth=N,msg_bufs=N,signal=N\n"
"  --inject-bad-rkey  (tests) target the peer with a wrong rkey: completion errors\n"
"perftest's flags (same meaning):\n"
"  HOST (positional)    the server to connect to, port -p   -d/--ib-dev NAME  device\n"
"  -i/--ib-port N       device port                      -x/--gid-index N  GID index\n"
"  -c RC|UD             as --transport                   -F  accepted (the TSC is used)\n"
"  -b/--bidirectional   both ends/processes post (bw)    -V/--version\n"
"  --output=bandwidth|latency|message_rate   only that figure, one line per run\n"
"  --run_infinitely     a line every -D seconds (default 5) until Ctrl-C\n"
"  --out_json [--out_json_file F]   the JSON report (default file rdx-perf.json)\n"
"  -R/--rdma_cm         connect the QPs through rdma_cm (verbs driver; two processes)\n"
"  --source_ip ADDR     -R: the client's source address, the server's listening address\n"
"  --cpu_util           CPU_Util[%] column: user / (user + idle) of the lcores' CPUs\n"
"  -W/--report-counters NAME,..  port counters (sysfs, e.g. counters/port_xmit_data) per run\n"
"output: the perftest-style table; --verbose adds every knob and the per-lcore rows,\n"
"  --clusterperf the clusterperf lines; -o/--wr-log FILE logs every WR\n"
"open loop: --rate R (total ops/s of the client, split evenly over its QPs; latency\n"
"  from each op's intended send time) --rate-sweep R1,R2,..  one run per rate\n"
"exit status: 0 completed, 1 failed (the report says why), 2 bad input,\n"
"  130 interrupted by SIGINT/SIGTERM (--run_infinitely: 0)\n";

enum {
	OPT_TEST = 256, OPT_MODE, OPT_SIZES, OPT_WARMUP, OPT_QP_SWEEP, OPT_MEM, OPT_VERIFY,
	OPT_DEV, OPT_DRIVER, OPT_SERVER, OPT_CONNECT, OPT_LOOPBACK, OPT_BOOT_TIMEOUT,
	OPT_SW_PROGRESS, OPT_JSON, OPT_CSV, OPT_GBITS, OPT_LABEL, OPT_CONCURRENT,
	OPT_SERVERS, OPT_KEYS, OPT_HELP, OPT_LB_LCORES, OPT_BAD_RKEY, OPT_TRANSPORT,
	OPT_OUTPUT, OPT_INFINITE, OPT_OUT_JSON, OPT_OUT_JSON_FILE, OPT_VERBOSE, OPT_CLUSTERPERF,
	OPT_RATE, OPT_RATE_SWEEP, OPT_SOURCE_IP,
	OPT_MIX, OPT_RPC, OPT_PERFTEST_FORM, OPT_USE_HUGEPAGES, OPT_CPU_UTIL, OPT_KEY_STRIDE, OPT_LCORE_SWEEP, OPT_TX_SWEEP,
};

static const struct option long_opts[] = {
	{"test", required_argument, NULL, OPT_TEST},
	{"mode", required_argument, NULL, OPT_MODE},
	{"size", required_argument, NULL, 's'},
	{"all", no_argument, NULL, 'a'},
	{"sizes", required_argument, NULL, OPT_SIZES},
	{"iters", required_argument, NULL, 'n'},
	{"duration", required_argument, NULL, 'D'},
	{"warmup", required_argument, NULL, OPT_WARMUP},
	{"qp", required_argument, NULL, 'q'},
	{"qp-sweep", required_argument, NULL, OPT_QP_SWEEP},
	{"lcore-sweep", required_argument, NULL, OPT_LCORE_SWEEP},
	{"tx-depth-sweep", required_argument, NULL, OPT_TX_SWEEP},
	{"tx-depth", required_argument, NULL, 't'},
	{"post_list", required_argument, NULL, 'l'},
	{"inline_size", required_argument, NULL, 'I'},
	{"cq-mod", required_argument, NULL, 'Q'},
	{"events", no_argument, NULL, 'e'},
	{"mtu", required_argument, NULL, 'm'},
	{"rx-depth", required_argument, NULL, 'r'},
	{"mem", required_argument, NULL, OPT_MEM},
	{"verify", no_argument, NULL, OPT_VERIFY},
	{"dev", required_argument, NULL, OPT_DEV},
	{"driver", required_argument, NULL, OPT_DRIVER},
	{"server", no_argument, NULL, OPT_SERVER},
	{"connect", required_argument, NULL, OPT_CONNECT},
	{"port", required_argument, NULL, 'p'},
	{"loopback", no_argument, NULL, OPT_LOOPBACK},
	{"loopback-lcores", required_argument, NULL, OPT_LB_LCORES},
	{"inject-bad-rkey", no_argument, NULL, OPT_BAD_RKEY},
	{"bootstrap-timeout", required_argument, NULL, OPT_BOOT_TIMEOUT},
	{"sw-progress", required_argument, NULL, OPT_SW_PROGRESS},
	{"json", required_argument, NULL, OPT_JSON},
	{"csv", required_argument, NULL, OPT_CSV},
	{"wr-log", required_argument, NULL, 'o'},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"ib-dev", required_argument, NULL, 'd'},
	{"ib-port", required_argument, NULL, 'i'},
	{"gid-index", required_argument, NULL, 'x'},
	{"connection", required_argument, NULL, 'c'},
	{"CPU-freq", no_argument, NULL, 'F'},
	{"bidirectional", no_argument, NULL, 'b'},
	{"rdma_cm", no_argument, NULL, 'R'},
	{"source_ip", required_argument, NULL, OPT_SOURCE_IP},
	{"version", no_argument, NULL, 'V'},
	{"run_infinitely", no_argument, NULL, OPT_INFINITE},
	{"out_json", no_argument, NULL, OPT_OUT_JSON},
	{"out_json_file", required_argument, NULL, OPT_OUT_JSON_FILE},
	{"verbose", no_argument, NULL, OPT_VERBOSE},
	{"clusterperf", no_argument, NULL, OPT_CLUSTERPERF},
	/* set by perftest_cli.c for ib_write_bw and the others */
	{"perftest-form", no_argument, NULL, OPT_PERFTEST_FORM},
	{"use_hugepages", no_argument, NULL, OPT_USE_HUGEPAGES},
	{"cpu_util", no_argument, NULL, OPT_CPU_UTIL},
	{"report-counters", required_argument, NULL, 'W'},
	{"rate", required_argument, NULL, OPT_RATE},
	{"rate-sweep", required_argument, NULL, OPT_RATE_SWEEP},
	{"report_gbits", no_argument, NULL, OPT_GBITS},
	{"label", required_argument, NULL, OPT_LABEL},
	{"concurrent-ops", required_argument, NULL, OPT_CONCURRENT},
	{"servers", required_argument, NULL, OPT_SERVERS},
	{"keys", required_argument, NULL, OPT_KEYS},
	{"key-stride", required_argument, NULL, OPT_KEY_STRIDE},
	{"transport", required_argument, NULL, OPT_TRANSPORT},
	{"mix", required_argument, NULL, OPT_MIX},
	{"rpc", required_argument, NULL, OPT_RPC},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

void
perf_usage(FILE *f)
{
	char names[256];

	perf_engine_names(names, sizeof(names), " ", " ");
	fprintf(f, "usage: rdx-perf [EAL options] -- --test NAME [options]\n  tests: %s\n", names);
	fputs(usage_text, f);
}

/* the one-line refusal of a value (opts_files.c) */
#define bad perf_opt_bad

static int
parse_u32(const char *opt, const char *s, uint64_t lo, uint64_t hi, uint32_t *out)
{
	uint64_t v;
	char why[64];

	snprintf(why, sizeof(why), "expected %" PRIu64 "..%" PRIu64, lo, hi);
	if (perf_parse_size(s, &v) < 0 || v < lo || v > hi)
		return bad(opt, s, why);
	*out = (uint32_t)v;
	return 0;
}

static int
parse_secs(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || (*end != '\0' && strcmp(end, "s") != 0) ||
	    !isfinite(v) || v < lo || v > hi)
		return bad(opt, s, "expected seconds in range");
	*out = v;
	return 0;
}

static int
parse_sizes(const char *s, struct perf_opts *o)
{
	char buf[512], *tok, *next;

	if (strlen(s) >= sizeof(buf))
		return bad("--sizes", s, "list too long");
	snprintf(buf, sizeof(buf), "%s", s);
	o->nb_sizes = 0;
	/* every item between commas, empty ones too (strtok would skip them) */
	for (tok = buf; tok != NULL; tok = next) {
		uint64_t v;

		next = strchr(tok, ',');
		if (next != NULL)
			*next++ = '\0';
		if (*tok == '\0')
			return bad("--sizes", s, "empty item in the list");
		if (o->nb_sizes == PERF_MAX_SIZES)
			return bad("--sizes", s, "at most 32 sizes");
		if (perf_parse_size(tok, &v) < 0 || v == 0)
			return bad("--sizes", tok, "expected a size > 0 (K/M suffixes)");
		o->sizes[o->nb_sizes++] = v;
	}
	return 0;
}

/*
 * An option the run would not use is refused rather than ignored (its value
 * would be printed among the knobs of a run it did not shape). Checked
 * before perf_opts_defaults, which sets what lat mode and the tests fix.
 */
static int
unused_check(const struct perf_opts *o, const struct perf_opts_given *g)
{
	const struct rdx_perf_engine *e = perf_engine_find(o->test);
	const bool lat = o->mode == PERF_MODE_LAT;
	const bool echo = strcmp(o->test, "echo") == 0;
	/* receive WRs: SEND-based tests (echo over RC/UD, send, write_imm) */
	const bool recvs = echo || e->server_recv;

	/* -t, -Q and -l in --mode lat: accepted as perftest's latency tests
	 * accept them, and set to what lat mode runs (perf_opts_defaults;
	 * the header and knobs print the values in effect) */
	if (g->post_list && lat && echo && o->post_list > o->concurrent) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -l: a post list longer than --concurrent-ops %u\n",
			o->post_list, o->concurrent);
		return -EINVAL;
	}
	if (!lat && g->post_list && g->window && o->post_list > o->window) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -l: a post list longer than the window (-t %u)\n",
			o->post_list, o->window);
		return -EINVAL;
	}
	if (g->rx_depth && !recvs) {
		fprintf(stderr, "rdx-perf: -r applies to tests with receives (send, write_imm, echo): %s posts none\n",
			o->test);
		return -EINVAL;
	}
	if (g->inline_max && o->inline_max > 0 && e->no_inline) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -I: %s sends no data to inline\n",
			o->inline_max, o->test);
		return -EINVAL;
	}
	if (g->inline_max && o->inline_max > 0 && o->mem == RDX_MEM_DM) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -I: with --mem dm the payload is in device memory, never inline\n",
			o->inline_max);
		return -EINVAL;
	}
	if (g->keys && !e->atomic && !((e->op == RDX_OP_WRITE || e->op == RDX_OP_READ) &&
					perf_engine_loop(e, o->mode) == PERF_LOOP_STREAM)) {
		fprintf(stderr, "rdx-perf: --keys and --key-stride apply to the atomics (cas, faa), read and write --mode bw, not %s --mode %s\n",
			o->test, lat ? "lat" : "bw");
		return -EINVAL;
	}
	if (g->keys && !e->atomic && o->verify) {
		fprintf(stderr, "rdx-perf: --verify with --keys on %s: ops to one key overwrite each other's bytes (verify without --keys)\n",
			o->test);
		return -EINVAL;
	}
	if (e->atomic && o->key_stride % 8 != 0) {
		fprintf(stderr, "rdx-perf: bad value '%u' for --key-stride: atomics need 8-byte aligned keys (a multiple of 8)\n",
			o->key_stride);
		return -EINVAL;
	}
	if ((g->servers || g->concurrent) && !echo) {
		fprintf(stderr, "rdx-perf: %s applies to echo, not %s\n",
			g->servers ? "--servers" : "--concurrent-ops", o->test);
		return -EINVAL;
	}
	if (g->qps && o->sweep_lo != 0 && o->qps != o->sweep_hi) {
		fprintf(stderr, "rdx-perf: -q %u and --qp-sweep %u-%u disagree (the sweep sets the QPs of each run)\n",
			o->qps, o->sweep_lo, o->sweep_hi);
		return -EINVAL;
	}
	if (o->nb_mix > 0 && g->sizes) {
		fprintf(stderr, "rdx-perf: --mix sets the response sizes: -s/--sizes do not apply\n");
		return -EINVAL;
	}
	if (g->port && o->connect != NULL && o->connect != o->connect_buf) {
		fprintf(stderr, "rdx-perf: -p and the port of --connect HOST:PORT both name the server's port: give one\n");
		return -EINVAL;
	}
	return 0;
}

int
perf_opts_parse(int argc, char **argv, struct perf_opts *o, struct perf_opts_given *g)
{
	struct option all_opts[RTE_DIM(long_opts) + 160];
	char shorts[128];
	size_t n_long;
	uint32_t mtu;
	int c, rc = 0;
	size_t i;

	memset(o, 0, sizeof(*o));
	memset(g, 0, sizeof(*g));
	o->mode = PERF_MODE_LAT;
	o->qps = 1;
	o->post_list = 1;
	o->rx_depth = 512;
	o->mem = RDX_MEM_HOST;
	o->port = 18515;
	o->boot_timeout = 10;
	o->sw_progress = RDX_SW_PROGRESS_INLINE;
	o->label = "";
	o->concurrent = 1;
	o->servers = 1;
	o->keys = 1;
	o->gid_index = -1;
	optind = 1;
	opterr = 0;
	/* ours, then perftest's flags we refuse (opts_compat.c) */
	memcpy(all_opts, long_opts, sizeof(long_opts));
	n_long = RTE_DIM(long_opts) - 1;
	n_long += perf_compat_long_opts(all_opts + n_long, RTE_DIM(all_opts) - 1 - n_long);
	memset(&all_opts[n_long], 0, sizeof(all_opts[n_long]));
	snprintf(shorts, sizeof(shorts), ":s:an:D:q:t:l:I:Q:em:r:p:o:hd:i:x:c:FbRVW:Z");
	perf_compat_short_opts(shorts + strlen(shorts), sizeof(shorts) - strlen(shorts));
	while ((c = getopt_long(argc, argv, shorts, all_opts, NULL)) != -1) {
		switch (c) {
		case OPT_TEST:
			o->test = optarg;
			if (perf_rpc_test_parse(optarg, o) == 0 && perf_engine_find(optarg) == NULL) {
				char names[256], why[300];

				perf_engine_names(names, sizeof(names), ", ", " or ");
				snprintf(why, sizeof(why), "unknown test (expected %s)", names);
				rc = bad("--test", optarg, why);
			}
			break;
		case OPT_MODE:
			if (strcmp(optarg, "lat") == 0)
				o->mode = PERF_MODE_LAT;
			else if (strcmp(optarg, "bw") == 0)
				o->mode = PERF_MODE_BW;
			else
				rc = bad("--mode", optarg, "unknown mode (expected lat or bw)");
			break;
		case 's': {
			uint64_t v;

			if (perf_parse_size(optarg, &v) < 0 || v == 0) {
				rc = bad("-s", optarg, "expected a size > 0 (K/M suffixes)");
				break;
			}
			o->sizes[0] = v;
			o->nb_sizes = 1;
			g->sizes = true;
			break;
		}
		case 'a':
			o->nb_sizes = 0;
			for (i = 1; i <= 23; i++)
				o->sizes[o->nb_sizes++] = 1ull << i;
			g->sizes = true;
			break;
		case OPT_SIZES:
			rc = parse_sizes(optarg, o);
			g->sizes = true;
			break;
		case 'n': {
			uint64_t v;

			if (perf_parse_size(optarg, &v) < 0 || v == 0 || v > (1ull << 40))
				rc = bad("-n", optarg, "expected 1..2^40 iterations");
			else
				o->iters = v;
			break;
		}
		case 'D':
			rc = parse_secs("-D", optarg, 0.001, 86400, &o->duration);
			break;
		case OPT_WARMUP: {
			size_t l = strlen(optarg);
			uint64_t v;

			if (l > 0 && optarg[l - 1] == 's') {
				rc = parse_secs("--warmup", optarg, 0, 3600, &o->warmup_s);
			} else if (perf_parse_size(optarg, &v) < 0 || v > (1ull << 32)) {
				rc = bad("--warmup", optarg, "expected iterations (N) or seconds (Ts)");
			} else {
				o->warmup_iters = v;
			}
			g->warmup = true;
			break;
		}
		case 'q':
			rc = parse_u32("-q", optarg, 1, RDX_MAX_QPS_PER_LCORE, &o->qps);
			g->qps = true;
			break;
		case OPT_QP_SWEEP:
			rc = perf_parse_sweep("--qp-sweep", optarg, RDX_MAX_QPS_PER_LCORE, &o->sweep_lo,
					      &o->sweep_hi, &o->sweep_factor);
			break;
		case OPT_LCORE_SWEEP:
			rc = perf_parse_sweep("--lcore-sweep", optarg, RDX_MAX_LCORES, &o->lsweep_lo,
					      &o->lsweep_hi, &o->lsweep_factor);
			break;
		case OPT_TX_SWEEP:
			rc = perf_parse_sweep("--tx-depth-sweep", optarg, 65536, &o->tsweep_lo,
					      &o->tsweep_hi, &o->tsweep_factor);
			break;
		case 't':
			rc = parse_u32("-t", optarg, 1, 65536, &o->window);
			g->window = true;
			break;
		case 'l':
			/* after "--", -l is perftest's post list; a core list
			 * there is EAL's -l given on the wrong side */
			if (strpbrk(optarg, "-,@") != NULL) {
				fprintf(stderr, "rdx-perf: bad value '%s' for -l: expected 1..%u (the post "
					"list); EAL's core list goes before \"--\": rdx-perf -l %s -- ...\n",
					optarg, RDX_MAX_BURST, optarg);
				rc = -EINVAL;
				break;
			}
			rc = parse_u32("-l", optarg, 1, RDX_MAX_BURST, &o->post_list);
			g->post_list = true;
			break;
		case 'I':
			rc = parse_u32("-I", optarg, 0, 65536, &o->inline_max);
			g->inline_max = true;
			break;
		case 'Q':
			rc = parse_u32("-Q", optarg, 1, 65536, &o->sig_every);
			g->sig_every = true;
			break;
		case 'e':
			o->events = true;
			break;
		case 'm':
			rc = parse_u32("-m", optarg, 256, 4096, &mtu);
			if (rc == 0 && (mtu & (mtu - 1)) != 0)
				rc = bad("-m", optarg, "expected 256, 512, 1024, 2048 or 4096");
			o->mtu = mtu;
			break;
		case 'r':
			rc = parse_u32("-r", optarg, 1, 65536, &o->rx_depth);
			g->rx_depth = true;
			break;
		case OPT_MEM:
			if (rdx_mem_type_parse(optarg) < 0)
				rc = bad("--mem", optarg, "unknown memory type (expected host, huge or dm)");
			else
				o->mem = (enum rdx_mem_type)rdx_mem_type_parse(optarg);
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_DEV:
			if (optarg[0] == '\0')
				rc = bad("--dev", optarg, "expected a device name (e.g. sw or mlx5_0)");
			o->dev = optarg;
			break;
		case OPT_DRIVER:
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "mlx5") != 0 &&
			    strcmp(optarg, "verbs") != 0 && strcmp(optarg, "sw") != 0)
				rc = bad("--driver", optarg, "unknown driver (expected auto, mlx5 or verbs)");
			o->driver = optarg;
			break;
		case OPT_SERVER:
		case 'Z':   /* perftest's -Z/--server */
			o->server = true;
			break;
		case OPT_CONNECT:
			o->connect = optarg;
			break;
		case 'p':
			rc = parse_u32("-p", optarg, 1, 65535, &mtu);
			o->port = (uint16_t)mtu;
			g->port = true;
			break;
		case OPT_LOOPBACK:
			o->loopback = true;
			break;
		case OPT_BAD_RKEY:
			o->bad_rkey = true;
			break;
		case OPT_LB_LCORES:
			if (strcmp(optarg, "same") == 0)
				o->split = false;
			else if (strcmp(optarg, "split") == 0)
				o->split = true;
			else
				rc = bad("--loopback-lcores", optarg, "expected same or split");
			break;
		case OPT_BOOT_TIMEOUT:
			rc = parse_secs("--bootstrap-timeout", optarg, 0.1, 3600, &o->boot_timeout);
			o->boot_timeout_given = true;
			break;
		case OPT_SW_PROGRESS:
			if (strcmp(optarg, "inline") == 0)
				o->sw_progress = RDX_SW_PROGRESS_INLINE;
			else if (strcmp(optarg, "poll") == 0)
				o->sw_progress = RDX_SW_PROGRESS_POLL;
			else if (strcmp(optarg, "thread") == 0)
				o->sw_progress = RDX_SW_PROGRESS_THREAD;
			else
				rc = bad("--sw-progress", optarg, "expected inline, poll or thread");
			o->sw_progress_given = true;
			break;
		case OPT_JSON:
			o->json = optarg;
			break;
		case OPT_CSV:
			o->csv = optarg;
			break;
		case 'o':
			o->wrlog = optarg;
			break;
		case OPT_GBITS:
			o->gbits = true;
			break;
		case OPT_LABEL:
			o->label = optarg;
			rc = perf_label_check(optarg);
			break;
		case OPT_CONCURRENT:
			rc = parse_u32("--concurrent-ops", optarg, 1, 4096, &o->concurrent);
			g->concurrent = true;
			break;
		case OPT_SERVERS:
			rc = parse_u32("--servers", optarg, 1, RDX_MAX_QPS_PER_LCORE, &o->servers);
			g->servers = true;
			break;
		case OPT_KEYS:
			rc = parse_u32("--keys", optarg, 1, PERF_MAX_KEYS, &o->keys);
			g->keys = true;
			break;
		case OPT_KEY_STRIDE:
			rc = parse_u32("--key-stride", optarg, 1, 1u << 24, &o->key_stride);
			g->keys = true;
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "rc") == 0)
				o->transport = PERF_TRANSPORT_RC;
			else if (strcmp(optarg, "ud") == 0)
				o->transport = PERF_TRANSPORT_UD;
			else if (perf_transport_parse(optarg) >= 0)
				o->transport = (enum perf_transport)perf_transport_parse(optarg);
			else
				rc = bad("--transport", optarg,
					 "unknown transport (expected rc, ud, infrc, basic+infud or homa+infud)");
			break;
		case OPT_MIX:
			rc = perf_mix_parse(optarg, o);
			break;
		case OPT_RPC:
			rc = perf_rpc_knobs_parse(optarg, o);
			break;
		case 'd':
			if (optarg[0] == '\0')
				rc = bad("-d", optarg, "expected a device name (e.g. sw or mlx5_0)");
			o->dev = optarg;
			break;
		case 'i':
			rc = parse_u32("-i", optarg, 1, 254, &mtu);
			o->ib_port = (uint8_t)mtu;
			break;
		case 'x':
			rc = parse_u32("-x", optarg, 0, 255, &mtu);
			o->gid_index = (int)mtu;
			break;
		case 'c':
			if (strcmp(optarg, "RC") == 0)
				o->transport = PERF_TRANSPORT_RC;
			else if (strcmp(optarg, "UD") == 0)
				o->transport = PERF_TRANSPORT_UD;
			else
				rc = bad("-c", optarg, "rdx-perf runs RC or UD (perftest's UC, XRC, DC and SRD are not implemented)");
			break;
		case 'F':
			o->cpu_freq_ok = true;
			break;
		case 'b':
			o->bidir = true;
			break;
		case 'R':
			o->rdma_cm = true;
			break;
		case OPT_SOURCE_IP:
			o->source_ip = optarg;
			break;
		case 'V':
			g->version = true;
			return 0;
		case OPT_OUTPUT:
			rc = perf_parse_output(optarg, &o->output);
			break;
		case OPT_INFINITE:
			o->infinite = true;
			break;
		case OPT_OUT_JSON:
			if (o->json == NULL)
				o->json = "rdx-perf.json";
			break;
		case OPT_OUT_JSON_FILE:
			o->json = optarg;
			break;
		case OPT_VERBOSE:
			o->verbose = true;
			break;
		case OPT_USE_HUGEPAGES:
			/* perftest's: the buffers in hugepages (--mem huge) */
			o->mem = RDX_MEM_HUGE;
			break;
		case OPT_CPU_UTIL:
			o->cpu_util = true;
			break;
		case 'W':
			/* "-W --next-option" took the option as the list */
			if (optarg[0] == '-' || optarg[0] == '\0')
				rc = bad("-W", optarg, "expected counter names, e.g. counters/port_xmit_data");
			o->counters = optarg;
			break;
		case OPT_PERFTEST_FORM:
			o->perftest_form = true;
			break;
		case OPT_CLUSTERPERF:
			o->clusterperf = true;
			break;
		case OPT_RATE:
			rc = perf_parse_rate("--rate", optarg, &o->rate);
			g->rate = true;
			break;
		case OPT_RATE_SWEEP:
			rc = perf_parse_rates(optarg, o->rates, &o->nb_rates);
			g->rate = true;
			break;
		case 'h':
		case OPT_HELP:
			g->help = true;
			return 0;
		case ':':
			fprintf(stderr, "rdx-perf: option %s needs a value\n", argv[optind - 1]);
			return -EINVAL;
		default:
			if (perf_compat_refuse(c) < 0)
				return -EINVAL;
			fprintf(stderr, "rdx-perf: unknown option '%s' (see --help)\n", argv[optind - 1]);
			return -EINVAL;
		}
		if (rc < 0)
			return rc;
	}
	/* perftest's client form: the server's host as the one positional
	 * argument, its port from -p */
	if (optind < argc && o->connect == NULL && argv[optind][0] != '\0' &&
	    argv[optind][0] != '-') {
		o->connect = argv[optind++];
		g->host_positional = true;
	}
	if (optind < argc) {
		fprintf(stderr, "rdx-perf: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -EINVAL;
	}
	/* perftest: a server when no host is given */
	if (o->perftest_form && o->connect == NULL && !o->loopback)
		o->server = true;
	rc = perf_opts_compat_check(o, g);
	if (rc < 0)
		return rc;
	if (o->test == NULL) {
		char names[256];

		perf_engine_names(names, sizeof(names), ", ", ", ");
		fprintf(stderr, "rdx-perf: --test NAME is required (%s)\n", names);
		return -EINVAL;
	}
	if ((o->server ? 1 : 0) + (o->connect != NULL ? 1 : 0) + (o->loopback ? 1 : 0) > 1) {
		fprintf(stderr, "rdx-perf: choose one of --server, --connect and --loopback\n");
		return -EINVAL;
	}
	if (o->split && (o->server || o->connect != NULL)) {
		fprintf(stderr, "rdx-perf: --loopback-lcores applies to one process, not --server/--connect\n");
		return -EINVAL;
	}
	if (o->transport == PERF_TRANSPORT_UD && !perf_engine_find(o->test)->ud) {
		fprintf(stderr, "rdx-perf: bad value 'ud' for --transport: test %s runs over RC only (UD carries send and echo)\n",
			o->test);
		return -EINVAL;
	}
	if (perf_transport_rpc(o->transport) && strcmp(o->test, "echo") != 0) {
		fprintf(stderr, "rdx-perf: bad value '%s' for --transport: lib/rpc carries --test echo only\n",
			perf_transport_name(o->transport));
		return -EINVAL;
	}
	if ((o->nb_mix > 0 || memcmp(&o->rpc, &(struct perf_rpc_knobs){0}, sizeof(o->rpc)) != 0) &&
	    !perf_transport_rpc(o->transport)) {
		fprintf(stderr, "rdx-perf: --mix and --rpc need --transport infrc, basic+infud or homa+infud\n");
		return -EINVAL;
	}
	if (perf_rpc_knobs_check(o) < 0)
		return -EINVAL;
	if (o->iters != 0 && o->duration != 0) {
		fprintf(stderr, "rdx-perf: -n and -D exclude each other\n");
		return -EINVAL;
	}
	/* the server measures nothing but, with -b, its own loop: the client
	 * writes the results and paces the run */
	if (o->server && o->wrlog != NULL) {
		fprintf(stderr, "rdx-perf: -o on --server: the per-WR log is the client's (give -o to --connect)\n");
		return -EINVAL;
	}
	if (o->server && !o->bidir && (o->json != NULL || o->csv != NULL)) {
		fprintf(stderr, "rdx-perf: %s on --server: without -b the server measures nothing (give it to --connect)\n",
			o->json != NULL ? "--json" : "--csv");
		return -EINVAL;
	}
	if (o->server && g->rate) {
		fprintf(stderr, "rdx-perf: --rate/--rate-sweep on --server: the client paces the run (give it to --connect)\n");
		return -EINVAL;
	}
	rc = unused_check(o, g);
	if (rc < 0)
		return rc;
	if (perf_outputs_distinct(o) < 0 || perf_output_check("--json", o->json) < 0 ||
	    perf_output_check("--csv", o->csv) < 0 || perf_output_check("-o", o->wrlog) < 0)
		return -EINVAL;
	return perf_opts_defaults(o, g);
}

/* Defaults that depend on the test and mode. */
int
perf_opts_defaults(struct perf_opts *o, const struct perf_opts_given *g)
{
	const struct rdx_perf_engine *e = perf_engine_find(o->test);
	bool lat = o->mode == PERF_MODE_LAT;
	int rc;

	o->default_window = !g->window && o->tsweep_lo == 0;
	o->default_sig = !g->sig_every;
	o->default_size = !g->sizes;
	o->default_qps = !g->qps && o->sweep_lo == 0;
	if (!g->sizes) {
		/* UD: one datagram, within any RoCE MTU */
		o->sizes[0] = e->atomic ? 8 : lat ? 8 :
			o->transport == PERF_TRANSPORT_UD ? 1024 : 65536;
		o->nb_sizes = 1;
	}
	if (e->atomic) {
		unsigned int i;

		for (i = 0; i < o->nb_sizes; i++)
			if (o->sizes[i] != 8) {
				fprintf(stderr, "rdx-perf: bad value '%" PRIu64 "' for -s: atomics are 8 bytes\n",
					o->sizes[i]);
				return -EINVAL;
			}
	}
	/* perftest's programs: -s 2 for latency; -n 5000 for ib_write_bw,
	 * 1000 for the others; -t 128 -Q 100 for bandwidth */
	if (o->perftest_form && lat && !g->sizes && !e->atomic)
		o->sizes[0] = 2;
	if (o->iters == 0 && o->duration == 0 && o->perftest_form)
		o->iters = !lat && strcmp(o->test, "write") == 0 ? 5000 : 1000;
	else if (o->iters == 0 && o->duration == 0)
		o->iters = lat ? 1000 : 5000;
	/* excluded warm-up: a tenth of -n up to 1000 ops; with -D 1000 ops too
	 * (the first ops of a run take tens of us: cold caches and TLB) */
	if (!g->warmup && o->duration == 0)
		o->warmup_iters = o->iters / 10 < 1000 ? o->iters / 10 : 1000;
	else if (!g->warmup)
		o->warmup_iters = 1000;
	if (lat)
		o->window = 1;
	else if (o->tsweep_lo != 0)
		o->window = o->tsweep_hi;   /* queues and slots for the largest step */
	else if (!g->window)
		o->window = o->perftest_form ? 128 : 64;
	/* what the engine sets differently (echo: sizes, window, QPs) */
	if (e->defaults != NULL) {
		rc = e->defaults(o, g);
		if (rc < 0)
			return rc;
	}
	/* --rate: every op is timed from its intended send time (no -Q) */
	if (!g->sig_every)
		o->sig_every = lat || g->rate ? 1 : o->perftest_form ? 100 : 16;
	/* a latency run signals every op and posts one at a time (echo: up
	 * to --concurrent-ops); a ping-pong signals every message */
	if (lat || e->loop[o->mode] == PERF_LOOP_PINGPONG)
		o->sig_every = 1;
	if (lat && strcmp(o->test, "echo") != 0)
		o->post_list = 1;
	if (o->sweep_lo == 0) {
		o->sweep_lo = o->qps;
		o->sweep_hi = o->qps;
	}
	/* --keys x --key-stride within one buffer of the plan's cap */
	for (unsigned int i = 0; i < o->nb_sizes; i++)
		if (perf_key_span(o, e->atomic ? 8 : o->sizes[i]) > PERF_REGION_CAP) {
			fprintf(stderr, "rdx-perf: --keys %u x --key-stride %" PRIu64 " spans %" PRIu64 " bytes at size %" PRIu64 ": at most %u (fewer keys or a smaller stride)\n",
				o->keys, perf_key_stride(o, o->sizes[i]),
				perf_key_span(o, e->atomic ? 8 : o->sizes[i]), o->sizes[i], PERF_REGION_CAP);
			return -EINVAL;
		}
	return 0;
}
