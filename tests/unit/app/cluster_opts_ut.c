/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf --pattern (apps/rdx-perf/cluster_opts.c): the options taken out
 * of the app's arguments, and the map of every rank's endpoints onto its
 * peers: each client endpoint reaches a server endpoint that maps back to
 * it, every server endpoint is reached exactly once, and the counts that do
 * not fit a pattern are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_ut.h"

#define RDX_PERF_MPI 1  /* as built with MPI: --pattern is accepted */
#include "../../../apps/rdx-perf/cluster_opts.c"

static int
take(const char *line, struct perf_mpi_opts *m, int *argc, char **argv)
{
	static char buf[512];
	char *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "rdx-perf %s", line);
	*argc = 0;
	for (tok = strtok_r(buf, " ", &save); tok != NULL; tok = strtok_r(NULL, " ", &save))
		argv[(*argc)++] = tok;
	argv[*argc] = NULL;
	return perf_mpi_opts_take(argc, argv, m);
}

/* --pattern clusterperf's defaults: --transport infrc and --test echo when
 * not given; another pattern, or an option given, is left as it is */
static void
test_clusterperf_defaults(void)
{
	struct perf_mpi_opts m;
	char *argv[32];
	int argc;

	CU_ASSERT_EQUAL(take("--pattern clusterperf -n 10", &m, &argc, argv), 0);
	CU_ASSERT_EQUAL(perf_mpi_opts_defaults(&argc, argv, 32, &m), 0);
	CU_ASSERT_EQUAL(argc, 7);
	CU_ASSERT_STRING_EQUAL(argv[3], "--transport");
	CU_ASSERT_STRING_EQUAL(argv[4], "infrc");
	CU_ASSERT_STRING_EQUAL(argv[5], "--test");
	CU_ASSERT_STRING_EQUAL(argv[6], "echo");
	CU_ASSERT_PTR_NULL(argv[7]);
	CU_ASSERT_EQUAL(take("--pattern=clusterperf --transport=homa+infud --test basic.read", &m,
			     &argc, argv), 0);
	CU_ASSERT_EQUAL(perf_mpi_opts_defaults(&argc, argv, 32, &m), 0);
	CU_ASSERT_EQUAL(argc, 4);
	CU_ASSERT_EQUAL(take("--pattern incast", &m, &argc, argv), 0);
	CU_ASSERT_EQUAL(perf_mpi_opts_defaults(&argc, argv, 32, &m), 0);
	CU_ASSERT_EQUAL(argc, 1);
	/* no room: one line, -EINVAL */
	CU_ASSERT_EQUAL(take("--pattern clusterperf", &m, &argc, argv), 0);
	CU_ASSERT_EQUAL(perf_mpi_opts_defaults(&argc, argv, 3, &m), -EINVAL);
}

static void
test_take(void)
{
	struct perf_mpi_opts m;
	char *argv[32];
	int argc;

	CU_ASSERT_EQUAL(take("--test write --pattern incast -q 2", &m, &argc, argv), 0);
	CU_ASSERT_EQUAL(m.pattern, PERF_PATTERN_INCAST);
	CU_ASSERT(m.wanted);
	CU_ASSERT_EQUAL(m.flows, PERF_FLOWS_OFF);
	/* the rest is left for opts.c, in order */
	CU_ASSERT_EQUAL(argc, 5);
	CU_ASSERT_STRING_EQUAL(argv[2], "write");
	CU_ASSERT_STRING_EQUAL(argv[3], "-q");
	CU_ASSERT_PTR_NULL(argv[5]);
	CU_ASSERT_EQUAL(take("--pattern=all-to-all --flows-start staggered:250", &m, &argc, argv), 0);
	CU_ASSERT_EQUAL(m.pattern, PERF_PATTERN_ALL_TO_ALL);
	CU_ASSERT_EQUAL(m.flows, PERF_FLOWS_STAGGERED);
	CU_ASSERT_EQUAL(m.stagger_ms, 250);
	CU_ASSERT_EQUAL(argc, 1);
	CU_ASSERT_EQUAL(take("--pattern pairs --flows-start=staggered", &m, &argc, argv), 0);
	CU_ASSERT_EQUAL(m.stagger_ms, 100);
	CU_ASSERT_EQUAL(take("--test echo", &m, &argc, argv), 0);
	CU_ASSERT_EQUAL(m.pattern, PERF_PATTERN_NONE);
	CU_ASSERT(!m.wanted);
	CU_ASSERT_EQUAL(argc, 3);
	/* bad values: -EINVAL, and --pattern was still wanted (exit 2 on every rank) */
	CU_ASSERT_EQUAL(take("--pattern ring", &m, &argc, argv), -EINVAL);
	CU_ASSERT(m.wanted);
	CU_ASSERT_EQUAL(take("--pattern", &m, &argc, argv), -EINVAL);
	CU_ASSERT_EQUAL(take("--pattern pairs --flows-start later", &m, &argc, argv), -EINVAL);
	CU_ASSERT_EQUAL(take("--pattern pairs --flows-start staggered:x", &m, &argc, argv), -EINVAL);
	CU_ASSERT_EQUAL(take("--pattern pairs --flows-start staggered:60001", &m, &argc, argv), -EINVAL);
	CU_ASSERT_EQUAL(take("--flows-start together", &m, &argc, argv), -EINVAL);
	CU_ASSERT_STRING_EQUAL(perf_pattern_name(PERF_PATTERN_ONE_TO_MANY), "one-to-many");
}

static void
test_check(void)
{
	char err[256];

	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_PAIRS, 1, 1, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "at least 2 ranks"));
	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_PAIRS, 3, 1, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "even number"));
	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_PAIRS, 4, 1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_INCAST, 9, 1, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_ONE_TO_MANY, 4, 2, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "at least 3 QPs"));
	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_ONE_TO_MANY, 4, 3, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_ALL_TO_ALL, 5, 3, err, sizeof(err)), -EINVAL);
	CU_ASSERT_EQUAL(perf_topo_check(PERF_PATTERN_ALL_TO_ALL, 5, 4, err, sizeof(err)), 0);
}

/* Every fitting (pattern, n, t): the map is a bijection between client and
 * server endpoints, both directions agree, and a client with at least n - 1
 * endpoints in one-to-many / all-to-all reaches every other rank. */
static void
test_map(void)
{
	enum perf_pattern p;
	int n, r;
	uint32_t t, i;
	char err[256];
	unsigned int checked = 0;

	for (p = PERF_PATTERN_PAIRS; p <= PERF_PATTERN_ALL_TO_ALL; p++)
		for (n = 2; n <= 9; n++)
			for (t = 1; t <= 7; t++) {
				uint32_t nc, ns, tot_c = 0, tot_s = 0;
				unsigned int *hits[9] = { NULL };

				if (perf_topo_check(p, n, t, err, sizeof(err)) < 0)
					continue;
				for (r = 0; r < n; r++) {
					perf_topo_counts(p, n, t, r, &nc, &ns);
					CU_ASSERT(nc == 0 || nc == t);
					tot_c += nc;
					tot_s += ns;
					hits[r] = calloc(ns + 1, sizeof(unsigned int));
				}
				CU_ASSERT_EQUAL(tot_c, tot_s);
				for (r = 0; r < n; r++) {
					bool *seen = calloc((size_t)n, sizeof(bool));

					perf_topo_counts(p, n, t, r, &nc, &ns);
					for (i = 0; i < nc; i++) {
						struct perf_topo_ep e = perf_topo_cli_peer(p, n, t, r, i);
						struct perf_topo_ep b;
						uint32_t pc, psv;

						CU_ASSERT_FATAL(e.peer >= 0 && e.peer < n && e.peer != r);
						perf_topo_counts(p, n, t, e.peer, &pc, &psv);
						CU_ASSERT_FATAL(e.idx < psv);
						hits[e.peer][e.idx]++;
						seen[e.peer] = true;
						b = perf_topo_srv_peer(p, n, t, e.peer, e.idx);
						CU_ASSERT_EQUAL(b.peer, r);
						CU_ASSERT_EQUAL(b.idx, i);
					}
					if (nc > 0 && (p == PERF_PATTERN_ONE_TO_MANY ||
						       p == PERF_PATTERN_ALL_TO_ALL)) {
						int q;

						for (q = 0; q < n; q++)
							CU_ASSERT(q == r || seen[q]);
					}
					free(seen);
				}
				for (r = 0; r < n; r++) {
					perf_topo_counts(p, n, t, r, &nc, &ns);
					for (i = 0; i < ns; i++)
						CU_ASSERT_EQUAL(hits[r][i], 1);
					free(hits[r]);
				}
				checked++;
			}
	/* pairs: n even; incast: all; the others: t >= n - 1 */
	CU_ASSERT(checked > 100);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "--pattern and --flows-start taken from the arguments", test_take },
		{ "--pattern clusterperf's default transport and test", test_clusterperf_defaults },
		{ "counts that do not fit a pattern", test_check },
		{ "every endpoint maps onto its peer and back", test_map },
		{ NULL, NULL },
	};

	return rdx_ut_run("cluster_opts", cases, NULL, NULL);
}
