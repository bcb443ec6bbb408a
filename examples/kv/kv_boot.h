/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv over lib/boot's "mpi" provider (--boot mpi; doc/embedding.md): the
 * ranks of one mpirun, rank 0 kv_server and every other rank a kv_client
 * (an MPMD command line: mpirun -np 1 kv_server ... : -np N kv_client ...).
 * The session blobs go round in one rdx_boot_exchange; the end is a sync
 * point of every rank, at which the server serves until every client has
 * given its word. Shared by kv_server.c and kv_client.c.
 */
#ifndef KV_BOOT_H
#define KV_BOOT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdx_boot.h>
#include <rdx_rpc.h>

#define KV_BOOT_MSG 0x4b56u   /* "KV": the session blobs */
#define KV_BOOT_TIMEOUT_MS 30000

/*
 * Before rdx_runtime_init: with --boot mpi among the app's arguments (after
 * "--"), open the mpi bootstrap and let it give the EAL a file prefix and,
 * unless -l/-c/--lcores is given, a CPU per rank (rdx_boot_eal_args: *argc
 * and *argv replaced). NULL without --boot mpi; NULL and *failed after one
 * line when MPI does not start.
 */
static inline struct rdx_boot *
kv_boot_pre(const char *who, int *argc, char ***argv, bool *failed)
{
	const struct rdx_boot_conf conf = { .name = who, .timeout_ms = KV_BOOT_TIMEOUT_MS };
	struct rdx_boot *b;
	int i, dash;
	bool mpi = false;

	for (dash = 1; dash < *argc && strcmp((*argv)[dash], "--") != 0; dash++)
		;
	for (i = dash + 1; i < *argc; i++)
		mpi = mpi || strcmp((*argv)[i], "--boot=mpi") == 0 ||
		      (strcmp((*argv)[i], "--boot") == 0 && i + 1 < *argc &&
		       strcmp((*argv)[i + 1], "mpi") == 0);
	*failed = false;
	if (!mpi)
		return NULL;
	b = rdx_boot_open("mpi", &conf);
	if (b != NULL && rdx_boot_eal_args(b, *argc, *argv, argc, argv) < 0) {
		fprintf(stderr, "%s: no memory for the EAL arguments\n", who);
		rdx_boot_close(b);
		b = NULL;
	}
	*failed = b == NULL;
	return b;
}

/*
 * After the app's options, with --boot mpi (*b from kv_boot_pre): every
 * rank gives its word on its own options at one quiet sync point, so that
 * options refused on any rank end every rank at once, rather than the
 * others at their timeout (or, without MPI_Finalize, at mpirun's). rc: 0
 * (this rank's are good) or -EINVAL. Returns true when this rank is to
 * print its refusal: without MPI, or when it is the first rank that
 * refused (the ranks of one program see the same options: one line, not
 * one per rank). After a refusal anywhere, *b is closed (MPI_Finalize)
 * and *agreed false; else *agreed true and *b stays open.
 */
static inline bool
kv_boot_opts(struct rdx_boot **b, int rc, bool *agreed)
{
	struct rdx_boot_sync s = {
		.what = "take its options", .rc = rc, .run_end = true, .client = true,
	};
	bool say;

	*agreed = rc == 0;
	if (*b == NULL)
		return rc != 0;
	/* run_end: no line on the ranks that did not refuse */
	(void)rdx_boot_sync(*b, &s);
	say = rc != 0 && s.rank == rdx_boot_rank(*b);
	if (s.status < 0) {
		*agreed = false;
		rdx_boot_close(*b);
		*b = NULL;
	}
	return say;
}

/* After rdx_runtime_init: find the other ranks (b from kv_boot_pre), or
 * NULL after one line (b closed). */
static inline struct rdx_boot *
kv_boot_open(struct rdx_boot *b, const char *who)
{
	if (b == NULL) {
		fprintf(stderr, "%s: --boot mpi belongs after \"--\" (with the app's options)\n", who);
		return NULL;
	}
	if (rdx_boot_connect(b) < 0) {
		rdx_boot_close(b);
		b = NULL;
	}
	if (b != NULL && rdx_boot_size(b) < 2) {
		fprintf(stderr, "%s: --boot mpi needs at least 2 ranks (rank 0 serves)\n", who);
		rdx_boot_close(b);
		b = NULL;
	}
	return b;
}

/*
 * Connect the sessions: rank 0 has one per client rank (sess[r - 1] for
 * rank r), a client one (sess[0]). Every rank's blobs go round at once
 * (rank r's in a slot of size - 1 blobs), then each connects its own.
 * 0, or the first failing rank's error on every rank (a line says which).
 */
static inline int
kv_boot_sessions(struct rdx_boot *b, struct rdx_rpc_session **sess, const char *who)
{
	const int rank = rdx_boot_rank(b), size = rdx_boot_size(b);
	const size_t one = sizeof(struct rdx_rpc_session_info), len = one * (size_t)(size - 1);
	uint8_t *mine = calloc(1, len), *all = calloc((size_t)size, len);
	int i, n = rank == 0 ? size - 1 : 1, rc = mine != NULL && all != NULL ? 0 : -ENOMEM;

	for (i = 0; i < n && rc == 0; i++)
		rc = rdx_rpc_session_info_get(sess[i], (struct rdx_rpc_session_info *)(void *)
					      (mine + (size_t)i * one));
	rc = rdx_boot_agree(b, rc, "describe its session");
	if (rc == 0)
		rc = rdx_boot_exchange(b, KV_BOOT_MSG, mine, all, len);
	for (i = 0; i < n && rc == 0; i++) {
		/* rank 0's session i is client rank i + 1's; client rank r's
		 * is the r-th of rank 0's blobs */
		const uint8_t *peer = rank == 0 ? all + (size_t)(i + 1) * len :
			all + (size_t)(rank - 1) * one;

		rc = rdx_rpc_session_connect(sess[i], (const struct rdx_rpc_session_info *)
					     (const void *)peer);
		if (rc < 0)
			fprintf(stderr, "%s: rank %d: cannot connect session %d: %s\n", who, rank,
				i, strerror(-rc));
	}
	free(mine);
	free(all);
	return rdx_boot_agree(b, rc, "connect its session");
}

static inline bool
kv_boot_is_client(int rank, void *arg)
{
	(void)arg;
	return rank != 0;
}

/* between looks at the other ranks: late answers (client), requests (server) */
static inline void
kv_boot_idle(void *arg)
{
	int k;

	for (k = 0; k < 4096; k++)
		rdx_rpc_endpoint_poll(arg);
}

/*
 * The end, on every rank: a client gives its rc, the server serves ep until
 * every client has. The first failing rank's rc (or 0) on every rank.
 */
static inline int
kv_boot_end(struct rdx_boot *b, struct rdx_rpc_endpoint *ep, int rc)
{
	struct rdx_boot_sync s = {
		.what = "finish its calls", .rc = rc, .run_end = true,
		.client = rdx_boot_rank(b) != 0, .is_client = kv_boot_is_client,
		.idle = kv_boot_idle, .arg = ep,
	};

	return rdx_boot_sync(b, &s);
}

#endif /* KV_BOOT_H */
