/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-selfcheck's device reports: the rows the checks add, the verdict
 * table and the JSON report main.c prints. Below both main.c and the
 * checks, which only call down into it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rdx_config.h"
#include "selfcheck.h"

static const char *const sc_verdict_name[] = { "PASS", "FAIL", "skip" };

struct sc_row *
sc_row_add(struct sc_dev_report *r, const char *check, enum sc_verdict v, const char *fmt, ...)
{
	static struct sc_row spill;
	struct sc_row *row = r->nb_rows < SC_MAX_ROWS ? &r->rows[r->nb_rows++] : &spill;
	va_list ap;

	json_decref(row->data);
	memset(row, 0, sizeof(*row));
	snprintf(row->check, sizeof(row->check), "%s", check);
	row->verdict = v;
	va_start(ap, fmt);
	vsnprintf(row->detail, sizeof(row->detail), fmt, ap);
	va_end(ap);
	return row;
}

unsigned int
sc_failed(const struct sc_dev_report *r)
{
	unsigned int k, n = 0;

	for (k = 0; k < r->nb_rows; k++)
		n += r->rows[k].verdict == SC_FAIL;
	return n;
}

void
sc_table(const struct sc_dev_report *r)
{
	unsigned int k;

	printf("device %s (driver %s%s)\n", r->name, r->driver[0] ? r->driver : "?",
	       r->software ? ", software device" : "");
	for (k = 0; k < r->nb_rows; k++)
		printf("  %-16s %-4s  %s\n", r->rows[k].check, sc_verdict_name[r->rows[k].verdict],
		       r->rows[k].detail);
}

json_t *
sc_json(const struct sc_dev_report *reps, unsigned int n, unsigned int failed)
{
	json_t *root, *devs = json_array();
	unsigned int d, k;

	for (d = 0; d < n; d++) {
		const struct sc_dev_report *r = &reps[d];
		json_t *rows = json_array();

		for (k = 0; k < r->nb_rows; k++) {
			json_t *row = json_pack("{s:s, s:s, s:s}", "check", r->rows[k].check,
						"verdict", r->rows[k].verdict == SC_PASS ? "pass" :
						r->rows[k].verdict == SC_FAIL ? "fail" : "skip",
						"detail", r->rows[k].detail);

			if (r->rows[k].data != NULL)
				json_object_set(row, "data", r->rows[k].data);
			json_array_append_new(rows, row);
		}
		json_array_append_new(devs, json_pack("{s:s, s:s, s:b, s:s, s:O?, s:o}",
			"name", r->name, "driver", r->driver, "software", r->software,
			"verdict", sc_failed(r) == 0 ? "pass" : "fail", "card", r->card,
			"checks", rows));
	}
	root = json_pack("{s:s, s:s, s:i, s:s, s:o}", "tool", "rdx-selfcheck",
			 "version", RDX_VERSION_STR, "format", 1,
			 "verdict", failed == 0 ? "pass" : "fail", "devices", devs);
	return root;
}

void
sc_report_free(struct sc_dev_report *r)
{
	unsigned int k;

	json_decref(r->card);
	for (k = 0; k < r->nb_rows; k++)
		json_decref(r->rows[k].data);
}
