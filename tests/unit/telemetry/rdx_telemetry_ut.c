/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of lib/telemetry/rdx_telemetry.c through the real thing: EAL
 * is started once (--lcores 0-1,(2-63)@(0-1): lcores 0 and 1 on their CPUs,
 * 62 more sharing them, enough for /rdx/lcores to need pages), and the
 * test talks to its own telemetry socket
 * as dpdk-telemetry.py does (AF_UNIX SOCK_SEQPACKET, a JSON greeting, then
 * one JSON reply per command), so what is checked is what users see.
 * Covers every /rdx command, the device names of the registry ("sw#1"),
 * a QP list and an lcore list longer than one reply (read page by page
 * through "next": every entry once, in order, no reply over 16 KiB),
 * bad parameters (null replies), the live QPs and one QP's counters
 * (/rdx/qp_list, /rdx/qp_xstats), and an rdx_lcore_loop running on lcore 1
 * whose counters are read live and vanish when the loop returns.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include <jansson.h>

#include "rdx_ut.h"
#include "rdx_config.h"
#include "rdx_dev.h"
#include "rdx_runtime.h"
#include "rdx_telemetry.h"
#include "../sw/sw_ut_poll.h"

#define EXIT_SKIP 77
#define LOOP_LCORE 1u

#define NB_LCORES 64u
#define TEL_REPLY_MAX 16384 /* DPDK 22.11's MAX_OUTPUT_LEN */

static int sock = -1;
static bool show; /* print the next replies (a real sample for the docs) */
static size_t reply_len; /* bytes of the last reply */

static int
tel_connect(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 5 };
	char buf[1024];
	int s;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/dpdk_telemetry.v2",
		 rte_eal_get_runtime_dir());
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (s < 0)
		return -errno;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
	    recv(s, buf, sizeof(buf), 0) <= 0) {  /* the greeting */
		int err = -errno;

		fprintf(stderr, "telemetry socket %s: %s\n", sun.sun_path, strerror(errno));
		close(s);
		return err;
	}
	return s;
}

/*
 * Send cmd, return the value under the reply's key (the command without its
 * parameters): a new reference, json null for a refused command, NULL when
 * nothing (or no JSON) came back.
 */
static json_t *
query(const char *cmd)
{
	static char buf[65536];
	char key[64];
	const char *comma = strchr(cmd, ',');
	json_t *root, *v;
	ssize_t n;

	if (send(sock, cmd, strlen(cmd), 0) < 0)
		return NULL;
	n = recv(sock, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	reply_len = (size_t)n;
	if (show)
		printf("\n  %s -> %s", cmd, buf);
	root = json_loads(buf, 0, NULL);
	if (root == NULL) {
		fprintf(stderr, "not JSON: %s\n", buf);
		return NULL;
	}
	snprintf(key, sizeof(key), "%.*s", comma != NULL ? (int)(comma - cmd) : 63, cmd);
	v = json_object_get(root, key);
	if (v != NULL)
		json_incref(v);
	json_decref(root);
	return v;
}

static json_int_t
jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

static void
test_info(void)
{
	json_t *r = query("/rdx/info");
	json_t *w;
	size_t i;
	bool has_worker = false;

	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "version")),
			       RDX_VERSION_STR);
	CU_ASSERT_EQUAL(jint(r, "pid"), getpid());
	CU_ASSERT_EQUAL((uint64_t)jint(r, "tsc_hz"), rdx_tsc_hz());
	CU_ASSERT(rdx_tsc_hz() > 0);
	CU_ASSERT(json_is_string(json_object_get(r, "tsc_cost_cycles")));
	CU_ASSERT(atof(json_string_value(json_object_get(r, "tsc_cost_cycles"))) > 0.0);
	CU_ASSERT_EQUAL(jint(r, "main_lcore"), rte_get_main_lcore());
	w = json_object_get(r, "worker_lcores");
	CU_ASSERT_FATAL(json_is_array(w));
	for (i = 0; i < json_array_size(w); i++)
		if (json_integer_value(json_array_get(w, i)) == LOOP_LCORE)
			has_worker = true;
	CU_ASSERT(has_worker);
	CU_ASSERT_EQUAL(json_array_size(w), rdx_runtime_workers(NULL, 0));
	CU_ASSERT_EQUAL(jint(r, "devs_open"), 0);
	json_decref(r);
}

static bool
devs_are(const char *a, const char *b)
{
	json_t *r = query("/rdx/devs");
	bool ok;

	ok = json_is_array(r) && json_array_size(r) == (b != NULL ? 2u : a != NULL ? 1u : 0u);
	if (ok && a != NULL)
		ok = strcmp(json_string_value(json_array_get(r, 0)), a) == 0;
	if (ok && b != NULL)
		ok = strcmp(json_string_value(json_array_get(r, 1)), b) == 0;
	json_decref(r);
	return ok;
}

static void
test_devs(void)
{
	struct rdx_dev *d0, *d1;
	json_t *r;

	CU_ASSERT(devs_are(NULL, NULL));
	d0 = rdx_dev_open("sw", NULL);
	d1 = rdx_dev_open("sw", NULL);
	CU_ASSERT_FATAL(d0 != NULL && d1 != NULL);
	CU_ASSERT(devs_are("sw", "sw#1"));

	r = query("/rdx/dev_info,sw#1");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "name")), "sw");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "driver")), "sw");
	CU_ASSERT_EQUAL(jint(r, "software"), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "results")),
			       "software device");
	CU_ASSERT_EQUAL(jint(r, "max_qp_wr"), rdx_dev_attr_get(d1)->max_qp_wr);
	CU_ASSERT_EQUAL(jint(r, "active_mtu"), 4096);
	CU_ASSERT_EQUAL(jint(r, "xstats"), rdx_dev_xstats_get(d1, NULL, 0));
	json_decref(r);

	/* numeric ids, as /ethdev/list and /ethdev/xstats,0 */
	r = query("/rdx/dev_list");
	CU_ASSERT_FATAL(json_is_array(r));
	CU_ASSERT_EQUAL(json_array_size(r), 2);
	CU_ASSERT_EQUAL(json_integer_value(json_array_get(r, 0)), 0);
	CU_ASSERT_EQUAL(json_integer_value(json_array_get(r, 1)), 1);
	json_decref(r);
	r = query("/rdx/dev_info,1");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(r, "name")), "sw");
	CU_ASSERT_EQUAL(jint(r, "xstats"), rdx_dev_xstats_get(d1, NULL, 0));
	json_decref(r);
	r = query("/rdx/dev_xstats,0");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_EQUAL(json_object_size(r), (size_t)rdx_dev_xstats_get(d0, NULL, 0));
	json_decref(r);

	r = query("/rdx/dev_xstats,sw");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_EQUAL(json_object_size(r), (size_t)rdx_dev_xstats_get(d0, NULL, 0));
	CU_ASSERT_EQUAL(jint(r, "sw_wqes"), 0);
	CU_ASSERT_EQUAL(jint(r, "dp_qp_doorbells"), 0);
	json_decref(r);

	/* bad parameters: DPDK answers null, the process lives on */
	static const char *const bad[] = {
		"/rdx/dev_info,nope", "/rdx/dev_xstats,nope", "/rdx/dev_xstats,sw#2",
		"/rdx/dev_xstats,sw#", "/rdx/dev_xstats,sw#x", "/rdx/dev_xstats,#1",
		"/rdx/dev_xstats", "/rdx/dev_info", "/rdx/dev_xstats,2", "/rdx/dev_info,1x",
		"/rdx/dev_info,99999999999", "/rdx/dev_xstats,-1",
		"/rdx/dev_xstats,aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		r = query(bad[i]);
		if (!json_is_null(r))
			printf("  %s: not null\n", bad[i]);
		CU_ASSERT(json_is_null(r));
		json_decref(r);
	}

	CU_ASSERT(rdx_dev_close(d0) == 0);
	CU_ASSERT(devs_are("sw", NULL));
	r = query("/rdx/dev_info,sw#1");
	CU_ASSERT(json_is_null(r));
	json_decref(r);
	CU_ASSERT(rdx_dev_close(d1) == 0);
	CU_ASSERT(devs_are(NULL, NULL));
}

/* The entry "<dev>/<qpn>" of /rdx/qp_list's dict (its fields agreeing), or
 * NULL. QP numbers are per device: two sw devices both have a QP 256. */
static json_t *
qp_entry(json_t *list, int dev, uint32_t qpn)
{
	char key[32];
	json_t *v;

	snprintf(key, sizeof(key), "%d/%u", dev, qpn);
	v = json_object_get(list, key);
	if (v != NULL) {
		CU_ASSERT_EQUAL(jint(v, "dev"), dev);
		CU_ASSERT_EQUAL(jint(v, "qp_num"), (json_int_t)qpn);
	}
	return v;
}

static void
test_qps(void)
{
	struct rdx_dev *d0 = rdx_dev_open("sw", NULL), *d1 = rdx_dev_open("sw", NULL);
	struct rdx_cq_conf cc = { .depth = 64 };
	struct rdx_qp_conf qc = { .sq_depth = 16, .rq_depth = 8, .max_send_sge = 1,
				  .max_recv_sge = 1, .sig_interval = 1 };
	struct rdx_qp_info info[2];
	struct rdx_cq *cq0, *cq1;
	struct rdx_qp *a, *b, *u;
	struct rdx_mem *m;
	struct rdx_sge sge;
	struct rdx_wr w[3];
	struct rdx_wc wc[4];
	char cmd[96];
	json_t *r, *e;
	size_t i;

	CU_ASSERT_FATAL(d0 != NULL && d1 != NULL);
	r = query("/rdx/qp_list");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 0);
	json_decref(r);
	cq0 = rdx_cq_create(d0, &cc);
	cq1 = rdx_cq_create(d1, &cc);
	CU_ASSERT_FATAL(cq0 != NULL && cq1 != NULL);
	qc.send_cq = qc.recv_cq = cq0;
	a = rdx_qp_create(d0, &qc);
	/* b names its posting lcore (it posts nothing here) */
	qc.post_lcore = RDX_QP_POST_LCORE(LOOP_LCORE);
	b = rdx_qp_create(d0, &qc);
	qc.post_lcore = 0;
	qc.send_cq = qc.recv_cq = cq1;
	qc.type = RDX_QP_UD;
	qc.qkey = 0x1234;
	u = rdx_qp_create(d1, &qc);
	CU_ASSERT_FATAL(a != NULL && b != NULL && u != NULL);
	CU_ASSERT_FATAL(rdx_qp_info_get(a, &info[0]) == 0 && rdx_qp_info_get(b, &info[1]) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(a, &info[1], NULL) == 0);
	CU_ASSERT_FATAL(rdx_qp_connect(b, &info[0], NULL) == 0);
	m = rdx_dev_mem_alloc(d0, 4096, RDX_MEM_HOST, RDX_ACCESS_ALL);
	CU_ASSERT_FATAL(m != NULL);
	sge = (struct rdx_sge){ .addr = m->iova, .length = 32, .lkey = m->lkey };
	for (i = 0; i < RTE_DIM(w); i++)
		w[i] = (struct rdx_wr){ .wr_id = i, .sge = &sge, .num_sge = 1,
					.remote_addr = m->iova + 1024, .rkey = m->rkey,
					.opcode = RDX_OP_WRITE };
	CU_ASSERT_EQUAL(rdx_qp_post_burst(a, w, 3), 3);
	CU_ASSERT_EQUAL(poll_n(cq0, wc, 3), 3);

	/* every device's QPs, in device then creation order */
	show = true;
	r = query("/rdx/qp_list");
	show = false;
	printf("\n");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_EQUAL(json_object_size(r), 3);
	e = qp_entry(r, 0, a->qp_num);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(jint(e, "dev"), 0);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "dev_name")), "sw");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "type")), "RC");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "state")), "rts");
	CU_ASSERT_EQUAL(jint(e, "lcore"), -1);
	CU_ASSERT_EQUAL(jint(e, "sq_depth"), a->conf.sq_depth);
	e = qp_entry(r, 0, b->qp_num);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(jint(e, "lcore"), LOOP_LCORE);
	e = qp_entry(r, 1, u->qp_num);
	CU_ASSERT_FATAL(e != NULL);
	CU_ASSERT_EQUAL(jint(e, "dev"), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "dev_name")), "sw#1");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "type")), "UD");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(e, "state")), "reset");
	json_decref(r);
	/* one device's, by id or name */
	r = query("/rdx/qp_list,1");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 1 && qp_entry(r, 1, u->qp_num) != NULL);
	json_decref(r);
	r = query("/rdx/qp_list,sw");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 2 && qp_entry(r, 1, u->qp_num) == NULL);
	json_decref(r);

	/* one QP's counters, by device id and qp_num */
	snprintf(cmd, sizeof(cmd), "/rdx/qp_xstats,0,%u", a->qp_num);
	show = true;
	r = query(cmd);
	show = false;
	printf("\n");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_EQUAL(json_object_size(r), (size_t)rdx_qp_xstats_get(a, NULL, 0));
	CU_ASSERT_EQUAL(jint(r, "send_wrs_posted"), 3);
	CU_ASSERT_EQUAL(jint(r, "send_doorbells"), 1);
	CU_ASSERT_EQUAL(jint(r, "send_wrs_completed"), 3);
	CU_ASSERT_EQUAL(jint(r, "recv_wrs_posted"), 0);
	json_decref(r);
	snprintf(cmd, sizeof(cmd), "/rdx/qp_xstats,sw,%u", b->qp_num);
	r = query(cmd);
	CU_ASSERT(json_is_object(r) && jint(r, "send_wrs_posted") == 0);
	json_decref(r);

	/* bad parameters: null, the process lives on */
	{
		char wrong_dev[64], gone[64];
		const char *const bad[] = {
			"/rdx/qp_xstats", "/rdx/qp_xstats,0", "/rdx/qp_xstats,0,",
			"/rdx/qp_xstats,,5", "/rdx/qp_xstats,0,x1", "/rdx/qp_xstats,0,-1",
			"/rdx/qp_xstats,0,16777216", "/rdx/qp_xstats,0,999999999999",
			"/rdx/qp_xstats,nope,1", "/rdx/qp_xstats,7,1", "/rdx/qp_xstats,0,1 ",
			"/rdx/qp_list,7", "/rdx/qp_list,nope", "/rdx/qp_list,sw#x",
			wrong_dev, gone,
		};

		/* a QP of another device (d1 has only u), a QP destroyed */
		CU_ASSERT_FATAL(b->qp_num != u->qp_num);
		snprintf(wrong_dev, sizeof(wrong_dev), "/rdx/qp_xstats,1,%u", b->qp_num);
		snprintf(gone, sizeof(gone), "/rdx/qp_xstats,0,%u", b->qp_num);
		CU_ASSERT(rdx_qp_destroy(b) == 0);
		for (i = 0; i < RTE_DIM(bad); i++) {
			r = query(bad[i]);
			if (!json_is_null(r))
				printf("  %s: not null\n", bad[i]);
			CU_ASSERT(json_is_null(r));
			json_decref(r);
		}
	}
	r = query("/rdx/qp_list");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 2);
	json_decref(r);
	CU_ASSERT(rdx_qp_destroy(a) == 0);
	CU_ASSERT(rdx_qp_destroy(u) == 0);
	CU_ASSERT(rdx_dev_mem_free(m) == 0);
	CU_ASSERT(rdx_cq_destroy(cq0) == 0 && rdx_cq_destroy(cq1) == 0);
	CU_ASSERT(rdx_dev_close(d0) == 0 && rdx_dev_close(d1) == 0);
	r = query("/rdx/qp_list");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 0);
	json_decref(r);
}

/*
 * More QPs than fit in one reply: DPDK 22.11 writes at most 16 KiB of JSON
 * per reply and silently leaves out what does not fit. /rdx/qp_list must
 * say how many QPs it could not list and where to go on ("more", "next"):
 * following "next" reads every QP once, in creation order.
 */
#define MANY_QPS 300

/*
 * Read the list cmd ("/rdx/qp_list,<dev>," or "/rdx/lcores,") page by page
 * from start 0 (the first page without a parameter: first_cmd), through
 * "next". keys[i] is what the i-th entry's key must be; nb of them. Every
 * page must be under the reply limit and say what is left. Returns the
 * number of pages, 0 on a failed check.
 */
static unsigned int
read_pages(const char *first_cmd, const char *cmd, char (*keys)[16], size_t nb)
{
	size_t seen = 0;
	unsigned int pages = 0;
	bool last = false;

	while (!last && pages < 100) {
		char c[96];
		json_int_t more, next;
		size_t listed = 0;
		json_t *r, *v;
		const char *k;

		if (pages == 0)
			snprintf(c, sizeof(c), "%s", first_cmd);
		else
			snprintf(c, sizeof(c), "%s%zu", cmd, seen);
		r = query(c);
		pages++;
		CU_ASSERT_FATAL(json_is_object(r));
		CU_ASSERT(reply_len <= TEL_REPLY_MAX);
		json_object_foreach(r, k, v) {
			if (!json_is_object(v))
				continue;
			/* in order, each once */
			if (seen + listed >= nb || strcmp(k, keys[seen + listed]) != 0) {
				printf("\n  %s: entry %zu is %s, not %s\n", c, seen + listed, k,
				       seen + listed < nb ? keys[seen + listed] : "(none)");
				json_decref(r);
				return 0;
			}
			listed++;
		}
		more = jint(r, "more");
		next = jint(r, "next");
		printf("\n  %s: %zu listed, %zu bytes, \"more\": %lld, \"next\": %lld", c, listed,
		       reply_len, (long long)more, (long long)next);
		json_decref(r);
		seen += listed;
		last = seen == nb;
		if (listed == 0 ||
		    (last ? more != -1 || next != -1 :
		     more != (json_int_t)(nb - seen) || next != (json_int_t)seen)) {
			printf("\n  %s: \"more\" or \"next\" wrong\n", c);
			return 0;
		}
	}
	printf("\n");
	return last ? pages : 0;
}

/* cmd must be refused (null) */
static void
assert_null(const char *cmd)
{
	json_t *r = query(cmd);

	if (!json_is_null(r))
		printf("  %s: not null\n", cmd);
	CU_ASSERT(json_is_null(r));
	json_decref(r);
}

static void
test_qp_list_many(void)
{
	struct rdx_dev *d = rdx_dev_open("sw", NULL);
	struct rdx_cq_conf cc = { .depth = 64 };
	struct rdx_qp_conf qc = { .sq_depth = 4, .rq_depth = 4, .max_send_sge = 1,
				  .max_recv_sge = 1, .sig_interval = 1 };
	static struct rdx_qp *qps[MANY_QPS];
	static char keys[MANY_QPS][16];
	struct rdx_cq *cq;
	size_t listed = 0, i;
	json_int_t more;
	json_t *r, *v;
	const char *k;
	char cmd[64];

	CU_ASSERT_FATAL(d != NULL);
	cq = rdx_cq_create(d, &cc);
	CU_ASSERT_FATAL(cq != NULL);
	qc.send_cq = qc.recv_cq = cq;
	for (i = 0; i < MANY_QPS; i++) {
		qps[i] = rdx_qp_create(d, &qc);
		CU_ASSERT_FATAL(qps[i] != NULL);
		snprintf(keys[i], sizeof(keys[i]), "0/%u", qps[i]->qp_num);
	}
	r = query("/rdx/qp_list");
	CU_ASSERT_FATAL(json_is_object(r));
	json_object_foreach(r, k, v)
		listed += json_is_object(v);
	more = jint(r, "more");
	printf("\n  /rdx/qp_list with %d QPs: %zu listed, \"more\": %lld\n", MANY_QPS, listed,
	       (long long)more);
	/* every QP is either listed or counted */
	CU_ASSERT(listed > 0);
	CU_ASSERT_EQUAL((json_int_t)listed + (more > 0 ? more : 0), MANY_QPS);
	json_decref(r);

	/* page by page: every device's (",<start>"), then device 0's by id
	 * and by name ("<dev>,<start>"): the same QPs here */
	CU_ASSERT(read_pages("/rdx/qp_list", "/rdx/qp_list,,", keys, MANY_QPS) >= 3);
	CU_ASSERT(read_pages("/rdx/qp_list,0", "/rdx/qp_list,0,", keys, MANY_QPS) >= 3);
	CU_ASSERT(read_pages("/rdx/qp_list,sw,0", "/rdx/qp_list,sw,", keys, MANY_QPS) >= 3);
	/* from an index on; the end of the list is an empty page */
	r = query("/rdx/qp_list,,299");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 1 &&
		  qp_entry(r, 0, qps[299]->qp_num) != NULL);
	json_decref(r);
	snprintf(cmd, sizeof(cmd), "/rdx/qp_list,,%d", MANY_QPS);
	r = query(cmd);
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 0);
	json_decref(r);

	/* bad starts: not decimal, negative, trailing garbage, past the end */
	snprintf(cmd, sizeof(cmd), "/rdx/qp_list,,%d", MANY_QPS + 1);
	assert_null(cmd);
	snprintf(cmd, sizeof(cmd), "/rdx/qp_list,0,%d", MANY_QPS + 1);
	assert_null(cmd);
	{
		static const char *const bad[] = {
			"/rdx/qp_list,,", "/rdx/qp_list,0,", "/rdx/qp_list,sw,",
			"/rdx/qp_list,,x", "/rdx/qp_list,,-1", "/rdx/qp_list,,+1",
			"/rdx/qp_list,,1x", "/rdx/qp_list,,1 ", "/rdx/qp_list,, 1",
			"/rdx/qp_list,,0x10", "/rdx/qp_list,,99999999999", "/rdx/qp_list,0,1,2",
			"/rdx/qp_list,nope,1", "/rdx/qp_list,7,0",
		};

		for (i = 0; i < RTE_DIM(bad); i++)
			assert_null(bad[i]);
	}
	for (i = 0; i < MANY_QPS; i++)
		CU_ASSERT(rdx_qp_destroy(qps[i]) == 0);
	CU_ASSERT(rdx_cq_destroy(cq) == 0);
	CU_ASSERT(rdx_dev_close(d) == 0);
	/* no QPs: start 0 is the empty list, 1 is past it */
	r = query("/rdx/qp_list,,0");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 0);
	json_decref(r);
	assert_null("/rdx/qp_list,,1");
}

/* A loop on LOOP_LCORE: one poller always busy, one always idle. */
static int
poll_busy(void *arg)
{
	(void)arg;
	return 1;
}

static int
poll_idle(void *arg)
{
	(void)arg;
	return 0;
}

static int
loop_main(void *arg)
{
	return rdx_lcore_loop_run(arg);
}

static struct rdx_lcore_loop loop;

/* Wait (bounded: a hang guard, not a timing assertion) until the loop
 * reports at least `iters` passes. */
static bool
wait_iterations(uint64_t iters)
{
	struct rdx_lcore_loop snap;
	int i;

	for (i = 0; i < 10000; i++) {
		if (rdx_lcore_loop_snapshot(LOOP_LCORE, &snap) == 0 && snap.iterations >= iters)
			return true;
		usleep(1000);
	}
	return false;
}

static uint64_t app_ops = 42;

static int
app_hook(unsigned int lcore_id, struct rte_tel_data *d, void *arg)
{
	if (lcore_id != rte_get_main_lcore())
		return 0;
	rte_tel_data_add_dict_u64(d, "app_ops", *(uint64_t *)arg);
	return 1;
}

static void
test_lcores(void)
{
	json_t *r, *c, *p;
	json_int_t it0, it1;
	struct rdx_lcore_loop snap;
	unsigned int ids[4];

	rdx_lcore_loop_init(&loop);
	CU_ASSERT(rdx_lcore_loop_add(&loop, "busy-one", poll_busy, NULL) == 0);
	CU_ASSERT(rdx_lcore_loop_add(&loop, "idle", poll_idle, NULL) == 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_lcores(NULL, 0), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_snapshot(LOOP_LCORE, &snap), -ENOENT);
	r = query("/rdx/lcore,1");
	CU_ASSERT(json_is_null(r));
	json_decref(r);

	CU_ASSERT_FATAL(rte_eal_remote_launch(loop_main, &loop, LOOP_LCORE) == 0);
	CU_ASSERT_FATAL(wait_iterations(1));
	CU_ASSERT_EQUAL(rdx_lcore_loop_lcores(ids, RTE_DIM(ids)), 1);
	CU_ASSERT_EQUAL(ids[0], LOOP_LCORE);

	show = true;
	r = query("/rdx/lcores");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_EQUAL(json_object_size(r), 1);
	c = json_object_get(r, "1");
	CU_ASSERT_FATAL(json_is_object(c));
	CU_ASSERT(jint(c, "iterations") > 0);
	CU_ASSERT_EQUAL(jint(c, "pollers"), 2);
	CU_ASSERT(jint(c, "busy_pct") >= 0 && jint(c, "busy_pct") <= 100);
	json_decref(r);

	r = query("/rdx/lcore,1");
	CU_ASSERT_FATAL(json_is_object(r));
	CU_ASSERT_EQUAL(jint(r, "lcore"), 1);
	show = false;
	printf("\n");
	it0 = jint(r, "iterations");
	CU_ASSERT(it0 > 0);
	CU_ASSERT(jint(r, "busy_cycles") > 0);
	p = json_object_get(r, "poller0_busy_one");
	CU_ASSERT_FATAL(json_is_object(p));
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(p, "name")), "busy-one");
	CU_ASSERT(jint(p, "calls") > 0);
	/* read while the loop runs, one value after the other: calls and
	 * busy_calls need not be equal here (they are once it stopped) */
	CU_ASSERT(jint(p, "busy_calls") > 0);
	CU_ASSERT_EQUAL(jint(p, "idle_cycles"), 0);
	p = json_object_get(r, "poller1_idle");
	CU_ASSERT_FATAL(json_is_object(p));
	CU_ASSERT(jint(p, "calls") > 0);
	CU_ASSERT_EQUAL(jint(p, "busy_calls"), 0);
	CU_ASSERT_EQUAL(jint(p, "busy_cycles"), 0);
	json_decref(r);

	/* live: the counters move while the loop runs */
	CU_ASSERT(wait_iterations((uint64_t)it0 + 1000));
	r = query("/rdx/lcore,1");
	it1 = jint(r, "iterations");
	CU_ASSERT(it1 > it0);
	json_decref(r);

	/* bad or idle lcore ids */
	static const char *const bad[] = {
		"/rdx/lcore,0", "/rdx/lcore,abc", "/rdx/lcore,-1", "/rdx/lcore,1x",
		"/rdx/lcore,99999999999999999999", "/rdx/lcore", "/rdx/lcore,100000",
	};
	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		r = query(bad[i]);
		if (!json_is_null(r))
			printf("  %s: not null\n", bad[i]);
		CU_ASSERT(json_is_null(r));
		json_decref(r);
	}
	CU_ASSERT_EQUAL(rdx_lcore_loop_snapshot(RTE_MAX_LCORE, &snap), -EINVAL);
	CU_ASSERT_EQUAL(rdx_lcore_loop_snapshot(LOOP_LCORE, NULL), -EINVAL);

	rdx_lcore_loop_stop(&loop);
	CU_ASSERT_EQUAL(rte_eal_wait_lcore(LOOP_LCORE), 0);
	/* unlisted when the run returns */
	CU_ASSERT_EQUAL(rdx_lcore_loop_lcores(NULL, 0), 0);
	CU_ASSERT_EQUAL(rdx_lcore_loop_snapshot(LOOP_LCORE, &snap), -ENOENT);
	r = query("/rdx/lcore,1");
	CU_ASSERT(json_is_null(r));
	json_decref(r);
	r = query("/rdx/lcores");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 0);
	json_decref(r);

	/* an app's own loop on the main lcore: its hook lists it */
	CU_ASSERT_EQUAL(rdx_telemetry_lcore_info_set(app_hook, &app_ops), 0);
	r = query("/rdx/lcores");
	c = json_object_get(r, "0");
	CU_ASSERT_FATAL(json_is_object(c));
	CU_ASSERT_EQUAL(json_object_size(r), 1);
	CU_ASSERT_EQUAL(jint(c, "app_ops"), 42);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "loop")), "app's own");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(c, "role")), "main");
	json_decref(r);
	r = query("/rdx/lcore,0");
	CU_ASSERT(json_is_object(r) && jint(r, "app_ops") == 42 && jint(r, "lcore") == 0);
	json_decref(r);
	CU_ASSERT_EQUAL(rdx_telemetry_lcore_info_set(NULL, NULL), 0);
	r = query("/rdx/lcore,0");
	CU_ASSERT(json_is_null(r));
	json_decref(r);
	CU_ASSERT(loop.iterations >= (uint64_t)it1);
	CU_ASSERT_EQUAL(loop.pollers[0].busy_calls, loop.pollers[0].calls);
}

/*
 * /rdx/lcores with every lcore listed (NB_LCORES) and an app hook adding
 * nearly RDX_TELEMETRY_LCORE_APP_BYTES to each: about 34 KiB in all, so
 * pages; following "next" reads every lcore once, in id order.
 */
#define PAD_FIELDS 4
#define PAD_LEN 100

static int
wide_hook(unsigned int lcore_id, struct rte_tel_data *d, void *arg)
{
	char key[8], val[PAD_LEN + 1];
	unsigned int i;

	(void)arg;
	memset(val, 'a' + (int)(lcore_id % 26), PAD_LEN);
	val[PAD_LEN] = '\0';
	/* ,"padN":"<PAD_LEN>" each: 4 * 110 bytes, within the allowance */
	for (i = 0; i < PAD_FIELDS; i++) {
		snprintf(key, sizeof(key), "pad%u", i);
		rte_tel_data_add_dict_string(d, key, val);
	}
	return 1;
}

static void
test_lcores_pages(void)
{
	static char keys[RTE_MAX_LCORE][16];
	unsigned int id, nb = 0;
	char cmd[64];
	json_t *r;

	RTE_BUILD_BUG_ON(PAD_FIELDS * (PAD_LEN + 10) > RDX_TELEMETRY_LCORE_APP_BYTES);
	for (id = 0; id < RTE_MAX_LCORE; id++)
		if (rte_lcore_is_enabled(id))
			snprintf(keys[nb++], sizeof(keys[0]), "%u", id);
	CU_ASSERT_FATAL(nb == NB_LCORES);
	CU_ASSERT_EQUAL(rdx_telemetry_lcore_info_set(wide_hook, NULL), 0);
	CU_ASSERT(read_pages("/rdx/lcores", "/rdx/lcores,", keys, nb) >= 2);
	/* the end of the list: an empty page; past it, bad starts: null */
	snprintf(cmd, sizeof(cmd), "/rdx/lcores,%u", nb);
	r = query(cmd);
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 0);
	json_decref(r);
	r = query("/rdx/lcores,63");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 1 &&
		  json_is_object(json_object_get(r, keys[63])));
	json_decref(r);
	snprintf(cmd, sizeof(cmd), "/rdx/lcores,%u", nb + 1);
	assert_null(cmd);
	{
		static const char *const bad[] = {
			"/rdx/lcores,x", "/rdx/lcores,-1", "/rdx/lcores,1x", "/rdx/lcores,1,2",
			"/rdx/lcores,99999999999", "/rdx/lcores, 1",
		};

		for (size_t i = 0; i < RTE_DIM(bad); i++)
			assert_null(bad[i]);
	}
	CU_ASSERT_EQUAL(rdx_telemetry_lcore_info_set(NULL, NULL), 0);
	/* no lcore listed: start 0 is the empty list */
	r = query("/rdx/lcores,0");
	CU_ASSERT(json_is_object(r) && json_object_size(r) == 0);
	json_decref(r);
	assert_null("/rdx/lcores,1");
}

static void
test_help_lists_commands(void)
{
	json_t *r = query("/");
	static const char *const cmds[] = {
		RDX_TELEMETRY_CMD_INFO, RDX_TELEMETRY_CMD_DEVS, RDX_TELEMETRY_CMD_DEV_INFO,
		RDX_TELEMETRY_CMD_DEV_XSTATS, RDX_TELEMETRY_CMD_LCORES, RDX_TELEMETRY_CMD_LCORE,
		RDX_TELEMETRY_CMD_DEV_LIST, RDX_TELEMETRY_CMD_QP_LIST, RDX_TELEMETRY_CMD_QP_XSTATS,
	};
	size_t i, j;

	CU_ASSERT_FATAL(json_is_array(r));
	for (i = 0; i < RTE_DIM(cmds); i++) {
		bool found = false;

		for (j = 0; j < json_array_size(r); j++)
			if (strcmp(json_string_value(json_array_get(r, j)), cmds[i]) == 0)
				found = true;
		CU_ASSERT(found);
	}
	json_decref(r);
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "help_lists_commands", test_help_lists_commands },
		{ "info", test_info },
		{ "devs", test_devs },
		{ "qps", test_qps },
		{ "qp_list_many", test_qp_list_many },
		{ "lcores", test_lcores },
		{ "lcores_pages", test_lcores_pages },
		{ NULL, NULL },
	};
	char a0[] = "rdx_telemetry_ut", a1[] = "--lcores", a2[] = "0-1,(2-63)@(0-1)";
	char *eargv[] = { a0, a1, a2, NULL };
	int ret;

	(void)argc;
	(void)argv;
	if (rdx_runtime_init(3, eargv) < 0) {
		printf("SKIP: EAL does not start here with --lcores 0-1,(2-63)@(0-1) (needs 2 cores)\n");
		return EXIT_SKIP;
	}
	if (rte_lcore_is_enabled(LOOP_LCORE) == 0 || rte_get_main_lcore() == LOOP_LCORE) {
		printf("SKIP: lcore %u is not a worker lcore\n", LOOP_LCORE);
		rdx_runtime_cleanup();
		return EXIT_SKIP;
	}
	sock = tel_connect();
	if (sock < 0) {
		printf("FAIL: cannot reach the telemetry socket\n");
		rdx_runtime_cleanup();
		return EXIT_FAILURE;
	}
	ret = rdx_ut_run("rdx_telemetry", cases, NULL, NULL);
	close(sock);
	rdx_runtime_cleanup();
	return ret;
}
