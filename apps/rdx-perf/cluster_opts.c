/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf --pattern and --flows-start (doc/cluster.md): parsed here, before
 * opts.c sees the arguments, and the map of every rank's endpoints onto its
 * peers. Built with or without MPI: without it --pattern is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_mpi.h"

static const char *const pattern_names[] = {
	[PERF_PATTERN_NONE] = "none",
	[PERF_PATTERN_PAIRS] = "pairs",
	[PERF_PATTERN_INCAST] = "incast",
	[PERF_PATTERN_ONE_TO_MANY] = "one-to-many",
	[PERF_PATTERN_ALL_TO_ALL] = "all-to-all",
	[PERF_PATTERN_CLUSTERPERF] = "clusterperf",
};

const char *
perf_pattern_name(enum perf_pattern p)
{
	return (unsigned int)p < sizeof(pattern_names) / sizeof(pattern_names[0]) ?
		pattern_names[p] : "?";
}

static int
parse_pattern(const char *v, struct perf_mpi_opts *m)
{
	unsigned int p;

	for (p = PERF_PATTERN_PAIRS; p <= PERF_PATTERN_CLUSTERPERF; p++)
		if (strcmp(v, pattern_names[p]) == 0) {
			m->pattern = (enum perf_pattern)p;
			return 0;
		}
	fprintf(stderr, "rdx-perf: bad value '%s' for --pattern: expected pairs, incast, one-to-many, all-to-all or clusterperf\n",
		v);
	return -EINVAL;
}

static int
parse_flows(const char *v, struct perf_mpi_opts *m)
{
	char *end;
	unsigned long ms;

	if (strcmp(v, "together") == 0) {
		m->flows = PERF_FLOWS_TOGETHER;
		return 0;
	}
	if (strcmp(v, "staggered") == 0) {
		m->flows = PERF_FLOWS_STAGGERED;
		m->stagger_ms = 100;
		return 0;
	}
	if (strncmp(v, "staggered:", 10) == 0 && v[10] >= '0' && v[10] <= '9') {
		errno = 0;
		ms = strtoul(v + 10, &end, 10);
		if (errno == 0 && *end == '\0' && ms <= 60000) {
			m->flows = PERF_FLOWS_STAGGERED;
			m->stagger_ms = (uint32_t)ms;
			return 0;
		}
	}
	fprintf(stderr, "rdx-perf: bad value '%s' for --flows-start: expected together, staggered or staggered:MS (MS <= 60000)\n",
		v);
	return -EINVAL;
}

void
perf_mpi_usage(FILE *f)
{
	fprintf(f, "  --pattern pairs|incast|one-to-many|all-to-all   ranks launched by mpirun / srun --mpi=pmix%s\n"
		"  --pattern clusterperf                           lib/rpc's echo, basic.read/write: ranks 0..S-1 serve (--servers S);\n"
		"                                                  default --transport infrc --test echo\n"
		"  --flows-start together|staggered[:MS]           competing flows: shares, Jain's index (doc/cluster.md)\n",
#ifdef RDX_PERF_MPI
		""
#else
		" (not in this build: no MPI)"
#endif
		);
}

int
perf_mpi_opts_take(int *argc, char **argv, struct perf_mpi_opts *m)
{
	int i, o = 1, rc = 0;

	memset(m, 0, sizeof(*m));
	for (i = 1; i < *argc; i++)
		if (strncmp(argv[i], "--pattern", 9) == 0)
			m->wanted = true;
	for (i = 1; i < *argc && rc == 0; i++) {
		const char *a = argv[i], *v = NULL;
		bool pat = false, flows = false;

		if (strcmp(a, "--pattern") == 0 || strncmp(a, "--pattern=", 10) == 0)
			pat = true;
		else if (strcmp(a, "--flows-start") == 0 || strncmp(a, "--flows-start=", 14) == 0)
			flows = true;
		if (!pat && !flows) {
			argv[o++] = argv[i];
			continue;
		}
		v = strchr(a, '=');
		if (v != NULL) {
			v++;
		} else if (i + 1 < *argc) {
			v = argv[++i];
		} else {
			fprintf(stderr, "rdx-perf: option %s needs a value\n", a);
			return -EINVAL;
		}
		rc = pat ? parse_pattern(v, m) : parse_flows(v, m);
	}
	if (rc < 0)
		return rc;
	*argc = o;
	argv[o] = NULL;
	if (m->flows != PERF_FLOWS_OFF && m->pattern == PERF_PATTERN_NONE) {
		fprintf(stderr, "rdx-perf: --flows-start needs --pattern (ranks launched by mpirun)\n");
		return -EINVAL;
	}
#ifndef RDX_PERF_MPI
	if (m->pattern != PERF_PATTERN_NONE) {
		fprintf(stderr, "rdx-perf: --pattern needs the MPI bootstrap: this rdx-perf was built without MPI (install libopenmpi-dev, meson setup -Dmpi=enabled); --server/--connect pair two processes\n");
		return -EINVAL;
	}
#endif
	return 0;
}

int
perf_topo_check(enum perf_pattern p, int n, uint32_t t, char *err, size_t len)
{
	if (n < 2) {
		snprintf(err, len, "--pattern %s needs at least 2 ranks, mpirun started %d",
			 perf_pattern_name(p), n);
		return -EINVAL;
	}
	if (p == PERF_PATTERN_PAIRS && n % 2 != 0) {
		snprintf(err, len, "--pattern pairs needs an even number of ranks, mpirun started %d", n);
		return -EINVAL;
	}
	if ((p == PERF_PATTERN_ONE_TO_MANY || p == PERF_PATTERN_ALL_TO_ALL) &&
	    t < (uint32_t)(n - 1)) {
		snprintf(err, len, "--pattern %s deals a client's QPs over its %d servers: it needs at least %d QPs per rank (-q x lcores), has %u",
			 perf_pattern_name(p), n - 1, n - 1, t);
		return -EINVAL;
	}
	return 0;
}

void
perf_topo_counts(enum perf_pattern p, int n, uint32_t t, int r, uint32_t *ncli,
		    uint32_t *nsrv)
{
	uint32_t s = (uint32_t)n - 1;

	*ncli = 0;
	*nsrv = 0;
	switch (p) {
	case PERF_PATTERN_PAIRS:
		if (r < n / 2)
			*ncli = t;
		else
			*nsrv = t;
		break;
	case PERF_PATTERN_INCAST:
		if (r == 0)
			*nsrv = s * t;
		else
			*ncli = t;
		break;
	case PERF_PATTERN_ONE_TO_MANY:
		/* client endpoint i goes to server 1 + i % s */
		if (r == 0)
			*ncli = t;
		else
			*nsrv = (t + s - (uint32_t)r) / s;
		break;
	case PERF_PATTERN_ALL_TO_ALL:
		*ncli = t;
		*nsrv = t;
		break;
	default:
		break;
	}
}

struct perf_topo_ep
perf_topo_cli_peer(enum perf_pattern p, int n, uint32_t t, int r, uint32_t i)
{
	struct perf_topo_ep e = { -1, 0 };
	uint32_t s = (uint32_t)n - 1;

	switch (p) {
	case PERF_PATTERN_PAIRS:
		e.peer = r + n / 2;
		e.idx = i;
		break;
	case PERF_PATTERN_INCAST:
		e.peer = 0;
		e.idx = (uint32_t)(r - 1) * t + i;
		break;
	case PERF_PATTERN_ONE_TO_MANY:
		e.peer = 1 + (int)(i % s);
		e.idx = i / s;
		break;
	case PERF_PATTERN_ALL_TO_ALL:
		e.peer = (r + 1 + (int)(i % s)) % n;
		e.idx = i;
		break;
	default:
		break;
	}
	return e;
}

struct perf_topo_ep
perf_topo_srv_peer(enum perf_pattern p, int n, uint32_t t, int r, uint32_t j)
{
	struct perf_topo_ep e = { -1, 0 };
	uint32_t s = (uint32_t)n - 1;

	switch (p) {
	case PERF_PATTERN_PAIRS:
		e.peer = r - n / 2;
		e.idx = j;
		break;
	case PERF_PATTERN_INCAST:
		e.peer = 1 + (int)(j / t);
		e.idx = j % t;
		break;
	case PERF_PATTERN_ONE_TO_MANY:
		e.peer = 0;
		e.idx = j * s + (uint32_t)(r - 1);
		break;
	case PERF_PATTERN_ALL_TO_ALL:
		e.peer = (r + n - 1 - (int)(j % s)) % n;
		e.idx = j;
		break;
	default:
		break;
	}
	return e;
}

static bool
arg_given(int argc, char **argv, const char *opt)
{
	size_t n = strlen(opt);
	int i;

	for (i = 1; i < argc; i++)
		if (strncmp(argv[i], opt, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
			return true;
	return false;
}

int
perf_mpi_opts_defaults(int *argc, char **argv, int cap, const struct perf_mpi_opts *m)
{
	static char *const transport[] = { "--transport", "infrc" };
	static char *const test[] = { "--test", "echo" };
	bool tr, te;

	if (m->pattern != PERF_PATTERN_CLUSTERPERF)
		return 0;
	/* clusterperf's own defaults: its echo, over InfRc (RAMCloud's RC
	 * transport) */
	tr = !arg_given(*argc, argv, "--transport");
	te = !arg_given(*argc, argv, "--test");
	if (*argc + 2 * (tr + te) >= cap) {
		fprintf(stderr, "rdx-perf: too many arguments\n");
		return -EINVAL;
	}
	if (tr) {
		argv[(*argc)++] = transport[0];
		argv[(*argc)++] = transport[1];
	}
	if (te) {
		argv[(*argc)++] = test[0];
		argv[(*argc)++] = test[1];
	}
	argv[*argc] = NULL;
	return 0;
}
