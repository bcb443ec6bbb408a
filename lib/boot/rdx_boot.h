/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx bootstrap: how the processes of one job find each other before any
 * QP exists, and how they agree on the begin and the end of each run. One
 * API over providers chosen by name:
 *
 * - "tcp": two processes, a server (conf.peer NULL) listening on a port
 *   and a client connecting to it, over lib/conn's versioned framing
 *   (rdx_conn.h). The server is rank 0, the client rank 1.
 * - "mpi": the ranks of an MPI job (mpirun, srun --mpi=pmix): its own
 *   archive outside librdx, built when Open MPI's development files are
 *   present (the configure summary says so); a program links it whole
 *   (meson: rdx_boot_mpi_dep). Its sync points (rdx_boot_agree,
 *   rdx_boot_sync) are bounded: rank 0 names a rank not heard from within
 *   the timeout and ends the job (MPI_Abort).
 * - "rdmacm": two processes as "tcp" (whose connection carries the run
 *   messages), whose RC QPs rdma_cm connects (rdx_boot_qp_connect: each
 *   QP's number, PSN, GID and MTU in the connection's private data). Its
 *   own archive too, built with librdmacm (meson: rdx_boot_rdmacm_dep);
 *   it sits above lib/dev, whose QPs it connects.
 *
 * A provider is one file of lib/boot that fills a struct rdx_boot_ops and
 * registers it (rdx_boot_provider.h, not installed). rdx_boot_open looks it
 * up by name; rdx_boot_provider_foreach lists those linked in.
 *
 * The rules every provider keeps (the ones rdx-perf has always had):
 * - every wait is bounded by conf.timeout_ms (a TCP server without
 *   conf.timeout_given waits for its client until Ctrl-C), and ends with
 *   -EINTR once rdx_runtime_stopping() (SIGINT/SIGTERM);
 * - a peer that dies is -ECONNRESET (tcp) or named by rank 0 (mpi), never
 *   a hang;
 * - a peer of another wire version or no rdx peer at all is -EPROTO.
 *
 * Constructors return a pointer or NULL with rte_errno set; other calls
 * return 0 or a negative errno. The calls of one bootstrap are not
 * thread-safe: one thread (the main lcore) makes them. Messages go through
 * rte_log with the log type "rdx.boot" and start with conf.name.
 */
#ifndef RDX_BOOT_H
#define RDX_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rdx_boot;
struct rdx_conn;

/** How to find the peers (rdx_boot_open). Zeroed fields take the defaults. */
struct rdx_boot_conf {
	/** messages start "<name>: " (default "rdx") */
	const char *name;
	/** tcp: "HOST:PORT" of the server to connect to; NULL: be the server */
	const char *peer;
	/** tcp server: the port to listen on (0: any, see rdx_boot_port) */
	uint16_t port;
	/** bound of every step in ms (default 10000) */
	int timeout_ms;
	/** tcp server: timeout_ms bounds the wait for a client too; false:
	 * wait until Ctrl-C, as perftest's server does */
	bool timeout_given;
	/** the option that sets timeout_ms, named in the lines that say it
	 * ran out ("--bootstrap-timeout"); NULL: none */
	const char *timeout_opt;
	/** rdmacm: the local address to bind (server: to listen on; client:
	 * the source of its connections); NULL: any (server), the route's
	 * (client) */
	const char *source;
};

/**
 * Open the provider `name` ("tcp", "mpi", "rdmacm"). tcp: the server
 * listens here (so that a caller can print its port before waiting); mpi:
 * MPI_Init; rdmacm: as tcp, and the server's rdma_cm listener on the same
 * port. Nothing waits for a peer yet (rdx_boot_connect).
 *
 * @return the bootstrap, or NULL with rte_errno: ENOENT (no provider of
 *   that name is linked in: one line names the ones that are), ENODEV
 *   (rdmacm: no RDMA device, or no rdma_cm in the kernel: one line),
 *   EADDRINUSE (tcp: the port is taken, or cannot be listened on), EINVAL
 *   (bad conf: a peer that is not HOST:PORT; MPI_Init failed), ENOMEM.
 */
struct rdx_boot *rdx_boot_open(const char *name, const struct rdx_boot_conf *conf);

/**
 * Find the peers: tcp client: connect, retrying a refused connection
 * until the timeout (the server may still be starting); tcp server:
 * accept until a peer speaks the bootstrap (a stray connection gets one
 * line and the wait goes on); mpi: learn every rank's host.
 *
 * @return 0, -ECONNREFUSED (tcp client: nobody within the timeout),
 *   -ETIMEDOUT (tcp server: no client within the timeout), -EPROTO (a
 *   peer of another wire version: the line names it), -EINTR (Ctrl-C),
 *   -EIO. One line said why, except for -EINTR on a client.
 */
int rdx_boot_connect(struct rdx_boot *b);

/**
 * The EAL arguments this process should start with (call before
 * rdx_runtime_init; argv as main's, EAL's up to "--", the app's after).
 * mpi: several ranks share a host, so "--file-prefix P" becomes "P-r<rank>"
 * and, unless -l, -c or --lcores is given, "-l CPU" is added: the
 * node-local rank's CPU among those this process may run on. tcp: argv
 * as it is. *out_argv stays valid until rdx_boot_close. 0 or -ENOMEM.
 */
int rdx_boot_eal_args(struct rdx_boot *b, int argc, char **argv, int *out_argc,
		      char ***out_argv);

/** This process's rank (tcp: server 0, client 1) and the number of ranks. */
int rdx_boot_rank(const struct rdx_boot *b);
int rdx_boot_size(const struct rdx_boot *b);
/** The provider's name ("tcp", "mpi", "rdmacm"). */
const char *rdx_boot_provider_name(const struct rdx_boot *b);
/** tcp server: the port it listens on; else 0. */
uint16_t rdx_boot_port(const struct rdx_boot *b);
/** tcp: the connection to the peer (after rdx_boot_connect), for the
 * app's own messages and liveness checks; NULL for other providers. */
struct rdx_conn *rdx_boot_conn(const struct rdx_boot *b);
/** The reason of the last failed call, one line (no trailing newline). */
const char *rdx_boot_strerror(const struct rdx_boot *b);

/**
 * Swap len bytes with every rank: mine goes to every other rank, theirs
 * (rdx_boot_size(b) x len bytes) receives rank r's at r x len, ours
 * included. type names the message (tcp: the lib/conn message type; a
 * peer sending another type or length is -EPROTO). Quiet: the caller says
 * what failed, with rdx_boot_strerror. Payloads are opaque bytes.
 */
int rdx_boot_exchange(struct rdx_boot *b, uint32_t type, const void *mine, void *theirs,
		      size_t len);

/**
 * Begin a run. tcp client: send req (req_type, len bytes) and receive the
 * server's answer (ack_type, len bytes) into ack; the caller compares them.
 * mpi: a sync point of every rank (rdx_boot_agree) named `what`; req and
 * ack are unused. 0, or a negative errno with no line (-EINTR on Ctrl-C;
 * the caller says what failed, with rdx_boot_strerror).
 */
int rdx_boot_run_begin(struct rdx_boot *b, uint32_t req_type, const void *req,
		       uint32_t ack_type, void *ack, size_t len);

/**
 * End a run (tcp client): send end_type with no payload (a server polling
 * for it with a zero timeout cannot catch it half-received), then, unless
 * wait is NULL, call wait(arg) (work the client must do while the server
 * finishes: its own line on -EPROTO and -ETIMEDOUT, which are returned at
 * once), then receive the server's ack_type answer (len bytes) into ack.
 * 0, or a negative errno with no line (the caller's line says the server
 * did not end the run, with rdx_boot_strerror; nothing for -EINTR on
 * Ctrl-C: the caller reports what was measured).
 */
int rdx_boot_run_end(struct rdx_boot *b, uint32_t end_type, uint32_t ack_type, void *ack,
		     size_t len, int (*wait)(void *arg), void *arg);

/**
 * The status a server put in its end-of-run answer: 0 when >= 0, else
 * -EIO after one line ("the server failed the run: ... (see its output)").
 */
int rdx_boot_ack_status(const struct rdx_boot *b, int32_t status);

/** Say goodbye after the last run (tcp client: msg of type, len bytes). */
int rdx_boot_bye(struct rdx_boot *b, uint32_t type, const void *msg, size_t len);

/**
 * A sync point of every rank (mpi): each rank gives its rc, every rank
 * gets the first failing rank's (and the ranks that did not fail a line
 * naming it and `what`), or 0. A rank not heard from within the timeout
 * ends the job. With one peer (tcp) this is rc: the messages of the run
 * carry the peer's status.
 */
int rdx_boot_agree(struct rdx_boot *b, int rc, const char *what);

/** A sync point in full (rdx_boot_sync); rdx_boot_agree is one with only
 * what and rc set. */
struct rdx_boot_sync {
	/* in */
	const char *what;        /**< the step, for the lines ("make its QPs") */
	int rc;                  /**< this rank's status: 0 or a negative errno */
	bool early;              /**< this rank leaves with that error */
	/** the end of a run: rank 0's clock starts at its own word when it
	 * ran clients, else at the first word of a client rank (is_client),
	 * not one cut short by SIGINT; no line for a failed verdict (the
	 * caller's, which knows the run) */
	bool run_end;
	bool client;             /**< run_end: this rank ran clients */
	/** run_end, a rank other than 0 that ran no clients: its wait is
	 * bounded by the run's length (ms) plus twice the timeout; 0: not
	 * bounded (a run of a fixed count has no known length) */
	uint64_t run_ms;
	bool (*is_client)(int rank, void *arg);   /**< run_end, rank 0 */
	/** called between looks at the other ranks (serve the endpoints);
	 * NULL: sleep 200 us */
	void (*idle)(void *arg);
	void *arg;
	/* out */
	int status;              /**< the verdict: the first failing rank's rc, or 0 */
	int rank;                /**< that rank, -1: none */
	int stop;                /**< 1 + the first rank that saw SIGINT/SIGTERM; 0: none */
	bool left;               /**< the failing rank was leaving (its early) */
};

/**
 * Every rank's word (mpi): each rank sends rank 0 its rc, rank 0 answers
 * with the verdict once it has heard every rank. Returns rc when this
 * rank failed, else s->status; outside run_end the ranks that did not
 * fail say which rank did and where. A rank not heard from in time:
 * one line naming it, MPI_Abort. With one peer (tcp): s->rc.
 */
int rdx_boot_sync(struct rdx_boot *b, struct rdx_boot_sync *s);

struct rdx_dev;
struct rdx_qp;
struct rdx_qp_conn_attr;

/**
 * rdmacm, after rdx_boot_connect: connect the n RC QPs qps (in RESET, on
 * dev) with the peer's n, QP i with the peer's QP i, through rdma_cm:
 * the client resolves the server's address (conf.peer's host, from
 * conf.source when given) and route and sends a connection request per
 * QP, the server takes the requests in any order and accepts them; each
 * end moves its QP to RTS (rdx_qp_connect with ca) with what the other's
 * private data says. peer_qpn[i] receives the peer's QP number of QP i.
 * A route that puts a QP on a device other than dev is refused.
 *
 * @return 0, -ENOTSUP (a provider that does not connect QPs), -ENOTCONN
 *   (before rdx_boot_connect), -ETIMEDOUT (no event within the timeout),
 *   -EINTR (Ctrl-C), -ECONNRESET (the peer went away), -ECONNREFUSED
 *   (rejected, unreachable), -EPROTO (private data that is not rdx's),
 *   -EINVAL (another device, a bad address), -EIO. One line said why.
 */
int rdx_boot_qp_connect(struct rdx_boot *b, const struct rdx_dev *dev,
			struct rdx_qp *const *qps, unsigned int n,
			const struct rdx_qp_conn_attr *ca, uint32_t *peer_qpn);

/** rdmacm, after rdx_boot_qp_connect: QP 0's connection, "SRC -> DST on
 * device NAME port N"; else NULL. */
const char *rdx_boot_route(const struct rdx_boot *b);

/** mpi, after rdx_boot_connect: the host name of rank r; else NULL. */
const char *rdx_boot_host(const struct rdx_boot *b, int rank);

/** Close the connections (mpi: MPI_Finalize). NULL is a no-op. */
void rdx_boot_close(struct rdx_boot *b);

/** Call fn with each provider's name linked into this program; stops at
 * the first non-zero return and returns it. */
int rdx_boot_provider_foreach(int (*fn)(const char *name, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif /* RDX_BOOT_H */
