/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf's perftest compatibility (apps/rdx-perf/opts_compat.c): the
 * refused perftest flags, --output, the rate parsers and the checks made
 * once every option is read. The engines are stand-ins registered as the
 * real ones do (only name, atomic, server_recv and req_size are read here).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rdx_ut.h"

#include "../../../apps/rdx-perf/opts_compat.c"

static const struct rdx_perf_engine ut_write = { .name = "write" };
static const struct rdx_perf_engine ut_send = { .name = "send", .server_recv = true, .ud = true };
static const struct rdx_perf_engine ut_faa = { .name = "faa", .atomic = true };
static const struct rdx_perf_engine ut_read = { .name = "read" };
static const struct rdx_perf_engine ut_write_imm = { .name = "write_imm", .server_recv = true };
static const struct rdx_perf_engine ut_echo = { .name = "echo", .req_size = PERF_ECHO_REQ };
PERF_ENGINE_REGISTER(ut_write)
PERF_ENGINE_REGISTER(ut_send)
PERF_ENGINE_REGISTER(ut_faa)
PERF_ENGINE_REGISTER(ut_read)
PERF_ENGINE_REGISTER(ut_write_imm)
PERF_ENGINE_REGISTER(ut_echo)

static void
opts_init(struct perf_opts *o, struct perf_opts_given *g, const char *test)
{
	memset(o, 0, sizeof(*o));
	memset(g, 0, sizeof(*g));
	o->test = test;
	o->mode = PERF_MODE_BW;
	o->port = 18515;
	o->gid_index = -1;
}

static void
test_refused(void)
{
	struct option lo[NB_REFUSED + 1];
	char shorts[128];
	size_t n, i;

	n = perf_compat_long_opts(lo, NB_REFUSED + 1);
	CU_ASSERT_EQUAL(n, NB_REFUSED);
	CU_ASSERT_EQUAL(perf_compat_long_opts(lo, 3), 3);
	perf_compat_short_opts(shorts, sizeof(shorts));
	/* perftest's letters with their arity: -A takes a value, -C none */
	CU_ASSERT(strstr(shorts, "A:") != NULL);
	CU_ASSERT(strstr(shorts, "C") != NULL && strstr(shorts, "C:") == NULL);
	/* none of rdx-perf's own letters is refused */
	for (i = 0; shorts[i] != '\0'; i++)
		CU_ASSERT(strchr("sanDqtlIQemrpohdixcFbRV", shorts[i]) == NULL || shorts[i] == ':');
	/* a short letter and a long option (by its value) are refused */
	CU_ASSERT_EQUAL(perf_compat_refuse('C'), -EINVAL);
	CU_ASSERT_EQUAL(perf_compat_refuse('H'), -EINVAL);
	for (i = 0; i < n; i++)
		CU_ASSERT_EQUAL(perf_compat_refuse(lo[i].val), -EINVAL);
	/* anything else is not ours to refuse */
	CU_ASSERT_EQUAL(perf_compat_refuse('s'), 0);
	CU_ASSERT_EQUAL(perf_compat_refuse('?'), 0);
	CU_ASSERT_EQUAL(perf_compat_refuse(PERF_OPT_REFUSED + (int)NB_REFUSED), 0);
	/* a tiny buffer: no overflow, still terminated */
	CU_ASSERT_EQUAL(perf_compat_short_opts(shorts, 4) < 4, 1);
	CU_ASSERT_EQUAL(shorts[strlen(shorts)], '\0');
}

static void
test_output(void)
{
	enum perf_output out = PERF_OUTPUT_TABLE;

	CU_ASSERT(perf_parse_output("bandwidth", &out) == 0 && out == PERF_OUTPUT_BW);
	CU_ASSERT(perf_parse_output("latency", &out) == 0 && out == PERF_OUTPUT_LAT);
	CU_ASSERT(perf_parse_output("message_rate", &out) == 0 && out == PERF_OUTPUT_MSG_RATE);
	CU_ASSERT_EQUAL(perf_parse_output("bw", &out), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_output("", &out), -EINVAL);
	CU_ASSERT_EQUAL(out, PERF_OUTPUT_MSG_RATE);
}

static void
test_rates(void)
{
	double r = 0, rs[PERF_MAX_RATES];
	unsigned int n = 0;
	char many[512];
	size_t l = 0;
	int i;

	CU_ASSERT(perf_parse_rate("--rate", "20K", &r) == 0 && r == 20000);
	CU_ASSERT(perf_parse_rate("--rate", "1.5M", &r) == 0 && r == 1.5e6);
	CU_ASSERT(perf_parse_rate("--rate", "7", &r) == 0 && r == 7);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "0", &r), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "-5", &r), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "1x", &r), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "", &r), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "2G", &r), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "nan", &r), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "inf", &r), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rate("--rate", "1e10", &r), -EINVAL);
	CU_ASSERT_EQUAL(r, 7);
	CU_ASSERT(perf_parse_rates("10K,50K,100K", rs, &n) == 0 && n == 3 && rs[2] == 1e5);
	CU_ASSERT_EQUAL(perf_parse_rates("10K,,20K", rs, &n), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rates("10K,", rs, &n), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rates("20K,10K", rs, &n), -EINVAL);
	CU_ASSERT_EQUAL(perf_parse_rates("10K,10K", rs, &n), -EINVAL);
	for (i = 1; i <= PERF_MAX_RATES + 1; i++)
		l += (size_t)snprintf(many + l, sizeof(many) - l, "%s%d", i > 1 ? "," : "", i);
	CU_ASSERT_EQUAL(perf_parse_rates(many, rs, &n), -EINVAL);
	memset(many, '1', sizeof(many) - 1);
	many[sizeof(many) - 1] = '\0';
	CU_ASSERT_EQUAL(perf_parse_rates(many, rs, &n), -EINVAL);
}

static void
test_check(void)
{
	struct perf_opts o;
	struct perf_opts_given g;

	/* HOST without :PORT takes -p; HOST:PORT and [v6]:PORT are left alone */
	opts_init(&o, &g, "write");
	o.connect = "server1";
	o.port = 1234;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	CU_ASSERT_STRING_EQUAL(o.connect, "server1:1234");
	opts_init(&o, &g, "write");
	o.connect = "h:5";
	CU_ASSERT(perf_opts_compat_check(&o, &g) == 0 && strcmp(o.connect, "h:5") == 0);
	opts_init(&o, &g, "write");
	o.connect = "[::1]:5";
	CU_ASSERT(perf_opts_compat_check(&o, &g) == 0 && strcmp(o.connect, "[::1]:5") == 0);
	/* -R: two processes, RC; --source_ip only with -R */
	opts_init(&o, &g, "write");
	o.rdma_cm = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.server = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	o.source_ip = "10.0.0.1";
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	o.transport = PERF_TRANSPORT_UD;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	opts_init(&o, &g, "write");
	o.rdma_cm = true;
	o.connect = "server1";
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	opts_init(&o, &g, "write");
	o.server = true;
	o.source_ip = "10.0.0.1";
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	/* -b: bw, one process, one-sided tests */
	opts_init(&o, &g, "write");
	o.bidir = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	o.mode = PERF_MODE_LAT;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.mode = PERF_MODE_BW;
	/* -b across two processes: write, read, send, write_imm */
	o.server = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	opts_init(&o, &g, "send");
	o.bidir = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);  /* one process */
	o.connect = "host1:18515";
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	opts_init(&o, &g, "write_imm");
	o.bidir = true;
	o.server = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	opts_init(&o, &g, "read");
	o.bidir = true;
	o.connect = "host1:18515";
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	o.transport = PERF_TRANSPORT_UD;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.transport = PERF_TRANSPORT_RC;
	o.sweep_hi = 4;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.sweep_hi = o.sweep_lo;
	o.rate = 1000;
	g.rate = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.rate = 0;
	g.rate = false;
	o.infinite = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.infinite = false;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	opts_init(&o, &g, "faa");
	o.bidir = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.server = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	opts_init(&o, &g, "echo");
	o.bidir = true;
	o.server = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	/* --rate: not with --rate-sweep, every WR signaled, RC only */
	opts_init(&o, &g, "write");
	o.rate = 1000;
	g.rate = true;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	o.nb_rates = 1;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.nb_rates = 0;
	g.sig_every = true;
	o.sig_every = 16;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.sig_every = 1;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	opts_init(&o, &g, "send");
	o.rate = 1000;
	g.rate = true;
	o.transport = PERF_TRANSPORT_UD;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	/* --output as perftest: latency for latency runs, bandwidth and
	 * message_rate for (closed-loop) bandwidth runs */
	opts_init(&o, &g, "write");
	o.output = PERF_OUTPUT_LAT;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	g.rate = true;
	o.rate = 10;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	o.output = PERF_OUTPUT_BW;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	opts_init(&o, &g, "write");
	o.output = PERF_OUTPUT_MSG_RATE;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	o.mode = PERF_MODE_LAT;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.output = PERF_OUTPUT_LAT;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), 0);
	/* --run_infinitely: -D 5 by default, not with -n or several runs */
	opts_init(&o, &g, "write");
	o.infinite = true;
	o.nb_sizes = 1;
	CU_ASSERT(perf_opts_compat_check(&o, &g) == 0 && o.duration == 5);
	o.duration = 0.5;
	CU_ASSERT(perf_opts_compat_check(&o, &g) == 0 && o.duration == 0.5);
	o.iters = 10;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.iters = 0;
	o.nb_sizes = 2;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
	o.nb_sizes = 1;
	o.sweep_lo = 1;
	o.sweep_hi = 4;
	CU_ASSERT_EQUAL(perf_opts_compat_check(&o, &g), -EINVAL);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "perftest flags refused by name", test_refused },
		{ "--output values", test_output },
		{ "--rate and --rate-sweep", test_rates },
		{ "checks once every option is read", test_check },
		{ NULL, NULL },
	};

	return rdx_ut_run("opts_compat", cases, NULL, NULL);
}
