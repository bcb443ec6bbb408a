/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's timing hook (devargs timing=<profile>, off by default):
 * before the engine executes the WQE at a QP's head, sw_timing_hold says
 * whether its modelled time has come. WQEs are scheduled when the engine
 * first sees them rung (timing/tm_nic.c gives each its responder data time
 * and its requester CQE time) and each QP keeps the deadlines of its rung
 * WQEs in a ring indexed like its SQ. Messages other QPs queue on the
 * port later may come in front of a WQE's packets (per-packet round-robin):
 * when its time comes, that moves its deadlines on (tm_moved). A WQE is
 * executed (data, receive CQE) no earlier than its data time and a held
 * WQE stays at the head (the QP armed), as an RNR wait does. Its
 * requester CQE, if signaled and not due yet, goes on the release list
 * (a min-heap by CQE time, process-local: the requester's CQ is its
 * own) and the QP's next WQEs go on; sw_req_release (sw_cq.c) writes the
 * listed CQEs whose time has come, in due-time order and, per QP, in the
 * order listed (each CQE of a QP carries its sequence number: one moved
 * on past a later one holds that one back). The list's lock is the
 * process's own; a pass that finds it taken leaves the work to the pass
 * holding it.
 *
 * Clock: the TSC (rte_get_tsc_cycles/hz) when EAL calibrated it, else
 * CLOCK_MONOTONIC. The NIC's resources (port, pipeline, context cache,
 * atomic unit) live with the epoch and rate of its clock in the port
 * segment, /rdx-swtm-<uid>-<profile>-<hash of its values> (mode 0600):
 * every device of the user on this host opened with the same profile
 * (processes, MPI ranks) maps the same one and shares one NIC. Up to
 * SW_TM_MEMBERS processes, each with its QP keys offset by its member
 * slot; the last to close unlinks it; a member whose process is gone
 * gives its slot to the next. When the segment cannot be had (no slot
 * free, another clock), the device gets a NIC of its own in its segment
 * (logged). The NIC's state is under a lock word holding its holder's
 * pid (the segment's rule: a holder whose process is gone is taken
 * over), taken for the scheduling of a doorbell's WQEs and to move a
 * WQE's times on; while a live holder keeps it (descheduled inside its
 * update) the WQEs that need it wait, as work that needs any lock of the
 * segment does (a WQE going without its time would take more than its
 * share of the port).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "sw_engine_priv.h"
#include "sw_timing_dir.h"
#include "timing/sw_timing.h"

/* executed more than this after its deadline: late (model-bound) */
#define SW_TM_LATE_PS (1 * SW_TM_PS_PER_US)
#define SW_TM_LOCK_SPINS 4096

#define SW_TM_MEMBERS 16u
#define SW_TM_PORT_MAGIC 0x31746f7072747773ULL
#define SW_TM_PORT_WAIT_MS 200

struct sw_tm_shared {
	uint64_t magic;               /* SW_TM_PORT_MAGIC once set up (stored last) */
	uint32_t lock;                /* the holder's pid; 0: free */
	uint32_t tsc;                 /* the clock: 1 the TSC, 0 CLOCK_MONOTONIC */
	uint64_t hz;                  /* its ticks per second */
	uint64_t epoch;               /* clock ticks at creation */
	uint32_t member[SW_TM_MEMBERS];  /* pids of the processes sharing it */
	struct sw_tm_nic nic;
};

/* per WQEBB of a QP's SQ: the times of the WQE starting there */
struct sw_tm_slot {
	uint64_t due;                 /* clock ticks: data */
	uint64_t due_cqe;             /* clock ticks: the requester CQE */
	struct sw_tm_times tt;        /* the model's, to move on (round-robin) */
	uint32_t gen;                 /* port's messages queued when last moved */
};

struct sw_tm_qp {
	const struct sw_lqp *owner;
	uint32_t qpn, cnt;
	uint32_t sched;               /* next WQEBB (16 bits) to schedule */
	uint32_t late_ci;             /* head counted late (no twice) */
	uint32_t list_seq;            /* CQEs listed (the QP's executor only) */
	uint32_t rel_seq;             /* ... of which written (the list's lock) */
	struct sw_tm_slot s[];
};

/* A listed requester CQE. */
struct sw_tm_rel {
	struct sw_tm_slot sl;         /* its times (sl.due_cqe: the key) */
	uint64_t order;               /* listing order: ties */
	struct sw_tm_cqe c;
	uint32_t seq;                 /* its QP's list_seq when listed */
};

#define SW_TM_REL_DEFER 64u
#define SW_TM_REL_MIN 256u

struct sw_timing {
	struct sw_tm_profile prof;
	struct sw_tm_shared *sh;
	uint64_t sh_off;              /* a NIC of its own in the segment; 0: the port's */
	char port[96];                /* the port segment's name */
	uint32_t member;              /* slot in sh->member */
	uint32_t key_off;             /* its QPs' keys in the NIC */
	uint32_t pid;
	bool tsc;
	double ps_per_tick, tick_per_ps;
	uint64_t late, unheld;
	uint64_t wqes, busy_ps;       /* this process's WQEs, their occupancy */
	uint64_t first, last;         /* clock ticks: first and last scheduling */
	uint64_t pbusy0, pbusy1;      /* the NIC's busy_ps (every member's) then */
	struct sw_tm_qp *qp[SW_MAX_QP];
	/* the release list (rel_lock); a pass's state */
	uint32_t rel_lock;
	uint32_t rel_n, rel_cap;
	uint64_t rel_order;
	struct sw_tm_rel *rel;
	uint64_t rel_now;             /* the pass's clock */
	struct sw_tm_rel cur;         /* what rel_next gave */
	bool stop;
	uint32_t ndefer;              /* passed over in this pass */
	struct sw_tm_rel defer[SW_TM_REL_DEFER];
};

static inline uint64_t
tm_now(const struct sw_timing *t)
{
	return t->tsc ? rte_get_tsc_cycles() : sw_now_ns();
}

static bool tm_alive(uint32_t pid);

/* The NIC state's lock: 0, or -EBUSY while a live holder keeps it (a
 * holder runs for well under a microsecond: spins first). A holder whose
 * process is gone is taken over (the state as it left it). */
static int
tm_lock(struct sw_timing *t, unsigned int spins)
{
	uint32_t o = 0;
	unsigned int i;

	for (i = 0; i < spins; i++) {
		if (__atomic_compare_exchange_n(&t->sh->lock, &o, t->pid, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 0;
		o = 0;
		rte_pause();
	}
	o = __atomic_load_n(&t->sh->lock, __ATOMIC_RELAXED);
	if (o != 0 && o != t->pid && !tm_alive(o) &&
	    __atomic_compare_exchange_n(&t->sh->lock, &o, t->pid, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return 0;
	return -EBUSY;
}

static void
tm_unlock(struct sw_timing *t)
{
	__atomic_store_n(&t->sh->lock, 0, __ATOMIC_RELEASE);
}

static bool
tm_alive(uint32_t pid)
{
	return pid != 0 && pid <= INT32_MAX && (kill((pid_t)pid, 0) == 0 || errno != ESRCH);
}

/* Leave the port segment; the last member unlinks it. */
static void
tm_port_leave(struct sw_timing *t)
{
	uint32_t i, left = 0, me = t->pid;

	__atomic_compare_exchange_n(&t->sh->member[t->member], &me, 0, false, __ATOMIC_ACQ_REL,
				    __ATOMIC_RELAXED);
	for (i = 0; i < SW_TM_MEMBERS; i++)
		left += tm_alive(__atomic_load_n(&t->sh->member[i], __ATOMIC_ACQUIRE));
	munmap(t->sh, sizeof(*t->sh));
	if (left == 0)
		shm_unlink(t->port);
}

/* Map (or create) the port segment of t's profile: 0, or a negative errno
 * (then the device has a NIC of its own). */
static int
tm_port_join(struct sw_timing *t, uint64_t hz)
{
	const unsigned char *b = (const unsigned char *)&t->prof;
	uint64_t h = 0xcbf29ce484222325ULL, i;
	struct sw_tm_shared *sh;
	char nm[32];
	struct stat st;
	bool created;
	int fd, tries;

	for (i = 0; i < sizeof(t->prof); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	/* and the layout: a build whose NIC state differs gets another */
	h = (h ^ sizeof(*sh)) * 0x100000001b3ULL;
	for (i = 0; i < sizeof(nm) - 1 && t->prof.name[i] != '\0'; i++)
		nm[i] = isalnum((unsigned char)t->prof.name[i]) || t->prof.name[i] == '-' ?
			t->prof.name[i] : '_';
	nm[i] = '\0';
	snprintf(t->port, sizeof(t->port), "/rdx-swtm-%u-%s-%016llx", (unsigned int)geteuid(), nm,
		 (unsigned long long)h);
	fd = shm_open(t->port, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	created = fd >= 0;
	if (!created && errno == EEXIST)
		fd = shm_open(t->port, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (created && ftruncate(fd, sizeof(*sh)) != 0) {
		close(fd);
		shm_unlink(t->port);
		return -ENOMEM;
	}
	/* another's: ours, and sized (its creator may be at it) */
	for (tries = 0; !created; tries++) {
		if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode)) {
			close(fd);
			return -EPERM;
		}
		if ((uint64_t)st.st_size >= sizeof(*sh))
			break;
		if (tries == SW_TM_PORT_WAIT_MS) {
			close(fd);
			return -ETIMEDOUT;
		}
		usleep(1000);
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (sh == MAP_FAILED)
		return -ENOMEM;
	t->sh = sh;
	if (created) {
		sw_tm_nic_init(&sh->nic, &t->prof);
		sh->tsc = t->tsc;
		sh->hz = hz;
		sh->epoch = tm_now(t);
		__atomic_store_n(&sh->magic, SW_TM_PORT_MAGIC, __ATOMIC_RELEASE);
	}
	for (tries = 0; __atomic_load_n(&sh->magic, __ATOMIC_ACQUIRE) != SW_TM_PORT_MAGIC;
	     tries++) {
		if (tries == SW_TM_PORT_WAIT_MS) {
			munmap(sh, sizeof(*sh));
			return -ETIMEDOUT;
		}
		usleep(1000);
	}
	if (sh->tsc != (uint32_t)t->tsc || sh->hz == 0) {
		munmap(sh, sizeof(*sh));
		return -EXDEV;
	}
	/* a member slot: a free one, or one whose process is gone */
	for (i = 0; i < SW_TM_MEMBERS; i++) {
		uint32_t o = __atomic_load_n(&sh->member[i], __ATOMIC_ACQUIRE);

		if ((o == 0 || !tm_alive(o)) &&
		    __atomic_compare_exchange_n(&sh->member[i], &o, t->pid, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			break;
	}
	if (i == SW_TM_MEMBERS) {
		munmap(sh, sizeof(*sh));
		return -EUSERS;
	}
	t->member = (uint32_t)i;
	t->key_off = (uint32_t)i * (SW_TM_ARB_KEYS / SW_TM_MEMBERS);
	/* the port's clock: one epoch and one rate for every member */
	t->ps_per_tick = 1e12 / (double)sh->hz;
	t->tick_per_ps = (double)sh->hz / 1e12;
	return 0;
}

int
sw_timing_open(struct sw_engine *e, const char *name, struct sw_timing **out)
{
	const char *dir = getenv("RDX_TIMING_DIR");
	struct sw_timing *t;
	char err[1100];
	uint64_t hz;
	int rc;

	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	rc = sw_tm_profile_load(&t->prof, name, dir != NULL ? dir : SW_TIMING_DIR, err,
				sizeof(err));
	if (rc != 0) {
		SW_LOG(ERR, "bad devargs timing=%s: %s\n", name, err);
		free(t);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	t->pid = (uint32_t)getpid();
	hz = rte_get_tsc_hz();
	t->tsc = hz != 0;
	if (!t->tsc)
		hz = 1000000000ULL;
	t->ps_per_tick = 1e12 / (double)hz;
	t->tick_per_ps = (double)hz / 1e12;
	rc = tm_port_join(t, hz);
	if (rc == 0) {
		*out = t;
		return 0;
	}
	SW_LOG(NOTICE, "timing %s: port %s not shared (%s): this device models a NIC of its own\n",
	       t->prof.name, t->port, strerror(-rc));
	t->sh_off = sw_shm_alloc(e->self, sizeof(*t->sh), false);
	if (t->sh_off == 0) {
		free(t);
		return -ENOMEM;
	}
	t->sh = (struct sw_tm_shared *)(void *)sw_ptr(e->self, t->sh_off);
	sw_tm_nic_init(&t->sh->nic, &t->prof);
	t->sh->epoch = tm_now(t);
	*out = t;
	return 0;
}

void
sw_timing_close(struct sw_engine *e, struct sw_timing *t)
{
	unsigned int i;

	if (t == NULL)
		return;
	for (i = 0; i < SW_MAX_QP; i++)
		free(t->qp[i]);
	free(t->rel);
	if (t->sh_off != 0)
		sw_shm_free(e->self, t->sh_off);
	else
		tm_port_leave(t);
	free(t);
}

const char *
sw_timing_name(const struct sw_timing *t)
{
	return t->prof.name;
}

void
sw_timing_stats(const struct sw_timing *t, uint64_t *wqes, uint64_t *busy_ns, uint64_t *late,
		uint64_t *unheld, uint64_t *span_ns, uint64_t *port_busy_ns)
{
	const uint64_t pb0 = __atomic_load_n(&t->pbusy0, __ATOMIC_RELAXED);
	const uint64_t pb1 = __atomic_load_n(&t->pbusy1, __ATOMIC_RELAXED);

	const uint64_t first = __atomic_load_n(&t->first, __ATOMIC_RELAXED);
	const uint64_t last = __atomic_load_n(&t->last, __ATOMIC_RELAXED);

	/* this process's: the port's NIC may serve others too */
	*span_ns = first == 0 || last < first ? 0 :
		(uint64_t)((double)(last - first) * t->ps_per_tick / SW_TM_PS_PER_NS);
	*wqes = __atomic_load_n(&t->wqes, __ATOMIC_RELAXED);
	*busy_ns = __atomic_load_n(&t->busy_ps, __ATOMIC_RELAXED) / SW_TM_PS_PER_NS;
	*late = __atomic_load_n(&t->late, __ATOMIC_RELAXED);
	*unheld = __atomic_load_n(&t->unheld, __ATOMIC_RELAXED);
	/* the NIC's (every member's WQEs) over this process's span */
	*port_busy_ns = pb1 > pb0 ? (pb1 - pb0) / SW_TM_PS_PER_NS : 0;
}

/* The WQE at WQEBB pos as the model times it; its size in WQEBBs. */
static uint32_t
tm_parse(const struct sw_timing *t, const struct sw_lqp *q, uint32_t pos, struct sw_tm_wqe *w)
{
	uint8_t b[SW_MAX_WQE_BYTES];
	uint32_t ds, off, bytes, opcode;

	sw_ring_read(q, pos, b, 16);
	opcode = b[3];
	ds = b[7] & 0x3f;
	if (ds == 0)
		ds = 1;
	bytes = RTE_MIN(ds * 16, (uint32_t)SW_MAX_WQE_BYTES);
	sw_ring_read(q, pos, b, bytes);
	memset(w, 0, sizeof(*w));
	w->wqe_bytes = RTE_ALIGN_CEIL(ds * 16, 64U);
	w->signaled = (b[11] & MLX5_WQE_CTRL_CQ_UPDATE) != 0;
	w->qp_key = (q->slot + t->key_off) % SW_TM_ARB_KEYS;
	w->mtu = q->type == SW_QPT_UD ? 0 : q->path_mtu;
	/* assumed: the datapath rings a descriptor this small with a copy */
	w->bf = true;
	off = q->type == SW_QPT_UD ? 64 : 16;
	switch (opcode) {
	case MLX5_OPCODE_RDMA_WRITE:
	case MLX5_OPCODE_RDMA_WRITE_IMM:
		w->op = SW_TM_WRITE;
		off += 16;
		break;
	case MLX5_OPCODE_SEND:
	case MLX5_OPCODE_SEND_IMM:
		w->op = SW_TM_SEND;
		break;
	case MLX5_OPCODE_RDMA_READ:
		w->op = SW_TM_READ;
		off += 16;
		break;
	case MLX5_OPCODE_ATOMIC_CS:
	case MLX5_OPCODE_ATOMIC_FA:
		w->op = SW_TM_ATOMIC;
		memcpy(&w->raddr, b + 16, 8);
		w->raddr = be64toh(w->raddr);
		w->len = 8;
		off = bytes;    /* the result's SGE: not payload on the wire */
		break;
	default:
		w->op = SW_TM_NOP;
		off = bytes;
		break;
	}
	/* data segments (pointers) or one inline segment */
	while (off + 4 <= bytes) {
		uint32_t bc;

		memcpy(&bc, b + off, 4);
		bc = be32toh(bc);
		if ((bc & MLX5_INLINE_SEG) != 0) {
			bc &= ~(uint32_t)MLX5_INLINE_SEG;
			w->inl = true;
			w->len += bc;
			off += RTE_ALIGN_CEIL(4 + bc, 16U);
		} else {
			w->len += bc;
			off += 16;
		}
	}
	return (ds * 16 + 63) / 64;
}

static struct sw_tm_qp *
tm_qp(struct sw_timing *t, const struct sw_lqp *q)
{
	struct sw_tm_qp *tq = t->qp[q->slot];

	if (tq != NULL && tq->owner == q && tq->qpn == q->qpn && tq->cnt == q->sq_wqe_cnt)
		return tq;
	free(tq);
	tq = calloc(1, sizeof(*tq) + (size_t)q->sq_wqe_cnt * sizeof(tq->s[0]));
	t->qp[q->slot] = tq;
	if (tq == NULL)
		return NULL;
	tq->owner = q;
	tq->qpn = q->qpn;
	tq->cnt = q->sq_wqe_cnt;
	tq->sched = q->sq_ci & 0xffff;
	tq->late_ci = 0x10000;
	return tq;
}

/* The port direction's messages queued so far (of the WQE's last pass). */
static uint32_t
tm_gen(const struct sw_timing *t, const struct sw_tm_times *tt)
{
	const struct sw_tm_nic *n = &t->sh->nic;

	if (tt->dir == 0)
		return 0;
	return __atomic_load_n(tt->dir == 1 ? &n->tx.gen : &n->rx.gen, __ATOMIC_RELAXED);
}

/* Messages of other QPs queued on the port since sl was scheduled may
 * come in front of its packets (round-robin): move its times on. Asked
 * when its time has come; only when the port has had new messages. 1
 * when moved, 0 when not, -EBUSY when the NIC's state is a live holder's
 * (another process descheduled inside its update): not known yet, the
 * WQE waits and asks again, as any work that needs a lock of the
 * segment does. */
static int
tm_moved(struct sw_timing *t, struct sw_tm_slot *sl)
{
	const uint32_t gen = tm_gen(t, &sl->tt);
	uint64_t d;

	if (gen == sl->gen)
		return 0;
	if (tm_lock(t, 64) != 0)
		return -EBUSY;
	sl->gen = tm_gen(t, &sl->tt);
	d = sw_tm_nic_delay(&t->sh->nic, &sl->tt);
	tm_unlock(t);
	if (d == 0)
		return 0;
	d = (uint64_t)((double)d * t->tick_per_ps);
	sl->due += d;
	sl->due_cqe += d;
	return 1;
}

/* Deadlines for the WQEs rung from tq->sched up to db, seen at now;
 * false (none) while the NIC's state is a live holder's. */
static bool
tm_schedule(struct sw_timing *t, const struct sw_lqp *q, struct sw_tm_qp *tq, uint32_t db,
	    uint64_t now)
{
	const uint64_t now_ps = (uint64_t)((double)(now - t->sh->epoch) * t->ps_per_tick);
	struct sw_tm_nic *n = &t->sh->nic;
	struct sw_tm_wqe w;

	if (tm_lock(t, SW_TM_LOCK_SPINS) != 0)
		return false;
	if (t->first == 0) {
		__atomic_store_n(&t->first, now, __ATOMIC_RELAXED);
		t->pbusy0 = n->busy_ps;
	}
	__atomic_store_n(&t->last, now, __ATOMIC_RELAXED);
	while (tq->sched != db) {
		uint32_t nbb = tm_parse(t, q, tq->sched, &w);
		uint32_t left = (db - tq->sched) & 0xffff;
		struct sw_tm_slot *sl = &tq->s[tq->sched & (tq->cnt - 1)];
		const uint64_t w0 = n->wqes, b0 = n->busy_ps;

		sw_tm_nic_wqe(n, &t->prof, &w, now_ps, &sl->tt);
		__atomic_store_n(&t->wqes, t->wqes + (n->wqes - w0), __ATOMIC_RELAXED);
		__atomic_store_n(&t->busy_ps, t->busy_ps + (n->busy_ps - b0), __ATOMIC_RELAXED);
		sl->gen = tm_gen(t, &sl->tt);
		sl->due = t->sh->epoch + (uint64_t)((double)sl->tt.data_ps * t->tick_per_ps);
		sl->due_cqe = t->sh->epoch + (uint64_t)((double)sl->tt.cqe_ps * t->tick_per_ps);
		tq->sched = (tq->sched + RTE_MIN(nbb, left)) & 0xffff;
	}
	__atomic_store_n(&t->pbusy1, n->busy_ps, __ATOMIC_RELAXED);
	tm_unlock(t);
	return true;
}

bool
sw_timing_hold(struct sw_timing *t, const struct sw_lqp *q, uint32_t db)
{
	struct sw_tm_qp *tq = tm_qp(t, q);
	const uint32_t ci = q->sq_ci & 0xffff;
	struct sw_tm_slot *sl;
	uint64_t now, due;
	int mv;

	if (tq == NULL)
		return false;   /* no memory for deadlines: not held */
	db &= 0xffff;
	/* scheduled beyond what is rung (a flush moved the head): again */
	if (((tq->sched - ci) & 0xffff) > ((db - ci) & 0xffff))
		tq->sched = ci;
	now = tm_now(t);
	/* the NIC's state another process's for now (descheduled inside its
	 * update): a head not scheduled yet waits, as for any lock of the
	 * segment a live holder keeps */
	if (tq->sched != db && !tm_schedule(t, q, tq, db, now) && tq->sched == ci)
		return true;
	sl = &tq->s[ci & (tq->cnt - 1)];
	due = sl->due;
	/* its time has come: unless the port moved it on since */
	mv = now >= due ? tm_moved(t, sl) : 0;
	if (mv < 0)
		return true;
	if (mv > 0)
		due = sl->due;
	if (now < due)
		return true;
	if (tq->late_ci != ci &&
	    (double)(now - due) * t->ps_per_tick > (double)SW_TM_LATE_PS) {
		tq->late_ci = ci;
		__atomic_fetch_add(&t->late, 1, __ATOMIC_RELAXED);
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* the release list: a binary min-heap on (CQE time, listing order)     */

static inline bool
rel_before(const struct sw_tm_rel *a, const struct sw_tm_rel *b)
{
	return a->sl.due_cqe < b->sl.due_cqe ||
		(a->sl.due_cqe == b->sl.due_cqe && a->order < b->order);
}

static void
rel_down(struct sw_timing *t, uint32_t i)
{
	struct sw_tm_rel x = t->rel[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= t->rel_n)
			break;
		if (c + 1 < t->rel_n && rel_before(&t->rel[c + 1], &t->rel[c]))
			c++;
		if (!rel_before(&t->rel[c], &x))
			break;
		t->rel[i] = t->rel[c];
		i = c;
	}
	t->rel[i] = x;
}

static void
rel_up(struct sw_timing *t, uint32_t i)
{
	struct sw_tm_rel x = t->rel[i];

	while (i > 0 && rel_before(&x, &t->rel[(i - 1) / 2])) {
		t->rel[i] = t->rel[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	t->rel[i] = x;
}

/* x onto the heap (room made by the caller: rel_n < rel_cap). */
static void
rel_push(struct sw_timing *t, const struct sw_tm_rel *x)
{
	t->rel[t->rel_n] = *x;
	__atomic_store_n(&t->rel_n, t->rel_n + 1, __ATOMIC_RELAXED);
	rel_up(t, t->rel_n - 1);
}

/* Take entry i off the heap into *x. */
static void
rel_take(struct sw_timing *t, uint32_t i, struct sw_tm_rel *x)
{
	const uint32_t last = t->rel_n - 1;

	*x = t->rel[i];
	__atomic_store_n(&t->rel_n, last, __ATOMIC_RELAXED);
	if (i == last)
		return;
	t->rel[i] = t->rel[last];
	if (i > 0 && rel_before(&t->rel[i], &t->rel[(i - 1) / 2]))
		rel_up(t, i);
	else
		rel_down(t, i);
}

static void
rel_lock(struct sw_timing *t)
{
	while (__atomic_exchange_n(&t->rel_lock, 1, __ATOMIC_ACQUIRE) != 0)
		rte_pause();
}

static void
rel_unlock(struct sw_timing *t)
{
	__atomic_store_n(&t->rel_lock, 0, __ATOMIC_RELEASE);
}

bool
sw_timing_cqe_list(struct sw_timing *t, struct sw_lqp *q, uint32_t pos, const struct sw_tm_cqe *c)
{
	struct sw_tm_qp *tq = t->qp[q->slot];
	struct sw_tm_slot *sl;
	struct sw_tm_rel x;
	uint64_t now;

	if (tq == NULL || tq->owner != q)
		return false;
	sl = &tq->s[pos & (tq->cnt - 1)];
	/* none of q's listed and its time has come (unless the port moved it
	 * on since): written now */
	if (tq->list_seq == __atomic_load_n(&tq->rel_seq, __ATOMIC_ACQUIRE)) {
		now = tm_now(t);
		if (now >= sl->due_cqe) {
			const int mv = tm_moved(t, sl);

			if (mv == 0 || (mv > 0 && now >= sl->due_cqe))
				return false;
		}
	}
	rel_lock(t);
	if (t->rel_n == t->rel_cap) {
		const uint32_t cap = t->rel_cap == 0 ? SW_TM_REL_MIN : 2 * t->rel_cap;
		struct sw_tm_rel *r = realloc(t->rel, (size_t)cap * sizeof(*r));

		if (r == NULL) {
			rel_unlock(t);
			/* written now, early, rather than lost (counted) */
			__atomic_fetch_add(&t->unheld, 1, __ATOMIC_RELAXED);
			return false;
		}
		t->rel = r;
		t->rel_cap = cap;
	}
	x.sl = *sl;
	x.order = t->rel_order++;
	x.c = *c;
	x.seq = tq->list_seq++;
	rel_push(t, &x);
	rel_unlock(t);
	return true;
}

bool
sw_timing_listed(const struct sw_timing *t)
{
	return __atomic_load_n(&t->rel_n, __ATOMIC_RELAXED) != 0;
}

bool
sw_timing_rel_begin(struct sw_timing *t, const struct sw_lqp *only)
{
	if (!sw_timing_listed(t))
		return false;
	if (only != NULL)
		rel_lock(t);
	else if (__atomic_exchange_n(&t->rel_lock, 1, __ATOMIC_ACQUIRE) != 0)
		return false;
	t->rel_now = tm_now(t);
	t->ndefer = 0;
	t->stop = false;
	return true;
}

/* The QP whose CQE x is, if it still is (else x is stale: dropped). */
static struct sw_tm_qp *
rel_qp(const struct sw_timing *t, const struct sw_tm_rel *x)
{
	struct sw_tm_qp *tq = t->qp[x->c.q->slot];

	return tq != NULL && tq->owner == x->c.q ? tq : NULL;
}

bool
sw_timing_rel_next(struct sw_timing *t, const struct sw_lqp *only, struct sw_tm_cqe *c)
{
	struct sw_tm_qp *tq;
	struct sw_tm_rel x;
	uint32_t i;
	int mv;

	if (only != NULL) {
		/* only's next in its order, due or not */
		tq = t->qp[only->slot];
		if (tq == NULL || tq->owner != only)
			return false;
		for (i = 0; i < t->rel_n; i++)
			if (t->rel[i].c.q == only && t->rel[i].seq == tq->rel_seq)
				break;
		if (i == t->rel_n)
			return false;
		rel_take(t, i, &t->cur);
		*c = t->cur.c;
		return true;
	}
	while (!t->stop && t->rel_n != 0 && t->rel[0].sl.due_cqe <= t->rel_now) {
		rel_take(t, 0, &x);
		tq = rel_qp(t, &x);
		if (tq == NULL)
			continue;
		mv = tm_moved(t, &x.sl);
		/* the port moved it on since it was listed: later */
		if (mv > 0 && t->rel_now < x.sl.due_cqe) {
			rel_push(t, &x);
			continue;
		}
		/* not known yet (the NIC's state is busy), or one of its QP's
		 * before it is not written yet: passed over in this pass */
		if (mv < 0 || x.seq != tq->rel_seq) {
			if (t->ndefer == SW_TM_REL_DEFER) {
				rel_push(t, &x);
				t->stop = true;
				break;
			}
			t->defer[t->ndefer++] = x;
			continue;
		}
		t->cur = x;
		*c = x.c;
		return true;
	}
	return false;
}

void
sw_timing_rel_result(struct sw_timing *t, bool done)
{
	struct sw_tm_qp *tq = rel_qp(t, &t->cur);
	uint32_t i;

	if (!done) {
		/* stays listed; its QP's later ones wait behind it */
		if (t->ndefer < SW_TM_REL_DEFER) {
			t->defer[t->ndefer++] = t->cur;
		} else {
			rel_push(t, &t->cur);
			t->stop = true;
		}
		return;
	}
	if (tq == NULL)
		return;
	__atomic_store_n(&tq->rel_seq, tq->rel_seq + 1, __ATOMIC_RELEASE);
	/* its QP's next, passed over in this pass: back, to be taken now */
	for (i = 0; i < t->ndefer; i++) {
		if (t->defer[i].c.q == t->cur.c.q && t->defer[i].seq == tq->rel_seq) {
			rel_push(t, &t->defer[i]);
			t->defer[i] = t->defer[--t->ndefer];
			break;
		}
	}
}

void
sw_timing_rel_end(struct sw_timing *t)
{
	uint32_t i;

	for (i = 0; i < t->ndefer; i++)
		rel_push(t, &t->defer[i]);
	t->ndefer = 0;
	rel_unlock(t);
}

void
sw_timing_qp_forget(struct sw_timing *t, const struct sw_lqp *q)
{
	uint32_t i, n = 0;

	rel_lock(t);
	for (i = 0; i < t->rel_n; i++)
		if (t->rel[i].c.q != q)
			t->rel[n++] = t->rel[i];
	if (n != t->rel_n) {
		__atomic_store_n(&t->rel_n, n, __ATOMIC_RELAXED);
		for (i = n / 2; i-- > 0;)
			rel_down(t, i);
	}
	rel_unlock(t);
	free(t->qp[q->slot]);
	t->qp[q->slot] = NULL;
}
