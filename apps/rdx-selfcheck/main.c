/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-selfcheck: one command that says whether rdx's direct path is right
 * on this machine's RDMA devices, and if not, where (doc/getting-started.md,
 * "On a machine with a ConnectX NIC"). For each device: what the card is,
 * the WQE bytes rdx writes against libmlx5's (mlx5) or the model's (the
 * software device), completions of every op on loopback RC and UD pairs
 * (and the same through the verbs driver on mlx5), doorbells from several
 * lcores. A verdict table on stdout, a JSON report with --json; exit 0 only
 * if every check passed (2: bad input).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "rdx_config.h"
#include "rdx_runtime.h"
#include "selfcheck.h"

#define SC_MAX_DEVS 16

static int
usage(FILE *out, int rc)
{
	fprintf(out,
		"usage: rdx-selfcheck [EAL options --] [--dev NAME]... [--json FILE] [--db-wrs N]\n"
		"  --dev NAME   a device to check (repeatable): an RDMA device (mlx5_0, rxe0)\n"
		"               or \"sw\", the software device; default: every RDMA device\n"
		"               present, or \"sw\" when there is none\n"
		"  --json FILE  write the JSON report there (\"-\": stdout, after the table)\n"
		"  --db-wrs N   WRs each posting lcore sends in the doorbell check (default 4096)\n"
		"Give EAL several lcores (-l 0-3 --) for the doorbell check to post from several.\n"
		"Exit status: 0 every check passed, 1 one failed, 2 bad input.\n");
	return rc;
}

static int
sc_parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Run every check on one device into r. */
static void
sc_device(const char *name, const struct sc_opts *o, struct sc_dev_report *r)
{
	struct rdx_dev_conf dc = { .quiet = true };
	const struct rdx_dev_attr *a;
	struct rdx_dev *dev;

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%.63s", name);
	dev = rdx_dev_open(name, &dc);
	if (dev == NULL) {
		sc_row_add(r, "open", SC_FAIL, "cannot open %s: %s", name, rte_strerror(rte_errno));
		return;
	}
	a = rdx_dev_attr_get(dev);
	snprintf(r->driver, sizeof(r->driver), "%s", a->driver);
	r->software = a->software;
	sc_card_check(dev, r);
	sc_wqe_check(dev, o, r);
	sc_cqe_check(dev, name, r);
	sc_db_check(dev, o, r);
	rdx_dev_close(dev);
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"dev", required_argument, NULL, 'd'},
		{"json", required_argument, NULL, 'j'},
		{"db-wrs", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		/* test-only (tests/func/selfcheck.sh): flip one byte of every
		 * WQE read back from rdx's ring, to show a wrong byte is caught
		 * and named; not in --help */
		{"test-wqe-flip", required_argument, NULL, 'F'},
		{NULL, 0, NULL, 0},
	};
	static struct sc_dev_report reps[SC_MAX_DEVS];
	struct sc_opts o = { .test_wqe_flip = -1, .db_wrs = 4096 };
	char names[SC_MAX_DEVS][64];
	const char *json_path = NULL;
	unsigned int nb = 0, d, failed = 0;
	uint32_t v;
	int c, ret, k, n;

	for (k = 1; k < argc; k++)
		if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0)
			return usage(stdout, 0);
	/* EAL takes what comes before "--" (nothing when there is none) */
	for (k = 1; k < argc && strcmp(argv[k], "--") != 0; k++)
		;
	if (k < argc) {
		ret = rdx_runtime_init(argc, argv);
		if (ret < 0)
			return ret == -EINVAL ? 2 : 1;
		argc -= ret;
		argv += ret;
	} else {
		char *eal_argv[2] = { argv[0], NULL };

		ret = rdx_runtime_init(1, eal_argv);
		if (ret < 0)
			return ret == -EINVAL ? 2 : 1;
	}
	while ((c = getopt_long(argc, argv, "d:j:w:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (nb >= SC_MAX_DEVS) {
				fprintf(stderr, "rdx-selfcheck: at most %d --dev\n", SC_MAX_DEVS);
				return 2;
			}
			snprintf(names[nb++], sizeof(names[0]), "%s", optarg);
			break;
		case 'j':
			json_path = optarg;
			break;
		case 'w':
			if (sc_parse_u32(optarg, 1, 1u << 24, &o.db_wrs) < 0) {
				fprintf(stderr, "rdx-selfcheck: bad value '%s' for --db-wrs: 1..16777216\n", optarg);
				return 2;
			}
			break;
		case 'F':
			if (sc_parse_u32(optarg, 0, 1023, &v) < 0) {
				fprintf(stderr, "rdx-selfcheck: bad value '%s' for --test-wqe-flip: 0..1023\n", optarg);
				return 2;
			}
			o.test_wqe_flip = (int)v;
			break;
		case 'h':
			return usage(stdout, 0);
		default: {
			/* getopt named the option; an EAL one is on the wrong side */
			char shortopt[3] = { '-', (char)optopt, '\0' };
			const char *bad = optopt != 0 ? shortopt : argv[optind - 1];

			if (rdx_runtime_is_eal_option(bad))
				fprintf(stderr, "rdx-selfcheck: EAL options go before \"--\": "
					"rdx-selfcheck %s ... -- [options]\n", bad);
			else
				fprintf(stderr, "rdx-selfcheck: try --help\n");
			return 2;
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rdx-selfcheck: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (nb == 0) {
		n = rdx_dev_list(names, SC_MAX_DEVS);
		nb = n > SC_MAX_DEVS ? SC_MAX_DEVS : (unsigned int)n;
		if (nb == 0) {
			printf("rdx-selfcheck: no RDMA device here: checking the software device\n");
			snprintf(names[nb++], sizeof(names[0]), "sw");
		}
	}
	if (o.test_wqe_flip >= 0)
		printf("rdx-selfcheck: test mode: byte %d of every WQE read back is flipped\n",
		       o.test_wqe_flip);
	for (d = 0; d < nb; d++) {
		sc_device(names[d], &o, &reps[d]);
		sc_table(&reps[d]);
		failed += sc_failed(&reps[d]);
	}
	printf("verdict: %s (%u device%s, %u failed check%s)\n", failed == 0 ? "PASS" : "FAIL",
	       nb, nb == 1 ? "" : "s", failed, failed == 1 ? "" : "s");
	if (json_path != NULL) {
		json_t *root = sc_json(reps, nb, failed);
		int jrc, err;

		errno = 0;
		jrc = root == NULL ? -1 : strcmp(json_path, "-") == 0 ?
			json_dumpf(root, stdout, JSON_INDENT(2)) :
			json_dump_file(root, json_path, JSON_INDENT(2));
		err = errno;
		json_decref(root);
		if (jrc != 0) {
			fprintf(stderr, "rdx-selfcheck: cannot write the JSON report to %s: %s\n",
				json_path, err != 0 ? strerror(err) : "out of memory");
			failed++;
		} else if (strcmp(json_path, "-") == 0) {
			printf("\n");
		}
	}
	for (d = 0; d < nb; d++)
		sc_report_free(&reps[d]);
	rdx_runtime_cleanup();
	return failed == 0 ? 0 : 1;
}
