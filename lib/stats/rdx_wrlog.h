/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The per-work-request log rdx-perf writes with -o FILE, read back: the one
 * parser of that format (rdx-flows uses it; rdx-plot reads what rdx-flows
 * makes of it).
 *
 *   # rdx-wrlog v1
 *   # test=write mode=bw size=65536 lcore=1 qps=1 flow=<label> dev=<name> ...
 *     ... host=<host name> dev_id=<the device's identity>
 *   # op qp post_ns complete_ns bytes
 *   0 0 1700000000123456789 1700000000123460000 65536
 *
 * Times are CLOCK_REALTIME ns; lines are in post order (op increasing,
 * post_ns not decreasing); complete_ns >= post_ns, or 0 for a work request
 * that never completed. Later '#' lines and blank lines are skipped.
 *
 * The key=value line is read whole, whatever its length. flow= (rdx-perf's
 * --label) is the one free-text value: it runs from "flow=" to the blank
 * before the last " dev=" after it (rdx-perf writes flow= before dev= and
 * only single words from dev= on), else it is one word. Every other field
 * is a blank-separated key=value word, each key once; the line holds no
 * control character but tab. A header that cannot be read exactly is
 * refused, never read in part.
 */
#ifndef RDX_WRLOG_H
#define RDX_WRLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** rdx-perf's log capacity per lcore before its header said capacity=. */
#define RDX_WRLOG_OLD_CAP (1u << 20)

/** One logged work request. */
struct rdx_wrlog_wr {
	uint32_t qp;
	uint32_t bytes;            /**< rdx-perf writes 32-bit counts */
	uint64_t post_ns;
	uint64_t complete_ns;      /**< 0: never completed */
};

/** One key=value field of the header line (flow= among them). */
struct rdx_wrlog_field {
	char *key;
	char *val;
};

/** A log read whole. */
struct rdx_wrlog {
	char *path;
	char *header;              /**< the key=value line as read (after "# ") */
	struct rdx_wrlog_field *fields;
	size_t nb_fields;
	struct rdx_wrlog_wr *wr;   /**< in post order */
	size_t nb_wr;
	size_t nb_incomplete;      /**< complete_ns == 0 */
	unsigned int report_div;   /**< report_div= (1 or 2; 1 when absent) */
	uint64_t capacity;         /**< capacity=; 0 when the header has none */
	uint64_t unlogged;         /**< unlogged=: measured WRs rdx-perf left out */
	/** cut: unlogged > 0, or (no capacity=) exactly RDX_WRLOG_OLD_CAP WRs */
	bool truncated;
	size_t cap_wr;             /**< allocated entries of wr */
};

/**
 * Read the log at path. On bad input or a read error: NULL, rte_errno
 * EINVAL (bad input), EIO (a read error), ENOENT (no such file) or ENOMEM,
 * and one line saying why (starting with the path) in err (when err is not
 * NULL). A log without a completed work request is bad input.
 */
struct rdx_wrlog *rdx_wrlog_read(const char *path, char *err, size_t errlen);

/** The value of key= in the header; NULL when absent. */
const char *rdx_wrlog_field_get(const struct rdx_wrlog *l, const char *key);

/**
 * The label of the flow: flow=, or the file name (without its directory)
 * when flow= is absent, empty or "-".
 */
const char *rdx_wrlog_label(const struct rdx_wrlog *l);

/**
 * The device kind: device_kind= ("software_device", "software_rdma_device",
 * "hardware"), or for logs without it "software_device" when dev= starts
 * with "sw", else NULL (not recorded).
 */
const char *rdx_wrlog_device_kind(const struct rdx_wrlog *l);

/**
 * Whether the logs ran on one device (so that their flows could share a
 * link): NULL when they did or nothing says otherwise, else why not, one
 * line in buf (returned). They did not when their dev= or host= differ, a
 * host= is on some logs only, or their dev_id= differ (rdx-perf writes the
 * device's identity: for the software device its model instance, the
 * process's shared segment, sw:<segment>; for a kernel device
 * <name>:<node GUID>, or <name> alone without a GUID). A log without
 * dev_id= (an older rdx-perf) beside logs with one is unknown: not shared.
 * Without any dev_id=, several logs of the software device are not
 * shared: each process has a model of its own. One log shares with itself.
 */
const char *rdx_wrlog_not_shared(struct rdx_wrlog *const *logs, unsigned int n, char *buf,
				 size_t len);

void rdx_wrlog_free(struct rdx_wrlog *l);

#ifdef __cplusplus
}
#endif

#endif
