/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_client: the KV example's client (doc/embedding.md). --check runs the
 * functional sequence (PUT then GET returns the bytes, an overwrite, DELETE
 * then GET misses); otherwise it generates load: --keys keys PUT once, then
 * -n operations (--get-pct GETs, the rest PUTs) with --concurrent calls in
 * flight (past lib/rpc's 8 slots per session they wait for a free one),
 * every GET's bytes checked, and latency percentiles per type.
 *
 *   kv_client [EAL options] -- --connect HOST:PORT [--transport T]
 *             [--dev NAME] [--check] [-n OPS] [--keys K] [--value-size B]
 *             [--get-pct P] [--concurrent C] [--key-base N]
 *
 * --key-base N: the keys are key-N ... key-(N+K-1) (clients that share a
 * server and must not see each other's values use disjoint ranges).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include <rdx_boot.h>
#include <rdx_conn.h>
#include <rdx_dev.h>
#include <rdx_hist.h>
#include <rdx_rpc.h>
#include <rdx_runtime.h>

#include "kv_boot.h"
#include "kv_proto.h"

#define KV_MAX_CONC 64

struct kv_op {
	struct kv_client *kc;
	uint16_t type;
	uint32_t key;
	uint32_t req_len;
	uint64_t t0;
	bool busy;
	uint8_t salt;                /* of the value PUT, or expected by GET */
	uint8_t req[sizeof(struct kv_req) + KV_KEY_MAX + KV_VALUE_MAX_DEFAULT];
	uint8_t resp[sizeof(struct kv_resp) + KV_VALUE_MAX_DEFAULT];
	int status;                  /* the call's (sync calls) */
	uint32_t resp_len;
};

struct kv_client {
	struct rdx_rpc_endpoint *ep;
	struct rdx_rpc_session *sess;
	struct rdx_conn *conn;       /* the bootstrap's: open while the server runs */
	struct kv_op ops[KV_MAX_CONC];
	uint32_t value_size;
	uint64_t done, errors, misses, bad_bytes;
	struct rdx_hist hist[2];     /* GET, PUT latency */
};

/* Key i is "key-<i>"; its value is value_size bytes derived from i. */
static uint32_t
kv_build(struct kv_op *op, uint16_t type, uint32_t key, uint32_t val_len, uint8_t salt)
{
	struct kv_req h = { .val_len = type == KV_PUT ? val_len : 0 };
	char name[KV_KEY_MAX];
	uint32_t i;

	h.key_len = (uint16_t)snprintf(name, sizeof(name), "key-%u", key);
	memcpy(op->req, &h, sizeof(h));
	memcpy(op->req + sizeof(h), name, h.key_len);
	for (i = 0; i < h.val_len; i++)
		op->req[sizeof(h) + h.key_len + i] = (uint8_t)(key * 31u + i + salt);
	op->type = type;
	op->key = key;
	op->salt = salt;
	op->req_len = (uint32_t)sizeof(h) + h.key_len + h.val_len;
	return op->req_len;
}

static void
kv_done(struct rdx_rpc_session *sess, int status, void *buf, uint32_t len, void *arg)
{
	struct kv_op *op = arg;
	struct kv_client *kc = op->kc;
	struct kv_resp r = { .status = -EBADMSG };
	uint32_t i;

	(void)sess;
	op->busy = false;
	op->status = status;
	op->resp_len = len;
	kc->done++;
	if (status == 0 && len >= sizeof(r))
		memcpy(&r, buf, sizeof(r));
	if (r.status == -ENOENT) {
		kc->misses++;
		return;
	}
	if (r.status != 0) {
		kc->errors++;
		return;
	}
	rdx_hist_record(&kc->hist[op->type == KV_GET ? 0 : 1], rdx_tsc() - op->t0);
	if (op->type != KV_GET)
		return;
	if (r.val_len != kc->value_size || len != sizeof(r) + r.val_len) {
		kc->bad_bytes++;
		return;
	}
	for (i = 0; i < r.val_len; i++)
		if (op->resp[sizeof(r) + i] != (uint8_t)(op->key * 31u + i + op->salt))
			break;
	kc->bad_bytes += i != r.val_len;
}

static int
kv_issue(struct kv_client *kc, struct kv_op *op)
{
	int rc;

	op->kc = kc;
	op->busy = true;
	op->t0 = rdx_tsc();
	do {
		rc = rdx_rpc_call(kc->sess, op->type, op->req, op->req_len, op->resp,
				  sizeof(op->resp), kv_done, op);
		if (rc == -EAGAIN || rc == -ENOBUFS)
			rdx_rpc_endpoint_poll(kc->ep);
	} while ((rc == -EAGAIN || rc == -ENOBUFS) && !rdx_runtime_stopping());
	if (rc < 0)
		op->busy = false;
	return rc;
}

/* One call, waited for: the response's status (or the call's error). */
static int
kv_sync(struct kv_client *kc, uint16_t type, uint32_t key, uint8_t salt)
{
	struct kv_op *op = &kc->ops[0];
	struct kv_resp r;
	int rc;

	kv_build(op, type, key, kc->value_size, salt);
	rc = kv_issue(kc, op);
	while (rc == 0 && op->busy && !rdx_runtime_stopping())
		rdx_rpc_endpoint_poll(kc->ep);
	if (rc < 0 || op->busy)
		return rc < 0 ? rc : -EINTR;
	if (op->status != 0)
		return op->status;
	memcpy(&r, op->resp, sizeof(r));
	return r.status;
}

/* PUT then GET returns the bytes; an overwrite; DELETE then GET misses. */
static int
kv_check(struct kv_client *kc)
{
	struct kv_op *op = &kc->ops[0];
	struct kv_resp r;
	int fails = 0, rc;

	rc = kv_sync(kc, KV_PUT, 7, 0);
	fails += rc != 0;
	rc = kv_sync(kc, KV_GET, 7, 0);
	memcpy(&r, op->resp, sizeof(r));
	if (rc == 0 && r.val_len == kc->value_size && kc->bad_bytes == 0)
		printf("kv_client: PUT then GET key-7: the %u bytes came back\n", r.val_len);
	else
		fails += printf("kv_client: FAIL: GET after PUT: status %d, %u bytes, %" PRIu64 " bad\n",
				rc, r.val_len, kc->bad_bytes) > 0;
	rc = kv_sync(kc, KV_PUT, 7, 5);
	rc = rc == 0 ? kv_sync(kc, KV_GET, 7, 5) : rc;
	if (rc == 0 && kc->bad_bytes == 0)
		printf("kv_client: PUT over key-7: GET returns the new bytes\n");
	else
		fails += printf("kv_client: FAIL: overwrite: status %d, %" PRIu64 " bad\n", rc,
				kc->bad_bytes) > 0;
	rc = kv_sync(kc, KV_DEL, 7, 0);
	fails += rc != 0;
	rc = kv_sync(kc, KV_GET, 7, 0);
	if (rc == -ENOENT)
		printf("kv_client: DELETE then GET key-7: miss\n");
	else
		fails += printf("kv_client: FAIL: GET after DELETE: status %d\n", rc) > 0;
	rc = kv_sync(kc, KV_DEL, 7, 0);
	fails += rc != -ENOENT;
	printf("kv_client: check %s\n", fails == 0 ? "OK" : "FAILED");
	return fails == 0 ? 0 : -EIO;
}

static uint64_t
xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* --keys PUTs, then n operations with conc in flight; stops when the
 * server has gone (its bootstrap connection closed: on UD transports the
 * calls would otherwise time out one after the other, 5 s each). */
static int
kv_load(struct kv_client *kc, uint64_t n, uint32_t base, uint32_t keys, uint32_t get_pct,
	uint32_t conc)
{
	uint64_t rng = 88172645463325252ull, issued = 0, t0, hz = rdx_tsc_hz(), look = 0, now;
	bool gone = false;
	double secs;
	uint32_t k, i;
	int rc;

	for (k = 0; k < keys; k++)
		if (kv_sync(kc, KV_PUT, base + k, 0) != 0) {
			fprintf(stderr, "kv_client: PUT of key-%u failed\n", base + k);
			return -EIO;
		}
	rdx_hist_reset(&kc->hist[0]);
	rdx_hist_reset(&kc->hist[1]);
	kc->done = 0;
	t0 = rdx_tsc();
	while (kc->done < n && !rdx_runtime_stopping()) {
		for (i = 0; i < conc && issued < n; i++) {
			struct kv_op *op = &kc->ops[i];

			if (op->busy)
				continue;
			k = base + (uint32_t)(xorshift(&rng) % keys);
			kv_build(op, xorshift(&rng) % 100 < get_pct ? KV_GET : KV_PUT, k,
				 kc->value_size, 0);
			rc = kv_issue(kc, op);
			if (rc < 0) {
				fprintf(stderr, "kv_client: call failed: %s\n", strerror(-rc));
				return -EIO;
			}
			issued++;
		}
		rdx_rpc_endpoint_poll(kc->ep);
		now = rdx_tsc();
		if (now >= look) {   /* every 10 ms */
			look = now + hz / 100;
			/* --boot mpi: no connection; the end's sync point tells */
			gone = kc->conn != NULL && rdx_conn_peer_alive(kc->conn) != 0;
			if (gone)
				break;
		}
	}
	secs = (double)(rdx_tsc() - t0) / (double)hz;
	printf("kv_client: %" PRIu64 " ops in %.3f s: %.1f kops/s; GET p50 %.1f us p99 %.1f us (%" PRIu64 "); PUT p50 %.1f us p99 %.1f us (%" PRIu64 "); misses %" PRIu64 ", errors %" PRIu64 ", bad values %" PRIu64 "\n",
	       kc->done, secs, secs > 0 ? (double)kc->done / secs / 1e3 : 0,
	       rdx_hist_percentile(&kc->hist[0], 50) * 1e6 / (double)hz,
	       rdx_hist_percentile(&kc->hist[0], 99) * 1e6 / (double)hz, kc->hist[0].count,
	       rdx_hist_percentile(&kc->hist[1], 50) * 1e6 / (double)hz,
	       rdx_hist_percentile(&kc->hist[1], 99) * 1e6 / (double)hz, kc->hist[1].count,
	       kc->misses, kc->errors, kc->bad_bytes);
	if (gone) {
		fprintf(stderr, "kv_client: the server has gone after %" PRIu64 " of %" PRIu64 " ops\n",
			kc->done, n);
		return -EIO;
	}
	return kc->errors == 0 && kc->bad_bytes == 0 && kc->misses == 0 ? 0 : -EIO;
}

/* One line and exit 2; with --boot mpi, once for the whole job and on
 * every rank (kv_boot_opts) */
static int
usage(struct rdx_boot **b, const char *why)
{
	bool agreed;

	if (!kv_boot_opts(b, -EINVAL, &agreed))
		return 2;
	fprintf(stderr, "kv_client: %s (usage: kv_client [EAL options] -- --connect HOST:PORT | --boot mpi [--transport T] [--dev NAME] [--check] [-n OPS] [--keys K] [--value-size B] [--get-pct P] [--concurrent C] [--key-base N])\n",
		why);
	return 2;
}

static int
parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v < lo || v > hi)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"connect", required_argument, NULL, 'C'}, {"transport", required_argument, NULL, 't'},
		{"dev", required_argument, NULL, 'd'}, {"check", no_argument, NULL, 'k'},
		{"keys", required_argument, NULL, 'K'}, {"value-size", required_argument, NULL, 'v'},
		{"get-pct", required_argument, NULL, 'g'}, {"concurrent", required_argument, NULL, 'c'},
		{"key-base", required_argument, NULL, 'b'}, {"boot", required_argument, NULL, 'B'},
		{NULL, 0, NULL, 0},
	};
	static struct kv_client kc;
	struct rdx_rpc_conf conf = { .transport = "infrc", .name = "kv-client", .max_sessions = 1 };
	const char *connect = NULL, *dev_name = "sw", *boot = "tcp";
	struct rdx_boot *b = NULL;
	bool boot_failed, agreed;
	struct rdx_dev *dev = NULL;
	struct rdx_conn *conn = NULL;
	uint32_t n = 10000, keys = 100, get_pct = 90, conc = 8, base = 0;
	bool check = false;
	char host[256];
	uint16_t port;
	uint64_t t0;
	int c, ret, rc = -EIO;

	/* --boot mpi: MPI starts first, for the EAL's file prefix and CPU */
	b = kv_boot_pre("kv_client", &argc, &argv, &boot_failed);
	if (boot_failed)
		return 1;
	ret = rdx_runtime_init(argc, argv);
	if (ret < 0)
		return ret == -EINVAL ? 2 : 1;
	argc -= ret;
	argv += ret;
	kc.value_size = 1000;
	/* --boot mpi: our line only, once for the job (usage) */
	opterr = b == NULL;
	while ((c = getopt_long(argc, argv, "n:", opts, NULL)) != -1) {
		switch (c) {
		case 'C': connect = optarg; break;
		case 't': conf.transport = optarg; break;
		case 'd': dev_name = optarg; break;
		case 'k': check = true; break;
		case 'n': if (parse_u32(optarg, 1, 1u << 30, &n) < 0) return usage(&b, "bad -n"); break;
		case 'K': if (parse_u32(optarg, 1, 1u << 20, &keys) < 0) return usage(&b, "bad --keys"); break;
		case 'v': if (parse_u32(optarg, 1, KV_VALUE_MAX_DEFAULT, &kc.value_size) < 0) return usage(&b, "bad --value-size"); break;
		case 'g': if (parse_u32(optarg, 0, 100, &get_pct) < 0) return usage(&b, "bad --get-pct"); break;
		case 'c': if (parse_u32(optarg, 1, KV_MAX_CONC, &conc) < 0) return usage(&b, "bad --concurrent"); break;
		case 'b': if (parse_u32(optarg, 0, 1u << 30, &base) < 0) return usage(&b, "bad --key-base"); break;
		case 'B': boot = optarg; break;
		default: return usage(&b, "unknown option");
		}
	}
	if (strcmp(boot, "tcp") != 0 && strcmp(boot, "mpi") != 0)
		return usage(&b, "bad --boot");
	if (strcmp(boot, "mpi") == 0 && connect != NULL)
		return usage(&b, "--boot mpi replaces --connect");
	if (optind < argc || (strcmp(boot, "tcp") == 0 && (connect == NULL ||
	    rdx_conn_parse_hostport(connect, host, sizeof(host), &port) < 0)))
		return usage(&b, "--connect HOST:PORT is required");
	if (rdx_rpc_transport_parse(conf.transport) < 0)
		return usage(&b, "unknown transport");
	/* --boot mpi: every rank's options were good, or every rank leaves */
	(void)kv_boot_opts(&b, 0, &agreed);
	if (!agreed)
		return 2;
	rdx_hist_init(&kc.hist[0]);
	rdx_hist_init(&kc.hist[1]);
	dev = rdx_dev_open(dev_name, NULL);
	if (dev == NULL) {
		fprintf(stderr, "kv_client: cannot open device %s: %s\n", dev_name,
			rte_strerror(rte_errno));
		goto out;
	}
	/* slots: lib/rpc's default, as the server's (both ends equal, or the
	 * session is refused); calls past them wait for one (-EAGAIN) */
	kc.ep = rdx_rpc_endpoint_create(dev, &conf);
	kc.sess = kc.ep != NULL ? rdx_rpc_session_create(kc.ep) : NULL;
	if (kc.sess == NULL) {
		fprintf(stderr, "kv_client: cannot create the endpoint: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	/* --boot mpi: the sessions go round through MPI; the end is every
	 * rank's word (the server serves until then) */
	if (strcmp(boot, "mpi") == 0) {
		b = kv_boot_open(b, "kv_client");
		if (b == NULL)
			goto out;
		if (rdx_boot_rank(b) == 0) {
			fprintf(stderr, "kv_client: --boot mpi: rank 0 is the server's\n");
			(void)rdx_boot_agree(b, -EINVAL, "start");
			goto out;
		}
		/* a failure there is every rank's (they all leave) */
		rc = kv_boot_sessions(b, &kc.sess, "kv_client");
		if (rc < 0)
			goto out;
		rc = check ? kv_check(&kc) : kv_load(&kc, n, base, keys, get_pct, conc);
		rc = kv_boot_end(b, kc.ep, rc);
		goto out;
	}
	/* the server accepts between serving its other clients and may drop a
	 * connection it took too early (before our hello): connect again, for
	 * up to 30 s; a session blob it refused (EPROTO) is final */
	for (t0 = rdx_tsc();;) {
		int brc = -ECONNREFUSED;

		conn = rdx_conn_connect(host, port, 30000);
		if (conn != NULL) {
			brc = rdx_rpc_session_bootstrap(kc.sess, conn, 30000);
			if (brc == 0)
				break;
		}
		if (brc == -EPROTO || brc == -EINVAL || rdx_runtime_stopping() ||
		    rdx_tsc() - t0 > 30 * rdx_tsc_hz()) {
			fprintf(stderr, "kv_client: cannot reach the server at %s: %s\n", connect,
				conn == NULL ? rdx_conn_strerror(NULL) :
				brc == -EPROTO || brc == -EINVAL ?
				"the two sessions do not match (see above)" :
				rdx_conn_strerror(conn));
			goto out;
		}
		rdx_conn_close(conn);
		conn = NULL;
		rte_delay_us_sleep(50000);
	}
	kc.conn = conn;
	rc = check ? kv_check(&kc) : kv_load(&kc, n, base, keys, get_pct, conc);
out:
	rdx_rpc_endpoint_destroy(kc.ep);
	rdx_conn_close(conn);
	if (dev != NULL)
		rdx_dev_close(dev);
	rdx_boot_close(b);
	rdx_runtime_cleanup();
	return rc == 0 ? 0 : 1;
}
