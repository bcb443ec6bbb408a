/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the rdx-perf option parser (apps/rdx-perf/opts.c,
 * compiled unchanged) fed with an argv made of the input's NUL-separated
 * strings ("rdx-perf" is argv[0]). perf_opts_parse never exits (main.c
 * does, on its return value), so no hook is needed. Checked: no crash or
 * sanitizer report, and an accepted command line gives options inside the
 * ranges the engines rely on.
 *
 * Harness side effects are contained: --json/--csv/-o make the parser
 * create (and remove) the named file, so the target runs in a private
 * temporary directory and '/' in the input becomes '_' (only plain names
 * there). The parser's one-line complaints go to a /dev/null stream; the
 * sanitizers still report on fd 2.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_app.h"
#include "perf_opts.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Engines: only name, atomic and the defaults hook are read by opts.c;
 * they register as the real ones do (engines.c keeps the registry). */
static const struct rdx_perf_engine fz_echo = { .name = "echo" };
static const struct rdx_perf_engine fz_write = { .name = "write" };
static const struct rdx_perf_engine fz_write_imm = { .name = "write_imm" };
static const struct rdx_perf_engine fz_read = { .name = "read" };
static const struct rdx_perf_engine fz_send = { .name = "send" };
static const struct rdx_perf_engine fz_cas = { .name = "cas", .atomic = true };
static const struct rdx_perf_engine fz_faa = { .name = "faa", .atomic = true };
PERF_ENGINE_REGISTER(fz_echo)
PERF_ENGINE_REGISTER(fz_write)
PERF_ENGINE_REGISTER(fz_write_imm)
PERF_ENGINE_REGISTER(fz_read)
PERF_ENGINE_REGISTER(fz_send)
PERF_ENGINE_REGISTER(fz_cas)
PERF_ENGINE_REGISTER(fz_faa)

#define FZ_MAX_ARGS 64

/* The run moves to a private directory: make libFuzzer's relative paths
 * (corpus directories, -dict=, -artifact_prefix= and its default "./")
 * absolute first; libFuzzer reads its arguments after this hook. */
static char *
abs_arg(const char *cwd, const char *arg)
{
	static const char *const path_flags[] = { "-dict=", "-artifact_prefix=",
		"-exact_artifact_path=", "-features_dir=" };
	const char *val = arg, *pre = "";
	size_t i, n;
	char *out;

	if (arg[0] == '-') {
		for (i = 0; i < sizeof(path_flags) / sizeof(path_flags[0]); i++)
			if (strncmp(arg, path_flags[i], strlen(path_flags[i])) == 0)
				break;
		if (i == sizeof(path_flags) / sizeof(path_flags[0]))
			return (char *)(uintptr_t)arg;
		pre = path_flags[i];
		val = arg + strlen(pre);
	}
	if (val[0] == '/')
		return (char *)(uintptr_t)arg;
	n = strlen(pre) + strlen(cwd) + strlen(val) + 2;
	out = malloc(n);
	if (out == NULL)
		abort();
	snprintf(out, n, "%s%s/%s", pre, cwd, val);
	return out;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char tmpl[] = "/tmp/rdx-fuzz-opts-XXXXXX";
	char cwd[4096];
	FILE *null = fopen("/dev/null", "w");
	char **nv;
	bool prefix = false;
	int i;

	if (getcwd(cwd, sizeof(cwd)) == NULL || null == NULL)
		abort();
	nv = calloc((size_t)*argc + 2, sizeof(*nv));
	if (nv == NULL)
		abort();
	for (i = 0; i < *argc; i++) {
		nv[i] = i == 0 ? (*argv)[0] : abs_arg(cwd, (*argv)[i]);
		prefix |= strncmp(nv[i], "-artifact_prefix=", 17) == 0;
	}
	if (!prefix)
		nv[i++] = abs_arg(cwd, "-artifact_prefix=");
	nv[i] = NULL;
	*argc = i;
	*argv = nv;
	if (mkdtemp(tmpl) == NULL || chdir(tmpl) != 0)
		abort();
	stderr = null;
	return 0;
}

static void
check(const struct perf_opts *o)
{
	if (o->test == NULL || perf_engine_find(o->test) == NULL)
		abort();
	if (o->nb_sizes == 0 || o->nb_sizes > PERF_MAX_SIZES)
		abort();
	for (unsigned int i = 0; i < o->nb_sizes; i++)
		if (o->sizes[i] == 0)
			abort();
	if (o->qps == 0 || o->window == 0 || o->post_list == 0 || o->sig_every == 0 ||
	    o->rx_depth == 0 || o->concurrent == 0 || o->servers == 0 || o->keys == 0)
		abort();
	if (o->sweep_lo == 0 || o->sweep_hi < o->sweep_lo)
		abort();
	if (o->iters == 0 && o->duration == 0)
		abort();
	if (o->mtu != 0 && (o->mtu < 256 || o->mtu > 4096 || (o->mtu & (o->mtu - 1)) != 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char prog[] = "rdx-perf";
	char *argv[FZ_MAX_ARGS + 2];
	struct perf_opts_given g;
	struct perf_opts o;
	char *buf;
	int argc = 1;
	size_t i, start = 0;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[0] = prog;
	for (i = 0; i <= size; i++) {
		if (buf[i] == '/')
			buf[i] = '_';
		if (buf[i] != '\0')
			continue;
		if (argc == FZ_MAX_ARGS)
			break;
		argv[argc++] = buf + start;
		start = i + 1;
	}
	argv[argc] = NULL;
	/* A fresh getopt for every run: an earlier parse may have stopped in
	 * the middle of a short-option cluster of a freed argv (optind = 0
	 * re-initialises glibc's getopt state, which optind = 1 does not). */
	optind = 0;
	(void)getopt(1, argv, "");
	/* --help and -V end the parse early: no options to check */
	if (perf_opts_parse(argc, argv, &o, &g) == 0 && !g.help && !g.version)
		check(&o);
	free(buf);
	return 0;
}
