/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx_wrlog_read: a log of rdx-perf -o read back (fields, flow= up to the
 * last " dev=", counts, cut logs), every refusal with its errno and one
 * line naming the file; rdx_report_csv_field's quoting; whether logs ran
 * on one device (rdx_wrlog_not_shared: dev=, host=, dev_id=, old logs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "rdx_ut.h"

#include "../../../lib/stats/rdx_wrlog.c"
#include "rdx_report.h"

static char path[64];

#define HDR "# test=write mode=lat size=8 lcore=1 qps=1 flow=run A dev=sw tsc_hz=1 " \
	"lat_kind=half-rtt report_div=2 device_kind=software_device"

static void
put(const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	fclose(f);
}

static int
setup(void)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/rdx_wrlog_ut.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int
teardown(void)
{
	unlink(path);
	return 0;
}

static void
test_read(void)
{
	char err[256];
	struct rdx_wrlog *l;

	put("# rdx-wrlog v1\n" HDR " capacity=10 unlogged=0\n# op qp post_ns complete_ns bytes\n"
	    "0 0 100 300 8\n# a comment\n\n1 1 200 0 8\n2 0 250 450 4294967295\n");
	l = rdx_wrlog_read(path, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_STRING_EQUAL(rdx_wrlog_field_get(l, "flow"), "run A");
	CU_ASSERT_STRING_EQUAL(rdx_wrlog_label(l), "run A");
	CU_ASSERT_STRING_EQUAL(rdx_wrlog_field_get(l, "dev"), "sw");
	CU_ASSERT_STRING_EQUAL(rdx_wrlog_device_kind(l), "software_device");
	CU_ASSERT_PTR_NULL(rdx_wrlog_field_get(l, "host"));
	CU_ASSERT_EQUAL(l->nb_wr, 3);
	CU_ASSERT_EQUAL(l->nb_incomplete, 1);
	CU_ASSERT_EQUAL(l->report_div, 2);
	CU_ASSERT_EQUAL(l->capacity, 10);
	CU_ASSERT_FALSE(l->truncated);
	CU_ASSERT_EQUAL(l->wr[1].qp, 1);
	CU_ASSERT_EQUAL(l->wr[2].bytes, UINT32_MAX);
	CU_ASSERT_EQUAL(l->wr[2].complete_ns, 450);
	rdx_wrlog_free(l);

	/* a cut log; no flow=: named after the file; dev=sw without device_kind */
	put("# rdx-wrlog v1\n# test=write dev=sw capacity=1 unlogged=5\n"
	    "# op qp post_ns complete_ns bytes\n0 0 1 2 8\n");
	l = rdx_wrlog_read(path, err, sizeof(err));
	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_TRUE(l->truncated);
	CU_ASSERT_EQUAL(l->unlogged, 5);
	CU_ASSERT_STRING_EQUAL(rdx_wrlog_label(l), strrchr(path, '/') + 1);
	CU_ASSERT_STRING_EQUAL(rdx_wrlog_device_kind(l), "software_device");
	rdx_wrlog_free(l);
}

/* text is refused with rte_errno code and a line holding want */
static void
refused(const char *text, int code, const char *want)
{
	char err[256];

	put(text);
	CU_ASSERT_PTR_NULL(rdx_wrlog_read(path, err, sizeof(err)));
	CU_ASSERT_EQUAL(rte_errno, code);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
	CU_ASSERT_EQUAL(strncmp(err, path, strlen(path)), 0);
	CU_ASSERT_PTR_NULL(strchr(err, '\n'));
	if (strstr(err, want) == NULL)
		fprintf(stderr, "got '%s', want '%s'\n", err, want);
}

#define COLS "# op qp post_ns complete_ns bytes\n"

static void
test_refused(void)
{
	char err[64];

	refused("# rdx-wrlog v2\n", EINVAL, ":1: not an rdx-perf work-request log");
	refused("# rdx-wrlog v1\n# test=write\n", EINVAL, "truncated header");
	refused("# rdx-wrlog v1\n# a=1 a=2\n" COLS "0 0 1 2 3\n", EINVAL, "a= is given twice");
	refused("# rdx-wrlog v1\n# a=1 stray\n" COLS "0 0 1 2 3\n", EINVAL, "'stray' in the header");
	refused("# rdx-wrlog v1\n# a=1\rb\n" COLS "0 0 1 2 3\n", EINVAL, "control character 0x0d");
	refused("# rdx-wrlog v1\n# a=1\n" COLS "0 0 1 2 +3\n", EINVAL, ":4: expected 5 unsigned");
	refused("# rdx-wrlog v1\n# a=1\n" COLS "0 0 5 2 3\n", EINVAL, "complete_ns is before post_ns");
	refused("# rdx-wrlog v1\n# a=1\n" COLS "1 0 5 6 3\n1 0 6 7 3\n", EINVAL,
		":5: op 1 after op 1");
	refused("# rdx-wrlog v1\n# a=1\n" COLS "0 0 5 6 3\n1 0 4 7 3\n", EINVAL,
		"post_ns goes back in time");
	refused("# rdx-wrlog v1\n# a=1\n" COLS "0 0 5 6 4294967296\n", EINVAL, "bytes 4294967296");
	refused("# rdx-wrlog v1\n# a=1\n" COLS "0 4294967296 5 6 1\n", EINVAL, "qp 4294967296");
	refused("# rdx-wrlog v1\n# a=1\n" COLS "0 0 5 0 1\n", EINVAL, "none of the 1 work");
	refused("# rdx-wrlog v1\n# a=1\n" COLS, EINVAL, "no work requests");
	refused("# rdx-wrlog v1\n# report_div=3\n" COLS "0 0 5 6 1\n", EINVAL,
		"bad value '3' for report_div");
	refused("# rdx-wrlog v1\n# capacity=1 unlogged=0\n" COLS "0 0 5 6 1\n1 0 6 7 1\n", EINVAL,
		"2 work requests in a log of capacity 1");
	refused("# rdx-wrlog v1\n# capacity=1\n" COLS "0 0 5 6 1\n", EINVAL,
		"capacity= without unlogged=");
	unlink(path);
	CU_ASSERT_PTR_NULL(rdx_wrlog_read(path, err, sizeof(err)));
	CU_ASSERT_EQUAL(rte_errno, ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot open"));
}

/* rdx_report_csv_field, the one CSV field writer of rdx's tools */
static void
test_csv_field(void)
{
	static const char *in[] = { "plain", "a,b", "say \"hi\"", " lead", "trail ", "", "a\nb" };
	static const char *out[] = { "plain", "\"a,b\"", "\"say \"\"hi\"\"\"", "\" lead\"",
				     "\"trail \"", "", "\"a\nb\"" };
	char buf[64];
	unsigned int i;

	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		FILE *f;

		memset(buf, 0, sizeof(buf));
		f = fmemopen(buf, sizeof(buf), "w");
		CU_ASSERT_FATAL(f != NULL);
		rdx_report_csv_field(f, in[i]);
		fclose(f);
		CU_ASSERT_STRING_EQUAL(buf, out[i]);
		if (strcmp(buf, out[i]) != 0)
			fprintf(stderr, "csv field %u: got [%s], want [%s]\n", i, buf, out[i]);
	}
}

/* A one-WR log whose header ends with tail, read back */
static struct rdx_wrlog *
log_with(const char *dev, const char *tail)
{
	char text[512];

	snprintf(text, sizeof(text), "# rdx-wrlog v1\n# test=write mode=bw size=8 lcore=1 qps=1 "
		 "flow=f dev=%s%s\n# op qp post_ns complete_ns bytes\n0 0 100 300 8\n", dev, tail);
	put(text);
	return rdx_wrlog_read(path, NULL, 0);
}

/* rdx_wrlog_not_shared of two logs; want NULL (shared) or a part of the reason */
static void
shared_case(const char *dev_a, const char *a, const char *dev_b, const char *b, const char *want)
{
	struct rdx_wrlog *l[2];
	char why[512];
	const char *r;

	l[0] = log_with(dev_a, a);
	l[1] = log_with(dev_b, b);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(l[1]);
	r = rdx_wrlog_not_shared(l, 2, why, sizeof(why));
	if (want == NULL) {
		CU_ASSERT_PTR_NULL(r);
		if (r != NULL)
			fprintf(stderr, "not shared [%s]: %s\n", a, r);
	} else {
		CU_ASSERT_PTR_NOT_NULL(r);
		CU_ASSERT(r != NULL && strstr(r, want) != NULL);
		if (r != NULL && strstr(r, want) == NULL)
			fprintf(stderr, "reason [%s], want [%s]\n", r, want);
	}
	/* one log always shares with itself */
	CU_ASSERT_PTR_NULL(rdx_wrlog_not_shared(l, 1, why, sizeof(why)));
	rdx_wrlog_free(l[0]);
	rdx_wrlog_free(l[1]);
}

static void
test_not_shared(void)
{
	const char *sw = " device_kind=software_device host=h1 dev_id=sw:rdx-sw-100-0";
	const char *nic = " device_kind=hardware host=h1 dev_id=mlx5_0:0002:c903:0043:9c40";

	/* two lcores of one process: one model segment */
	shared_case("sw", sw, "sw", sw, NULL);
	shared_case("sw", sw, "sw", " device_kind=software_device host=h1 dev_id=sw:rdx-sw-200-0",
		    "dev_id sw:rdx-sw-100-0, " );
	shared_case("sw", sw, "sw", " device_kind=software_device host=h1 dev_id=sw:rdx-sw-200-0",
		    "models of the software device in different processes");
	shared_case("sw", sw, "sw", " device_kind=software_device host=h2 dev_id=sw:rdx-sw-100-0",
		    "the logs ran on different hosts");
	/* an older log (no dev_id) beside a new one: unknown */
	shared_case("sw", sw, "sw", " device_kind=software_device host=h1",
		    "1 of the 2 logs do not record their device's identity (dev_id=)");
	/* two older logs of the software device: unknown, as before */
	shared_case("sw", " device_kind=software_device", "sw", " device_kind=software_device",
		    "2 logs on the software device (dev sw)");
	shared_case("sw", "", "sw", "", "2 logs on the software device (dev sw)");
	/* NICs: one GUID shared, another GUID not; older NIC logs as before */
	shared_case("mlx5_0", nic, "mlx5_0", nic, NULL);
	shared_case("mlx5_0", nic, "mlx5_0",
		    " device_kind=hardware host=h1 dev_id=mlx5_0:0002:c903:0043:9c41",
		    "different devices");
	shared_case("mlx5_0", " device_kind=hardware", "mlx5_0", " device_kind=hardware", NULL);
	shared_case("mlx5_0", " device_kind=hardware", "rxe0", " device_kind=software_rdma_device",
		    "dev mlx5_0, ");
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "read", test_read },
		{ "refused", test_refused },
		{ "csv_field", test_csv_field },
		{ "not_shared", test_not_shared },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_wrlog", cases, setup, teardown);
}
