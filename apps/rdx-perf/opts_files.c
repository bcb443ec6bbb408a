/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf options, the checks of values and files: the one-line refusal
 * of a bad value, output files writable before the run, distinct, and
 * --label's characters. opts.c and opts_sweep.c call these.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf_app.h"
#include "perf_opts.h"

/* One line whatever the value holds: control bytes shown as \xNN, and a
 * value longer than a line cut */
int
perf_opt_bad(const char *opt, const char *val, const char *why)
{
	char shown[200];
	size_t i, n = 0;

	for (i = 0; val[i] != '\0' && n + 8 < sizeof(shown); i++) {
		const unsigned char c = (unsigned char)val[i];

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(shown + n, sizeof(shown) - n, "\\x%02x", c);
		else
			shown[n++] = (char)c;
	}
	shown[n] = '\0';
	fprintf(stderr, "rdx-perf: bad value '%s%s' for %s: %s\n", shown,
		val[i] != '\0' ? "..." : "", opt, why);
	return -EINVAL;
}

/*
 * An output file must be writable before the run starts, not after it:
 * create it (or open an existing one for append, leaving it as it is) and
 * remove it again if this made it. -o files get suffixes; they go to the
 * same directory.
 */
int
perf_output_check(const char *opt, const char *path)
{
	struct stat st;
	bool existed;
	int fd;

	if (path == NULL)
		return 0;
	if (path[0] == '\0') {
		fprintf(stderr, "rdx-perf: bad value '' for %s: expected a file name\n", opt);
		return -EINVAL;
	}
	/* "--json --verify" took the next option as the file name */
	if (path[0] == '-') {
		fprintf(stderr, "rdx-perf: bad value '%s' for %s: expected a file name, not an option (./%s for a file so named)\n",
			path, opt, path);
		return -EINVAL;
	}
	existed = stat(path, &st) == 0;
	if (existed && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "rdx-perf: cannot write %s %s: it is a directory\n", opt, path);
		return -EINVAL;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "rdx-perf: cannot write %s %s: %s\n", opt, path, strerror(errno));
		return -EINVAL;
	}
	close(fd);
	if (!existed)
		unlink(path);
	return 0;
}

/* --label is one space-separated field of the -o log's header (rdx-flows
 * and rdx-plot name a flow by it) and a CSV/JSON value: no spaces, '=' or
 * control characters */
int
perf_label_check(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > PERF_LABEL_MAX)
		return perf_opt_bad("--label", s, "expected 1..64 characters");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("._-+:/@", c) != NULL))
			return perf_opt_bad("--label", s, "letters, digits and ._-+:/@ only (one field of the -o log header)");
	}
	return 0;
}

/* Two output options naming one file would overwrite each other. */
int
perf_outputs_distinct(const struct perf_opts *o)
{
	const char *names[3] = {"--json", "--csv", "-o"};
	const char *paths[3] = {o->json, o->csv, o->wrlog};
	unsigned int i, j;

	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (paths[i] != NULL && paths[j] != NULL && strcmp(paths[i], paths[j]) == 0) {
				fprintf(stderr, "rdx-perf: %s and %s name the same file %s\n",
					names[i], names[j], paths[i]);
				return -EINVAL;
			}
	return 0;
}
