/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_server: a small in-memory key-value store (GET, PUT, DELETE) served
 * over lib/rpc, the example doc/embedding.md walks through: EAL start-up
 * (rdx_runtime_init), a device (rdx_dev_open), an RPC endpoint with one
 * handler per request type, sessions bootstrapped over TCP (lib/conn), and
 * the endpoint's poller run to completion by an rdx_lcore_loop.
 *
 *   kv_server [EAL options] -- [--transport T] [--dev NAME] [-p PORT]
 *             [--clients N] [--capacity N] [--value-max BYTES]
 *
 * It serves --clients clients (accepted as they come, while it serves the
 * others: their bootstraps progress without waiting, so a peer that
 * connects and goes silent stalls no one) and exits once all of them have
 * come and gone, or on SIGINT/SIGTERM: 0 when every queue worked, 1 with
 * one line after a device error (at once when the endpoint's UD QP went to
 * error: it can serve no one). The store (kv_store.h) is a fixed
 * open-addressing table with its value slab allocated at start: the
 * handlers allocate nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include <rdx_boot.h>
#include <rdx_conn.h>
#include <rdx_dev.h>
#include <rdx_rpc.h>
#include <rdx_runtime.h>

#include "kv_boot.h"
#include "kv_proto.h"
#include "kv_service.h"
#include "kv_store.h"

#define KV_MAX_CLIENTS 64
/* The largest --value-max: a PUT (header, key, value) within lib/rpc's
 * default max_msg_size, the one kv_client uses (both ends must be equal). */
#define KV_VALUE_MAX_LIMIT (RDX_RPC_DEFAULT_MAX_MSG - (uint32_t)sizeof(struct kv_req) - KV_KEY_MAX)

/* A poller beside the endpoint's (control path, every 10 ms): take the
 * clients that have connected and move their bootstraps on as far as what
 * each has sent allows, never waiting for one (a client that connects and
 * goes silent must not stall the others' calls); stop once all the clients
 * expected have come and gone. */
#define KV_WATCH_HZ 100
/* A client's hello and session info, from when it is taken: as long as
 * rdx_rpc_session_bootstrap's wait was. */
#define KV_BOOT_MS 10000
/* Its hello alone, as rdx_conn_accept allows (a real peer sends it as it
 * connects): a silent peer does not hold a slot for KV_BOOT_MS. */
#define KV_HELLO_MS 2000
/* The first client, from the start (or from the last bootstrap under way
 * then). */
#define KV_FIRST_MS 30000
/* Connections taken per look: a flood of peers that connect and reset
 * cannot keep the watch from returning. */
#define KV_ACCEPT_BURST 64

struct kv_pending {
	struct rdx_conn *c;
	uint64_t taken;              /* TSC */
	bool hello_ok;               /* an rdx peer (its hello checked) */
};

struct kv_watch {
	struct rdx_lcore_loop *loop;
	struct rdx_rpc_endpoint *ep;
	struct rdx_conn *listener;
	struct rdx_conn *conns[KV_MAX_CLIENTS];
	struct kv_pending pend[KV_MAX_CLIENTS]; /* bootstraps under way */
	unsigned int nb;             /* clients bootstrapped */
	unsigned int npend;
	unsigned int want;           /* --clients */
	uint64_t next;               /* TSC of the next look */
	uint64_t first_deadline;     /* TSC: no client by then, exit 1 */
	int rc;
};

/*
 * The slot for a new peer in a full table: the oldest peer whose hello is
 * not checked yet, else the oldest of all (a real client's bootstrap takes
 * a round trip or two: only peers that connect and stall fill a table, and
 * they must not keep the next real client waiting for their deadlines).
 */
static unsigned int
kv_evict(struct kv_watch *w)
{
	unsigned int i, v = 0;

	for (i = 1; i < w->npend; i++)
		if (w->pend[i].hello_ok != w->pend[v].hello_ok ? !w->pend[i].hello_ok :
		    w->pend[i].taken < w->pend[v].taken)
			v = i;
	if (w->pend[v].hello_ok)
		fprintf(stderr, "kv_server: %s: %u bootstraps under way, the oldest: dropped\n",
			rdx_conn_peer_name(w->pend[v].c), w->npend);
	rdx_conn_close(w->pend[v].c);
	return v;
}

/* Take the clients that have connected (our hello sent, theirs to come). */
static void
kv_accept(struct kv_watch *w, uint64_t now)
{
	struct rdx_conn *c;
	unsigned int n, slot;

	for (n = 0; n < KV_ACCEPT_BURST; n++) {
		c = rdx_conn_accept_start(w->listener);
		if (c == NULL) {
			/* a peer that reset before our hello went: the next one */
			if (rte_errno == ECONNRESET || rte_errno == EPIPE)
				continue;
			break; /* none waiting (EAGAIN), or no fd/memory now */
		}
		slot = w->npend < KV_MAX_CLIENTS ? w->npend++ : kv_evict(w);
		w->pend[slot].c = c;
		w->pend[slot].taken = now;
		w->pend[slot].hello_ok = false;
	}
}

/* One bootstrap under way: 1 done, 0 still pending, -1 dropped. */
static int
kv_boot_step(struct kv_watch *w, struct kv_pending *p, uint64_t now)
{
	const uint64_t ms = rdx_tsc_hz() / 1000;
	struct rdx_rpc_session *sess;
	int ret = rdx_conn_hello_poll(p->c);

	p->hello_ok = ret == 0;
	if (p->hello_ok)
		ret = rdx_rpc_session_bootstrap_poll(w->ep, p->c, &sess);
	if (ret == 0) {
		w->conns[w->nb++] = p->c;
		return 1;
	}
	if (ret == -EAGAIN &&
	    now - p->taken < (p->hello_ok ? KV_BOOT_MS : KV_HELLO_MS) * ms)
		return 0;
	/* a stray connection (no rdx hello within KV_HELLO_MS: a port scan, a
	 * health check) is ignored; a client that went away, stayed silent
	 * past its deadline or sent a blob lib/rpc refused (in one line) is
	 * dropped */
	if (p->hello_ok)
		fprintf(stderr, "kv_server: session with %s failed: dropped\n",
			rdx_conn_peer_name(p->c));
	rdx_conn_close(p->c);
	return -1;
}

static void
kv_boot_progress(struct kv_watch *w, uint64_t now)
{
	unsigned int i = 0;

	while (i < w->npend && w->nb < w->want) {
		if (kv_boot_step(w, &w->pend[i], now) == 0)
			i++;
		else
			w->pend[i] = w->pend[--w->npend];
	}
	if (w->nb < w->want)
		return;
	/* all the clients expected are in: the others are not served */
	for (i = 0; i < w->npend; i++) {
		fprintf(stderr, "kv_server: %s: %u client(s) served already: dropped\n",
			rdx_conn_peer_name(w->pend[i].c), w->want);
		rdx_conn_close(w->pend[i].c);
	}
	w->npend = 0;
}

static int
kv_watch_poll(void *arg)
{
	struct kv_watch *w = arg;
	unsigned int i, alive = 0;
	uint64_t now = rdx_tsc();

	if (now < w->next)
		return 0;
	w->next = now + rdx_tsc_hz() / KV_WATCH_HZ;
	/* an endpoint whose QP went to error serves no one any more (lib/rpc
	 * said why in one line): stop, exit 1, never wait there for SIGINT */
	if (rdx_rpc_endpoint_error(w->ep) != 0) {
		fprintf(stderr, "kv_server: endpoint %s is dead (its QP went to error): exiting\n",
			rdx_rpc_endpoint_name(w->ep));
		w->rc = -1;
		rdx_lcore_loop_stop(w->loop);
		return 0;
	}
	if (w->nb < w->want) {
		kv_accept(w, now);
		kv_boot_progress(w, now);
	}
	/* a bootstrap under way at the deadline is let finish (it has its own) */
	if (w->nb == 0 && w->npend == 0 && now >= w->first_deadline) {
		fprintf(stderr, "kv_server: no client within %u s\n", KV_FIRST_MS / 1000);
		w->rc = -1;
		rdx_lcore_loop_stop(w->loop);
		return 0;
	}
	for (i = 0; i < w->nb; i++)
		alive += rdx_conn_peer_alive(w->conns[i]) == 0;
	if (w->nb == w->want && alive == 0)
		rdx_lcore_loop_stop(w->loop);
	return 0;
}

/* One line and exit 2; with --boot mpi, once for the whole job and on
 * every rank (kv_boot_opts) */
static int
usage(struct rdx_boot **b, const char *why)
{
	bool agreed;

	if (!kv_boot_opts(b, -EINVAL, &agreed))
		return 2;
	fprintf(stderr, "kv_server: %s (usage: kv_server [EAL options] -- [--transport infrc|basic+infud|homa+infud] [--dev NAME] [-p PORT] [--clients N] [--boot tcp|mpi] [--capacity N] [--value-max BYTES])\n",
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
		{"transport", required_argument, NULL, 't'}, {"dev", required_argument, NULL, 'd'},
		{"port", required_argument, NULL, 'p'}, {"clients", required_argument, NULL, 'c'},
		{"capacity", required_argument, NULL, 'n'}, {"value-max", required_argument, NULL, 'v'},
		{"boot", required_argument, NULL, 'B'},
		{NULL, 0, NULL, 0},
	};
	struct rdx_rpc_conf conf = { .transport = "infrc", .name = "kv" };
	struct kv_store s = { .cap = 4096, .value_max = KV_VALUE_MAX_DEFAULT };
	struct rdx_lcore_loop loop;
	struct rdx_rpc_stats st;
	static struct kv_watch w;
	struct rdx_rpc_endpoint *ep = NULL;
	struct rdx_dev *dev = NULL;
	const char *dev_name = "sw", *boot = "tcp";
	struct rdx_rpc_session *sess[KV_MAX_CLIENTS];
	struct rdx_boot *b = NULL;
	bool boot_failed, agreed;
	uint32_t port = 18600, clients = 1, i;
	int c, ret, rc = 1;

	/* 1. EAL: the arguments before "--"; ours follow it (--boot mpi:
	 * MPI starts first and gives each rank its EAL file prefix and CPU) */
	b = kv_boot_pre("kv_server", &argc, &argv, &boot_failed);
	if (boot_failed)
		return 1;
	ret = rdx_runtime_init(argc, argv);
	if (ret < 0)
		return ret == -EINVAL ? 2 : 1;
	argc -= ret;
	argv += ret;
	/* --boot mpi: our line only, once for the job (usage) */
	opterr = b == NULL;
	while ((c = getopt_long(argc, argv, "p:", opts, NULL)) != -1) {
		switch (c) {
		case 't': conf.transport = optarg; break;
		case 'd': dev_name = optarg; break;
		case 'p': if (parse_u32(optarg, 1, 65535, &port) < 0) return usage(&b, "bad -p"); break;
		case 'c': if (parse_u32(optarg, 1, KV_MAX_CLIENTS, &clients) < 0) return usage(&b, "bad --clients"); break;
		case 'n': if (parse_u32(optarg, 1, 1u << 20, &s.cap) < 0) return usage(&b, "bad --capacity"); break;
		case 'v': if (parse_u32(optarg, 1, KV_VALUE_MAX_LIMIT, &s.value_max) < 0) return usage(&b, "bad --value-max"); break;
		case 'B': boot = optarg; break;
		default: return usage(&b, "unknown option");
		}
	}
	if (optind < argc || rdx_rpc_transport_parse(conf.transport) < 0)
		return usage(&b, optind < argc ? "unexpected argument" : "unknown transport");
	if (strcmp(boot, "tcp") != 0 && strcmp(boot, "mpi") != 0)
		return usage(&b, "bad --boot");
	/* --boot mpi: every rank's options were good, or every rank leaves */
	(void)kv_boot_opts(&b, 0, &agreed);
	if (!agreed)
		return 2;
	/* --boot mpi: rank 0 of an mpirun, every other rank a client */
	if (strcmp(boot, "mpi") == 0) {
		b = kv_boot_open(b, "kv_server");
		if (b == NULL)
			goto out;
		if (rdx_boot_rank(b) != 0 || rdx_boot_size(b) - 1 > KV_MAX_CLIENTS) {
			fprintf(stderr, "kv_server: --boot mpi: the server is rank 0 of at most %u + 1 (it is rank %d of %d)\n",
				KV_MAX_CLIENTS, rdx_boot_rank(b), rdx_boot_size(b));
			(void)rdx_boot_agree(b, -EINVAL, "start");
			goto out;
		}
		clients = (uint32_t)rdx_boot_size(b) - 1;
	}
	while (s.cap & (s.cap - 1))
		s.cap++;
	s.slots = calloc(s.cap, sizeof(*s.slots));
	s.vals = malloc((size_t)s.cap * s.value_max);
	if (s.slots == NULL || s.vals == NULL) {
		fprintf(stderr, "kv_server: no memory for %u values of %u B\n", s.cap, s.value_max);
		goto out;
	}
	/* 2. the device */
	dev = rdx_dev_open(dev_name, NULL);
	if (dev == NULL) {
		fprintf(stderr, "kv_server: cannot open device %s: %s\n", dev_name,
			rte_strerror(rte_errno));
		goto out;
	}
	/* 3. the endpoint, 4. its handlers */
	conf.max_sessions = clients;
	/* max_msg_size: the default, 1 MiB, as kv_client's (a larger one here
	 * and every client's session would be refused): --value-max fits in it */
	conf.max_msg_size = 0;
	ep = rdx_rpc_endpoint_create(dev, &conf);
	if (ep == NULL) {
		fprintf(stderr, "kv_server: cannot create the endpoint: %s\n", rte_strerror(rte_errno));
		goto out;
	}
	if (rdx_rpc_handler_register(ep, KV_GET, kv_handler, &s) < 0 ||
	    rdx_rpc_handler_register(ep, KV_PUT, kv_handler, &s) < 0 ||
	    rdx_rpc_handler_register(ep, KV_DEL, kv_handler, &s) < 0)
		goto out;
	/* 5. sessions: one per client, its info exchanged over MPI (lib/boot) */
	if (b != NULL) {
		for (i = 0; i < clients; i++) {
			sess[i] = rdx_rpc_session_create(ep);
			if (sess[i] == NULL) {
				fprintf(stderr, "kv_server: cannot create session %u: %s\n", i,
					rte_strerror(rte_errno));
				break;
			}
		}
		if (kv_boot_sessions(b, sess, "kv_server") < 0 || i < clients)
			goto out;
		printf("kv_server: %s on %s, serving %u client rank(s) through MPI\n",
		       conf.transport, dev_name, clients);
		fflush(stdout);
		/* 6. serve until every client rank has given its word */
		if (kv_boot_end(b, ep, 0) < 0) {
			fprintf(stderr, "kv_server: a client rank failed (its output says why)\n");
			goto out;
		}
		w.nb = 0;
		goto done;
	}
	/* 5. sessions: one per client, its info exchanged over TCP (lib/conn) */
	w.listener = rdx_conn_listen(NULL, (uint16_t)port);
	if (w.listener == NULL) {
		fprintf(stderr, "kv_server: cannot listen on port %u: %s\n", port,
			rte_strerror(rte_errno));
		goto out;
	}
	printf("kv_server: %s on %s, port %u, serving %u client(s)\n", conf.transport,
	       dev_name, rdx_conn_port(w.listener), clients);
	fflush(stdout);
	w.loop = &loop;
	w.ep = ep;
	w.want = clients;
	/* 6. run to completion: the endpoint's poller, and the watch that
	 * accepts the clients as they come (the first within 30 s) while the
	 * endpoint serves those in; a stray connection (a port scan, a health
	 * check) or a client whose bootstrap fails is dropped, and the server
	 * goes on (ends on SIGINT/SIGTERM too) */
	w.first_deadline = rdx_tsc() + rdx_tsc_hz() * KV_FIRST_MS / 1000;
	rdx_lcore_loop_init(&loop);
	rdx_lcore_loop_add(&loop, "rpc", rdx_rpc_endpoint_poller, ep);
	rdx_lcore_loop_add(&loop, "watch", kv_watch_poll, &w);
	rdx_lcore_loop_run(&loop);
	if (w.rc == 0 && w.nb == 0) {
		fprintf(stderr, "kv_server: stopped before a client came\n");
		goto out;
	}
	if (w.rc < 0)
		goto out;
done:
	printf("kv_server: done: %" PRIu64 " GET (%" PRIu64 " hits), %" PRIu64 " PUT, %" PRIu64 " DELETE, %" PRIu64 " bad, %u keys stored\n",
	       s.gets, s.hits, s.puts, s.dels, s.bad, s.used);
	/* a device error failed some session's calls (infrc: that session's
	 * QP went to error): the run was not clean */
	if (rdx_rpc_endpoint_stats_get(ep, &st) == 0 && st.errors != 0) {
		fprintf(stderr, "kv_server: %" PRIu64 " device error(s) on the endpoint: exit 1\n",
			st.errors);
		goto out;
	}
	rc = 0;
out:
	rdx_rpc_endpoint_destroy(ep);
	for (i = 0; i < w.nb; i++)
		rdx_conn_close(w.conns[i]);
	for (i = 0; i < w.npend; i++)
		rdx_conn_close(w.pend[i].c);
	rdx_conn_close(w.listener);
	if (dev != NULL)
		rdx_dev_close(dev);
	rdx_boot_close(b);
	free(s.slots);
	free(s.vals);
	rdx_runtime_cleanup();
	return rc;
}
