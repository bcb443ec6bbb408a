/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "mpi" bootstrap provider: the ranks of an MPI job (mpirun, prterun,
 * srun --mpi=pmix). Open starts MPI (unless the program did), connect
 * learns every rank's host, exchange is one MPI_Allgather, and a sync
 * point (rdx_boot_sync) is bounded in time: each rank sends rank 0 its
 * word, rank 0 answers with the verdict once it has heard every rank, and
 * a rank not heard from in time is named by rank 0, which calls
 * MPI_Abort: no rank waits for ever. Only one thread calls it. Built into
 * its own archive (lib/meson.build), so librdx does not need MPI.
 */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "rdx_runtime.h"

#include "rdx_boot.h"
#include "rdx_boot_provider.h"

#define TAG_DONE 0x5244
#define TAG_VERDICT 0x5245
#define HOST_LEN 64

struct mpi_boot {
	bool started;            /* MPI_Init was ours: close finalizes */
	int local_rank;          /* among the ranks of this host */
	char (*hosts)[HOST_LEN]; /* every rank's, after connect */
	char **argv;             /* rdx_boot_eal_args' */
	char *owned[4];          /* the strings of argv made here */
	unsigned int nb_owned;
};

/* A rank's word at a sync point, and rank 0's answer. */
struct word {
	int32_t status;   /* 0 or a negative errno */
	int32_t rank;     /* the (first) rank that failed, -1: none */
	int32_t stop;     /* SIGINT/SIGTERM seen: 1 + the (first) rank that saw it */
	int32_t early;    /* the failing rank was leaving */
};

struct sync_state {
	struct rdx_boot *b;
	struct rdx_boot_sync *s;
	struct word mine;
	struct word verdict;
	struct word *got;         /* rank 0: every rank's word */
	MPI_Request *reqs;        /* rank 0: one receive per rank; else [0] send, [1] receive */
	MPI_Request two[2];
	bool *in;                 /* rank 0: heard from */
	uint64_t deadline;        /* mono_ns(); 0: none yet */
	bool done;
};

static struct mpi_boot *
mpi(const struct rdx_boot *b)
{
	return b->priv;
}

static int
mpi_open(struct rdx_boot *b)
{
	MPI_Comm local;
	int provided, up = 0;

	MPI_Initialized(&up);
	if (!up) {
		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
			RDX_BOOT_LOG(b, ERR, "MPI_Init failed (launch with mpirun or srun --mpi=pmix)");
			return -EINVAL;
		}
		mpi(b)->started = true;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &b->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &b->size);
	/* collective: every rank makes it here, also one whose arguments the
	 * program will refuse, so that its peers never wait in it */
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b->rank, MPI_INFO_NULL, &local);
	MPI_Comm_rank(local, &mpi(b)->local_rank);
	MPI_Comm_free(&local);
	return 0;
}

/* The CPU of this rank: the local_rank-th of those it may run on (mpirun
 * may have bound it to one already). */
static int
rank_cpu(int local_rank)
{
	cpu_set_t set;
	size_t cpu;
	int n = 0, want;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	want = local_rank % RTE_MAX(CPU_COUNT(&set), 1);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && n++ == want)
			return (int)cpu;
	return 0;
}

static char *
owned(struct mpi_boot *m, char *s)
{
	if (s != NULL && m->nb_owned < RTE_DIM(m->owned))
		m->owned[m->nb_owned++] = s;
	return s;
}

static char *
with_rank(const char *s, int rank)
{
	size_t n = strlen(s) + 16;
	char *p = malloc(n);

	if (p != NULL)
		snprintf(p, n, "%s-r%d", s, rank);
	return p;
}

static int
mpi_eal_args(struct rdx_boot *b, int argc, char **argv, int *out_argc, char ***out_argv)
{
	struct mpi_boot *m = mpi(b);
	int i, k = 0, dash;
	bool lcores = false;
	char **out;

	if (m->argv != NULL)
		return -EBUSY;
	out = calloc((size_t)argc + 3, sizeof(*out));
	if (out == NULL)
		return -ENOMEM;
	m->argv = out;
	/* EAL's arguments end at "--" (the app's follow) */
	for (dash = 1; dash < argc && strcmp(argv[dash], "--") != 0; dash++)
		;
	for (i = 0; i < dash; i++) {
		const char *s = argv[i];

		if (i > 0 && (strncmp(s, "-l", 2) == 0 || strncmp(s, "-c", 2) == 0 ||
			      strncmp(s, "--lcores", 8) == 0))
			lcores = true;
		/* one EAL file prefix per rank (without one the runtime makes
		 * rdx-<pid>, which differs already) */
		if (strcmp(s, "--file-prefix") == 0 && i + 1 < argc) {
			out[k++] = argv[i++];
			out[k++] = owned(m, with_rank(argv[i], b->rank));
			continue;
		}
		if (strncmp(s, "--file-prefix=", 14) == 0) {
			out[k++] = owned(m, with_rank(s, b->rank));
			continue;
		}
		out[k++] = argv[i];
	}
	if (!lcores) {
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", rank_cpu(m->local_rank));
		out[k++] = owned(m, strdup("-l"));
		out[k++] = owned(m, strdup(cpu));
	}
	for (i = dash; i < argc; i++)
		out[k++] = argv[i];
	for (i = 0; i < k; i++)
		if (out[i] == NULL)
			return -ENOMEM;
	out[k] = NULL;
	*out_argc = k;
	*out_argv = out;
	return 0;
}

static int
mpi_connect(struct rdx_boot *b)
{
	struct mpi_boot *m = mpi(b);
	char host[HOST_LEN] = "";

	if (m->hosts == NULL)
		m->hosts = calloc((size_t)b->size, sizeof(*m->hosts));
	if (m->hosts == NULL)
		return -ENOMEM;
	if (gethostname(host, sizeof(host) - 1) != 0)
		snprintf(host, sizeof(host), "?");
	MPI_Allgather(host, HOST_LEN, MPI_CHAR, m->hosts, HOST_LEN, MPI_CHAR, MPI_COMM_WORLD);
	return 0;
}

static const char *
mpi_host(const struct rdx_boot *b, int rank)
{
	const struct mpi_boot *m = mpi(b);

	if (m->hosts == NULL || rank < 0 || rank >= b->size)
		return NULL;
	return m->hosts[rank];
}

static int
mpi_exchange(struct rdx_boot *b, uint32_t type, const void *mine, void *theirs, size_t len)
{
	RTE_SET_USED(type);
	if (len > INT32_MAX)
		return -EINVAL;
	return MPI_Allgather(mine, (int)len, MPI_BYTE, theirs, (int)len, MPI_BYTE,
			     MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

/* CLOCK_MONOTONIC in ns: also a rank without EAL (the TSC frequency is
 * the EAL's) keeps time at a sync point */
static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *
host_or(const struct rdx_boot *b, int r, const char *none)
{
	const char *h = mpi_host(b, r);

	return h != NULL ? h : none;
}

static void
hang_abort(struct sync_state *st)
{
	struct rdx_boot *b = st->b;
	char within[96];
	int r;

	if (b->rank == 0) {
		for (r = 1; r < b->size; r++)
			if (!st->in[r]) {
				RDX_BOOT_LOG(b, ERR, "rank 0: rank %d (%s) did not %s %s%s: aborting every rank",
					     r, host_or(b, r, "?"), st->s->what,
					     rdx_boot_within(b, within, sizeof(within)),
					     st->s->run_end ? " of the first client" : "");
				break;
			}
	} else {
		RDX_BOOT_LOG(b, ERR, "rank %d: rank 0 (%s) did not %s in time: aborting every rank",
			     b->rank, host_or(b, 0, "?"), st->s->what);
	}
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static int
sync_begin(struct rdx_boot *b, struct sync_state *st, struct rdx_boot_sync *s)
{
	const uint64_t ms = 1000000u, now = mono_ns();
	const uint64_t tmo = (uint64_t)b->conf.timeout_ms * ms;
	int r;

	memset(st, 0, sizeof(*st));
	st->b = b;
	st->s = s;
	st->mine.status = s->rc < 0 ? s->rc : 0;
	st->mine.rank = b->rank;
	st->mine.stop = rdx_runtime_stopping() ? b->rank + 1 : 0;
	st->mine.early = s->early ? 1 : 0;
	if (b->rank == 0) {
		st->got = calloc((size_t)b->size, sizeof(*st->got));
		st->reqs = calloc((size_t)b->size, sizeof(*st->reqs));
		st->in = calloc((size_t)b->size, sizeof(*st->in));
		if (st->got == NULL || st->reqs == NULL || st->in == NULL)
			MPI_Abort(MPI_COMM_WORLD, 1);
		for (r = 1; r < b->size; r++)
			MPI_Irecv(&st->got[r], (int)sizeof(st->got[r]), MPI_BYTE, r, TAG_DONE,
				  MPI_COMM_WORLD, &st->reqs[r]);
		/* an interrupted client ended early: its end starts no clock */
		if (!s->run_end || (s->client && st->mine.stop == 0))
			st->deadline = now + tmo;
	} else {
		st->reqs = st->two;
		MPI_Isend(&st->mine, (int)sizeof(st->mine), MPI_BYTE, 0, TAG_DONE, MPI_COMM_WORLD,
			  &st->two[0]);
		MPI_Irecv(&st->verdict, (int)sizeof(st->verdict), MPI_BYTE, 0, TAG_VERDICT,
			  MPI_COMM_WORLD, &st->two[1]);
		/* rank 0 decides first; this covers rank 0 itself hanging */
		if (!s->run_end || (s->client && st->mine.stop == 0))
			st->deadline = now + 2 * tmo + 1000 * ms;
		else if (s->run_ms != 0)
			st->deadline = now + (s->run_ms + 1000) * ms + 2 * tmo;
	}
	return 0;
}

/* One look at the messages; true when every rank has been heard. */
static bool
sync_step(struct sync_state *st)
{
	struct rdx_boot *b = st->b;
	uint64_t now = mono_ns();
	int r, flag;

	if (st->done)
		return true;
	if (b->rank != 0) {
		MPI_Test(&st->reqs[1], &flag, MPI_STATUS_IGNORE);
		if (flag) {
			MPI_Wait(&st->reqs[0], MPI_STATUS_IGNORE);
			st->done = true;
			return true;
		}
		if (st->deadline != 0 && now > st->deadline)
			hang_abort(st);
		return false;
	}
	for (r = 1; r < b->size; r++) {
		if (st->in[r])
			continue;
		MPI_Test(&st->reqs[r], &flag, MPI_STATUS_IGNORE);
		if (!flag)
			continue;
		st->in[r] = true;
		/* the end of a run: the deadline runs from the first client's end
		 * (not from one cut short by SIGINT: the others run on) */
		if (st->deadline == 0 && st->s->is_client != NULL &&
		    st->s->is_client(r, st->s->arg) && st->got[r].stop == 0)
			st->deadline = now + (uint64_t)b->conf.timeout_ms * 1000000u;
	}
	for (r = 1; r < b->size; r++)
		if (!st->in[r]) {
			if (st->deadline != 0 && now > st->deadline)
				hang_abort(st);
			return false;
		}
	st->verdict = st->mine;
	st->verdict.rank = st->mine.status < 0 ? 0 : -1;
	st->verdict.early = st->mine.status < 0 ? st->mine.early : 0;
	for (r = 1; r < b->size; r++) {
		if (st->got[r].status < 0 && st->verdict.status >= 0) {
			st->verdict.status = st->got[r].status;
			st->verdict.rank = r;
			st->verdict.early = st->got[r].early;
		}
		if (st->verdict.stop == 0)
			st->verdict.stop = st->got[r].stop;
	}
	for (r = 1; r < b->size; r++)
		MPI_Send(&st->verdict, (int)sizeof(st->verdict), MPI_BYTE, r, TAG_VERDICT,
			 MPI_COMM_WORLD);
	st->done = true;
	return true;
}

static int
mpi_sync(struct rdx_boot *b, struct rdx_boot_sync *s)
{
	struct sync_state st;
	int src;

	sync_begin(b, &st, s);
	while (!sync_step(&st)) {
		if (s->idle != NULL)
			s->idle(s->arg);
		else
			usleep(200);
	}
	if (b->rank == 0) {
		free(st.got);
		free(st.reqs);
		free(st.in);
	}
	s->status = st.verdict.status;
	s->rank = st.verdict.rank;
	s->stop = st.verdict.stop;
	s->left = st.verdict.early != 0;
	if (s->rc < 0)
		return s->rc;
	if (s->status >= 0 || s->run_end)
		return s->status;
	/* the hosts are known once connected */
	src = s->rank;
	RDX_BOOT_LOG(b, ERR, "rank %d: rank %d%s%s%s %s %s: stopping (its output says why)",
		     b->rank, src, mpi_host(b, src) != NULL ? " (" : "", host_or(b, src, ""),
		     mpi_host(b, src) != NULL ? ")" : "",
		     s->left ? "left with an error while this rank waited to" : "failed to",
		     s->what);
	return s->status;
}

static void
mpi_close(struct rdx_boot *b)
{
	int fin = 0;

	free(mpi(b)->hosts);
	mpi(b)->hosts = NULL;
	/* only the strings made here are ours: leave argv's */
	free(mpi(b)->argv);
	mpi(b)->argv = NULL;
	while (mpi(b)->nb_owned > 0)
		free(mpi(b)->owned[--mpi(b)->nb_owned]);
	MPI_Finalized(&fin);
	if (mpi(b)->started && !fin)
		MPI_Finalize();
}

static const struct rdx_boot_ops mpi_ops = {
	.name = "mpi",
	.priv_size = sizeof(struct mpi_boot),
	.open = mpi_open,
	.connect = mpi_connect,
	.exchange = mpi_exchange,
	.close = mpi_close,
	.sync = mpi_sync,
	.host = mpi_host,
	.eal_args = mpi_eal_args,
};

RDX_BOOT_PROVIDER_REGISTER(mpi_ops)
