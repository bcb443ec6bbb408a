/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU time from /proc/stat (rdx_cpu.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdx_cpu.h"

/* "cpuN a b c ..." (or "cpu a b c" when *cpu is -1): the columns after the
 * name; fewer than four (user nice system idle) do not parse. */
static int
cpu_line_parse(const char *line, long *cpu, struct rdx_cpu_times *t)
{
	uint64_t v[8] = { 0 };
	const char *p = line + 3;
	char *end;
	int n;

	if (strncmp(line, "cpu", 3) != 0)
		return -EINVAL;
	if (*p == ' ') {
		*cpu = -1;
	} else {
		errno = 0;
		*cpu = strtol(p, &end, 10);
		if (end == p || errno != 0 || *cpu < 0 || *end != ' ')
			return -EINVAL;
		p = end;
	}
	for (n = 0; n < 8; n++) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		errno = 0;
		v[n] = strtoull(p, &end, 10);
		if (errno != 0)
			return -EINVAL;
		p = end;
	}
	if (n < 4)
		return -EINVAL;
	t->user = v[0];
	t->nice = v[1];
	t->system = v[2];
	t->idle = v[3];
	t->iowait = v[4];
	t->irq = v[5];
	t->softirq = v[6];
	t->steal = v[7];
	return 0;
}

static void
cpu_times_add(struct rdx_cpu_times *s, const struct rdx_cpu_times *t)
{
	s->user += t->user;
	s->nice += t->nice;
	s->system += t->system;
	s->idle += t->idle;
	s->iowait += t->iowait;
	s->irq += t->irq;
	s->softirq += t->softirq;
	s->steal += t->steal;
}

int
rdx_cpu_times_read(const char *path, const cpu_set_t *cpus, struct rdx_cpu_times *out)
{
	struct rdx_cpu_times t;
	char line[512];
	int want = cpus != NULL ? CPU_COUNT(cpus) : 1, found = 0, rc = 0;
	FILE *f;

	if (out == NULL || want == 0)
		return -EINVAL;
	f = fopen(path != NULL ? path : "/proc/stat", "re");
	if (f == NULL)
		return -errno;
	memset(out, 0, sizeof(*out));
	while (found < want && fgets(line, sizeof(line), f) != NULL) {
		long cpu;

		if (strncmp(line, "cpu", 3) != 0)
			continue;
		if (cpu_line_parse(line, &cpu, &t) < 0) {
			rc = -EINVAL;
			break;
		}
		if (cpus == NULL ? cpu != -1 :
		    cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET((size_t)cpu, cpus))
			continue;
		cpu_times_add(out, &t);
		found++;
	}
	fclose(f);
	if (rc == 0 && found < want)
		rc = -EINVAL;
	return rc;
}

double
rdx_cpu_util_pct(const struct rdx_cpu_times *before, const struct rdx_cpu_times *after)
{
	uint64_t user, idle;

	if (before == NULL || after == NULL || after->user < before->user ||
	    after->idle < before->idle)
		return -1;
	user = after->user - before->user;
	idle = after->idle - before->idle;
	if (user + idle == 0)
		return -1;
	return 100.0 * (double)user / (double)(user + idle);
}
