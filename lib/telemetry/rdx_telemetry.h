/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdx telemetry: rdx's own commands on DPDK's telemetry socket
 * (/var/run/dpdk/<file-prefix>/dpdk_telemetry.v2; rdx processes use the
 * prefix rdx-<pid>). They are registered by a constructor when librdx is
 * loaded, as DPDK's libraries register theirs, and answer once EAL has
 * started telemetry; nothing needs to be called.
 *
 *   /rdx/info                 version, TSC, main and worker lcores
 *   /rdx/devs                 open devices ("sw", "sw#1" for a second "sw")
 *   /rdx/dev_list             their numeric ids (0, 1, ... in /rdx/devs order),
 *                             as /ethdev/list gives port ids
 *   /rdx/dev_info,<dev>       struct rdx_dev_attr of one of them
 *   /rdx/dev_xstats,<dev>     its counters (rdx_dev_xstats_get), as a dict
 *   /rdx/qp_list[,<dev>][,<start>]
 *                             live QPs (of every device, or of <dev>), from
 *                             the start-th on: device id and name, qp_num,
 *                             type, state, lcore, depths (a page: below)
 *   /rdx/qp_xstats,<dev>,<qpn> one QP's counters (rdx_qp_xstats_get), as a dict
 *   /rdx/lcores[,<start>]     worker lcores and lcores running an
 *                             rdx_lcore_loop, a summary each (a page)
 *   /rdx/lcore,<id>           one of them: totals and per poller counters
 * <dev> is a name from /rdx/devs or a numeric id from /rdx/dev_list
 * (/rdx/dev_xstats,0 as /ethdev/xstats,0); <qpn> a decimal qp_num from
 * /rdx/qp_list (/rdx/qp_xstats,0,291).
 *
 * /rdx/qp_list,1 is device 1's QPs: every device's from the 150th on is
 * /rdx/qp_list,,150 (device 1's: /rdx/qp_list,1,150).
 *
 * Pages: a reply holds at most 16 KiB of JSON (DPDK drops what does not
 * fit), so the two lists stop where the next entry would not fit and then
 * end with "more" (the entries left) and "next" (the <start> to pass for
 * them); both are absent from the last page. A list that changes between
 * two pages may shift: an entry can be skipped or listed twice.
 *
 * A bad parameter (unknown device or QP, bad or idle lcore id, a <start>
 * that is not a decimal number or is past the end of the list) makes the
 * callback return a negative value, which DPDK answers with null.
 * doc/telemetry.md describes every field.
 */
#ifndef RDX_TELEMETRY_H
#define RDX_TELEMETRY_H

#include "rdx_dev.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_tel_data;

/** Command names, for clients and tests. */
#define RDX_TELEMETRY_CMD_INFO "/rdx/info"
#define RDX_TELEMETRY_CMD_DEVS "/rdx/devs"
#define RDX_TELEMETRY_CMD_DEV_LIST "/rdx/dev_list"
#define RDX_TELEMETRY_CMD_DEV_INFO "/rdx/dev_info"
#define RDX_TELEMETRY_CMD_DEV_XSTATS "/rdx/dev_xstats"
#define RDX_TELEMETRY_CMD_QP_LIST "/rdx/qp_list"
#define RDX_TELEMETRY_CMD_QP_XSTATS "/rdx/qp_xstats"
#define RDX_TELEMETRY_CMD_LCORES "/rdx/lcores"
#define RDX_TELEMETRY_CMD_LCORE "/rdx/lcore"

/**
 * Start d as a dict and add the counters of dev to it (name -> u64), as
 * /rdx/dev_xstats does; for apps adding commands of their own.
 * @return the number of counters added, or a negative errno.
 */
int rdx_telemetry_dev_xstats(struct rdx_dev *dev, struct rte_tel_data *d);

/**
 * Start d as a dict and add the counters of qp to it (name -> u64), as
 * /rdx/qp_xstats does; for apps adding commands of their own.
 * @return the number of counters added, -ENOTSUP when qp's driver keeps
 * none, or another negative errno.
 */
int rdx_telemetry_qp_xstats(struct rdx_qp *qp, struct rte_tel_data *d);

/**
 * Fills what an app knows of one of its lcores into /rdx/lcores and
 * /rdx/lcore,<id> (an app running its own loop rather than an
 * rdx_lcore_loop: counters it keeps anyway, e.g. ops, polls, busy polls).
 * Called on DPDK's telemetry thread with d a dict already started, to which
 * it adds entries; it must only read what the lcore writes (relaxed loads).
 * @return 1 when it added something for lcore_id, 0 when it knows nothing
 * of it, or a negative errno.
 */
typedef int (*rdx_telemetry_lcore_fn_t)(unsigned int lcore_id, struct rte_tel_data *d,
					void *arg);

/**
 * The JSON /rdx/lcores counts for what a rdx_telemetry_lcore_fn_t adds to
 * one lcore's entry (keys, values, quotes, ':' and ','): its pages are cut
 * so that the reply fits in DPDK's 16 KiB with that much per lcore. A hook
 * that adds more can make DPDK drop lcores from a full page unannounced
 * (rdx-perf's adds at most about 200 bytes).
 */
#define RDX_TELEMETRY_LCORE_APP_BYTES 512

/**
 * Install fn (NULL: remove it): one per process, the last call wins. An
 * lcore is listed by /rdx/lcores when it runs an rdx_lcore_loop, is an EAL
 * worker running a function, or fn adds something for it. What fn adds to
 * one lcore must stay within RDX_TELEMETRY_LCORE_APP_BYTES of JSON.
 * Control path; fn must stay valid until removed.
 * @return 0.
 */
int rdx_telemetry_lcore_info_set(rdx_telemetry_lcore_fn_t fn, void *arg);

/**
 * The registry name of dev in the telemetry commands: its attr.name, with
 * "#<k>" appended for the k-th (k >= 1) open device of the same name.
 * @return 0, -ENOENT (dev is not open), -EINVAL.
 */
int rdx_telemetry_dev_name(const struct rdx_dev *dev, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* RDX_TELEMETRY_H */
