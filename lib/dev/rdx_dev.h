/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx device API: the one interface apps use to open a device, register
 * memory, create and connect queue pairs, post work and poll completions,
 * whatever the driver underneath (the mlx5 direct datapath, the software
 * mlx5 device, generic ibverbs). This header is the application API only;
 * the QP/CQ layout and the inline burst calls are in rdx_dev_core.h,
 * per-QP counters and the registry of live QPs in rdx_dev_stats.h (both
 * included below); what drivers implement is in rdx_dev_driver.h (not
 * installed).
 *
 * Control path calls (open, create, connect, destroy) may allocate, log and
 * make system calls; constructors return a pointer or NULL with rte_errno
 * set, other calls return 0 or a negative errno. Unless a function says
 * otherwise, the calls on one device are not thread-safe: the threads of an
 * app serialise their control-path calls on a device (the registry of open
 * devices has its own lock).
 *
 * Fast path calls (rdx_qp_post_burst, rdx_qp_post_recv_burst,
 * rdx_cq_poll_burst, rdx_cq_poll_req_burst) make exactly one indirect call
 * per burst, never allocate, lock, log or enter the kernel, and return a
 * count: a short count means the queue was full (post) or empty (poll).
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
struct rdx_ah;

/** Queue pair types (rdx_qp_conf.type). */
enum rdx_qp_type {
	RDX_QP_RC = 0, /**< reliable connected (the default) */
	RDX_QP_UD,     /**< unreliable datagram: SEND / SEND_IMM of at most one
	                    path MTU to any UD QP named per WR (rdx_wr.ah) */
};

/** Work request opcodes. UD QPs take NOP, SEND and SEND_IMM only (the
 * others are refused at post time: a short count, nothing posted). */
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

/**
 * A send-queue work request. 56 bytes, one cache line: the RC remote
 * fields (remote_addr, compare_add, swap) and the UD destination (ah,
 * remote_qpn, remote_qkey) share bytes 16..39, so a WR is one or the
 * other (set the fields of the QP's type only).
 */
struct rdx_wr {
	uint64_t wr_id;
	const struct rdx_sge *sge; /**< gather (SEND/WRITE) or scatter (READ, atomic result) */
	union {
		struct {                   /* RC */
			uint64_t remote_addr;
			uint64_t compare_add; /**< CAS: compare value; FAA: value to add (host order) */
			uint64_t swap;        /**< CAS: swap value (host order) */
		};
		struct {                   /* UD */
			/** The destination's address handle (rdx_ah_create on the
			 * posting QP's device); must stay alive until the WR's
			 * completion. */
			const struct rdx_ah *ah;
			uint32_t remote_qpn;  /**< destination QP number (24 bits) */
			uint32_t remote_qkey; /**< the destination QP's Q_Key */
		};
	};
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

/** rdx_wc.wc_flags */
#define RDX_WC_GRH 0x01 /**< UD receive: the first RDX_UD_GRH_BYTES of the
                             buffer hold the sender's GRH (always on RoCE) */

/** A completion. status is an enum ibv_wc_status value (ibv_wc_status_str
 * names it); for errors vendor_err is the device's vendor syndrome.
 * src_qp, slid and wc_flags are set by receive completions (RDX_WC_RECV*)
 * only: on a UD QP they name the sender (src_qp, slid: 0 on RoCE) and say
 * whether a GRH came with it; other completions leave them undefined. */
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
	uint32_t src_qp;       /**< receive: the sender's QP number (UD) */
	uint16_t slid;         /**< receive: the sender's LID (UD on IB; 0 on RoCE) */
	uint8_t wc_flags;      /**< receive: RDX_WC_* */
};

/**
 * UD receive buffers: the device writes the 40-byte GRH area first (the
 * sender's GRH when rdx_wc.wc_flags has RDX_WC_GRH, else undefined bytes)
 * and the message after it, as real devices do. Post receive buffers of
 * RDX_UD_GRH_BYTES + the largest message; rdx_wc.byte_len counts the GRH
 * area (message length = byte_len - RDX_UD_GRH_BYTES).
 */
#define RDX_UD_GRH_BYTES 40u

/** The message in a UD receive buffer (past the GRH area). */
static inline void *
rdx_ud_payload(void *buf)
{
	return (uint8_t *)buf + RDX_UD_GRH_BYTES;
}

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

/** Options for rdx_dev_open. A zeroed struct gives the defaults. */
struct rdx_dev_conf {
	const char *driver;       /**< NULL or "auto", else a driver's name
	                               ("mlx5", "verbs", "sw": rdx_dev_driver_foreach) */
	uint8_t port;             /**< 0 = 1 */
	int gid_index;            /**< -1 (or 0 with gid_index_set false) = auto */
	bool gid_index_set;
	bool quiet;               /**< no notice when falling back to "sw" */
	/** Driver-specific settings, "key=value[,key=value...]" (NULL: none),
	 * e.g. "progress=thread" for the software device (drivers/mlx5/sw/
	 * README.md lists each driver's keys). Read during rdx_dev_open only.
	 * A key the chosen driver does not take fails the open. */
	const char *devargs;
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
	/** Largest UD message in bytes (the payload, GRH area not counted):
	 * the port's active MTU; 0 when the driver has no UD QPs. A larger
	 * UD SEND is never sent: the mlx5 datapath and the software device
	 * complete it with IBV_WC_LOC_LEN_ERR; the verbs driver refuses it at
	 * post time (short count), since a provider may send it (doc/ud.md). */
	uint32_t max_ud_msg;
	/** The software device: what its figures model besides the device's
	 * behaviour, "timing <profile> (modelled)" with devargs timing=; ""
	 * when nothing (labels then say "software device" alone). */
	char model[64];
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
	uint8_t type;             /**< enum rdx_qp_type: RDX_QP_RC (0) or RDX_QP_UD */
	/** UD: the QP's Q_Key (set in INIT; senders put it in
	 * rdx_wr.remote_qkey); values with bit 31 set are controlled Q_Keys a
	 * sender cannot use (IBTA): refused. RC: must be 0. */
	uint32_t qkey;
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
/** Bytes of driver-private data in struct rdx_qp_info. */
#define RDX_QP_INFO_DRV_LEN 48

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
	uint8_t drv[RDX_QP_INFO_DRV_LEN]; /**< driver-private connection data */
	uint32_t qkey;            /**< UD: the QP's Q_Key; RC: 0 */
	uint8_t qp_type;          /**< enum rdx_qp_type */
	uint8_t rsv[3];           /**< zero */
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

/**
 * How to reach a UD QP: an address handle's attributes (rdx_ah_create).
 * Fill it from the peer's rdx_qp_info with rdx_ah_attr_from_info, or by
 * hand. RoCE needs is_global and the GID; IB within a subnet the LID
 * (is_global adds a GRH).
 */
struct rdx_ah_attr {
	uint8_t gid[16];          /**< destination GID (used when is_global) */
	uint32_t flow_label;      /**< GRH flow label (20 bits) */
	uint16_t lid;             /**< destination LID (IB) */
	uint8_t port;             /**< local port; 0 = the device's port */
	uint8_t sl;               /**< service level (4 bits) */
	uint8_t is_global;        /**< 1: send a GRH (required on RoCE) */
	uint8_t hop_limit;        /**< GRH hop limit; 0 = 64 */
	uint8_t traffic_class;    /**< GRH traffic class */
	uint8_t static_rate;      /**< enum ibv_rate; 0 = port rate */
	int32_t sgid_index;       /**< local GID index; -1 = the device's (rdx_dev_conf) */
};

/** An address handle. Drivers embed it first in their own; apps read it,
 * never write it. */
struct rdx_ah {
	struct rdx_dev *dev;
	struct rdx_ah_attr attr;  /**< as created (defaults filled in) */
};

/** Length of a device counter name, NUL included (rdx_dev_xstat.name). */
#define RDX_DEV_XSTAT_NAME_LEN 48

/** One named device counter (ethdev xstats style). */
struct rdx_dev_xstat {
	char name[RDX_DEV_XSTAT_NAME_LEN]; /**< [a-z0-9_], unique within a device */
	uint64_t value;
};

/* The QP/CQ layout and the inline burst calls. */
#include "rdx_dev_core.h"
/* Per-QP counters and the registry of live QPs. */
#include "rdx_dev_stats.h"

/* ------------------------------------------------------------------ */
/* Devices                                                            */

/**
 * Open a device.
 *
 * The device is chosen among the drivers linked into the program (each
 * registers itself when the program starts: rdx_dev_driver_foreach lists
 * them):
 *  - name names a software device ("sw"): that driver;
 *  - name names an RDMA device ("mlx5_0", "rxe0"): the driver that scores
 *    best for it (mlx5 above verbs for an mlx5 NIC);
 *  - name NULL or "": the best-scoring RDMA device, else the software
 *    device with a one-line notice on stderr (conf->quiet: no notice).
 * conf->driver forces a driver ("verbs" on an mlx5 NIC; "sw" whatever the
 * name). Driver settings come as devargs, after the name ("sw:progress=
 * thread") or in conf->devargs, or both (the name's first).
 *
 * Control path: may allocate, log and make system calls. Thread-safe.
 *
 * @param name
 *   The device, as above, optionally followed by ":devargs".
 * @param conf
 *   Options (NULL: all defaults); read during the call only.
 * @return
 *   The device, or NULL with rte_errno set:
 *   - ENODEV: no such device, or no linked driver takes it;
 *   - EINVAL: unknown driver in conf->driver, or bad devargs;
 *   - ENOTSUP: the forced driver does not take the device;
 *   - ENOMEM, or the driver's own error (one line on stderr says which).
 */
struct rdx_dev *rdx_dev_open(const char *name, const struct rdx_dev_conf *conf);

/**
 * Close a device opened by rdx_dev_open: it leaves the registry of open
 * devices first, then the driver frees it.
 *
 * Control path. Thread-safe against rdx_dev_foreach; no other call may use
 * the device (or its QPs, CQs, memory) during or after the call.
 *
 * @param dev
 *   The device; its QPs, CQs and memory are destroyed/freed first.
 * @return
 *   0, -EINVAL for a NULL dev, or the driver's negative errno (e.g. -EBUSY
 *   when objects are still open).
 */
int rdx_dev_close(struct rdx_dev *dev);

/**
 * What a device offers.
 *
 * Control path, but cheap (a pointer): may be called from any thread.
 *
 * @param dev
 *   An open device.
 * @return
 *   The device's attributes, valid until rdx_dev_close.
 */
const struct rdx_dev_attr *rdx_dev_attr_get(const struct rdx_dev *dev);

/**
 * The device's counters, ethdev xstats style: the names and the order are
 * fixed for a device, the values only grow (QPs and CQs destroyed keep
 * counting in the sums) except gauges named *_open. doc/telemetry.md lists
 * them.
 *
 * Control path: any thread, while the datapath runs (values are read with
 * relaxed loads, without stopping anyone).
 *
 * @param dev
 *   An open device.
 * @param xs
 *   Room for n counters; NULL (or n 0) only counts them.
 * @param n
 *   The number of entries of xs.
 * @return
 *   How many counters the device has (the first min(n, count) are filled),
 *   0 when its driver keeps none, -EINVAL for a NULL dev or xs NULL with
 *   n > 0.
 */
int rdx_dev_xstats_get(struct rdx_dev *dev, struct rdx_dev_xstat *xs, unsigned int n);

/** Callback of rdx_dev_foreach: non-zero stops the walk. */
typedef int (*rdx_dev_foreach_fn_t)(struct rdx_dev *dev, void *arg);

/**
 * Call fn on every open device (rdx_dev_open adds, rdx_dev_close removes),
 * in opening order, until it returns non-zero.
 *
 * Control path, thread-safe: the registry lock is held during the calls,
 * so a device cannot be closed under fn; fn must not open or close
 * devices. For telemetry and tools, not the fast path.
 *
 * @param fn
 *   Called with each device and arg.
 * @param arg
 *   Passed to fn.
 * @return
 *   fn's first non-zero return, else 0; -EINVAL for a NULL fn.
 */
int rdx_dev_foreach(rdx_dev_foreach_fn_t fn, void *arg);

/**
 * Number of open devices.
 *
 * Control path, thread-safe (takes the registry lock).
 *
 * @return
 *   The number of devices opened and not yet closed.
 */
unsigned int rdx_dev_count(void);

/**
 * Names of the RDMA devices present (ibv_get_device_list), whether or not a
 * linked driver takes them; the software device is not listed.
 *
 * Control path (system calls), thread-safe.
 *
 * @param names
 *   Room for n names of 64 bytes.
 * @param n
 *   The number of entries of names.
 * @return
 *   How many devices exist (the first min(n, count) names are filled);
 *   0 when there are none (no /sys/class/infiniband included).
 */
int rdx_dev_list(char names[][64], int n);

/** Callback of rdx_dev_driver_foreach: non-zero stops the walk. */
typedef int (*rdx_dev_driver_foreach_fn_t)(const char *name, const char *desc,
					   void *arg);

/**
 * Call fn on every driver linked into the program (registered when the
 * program started), in registration order, until it returns non-zero.
 *
 * Control path, thread-safe (the list is fixed once main() runs).
 *
 * @param fn
 *   Called with the driver's name (what rdx_dev_conf.driver takes), a
 *   one-line description, and arg.
 * @param arg
 *   Passed to fn.
 * @return
 *   fn's first non-zero return, else 0; -EINVAL for a NULL fn.
 */
int rdx_dev_driver_foreach(rdx_dev_driver_foreach_fn_t fn, void *arg);

/**
 * Number of drivers linked into the program.
 *
 * Control path, thread-safe.
 *
 * @return
 *   The number of registered drivers (0 when none is linked).
 */
unsigned int rdx_dev_driver_count(void);

/* ------------------------------------------------------------------ */
/* Memory                                                             */

/**
 * Allocate and register a memory region.
 *
 * Control path (allocates, may enter the kernel). Not thread-safe on one
 * device.
 *
 * @param dev
 *   An open device.
 * @param len
 *   Bytes, > 0.
 * @param type
 *   RDX_MEM_HOST (page-aligned pages), RDX_MEM_HUGE (EAL memory) or
 *   RDX_MEM_DM (NIC device memory: no host mapping, zero-based addresses).
 * @param access
 *   RDX_ACCESS_* flags.
 * @return
 *   The region (zeroed), or NULL with rte_errno set: EINVAL (len 0, bad
 *   type or access), ENOTSUP (no device memory on dev), ENOMEM, or the
 *   registration's error.
 */
struct rdx_mem *rdx_dev_mem_alloc(struct rdx_dev *dev, size_t len,
				  enum rdx_mem_type type, int access);

/**
 * Register memory the app owns.
 *
 * Control path. Not thread-safe on one device.
 *
 * @param dev
 *   An open device.
 * @param addr
 *   The start of the buffer (not NULL); it must outlive the region.
 * @param len
 *   Bytes, > 0.
 * @param access
 *   RDX_ACCESS_* flags.
 * @return
 *   The region, or NULL with rte_errno set (EINVAL, ENOMEM, or the
 *   registration's error).
 */
struct rdx_mem *rdx_dev_mem_reg(struct rdx_dev *dev, void *addr, size_t len,
				int access);

/**
 * Deregister a region, and free its memory when rdx_dev_mem_alloc made it.
 *
 * Control path. Not thread-safe on one device; no WR may still use it.
 *
 * @param mem
 *   The region (NULL: nothing to do).
 * @return
 *   0, or the driver's negative errno (the region is then kept).
 */
int rdx_dev_mem_free(struct rdx_mem *mem);

/**
 * Copy len bytes from src into a region at offset off (works for every
 * type, and is the only way to write device memory).
 *
 * Control path (device memory copies may take a lock in the provider).
 * Thread-safe for disjoint ranges.
 *
 * @return
 *   0, or -ERANGE when [off, off + len) is not inside the region, or the
 *   driver's negative errno.
 */
int rdx_dev_mem_copy_to(struct rdx_mem *mem, size_t off, const void *src, size_t len);

/**
 * Copy len bytes at offset off of a region into dst (every type; the only
 * way to read device memory).
 *
 * Control path. Thread-safe for disjoint ranges.
 *
 * @return
 *   0, or -ERANGE when [off, off + len) is not inside the region, or the
 *   driver's negative errno.
 */
int rdx_dev_mem_copy_from(struct rdx_mem *mem, size_t off, void *dst, size_t len);

/**
 * Memory type by name.
 *
 * Pure function, thread-safe.
 *
 * @param name
 *   "host", "huge" or "dm".
 * @return
 *   The enum rdx_mem_type value, or -EINVAL for another name or NULL.
 */
int rdx_mem_type_parse(const char *name);

/**
 * Name of a memory type ("host", "huge", "dm"; "?" for other values).
 * Pure function, thread-safe.
 */
const char *rdx_mem_type_name(enum rdx_mem_type type);

/* ------------------------------------------------------------------ */
/* Completion queues                                                  */

/**
 * Create a completion queue.
 *
 * Control path. Not thread-safe on one device.
 *
 * @param dev
 *   An open device.
 * @param conf
 *   depth: 1..rdx_dev_attr.max_cqe (the CQ may get more, see cq->conf);
 *   events: a completion channel for rdx_cq_wait.
 * @return
 *   The CQ, or NULL with rte_errno set: EINVAL (NULL conf, depth out of
 *   range: one line on stderr names it), ENOMEM, or the driver's error.
 */
struct rdx_cq *rdx_cq_create(struct rdx_dev *dev, const struct rdx_cq_conf *conf);

/**
 * Destroy a CQ.
 *
 * Control path. No QP may still use it; no thread may poll it.
 *
 * @param cq
 *   The CQ (NULL: nothing to do).
 * @return
 *   0, -EBUSY when QPs still use it, or the driver's negative errno.
 */
int rdx_cq_destroy(struct rdx_cq *cq);

/**
 * Arm the CQ and block until a completion is there or timeout_ms passes;
 * then poll it with rdx_cq_poll_burst.
 *
 * Control path (sleeps in the kernel). Called by the CQ's poller only.
 *
 * @param cq
 *   A CQ created with events set.
 * @param timeout_ms
 *   The longest wait in milliseconds; < 0: no limit.
 * @return
 *   0 when a completion is there, -ETIMEDOUT, -EINVAL for a CQ without
 *   events, or another negative errno.
 */
int rdx_cq_wait(struct rdx_cq *cq, int timeout_ms);

/* ------------------------------------------------------------------ */
/* Queue pairs                                                        */

/**
 * Create a queue pair, RC (conf->type RDX_QP_RC, the default) or UD
 * (RDX_QP_UD).
 *
 * The configuration is checked against the device's attributes once, for
 * every driver: sq_depth 1..max_qp_wr, rq_depth <= max_qp_wr, send and
 * receive SGEs <= max_sge, max_inline <= max_inline, sig_interval <=
 * sq_depth, both CQs of dev; type RC or UD; qkey 0 on RC, bit 31 clear on
 * UD; UD needs a device with max_ud_msg > 0 and max_inline <= max_ud_msg.
 * The granted limits (never less than asked) are in qp->conf.
 *
 * Control path. Not thread-safe on one device.
 *
 * @param dev
 *   An open device.
 * @param conf
 *   The QP's configuration; read during the call only.
 * @return
 *   The QP (in RESET until rdx_qp_connect), or NULL with rte_errno set:
 *   EINVAL (a field out of range: one line on stderr names it and the
 *   limit), ENOTSUP (UD on a driver without UD QPs), ENOMEM, ENOSPC, or
 *   the driver's error.
 */
struct rdx_qp *rdx_qp_create(struct rdx_dev *dev, const struct rdx_qp_conf *conf);

/**
 * The deepest send queue rdx_qp_create grants a QP of this type, send SGEs
 * and inline size on dev. A send WQE grows with the SGEs and the inline
 * data while the ring has a fixed number of 64-byte blocks (mlx5: libmlx5
 * sizes every WQE of the SQ alike), so the limit may be below
 * attr.max_qp_wr; an application checks its depth against it before
 * creating the QP, to name its own option in one line.
 *
 * Control path.
 *
 * @param dev
 *   An open device.
 * @param type
 *   RDX_QP_RC or RDX_QP_UD.
 * @param max_send_sge
 *   Send SGEs, 0..attr.max_sge (0 counts as 1).
 * @param max_inline
 *   Inline bytes, 0..attr.max_inline.
 * @return
 *   The largest sq_depth (at most attr.max_qp_wr; attr.max_qp_wr when the
 *   driver does not say), or 0 when an argument is out of the device's
 *   range or the SGEs and the inline data do not fit one WQE.
 */
uint32_t rdx_qp_sq_depth_max(const struct rdx_dev *dev, uint8_t type,
			     uint32_t max_send_sge, uint32_t max_inline);

/**
 * Destroy a QP.
 *
 * Control path. No thread may post to it during or after the call.
 *
 * @param qp
 *   The QP (NULL: nothing to do).
 * @return
 *   0, or the driver's negative errno.
 */
int rdx_qp_destroy(struct rdx_qp *qp);

/**
 * What a peer needs to connect to qp, to send it out of band (lib/conn).
 *
 * Control path. Thread-safe (reads only).
 *
 * @param qp
 *   The QP.
 * @param info
 *   Filled (every byte: unused ones are zero, so it can be sent as is).
 * @return
 *   0, or the driver's negative errno.
 */
int rdx_qp_info_get(struct rdx_qp *qp, struct rdx_qp_info *info);

/**
 * Move the QP RESET->INIT->RTR->RTS: an RC QP towards the peer described
 * by remote; a UD QP with remote NULL (a UD QP has no peer: each WR names
 * its destination; INIT takes the port, P_Key index 0 and conf.qkey, RTS
 * the SQ PSN; attr is not used: each AH carries its SL).
 *
 * Control path (modify-QP system calls). Not thread-safe on one QP.
 *
 * @param qp
 *   A QP in RESET.
 * @param remote
 *   RC: the peer's rdx_qp_info_get, from a device of the same driver.
 *   UD: NULL (anything else: -EINVAL).
 * @param attr
 *   Connection parameters (NULL or zero fields: defaults).
 * @return
 *   0, -EPROTO when the peer's driver differs, -EINVAL for a bad remote
 *   (NULL on RC, non-NULL on UD), or the driver's negative errno (one line
 *   on stderr says which step).
 */
int rdx_qp_connect(struct rdx_qp *qp, const struct rdx_qp_info *remote,
		   const struct rdx_qp_conn_attr *attr);

/**
 * wr_id of the i-th WR (0 = oldest) retired by a send completion wc.
 *
 * Poller's thread, right after rdx_cq_poll_burst or rdx_cq_poll_req_burst:
 * valid until the next post on the QP. No allocation, lock or system call.
 *
 * @param qp
 *   The QP of the completion (wc->qp_ctx names its user_ctx).
 * @param wc
 *   A send completion of qp.
 * @param i
 *   0..wc->retired - 1.
 * @return
 *   The wr_id.
 */
uint64_t rdx_qp_retired_wr_id(const struct rdx_qp *qp, const struct rdx_wc *wc,
			      uint16_t i);

/* ------------------------------------------------------------------ */
/* Address handles (UD)                                               */

/**
 * Fill an address handle's attributes from a UD peer's rdx_qp_info: its
 * GID and LID, the local port of dev, is_global on RoCE (link layer
 * Ethernet) or when the peer has no LID, sl 0, sgid_index -1.
 *
 * Control path, no system call. Thread-safe.
 *
 * @return
 *   0, or -EINVAL for a NULL argument.
 */
int rdx_ah_attr_from_info(const struct rdx_dev *dev, const struct rdx_qp_info *peer,
			  struct rdx_ah_attr *attr);

/**
 * Create an address handle: the route to one destination port, used by UD
 * WRs (rdx_wr.ah) of any UD QP of dev.
 *
 * Control path (may enter the kernel). Not thread-safe on one device.
 *
 * @param dev
 *   An open device.
 * @param attr
 *   The destination; read during the call only. sl <= 15, flow_label
 *   < 2^20; RoCE (link layer Ethernet) requires is_global.
 * @return
 *   The AH, or NULL with rte_errno set: EINVAL (a field out of range: one
 *   line on stderr names it), ENOTSUP (the driver has no UD), or the
 *   driver's error.
 */
struct rdx_ah *rdx_ah_create(struct rdx_dev *dev, const struct rdx_ah_attr *attr);

/**
 * Destroy an address handle. No posted WR that names it may still be
 * outstanding (its completion polled).
 *
 * Control path.
 *
 * @param ah
 *   The AH (NULL: nothing to do).
 * @return
 *   0, -ENOTSUP when the driver has no AH op, or the driver's negative errno.
 */
int rdx_ah_destroy(struct rdx_ah *ah);

/* ------------------------------------------------------------------ */
/* Names                                                              */

/** Name of a WR opcode ("RDMA_WRITE"; "UNKNOWN" for others). Thread-safe. */
const char *rdx_op_name(enum rdx_op op);
/** Name of a completion opcode ("RECV_IMM"; "UNKNOWN" for others). Thread-safe. */
const char *rdx_wc_opcode_name(enum rdx_wc_opcode op);
/** ibv_wc_status_str() of a completion status. Thread-safe. */
const char *rdx_wc_status_name(uint8_t status);

#ifdef __cplusplus
}
#endif

#endif /* RDX_DEV_H */
