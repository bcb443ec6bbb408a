/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of engines (one file each, registering itself), in the
 * order --help lists them. Adding an engine: its file and a line in
 * meson.build (doc/architecture.md, "How to add an engine").
 */
#include <stdio.h>
#include <string.h>

#include "perf_app.h"
#include "perf_opts.h"

const struct rdx_perf_engine *perf_engines[PERF_MAX_ENGINES];
unsigned int perf_nb_engines;

/* Called from each engine's constructor (PERF_ENGINE_REGISTER), before main. */
void
perf_engine_register(const struct rdx_perf_engine *e)
{
	if (perf_nb_engines == PERF_MAX_ENGINES) {
		fprintf(stderr, "rdx-perf: engine %s not registered: more than %u engines\n",
			e->name, PERF_MAX_ENGINES);
		return;
	}
	perf_engines[perf_nb_engines++] = e;
}

const struct rdx_perf_engine *
perf_engine_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < perf_nb_engines; i++)
		if (strcmp(perf_engines[i]->name, name) == 0)
			return perf_engines[i];
	return NULL;
}

/* "echo, write, ... or faa" (last = " or ") or "echo write ..." (sep = " "). */
void
perf_engine_names(char *buf, size_t len, const char *sep, const char *last)
{
	size_t n = 0;
	unsigned int i;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < perf_nb_engines && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s",
				      i == 0 ? "" : i + 1 == perf_nb_engines ? last : sep,
				      perf_engines[i]->name);
}
