/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The list of engines (one file each), in the order --help lists them.
 * Adding an engine: its file, a line in meson.build and one line in
 * PERF_ENGINE_LIST (doc/howto-engine.md).
 */
#include <stdio.h>
#include <string.h>

#include "perf_app.h"
#include "perf_opts.h"

/* One line per engine: its table is perf_engine_<name> in <name>.c. */
#define PERF_ENGINE_LIST(X) \
	X(echo)             \
	X(write)            \
	X(write_imm)        \
	X(read)             \
	X(send)             \
	X(cas)              \
	X(faa)

#define PERF_ENGINE_DECLARE(n) extern const struct rdx_perf_engine perf_engine_##n;
PERF_ENGINE_LIST(PERF_ENGINE_DECLARE)

#define PERF_ENGINE_ENTRY(n) &perf_engine_##n,
const struct rdx_perf_engine *const perf_engines[] = {
	PERF_ENGINE_LIST(PERF_ENGINE_ENTRY)
};
const unsigned int perf_nb_engines = sizeof(perf_engines) / sizeof(perf_engines[0]);

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
