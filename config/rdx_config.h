/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Build-time sizing constants. Nothing here changes a measured result:
 * every knob that does is a run-time flag printed with the results.
 */
#ifndef RDX_CONFIG_H
#define RDX_CONFIG_H

#define RDX_VERSION_STR "0.1.0"
/* Bumped whenever the out-of-band bootstrap messages change layout. */
#define RDX_WIRE_VERSION 5

#define RDX_MAX_LCORES 128          /* worker lcores an app can drive */
#define RDX_MAX_QPS_PER_LCORE 1024  /* -q upper bound */
#define RDX_MAX_BURST 64            /* largest post/poll burst */
#define RDX_MAX_SGE 16              /* largest gather/scatter list */
#define RDX_MAX_POLLERS 16          /* pollers per lcore */

#endif /* RDX_CONFIG_H */
