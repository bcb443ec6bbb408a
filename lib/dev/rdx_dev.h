/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx device API: the one interface apps use to post work and poll
 * completions, whatever the driver underneath (mlx5 direct datapath, the
 * software mlx5 device, generic ibverbs).
 *
 * Control path calls (open, create, connect, destroy) may allocate, log and
 * make syscalls; constructors return a pointer or NULL with rte_errno set,
 * other calls return 0 or a negative errno.
 *
 * Fast path calls (rdx_qp_post_burst, rdx_qp_post_recv_burst,
 * rdx_cq_poll_burst) make exactly one indirect call per burst, never
 * allocate, lock, log or enter the kernel, and return a count: a short count
 * means the queue was full (post) or empty (poll).
 */
#ifndef RDX_DEV_H
#define RDX_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rdx_dev;
struct rdx_qp;
struct rdx_cq;

/** Work request opcodes (RC). */
enum rdx_op {
	RDX_OP_NOP = 0,
	RDX_OP_SEND,
	RDX_OP_SEND_IMM,
	RDX_OP_WRITE,
	RDX_OP_WRITE_IMM,
	RDX_OP_READ,
	RDX_OP_CAS,   /**< 8-byte compare-and-swap */
	RDX_OP_FAA,   /**< 8-byte fetch-and-add */
	RDX_OP_MAX,
};

/** rdx_wr.flags */
#define RDX_WR_SIGNALED  0x01 /**< always produce a completion for this WR */
#define RDX_WR_INLINE    0x02 /**< copy the payload into the WQE */
#define RDX_WR_FENCE     0x04 /**< wait for earlier READs/atomics */
#define RDX_WR_SOLICITED 0x08 /**< solicited event at the responder */

/** One gather/scatter element. addr is the address used on the wire: a
 * virtual address, or an offset for zero-based (device memory) regions. */
struct rdx_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/** A send-queue work request. */
struct rdx_wr {
	uint64_t wr_id;
	const struct rdx_sge *sge; /**< gather (SEND/WRITE) or scatter (READ, atomic result) */
	uint64_t remote_addr;
	uint64_t compare_add;      /**< CAS: compare value; FAA: value to add (host order) */
	uint64_t swap;             /**< CAS: swap value (host order) */
	uint32_t rkey;
	uint32_t imm;              /**< immediate, network byte order, carried as-is */
	uint8_t opcode;            /**< enum rdx_op */
	uint8_t flags;             /**< RDX_WR_* */
	uint8_t num_sge;
};

/** A receive work request. */
struct rdx_recv_wr {
	uint64_t wr_id;
	const struct rdx_sge *sge;
	uint8_t num_sge;
};

/** Completion opcodes. */
enum rdx_wc_opcode {
	RDX_WC_NOP = 0,
	RDX_WC_SEND,
	RDX_WC_WRITE,
	RDX_WC_READ,
	RDX_WC_CAS,
	RDX_WC_FAA,
	RDX_WC_RECV,           /**< incoming SEND */
	RDX_WC_RECV_IMM,       /**< incoming SEND with immediate */
	RDX_WC_RECV_WRITE_IMM, /**< incoming WRITE with immediate */
	RDX_WC_UNKNOWN,        /**< e.g. a flushed WQE */
};

/** A completion. status is an enum ibv_wc_status value (ibv_wc_status_str
 * names it); for errors vendor_err is the device's vendor syndrome. */
struct rdx_wc {
	uint64_t wr_id;
	void *qp_ctx;          /**< rdx_qp_conf.user_ctx of the QP */
	uint32_t byte_len;     /**< RECV*: bytes received; READ: bytes read; atomics: 8 */
	uint32_t imm;          /**< network byte order, as received */
	uint32_t qp_num;
	uint32_t vendor_err;
	uint16_t retired;      /**< send side: WRs this completion retires (>= 1,
	                            counting the unsignaled ones before it) */
	uint8_t status;
	uint8_t opcode;        /**< enum rdx_wc_opcode */
};

/** Memory types for registered buffers. */
enum rdx_mem_type {
	RDX_MEM_HOST = 0, /**< normal pages */
	RDX_MEM_HUGE,     /**< hugepages (EAL memory) */
	RDX_MEM_DM,       /**< NIC device memory: reachable only by RDMA and copies */
};

/** Access flags (same bits as enum ibv_access_flags). */
#define RDX_ACCESS_LOCAL_WRITE   0x1
#define RDX_ACCESS_REMOTE_WRITE  0x2
#define RDX_ACCESS_REMOTE_READ   0x4
#define RDX_ACCESS_REMOTE_ATOMIC 0x8
#define RDX_ACCESS_ALL 0xf

/** A registered memory region. */
struct rdx_mem {
	struct rdx_dev *dev;
	void *addr;             /**< host mapping; NULL for RDX_MEM_DM */
	uint64_t iova;          /**< address to use in SGEs and remote addresses */
	size_t len;
	uint32_t lkey;
	uint32_t rkey;
	int access;
	enum rdx_mem_type type;
	bool owned;             /**< allocated by rdx_dev_mem_alloc (vs registered) */
	void *drv;
};

/** How the software device's engine is run. */
enum rdx_sw_progress {
	RDX_SW_PROGRESS_INLINE = 0, /**< executed from the caller's poll (deterministic) */
	RDX_SW_PROGRESS_THREAD,     /**< on its own thread, like a NIC */
};

/** Options for rdx_dev_open. A zeroed struct gives the defaults. */
struct rdx_dev_conf {
	const char *driver;       /**< NULL or "auto", "mlx5", "verbs", "sw" */
	uint8_t port;             /**< 0 = 1 */
	int gid_index;            /**< -1 (or 0 with gid_index_set false) = auto */
	bool gid_index_set;
	enum rdx_sw_progress sw_progress;
	bool quiet;               /**< no notice when falling back to "sw" */
};

/** What a device offers, as the driver reports it. */
struct rdx_dev_attr {
	char name[64];            /**< "mlx5_0", "rxe0", "sw" */
	char driver[16];          /**< "mlx5", "verbs", "sw" */
	bool software;            /**< results must be labelled "software device" */
	uint64_t max_msg_size;
	uint32_t max_qp_wr;
	uint32_t max_sge;
	uint32_t max_inline;      /**< the largest max_inline a QP can ask for */
	uint32_t max_cqe;
	uint32_t max_qp;
	bool atomics;             /**< CAS/FAA supported */
	uint64_t max_dm_size;     /**< 0: no device memory */
	uint8_t active_mtu;       /**< enum ibv_mtu of the port */
	uint8_t link_layer;       /**< IBV_LINK_LAYER_* */
};

/** CQ options. */
struct rdx_cq_conf {
	uint32_t depth;           /**< minimum number of CQEs */
	bool events;              /**< completion channel for rdx_cq_wait */
};

/** QP options. */
struct rdx_qp_conf {
	struct rdx_cq *send_cq;
	struct rdx_cq *recv_cq;
	uint32_t sq_depth;        /**< send WRs */
	uint32_t rq_depth;        /**< receive WRs (0: no receive queue use) */
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;      /**< bytes; 0 = no inline */
	uint16_t sig_interval;    /**< force a CQE at least every k WRs (0 or 1 = every WR) */
	bool sig_burst_end;       /**< also signal the last WR of every burst */
	void *user_ctx;           /**< returned in rdx_wc.qp_ctx */
	/**
	 * The lcore that posts to this QP, as RDX_QP_POST_LCORE(lcore_id).
	 * QPs naming the same lcore share one doorbell register (mlx5: the
	 * lcore's thread domain and its BlueFlame register), which is rung
	 * without a lock: only that lcore may post to them. 0: the QP gets a
	 * register of its own, so any one thread at a time may post to it.
	 */
	uint32_t post_lcore;
};

/** rdx_qp_conf.post_lcore for the lcore lcore_id (0 stays "none named"). */
#define RDX_QP_POST_LCORE(lcore_id) ((uint32_t)(lcore_id) + 1u)

/**
 * What a peer needs to connect to a QP; exchanged out of band, so it has a
 * fixed layout (host byte order; the bootstrap checks both ends agree).
 */
struct rdx_qp_info {
	uint32_t qp_num;
	uint32_t psn;
	uint16_t lid;
	uint8_t port;
	uint8_t mtu;              /**< enum ibv_mtu */
	uint8_t gid[16];
	int32_t gid_index;
	char driver[16];          /**< peers must use the same kind of device */
	char sw_domain[48];       /**< software device: the owner's shared-memory name */
};

/** Connection parameters for rdx_qp_connect (zero = defaults). */
struct rdx_qp_conn_attr {
	uint8_t mtu;              /**< enum ibv_mtu; 0 = port's active MTU */
	uint8_t timeout;          /**< local ACK timeout code, default 14 */
	uint8_t retry_cnt;        /**< default 7 */
	uint8_t rnr_retry;        /**< default 7 (infinite) */
	uint8_t min_rnr_timer;    /**< IBTA 5-bit code, default 12 (0.64 ms) */
	uint8_t max_rd_atomic;    /**< outstanding READ/atomics, default 16 */
	uint8_t sl;
};

/** Length of a device counter name, NUL included (rdx_dev_xstat.name). */
#define RDX_DEV_XSTAT_NAME_LEN 48

/** One named device counter (ethdev xstats style). */
struct rdx_dev_xstat {
	char name[RDX_DEV_XSTAT_NAME_LEN]; /**< [a-z0-9_], unique within a device */
	uint64_t value;
};

/** Driver operations. Fast path entries live in rdx_qp / rdx_cq. */
struct rdx_dev_ops {
	int (*close)(struct rdx_dev *dev);
	int (*query)(struct rdx_dev *dev, struct rdx_dev_attr *attr);
	struct rdx_mem *(*mem_alloc)(struct rdx_dev *dev, size_t len,
				     enum rdx_mem_type type, int access);
	struct rdx_mem *(*mem_reg)(struct rdx_dev *dev, void *addr, size_t len,
				   int access);
	int (*mem_free)(struct rdx_mem *mem);
	int (*mem_copy_to)(struct rdx_mem *mem, size_t off, const void *src, size_t len);
	int (*mem_copy_from)(struct rdx_mem *mem, size_t off, void *dst, size_t len);
	struct rdx_cq *(*cq_create)(struct rdx_dev *dev, const struct rdx_cq_conf *conf);
	int (*cq_destroy)(struct rdx_cq *cq);
	int (*cq_wait)(struct rdx_cq *cq, int timeout_ms);
	struct rdx_qp *(*qp_create)(struct rdx_dev *dev, const struct rdx_qp_conf *conf);
	int (*qp_destroy)(struct rdx_qp *qp);
	int (*qp_info)(struct rdx_qp *qp, struct rdx_qp_info *info);
	int (*qp_connect)(struct rdx_qp *qp, const struct rdx_qp_info *remote,
			  const struct rdx_qp_conn_attr *attr);
	uint64_t (*qp_retired_wr_id)(const struct rdx_qp *qp, const struct rdx_wc *wc,
				     uint16_t i);
	/** Optional (NULL: no counters). Same contract as rdx_dev_xstats_get,
	 * arguments already checked; may be called from any thread while the
	 * datapath runs, so counters are read with relaxed 64-bit loads. */
	int (*xstats_get)(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n);
};

/** A device. Drivers embed this as the first member of their own struct. */
struct rdx_dev {
	const struct rdx_dev_ops *ops;
	struct rdx_dev_attr attr;
	struct rdx_dev_conf conf;
};

typedef uint16_t (*rdx_post_burst_t)(struct rdx_qp *qp, const struct rdx_wr *wr,
				     uint16_t n);
typedef uint16_t (*rdx_post_recv_burst_t)(struct rdx_qp *qp,
					  const struct rdx_recv_wr *wr, uint16_t n);
typedef uint16_t (*rdx_poll_burst_t)(struct rdx_cq *cq, struct rdx_wc *wc,
				     uint16_t n);

/** A queue pair. Drivers embed this as the first member of their own struct;
 * the fast-path pointers come first. */
struct rdx_qp {
	rdx_post_burst_t post_burst;
	rdx_post_recv_burst_t post_recv_burst;
	struct rdx_dev *dev;
	void *user_ctx;
	uint32_t qp_num;
	struct rdx_qp_conf conf;  /**< as granted (max_inline, depths may grow) */
};

/** A completion queue. Drivers embed this as the first member. */
struct rdx_cq {
	rdx_poll_burst_t poll_burst;
	struct rdx_dev *dev;
	struct rdx_cq_conf conf;  /**< as granted */
};

/**
 * Open a device by name: an RDMA device name ("mlx5_0", "rxe0"), "sw" for
 * the software mlx5 device, or NULL/"" for the default (the first RDMA
 * device, else "sw" with a one-line notice on stderr).
 * @return the device, or NULL with rte_errno set (ENODEV: no such device).
 */
struct rdx_dev *rdx_dev_open(const char *name, const struct rdx_dev_conf *conf);
int rdx_dev_close(struct rdx_dev *dev);
const struct rdx_dev_attr *rdx_dev_attr_get(const struct rdx_dev *dev);

/**
 * The device's counters, ethdev xstats style: the names and the order are
 * fixed for a device, the values only grow (QPs and CQs destroyed keep
 * counting in the sums) except gauges named *_open. doc/telemetry.md lists
 * them. Control path: any thread, while the datapath runs
 * (values are read with relaxed loads, without stopping anyone).
 * @param xs  room for n counters; NULL (or n 0) only counts them.
 * @return how many counters the device has (the first min(n, count) are
 *         filled), 0 when its driver keeps none, -EINVAL for a NULL dev or
 *         xs NULL with n > 0.
 */
int rdx_dev_xstats_get(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n);

/**
 * Call fn on every open device (rdx_dev_open adds, rdx_dev_close removes),
 * in opening order, until it returns non-zero. The registry lock is held
 * during the calls, so a device cannot be closed under fn; fn must not
 * open or close devices. For telemetry and tools, not the fast path.
 * @return fn's first non-zero return, else 0; -EINVAL for a NULL fn.
 */
typedef int (*rdx_dev_foreach_fn_t)(struct rdx_dev *dev, void *arg);
int rdx_dev_foreach(rdx_dev_foreach_fn_t fn, void *arg);
/** Number of open devices. */
unsigned int rdx_dev_count(void);
/** Names of RDMA devices present ("no RDMA device found" when none); fills
 * up to n names, returns how many exist (0 when none, negative errno). */
int rdx_dev_list(char names[][64], int n);

struct rdx_mem *rdx_dev_mem_alloc(struct rdx_dev *dev, size_t len,
				  enum rdx_mem_type type, int access);
struct rdx_mem *rdx_dev_mem_reg(struct rdx_dev *dev, void *addr, size_t len,
				int access);
int rdx_dev_mem_free(struct rdx_mem *mem);
/** Copy into / out of a region (works for every type, needed for DM). */
int rdx_dev_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len);
int rdx_dev_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len);
/** "host", "huge", "dm" <-> enum; -EINVAL for other names. */
int rdx_mem_type_parse(const char *name);
const char *rdx_mem_type_name(enum rdx_mem_type type);

struct rdx_cq *rdx_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf);
int rdx_cq_destroy(struct rdx_cq *cq);
/** Arm the CQ and block until a completion event or timeout (-ETIMEDOUT). */
int rdx_cq_wait(struct rdx_cq *cq, int timeout_ms);

struct rdx_qp *rdx_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf);
int rdx_qp_destroy(struct rdx_qp *qp);
int rdx_qp_info_get(struct rdx_qp *qp, struct rdx_qp_info *info);
/** Move the QP RESET->INIT->RTR->RTS towards the peer described by remote. */
int rdx_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
		   const struct rdx_qp_conn_attr *attr);
/** wr_id of the i-th WR (0 = oldest) retired by a send completion wc;
 * valid until the next post on the QP. */
uint64_t rdx_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc,
			      uint16_t i);

const char *rdx_op_name(enum rdx_op op);
const char *rdx_wc_opcode_name(enum rdx_wc_opcode op);
/** ibv_wc_status_str() of a status. */
const char *rdx_wc_status_name(uint8_t status);

/**
 * Post up to n send WRs and ring the doorbell once for all of them.
 * @return the number posted; fewer than n when the send queue is full (or
 * a WR is invalid: then the WR at the returned index was not posted).
 */
static inline uint16_t
rdx_qp_post_burst(struct rdx_qp *qp, const struct rdx_wr *wr, uint16_t n)
{
	return qp->post_burst(qp, wr, n);
}

/** Post up to n receive WRs with one doorbell-record update. */
static inline uint16_t
rdx_qp_post_recv_burst(struct rdx_qp *qp, const struct rdx_recv_wr *wr, uint16_t n)
{
	return qp->post_recv_burst(qp, wr, n);
}

/** Poll up to n completions; one CQ doorbell-record update per call. */
static inline uint16_t
rdx_cq_poll_burst(struct rdx_cq *cq, struct rdx_wc *wc, uint16_t n)
{
	return cq->poll_burst(cq, wc, n);
}

#ifdef __cplusplus
}
#endif

#endif /* RDX_DEV_H */
