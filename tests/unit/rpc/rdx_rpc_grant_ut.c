/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The homa receiver's grant scheduler (rdx_rpc_grant.c, included): short
 * messages need no grant; grants go shortest remaining first; at most
 * overcommit messages are granted at once, each at most rtt_bytes beyond
 * what arrived; fully granted and removed messages leave; a receiver loop
 * over several messages ends with every one fully granted and received.
 */
#include <errno.h>
#include <string.h>

#include "rdx_ut.h"
#include "../../../lib/rpc/rdx_rpc_grant.c"

#define RTT 1000u

static void
test_add_remove(void)
{
	struct rpc_grant_ent *tab[2], a, b, c;
	struct rpc_grant_sched s;

	rpc_grant_init(&s, tab, 2, RTT, 1);
	CU_ASSERT_EQUAL(rpc_grant_add(&s, &a, 1000), 0); /* all unscheduled */
	CU_ASSERT_EQUAL(a.granted, 1000);
	CU_ASSERT_EQUAL(rpc_grant_add(&s, &a, 5000), 1);
	CU_ASSERT_EQUAL(a.granted, RTT);
	CU_ASSERT_EQUAL(rpc_grant_add(&s, &b, 3000), 1);
	CU_ASSERT_EQUAL(rpc_grant_add(&s, &c, 3000), -ENOSPC);
	rpc_grant_remove(&s, &a);
	CU_ASSERT_EQUAL(s.n, 1);
	CU_ASSERT_PTR_EQUAL(tab[0], &b);
	CU_ASSERT_EQUAL(b.pos, 0);
	rpc_grant_remove(&s, &a); /* twice: nothing */
	CU_ASSERT_EQUAL(s.n, 1);
}

static void
test_srpt_order_and_bound(void)
{
	struct rpc_grant_ent *tab[8], *out[8], e[5];
	static const uint32_t lens[5] = { 9000, 4000, 20000, 2500, 6000 };
	struct rpc_grant_sched s;
	uint32_t i, n;

	rpc_grant_init(&s, tab, 8, RTT, 2);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(rpc_grant_add(&s, &e[i], lens[i]), 1);
	/* the two shortest remaining (2500, 4000) are granted, nobody else */
	n = rpc_grant_run(&s, out, 8);
	CU_ASSERT_EQUAL(n, 0); /* nothing arrived yet: granted == rcvd + RTT */
	e[3].rcvd = 600;
	e[1].rcvd = 1000;
	e[2].rcvd = 1000;
	e[0].rcvd = 1000;
	n = rpc_grant_run(&s, out, 8);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT(n == 2 && out[0] == &e[3] && out[1] == &e[1]);
	CU_ASSERT_EQUAL(e[3].granted, 1600);
	CU_ASSERT_EQUAL(e[1].granted, 2000);
	CU_ASSERT_EQUAL(e[0].granted, RTT); /* 8000 left: not among the 2 */
	CU_ASSERT_EQUAL(e[2].granted, RTT);
	/* the bound: no message more than RTT granted beyond what arrived */
	for (i = 0; i < 5; i++)
		CU_ASSERT(e[i].granted <= e[i].rcvd + RTT || e[i].granted == RTT);
	/* e[0] gets ahead of e[1] in remaining bytes: the grant moves */
	e[0].rcvd = 8000; /* 1000 left */
	n = rpc_grant_run(&s, out, 8);
	CU_ASSERT(n >= 1 && out[0] == &e[0]);
	CU_ASSERT_EQUAL(e[0].granted, 9000);
	/* fully granted: it left the scheduler */
	CU_ASSERT_EQUAL(e[0].pos, UINT32_MAX);
	CU_ASSERT_EQUAL(s.n, 4);
	/* max smaller than overcommit: the rest waits, its grant unchanged */
	e[3].rcvd = 1600;
	e[1].rcvd = 2000;
	n = rpc_grant_run(&s, out, 1);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_PTR_EQUAL(out[0], &e[3]);
	CU_ASSERT_EQUAL(e[1].granted, 2000);
	n = rpc_grant_run(&s, out, 8);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_PTR_EQUAL(out[0], &e[1]);
	CU_ASSERT_EQUAL(e[1].granted, 3000);
}

/* A receiver that takes every granted byte each step: all messages finish,
 * shortest first, and at no step are more than overcommit messages
 * receiving scheduled bytes. */
static void
test_drain(void)
{
	static const uint32_t lens[6] = { 50000, 3000, 12000, 7000, 30000, 1500 };
	struct rpc_grant_ent *tab[8], *out[8], e[6];
	uint32_t i, done = 0, order[6], steps = 0;
	struct rpc_grant_sched s;
	bool fin[6] = { false };

	rpc_grant_init(&s, tab, 8, RTT, 3);
	for (i = 0; i < 6; i++)
		rpc_grant_add(&s, &e[i], lens[i]);
	while (done < 6) {
		uint32_t active = 0;

		CU_ASSERT_FATAL(++steps < 1000);
		rpc_grant_run(&s, out, 8);
		for (i = 0; i < 6; i++) {
			if (fin[i])
				continue;
			if (e[i].granted > e[i].rcvd && e[i].rcvd >= RTT)
				active++;
			e[i].rcvd = e[i].granted;
			if (e[i].rcvd == lens[i]) {
				fin[i] = true;
				order[done++] = i;
				rpc_grant_remove(&s, &e[i]);
			}
		}
		CU_ASSERT(active <= 3);
	}
	/* 1500 needs no grant; then 3000, 7000, 12000 ... by size */
	CU_ASSERT_EQUAL(order[0], 5);
	CU_ASSERT_EQUAL(order[1], 1);
	CU_ASSERT_EQUAL(order[2], 3);
	CU_ASSERT_EQUAL(s.n, 0);
}

/* A budget: the messages granted at once share it (each at least
 * rtt_bytes ahead), and one alone gets it all. */
static void
test_budget(void)
{
	struct rpc_grant_ent *tab[8], *out[8], e[3];
	struct rpc_grant_sched s;
	uint32_t n;

	rpc_grant_init(&s, tab, 8, RTT, 2);
	rpc_grant_budget(&s, 8 * RTT);
	rpc_grant_add(&s, &e[0], 100 * RTT);
	n = rpc_grant_run(&s, out, 8);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(e[0].granted, 8 * RTT);     /* alone: the whole budget */
	CU_ASSERT_EQUAL(e[0].prev_granted, RTT);
	rpc_grant_add(&s, &e[1], 50 * RTT);
	rpc_grant_add(&s, &e[2], 60 * RTT);
	e[0].rcvd = 8 * RTT;
	n = rpc_grant_run(&s, out, 8);
	/* the two with the fewest bytes left (overcommit) get 4 * RTT ahead
	 * each; e[0] (92 RTT left) none */
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(e[1].granted, 4 * RTT);
	CU_ASSERT_EQUAL(e[2].granted, 4 * RTT);
	CU_ASSERT_EQUAL(e[0].granted, 8 * RTT);
	/* a budget below rtt_bytes per message: rtt_bytes */
	rpc_grant_budget(&s, RTT);
	e[1].rcvd = 4 * RTT;
	rpc_grant_run(&s, out, 8);
	CU_ASSERT_EQUAL(e[1].granted, 5 * RTT);
	/* never past the message */
	rpc_grant_budget(&s, 1000 * RTT);
	rpc_grant_run(&s, out, 8);
	CU_ASSERT_EQUAL(e[1].granted, 50 * RTT);
}

int
main(void)
{
	static const struct rdx_ut_case cases[] = {
		{ "add_remove", test_add_remove },
		{ "srpt_order_and_bound", test_srpt_order_and_bound },
		{ "drain", test_drain },
		{ "budget", test_budget },
		{ NULL, NULL },
	};

	return rdx_ut_run("rdx_rpc_grant", cases, NULL, NULL);
}
