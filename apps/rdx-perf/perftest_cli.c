/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perftest's command lines: "rdx-perf ib_write_bw ARGS" or a link named
 * ib_write_bw (meson installs them in <prefix>/libexec/rdx/perftest/).
 * The program's name gives the test and the mode; the arguments are
 * perftest's (opts.c reads its letters); the EAL options come from the
 * environment variable RDX_EAL (default: what the runtime picks). opts.c
 * applies perftest's defaults in this form (--perftest-form): -t 128 -Q 100
 * for bandwidth, -s 2 for latency, -n 5000 for ib_write_bw and 1000 for
 * the others, a server when no host is given.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_app.h"
#include "perf_opts.h"

static const struct perftest_prog {
	const char *name;
	const char *test;       /* rdx-perf's --test; atomics: -A chooses */
	const char *mode;
} progs[] = {
	{ "ib_write_bw", "write", "bw" },
	{ "ib_write_lat", "write", "lat" },
	{ "ib_read_bw", "read", "bw" },
	{ "ib_read_lat", "read", "lat" },
	{ "ib_send_bw", "send", "bw" },
	{ "ib_send_lat", "send", "lat" },
	{ "ib_atomic_bw", NULL, "bw" },
	{ "ib_atomic_lat", NULL, "lat" },
};

#define NB_PROGS (sizeof(progs) / sizeof(progs[0]))
/* RDX_EAL: at most this many bytes and words */
#define EAL_ENV_MAX 1024
#define EAL_WORDS_MAX 64

static char eal_env[EAL_ENV_MAX];
static char *eal_words[EAL_WORDS_MAX + 2];

static const struct perftest_prog *
prog_find(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base != NULL ? base + 1 : path;
	for (i = 0; i < NB_PROGS; i++)
		if (strcmp(base, progs[i].name) == 0)
			return &progs[i];
	return NULL;
}

/* perftest's -A value: its atomic operation, as rdx-perf's test name. */
static const char *
atomic_test(const char *v)
{
	if (strcmp(v, "FETCH_AND_ADD") == 0)
		return "faa";
	if (strcmp(v, "CMP_AND_SWAP") == 0)
		return "cas";
	fprintf(stderr, "rdx-perf: bad value '%s' for -A: expected CMP_AND_SWAP or FETCH_AND_ADD\n", v);
	return NULL;
}

/* RDX_EAL split on blanks after argv0; unset or empty: argv0 alone. */
static int
eal_from_env(char *argv0, int *eal_argc, char ***eal_argv)
{
	const char *env = getenv("RDX_EAL");
	char *tok, *save = NULL;
	int n = 0;

	eal_words[n++] = argv0;
	if (env != NULL) {
		if (strlen(env) >= sizeof(eal_env)) {
			fprintf(stderr, "rdx-perf: RDX_EAL is longer than %d bytes\n", EAL_ENV_MAX - 1);
			return -EINVAL;
		}
		snprintf(eal_env, sizeof(eal_env), "%s", env);
		for (tok = strtok_r(eal_env, " \t\n", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (n > EAL_WORDS_MAX) {
				fprintf(stderr, "rdx-perf: RDX_EAL has more than %d words\n", EAL_WORDS_MAX);
				return -EINVAL;
			}
			eal_words[n++] = tok;
		}
	}
	eal_words[n] = NULL;
	*eal_argc = n;
	*eal_argv = eal_words;
	return 0;
}

int
perf_perftest_argv(int argc, char **argv, int *eal_argc, char ***eal_argv, int *app_argc,
		   char **app_argv, int cap)
{
	const struct perftest_prog *p = prog_find(argv[0]);
	const char *test, *atomic = "FETCH_AND_ADD";
	int first = 1, i, n = 0;

	if (p == NULL && argc > 1) {
		p = prog_find(argv[1]);
		/* "rdx-perf /x/ib_write_bw" is not the form: only the bare name */
		if (p != NULL && strchr(argv[1], '/') != NULL)
			p = NULL;
		first = 2;
	}
	if (p == NULL)
		return 0;
	if (eal_from_env(argv[0], eal_argc, eal_argv) < 0)
		return -EINVAL;
	/* the fixed words, then the user's, then NULL */
	if (argc - first + 7 > cap) {
		fprintf(stderr, "rdx-perf: %d arguments: at most %d\n", argc - first, cap - 7);
		return -EINVAL;
	}
	app_argv[n++] = (char *)(uintptr_t)p->name;
	app_argv[n++] = (char *)(uintptr_t)"--perftest-form";
	app_argv[n++] = (char *)(uintptr_t)"--test";
	n++; /* the test, once -A is read */
	app_argv[n++] = (char *)(uintptr_t)"--mode";
	app_argv[n++] = (char *)(uintptr_t)p->mode;
	for (i = first; i < argc; i++) {
		const char *a = argv[i], *v = NULL;

		if (strcmp(a, "--") == 0) {
			fprintf(stderr, "rdx-perf: %s takes perftest's options, no '--' (EAL options go in RDX_EAL)\n",
				p->name);
			return -EINVAL;
		}
		if (strcmp(a, "-A") == 0 || strcmp(a, "--atomic_type") == 0) {
			if (i + 1 == argc) {
				fprintf(stderr, "rdx-perf: %s needs a value (CMP_AND_SWAP or FETCH_AND_ADD)\n", a);
				return -EINVAL;
			}
			v = argv[++i];
		} else if (strncmp(a, "-A", 2) == 0) {
			v = a + 2;
		} else if (strncmp(a, "--atomic_type=", 14) == 0) {
			v = a + 14;
		}
		if (v == NULL) {
			app_argv[n++] = argv[i];
			continue;
		}
		if (p->test != NULL) {
			fprintf(stderr, "rdx-perf: -A applies to ib_atomic_bw and ib_atomic_lat, not %s\n",
				p->name);
			return -EINVAL;
		}
		atomic = v;
	}
	app_argv[n] = NULL;
	test = p->test;
	if (test == NULL) {
		test = atomic_test(atomic);
		if (test == NULL)
			return -EINVAL;
	}
	app_argv[3] = (char *)(uintptr_t)test;
	*app_argc = n;
	return 1;
}
