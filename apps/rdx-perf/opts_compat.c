/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdx-perf options a perftest user brings along (opts.c calls these):
 * perftest's flags that rdx-perf does not implement, each refused with one
 * line that says so (not "unknown option"), perftest's --output values,
 * and the open-loop rates (--rate, --rate-sweep: decimal K/M, ops/s).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_app.h"
#include "perf_opts.h"

/* perftest options rdx-perf refuses: long name, short letter (0: none),
 * whether perftest's takes a value, and what to use instead, if anything. */
static const struct perf_compat_flag {
	const char *name;
	char letter;
	bool arg;
	const char *instead;
} refused[] = {
	{ "atomic_type", 'A', true, "use --test cas or --test faa" },
	{ "report-cycles", 'C', false, "figures are in usec (the TSC is read and converted)" },
	{ "margin", 'f', true, NULL },
	{ "mcg", 'g', false, "multicast is not implemented (ibv_rc_pingpong's -g GID index is -x/--gid-index)" },
	{ "report-histogram", 'H', false, "use -o FILE (every WR's times) or --json (percentiles)" },
	{ "MGID", 'M', true, NULL },
	{ "noPeak", 'N', false, "BW peak is not computed (printed as -)" },
	{ "dualport", 'O', false, NULL },
	{ "sl", 'S', true, NULL },
	{ "tos", 'T', true, NULL },
	{ "qp-timeout", 'u', true, NULL },
	{ "report-unsorted", 'U', false, "use -o FILE (every WR's times, in post order)" },
	{ "limit_bw", 'w', true, "use --rate (open-loop ops/s)" },
	{ "limit_msgrate", 'y', true, "use --rate (open-loop ops/s)" },
	{ "comm_rdma_cm", 'z', false, "the bootstrap is rdx's TCP connection (-R connects the QPs through rdma_cm)" },
	{ "rate_limit", 0, true, "use --rate (open-loop ops/s)" },
	{ "rate_units", 0, true, "--rate is in ops/s" },
	{ "rate_limit_type", 0, true, "--rate paces in software" },
	{ "burst_size", 0, true, NULL },
	{ "use_cuda", 0, true, NULL },
	{ "use_rocm", 0, true, NULL },
	{ "odp", 0, false, NULL },
	{ "use-srq", 0, false, NULL },
	{ "use_srq", 0, false, NULL },
	{ "ipv6", 0, false, NULL },
	{ "dlid", 0, true, NULL },
	{ "flows", 0, true, NULL },
	{ "mr_per_qp", 0, false, NULL },
	{ "reversed", 0, false, NULL },
	{ "report-both", 0, false, NULL },
	{ "tclass", 0, true, NULL },
	{ "latency_gap", 0, true, "use --rate (open-loop ops/s)" },
	{ "perform_warm_up", 0, false, "rdx-perf always warms up (--warmup)" },
	{ "outs", 0, true, "-o is rdx-perf's per-WR log; use -t for ops in flight" },
	{ "inline_recv", 0, true, NULL },
	{ "retry_count", 0, true, NULL },
	{ "dont_xchg_versions", 0, false, NULL },
	{ "payload_file_path", 0, true, NULL },
	{ "vector", 'X', true, NULL },
	{ "hop_limit", 'L', true, "raw Ethernet QPs are not implemented" },
	{ "recv_post_list", 0, true, "receives are reposted as they complete" },
	{ "mmap", 0, true, "use --mem host, huge or dm" },
	{ "mmap-offset", 0, true, "use --mem host, huge or dm" },
	{ "pkey_index", 0, true, NULL },
	{ "wait_destroy", 0, true, NULL },
	{ "force-link", 0, true, "the link layer is the port's" },
	{ "report-per-port", 0, false, "dual-port runs (-O) are not implemented" },
	{ "use_old_post_send", 0, false, "rdx-perf writes WQEs to the send queue itself (no ibv_post_send)" },
	{ "disable_pcie_relaxed", 0, false, "memory is registered with the device's default ordering" },
	{ "typical_pkt_size", 0, true, "use --rate (open-loop ops/s)" },
	{ "log_dci_streams", 0, true, "DC is not implemented" },
	{ "log_active_dci_streams", 0, true, "DC is not implemented" },
	{ "aes_xts", 0, false, NULL },
	{ "ts", 0, false, "use -o FILE (every WR's post and completion times)" },
	{ "jitter", 'j', false, "use -o FILE (every WR's times) or --json (percentiles)" },
	/* perftest's other long options (perftest_parameters.c) */
	{ "source_mac", 'B', true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "dest_mac", 'E', true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "dest_ip", 'J', true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "dest_port", 'K', true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "source_port", 'k', true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "ethertype", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "use_rss", 'G', false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "local_ip", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "remote_ip", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "local_mac", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "remote_mac", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "local_port", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "remote_port", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "mac_fwd", 'v', false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "promiscuous", 0, false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "sniffer", 0, false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "raw_ipv6", 0, false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "raw_mcast", 0, false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "vlan_en", 0, false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "vlan_pcp", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "flows_burst", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "flow_label", 0, true, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "ipv6-addr", 0, false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "tcp", 0, false, "raw Ethernet QPs (perftest's raw_ethernet_* tests) are not implemented" },
	{ "use_cuda_bus_id", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_cuda_dmabuf", 0, false, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_cuda_pcie_mapping", 0, false, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "cuda_mem_type", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "gpu_touch", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_rocm_dmabuf", 0, false, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_mlu", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_mlu_dmabuf", 0, false, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_musa", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_musa_bus_id", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_musa_dmabuf", 0, false, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_musa_pcie_mapping", 0, false, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_neuron", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_neuron_dmabuf", 0, false, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_opencl", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "opencl_platform_id", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_hl", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "use_ib_dm_dmabuf", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "tph_mem", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "ph", 0, true, "accelerator memory is not implemented (--mem host, huge or dm)" },
	{ "aes_block_size", 0, true, "encryption and signature offloads are not implemented" },
	{ "data_enc_key_app_path", 0, true, "encryption and signature offloads are not implemented" },
	{ "data_enc_keys_number", 0, true, "encryption and signature offloads are not implemented" },
	{ "kek_path", 0, true, "encryption and signature offloads are not implemented" },
	{ "credentials_path", 0, true, "encryption and signature offloads are not implemented" },
	{ "encrypt_on_tx", 0, false, "encryption and signature offloads are not implemented" },
	{ "sig_offload", 0, false, "encryption and signature offloads are not implemented" },
	{ "sig_before", 0, false, "encryption and signature offloads are not implemented" },
	{ "client", 'P', false, "the client is the process given the server's host (or --connect HOST:PORT)" },
	{ "cpu_id", 0, true, "the lcores are EAL's -l (RDX_EAL for the ib_* programs)" },
	{ "pin_cores", 0, true, "the lcores are EAL's -l (RDX_EAL for the ib_* programs)" },
	{ "disable_numa", 0, false, "buffers come from the lcores' NUMA node (EAL)" },
	{ "numa_node", 0, true, "buffers come from the lcores' NUMA node (EAL)" },
	{ "no_lock", 0, false, "the data path takes no locks" },
	{ "data_validation", 0, false, "use --verify (every payload byte checked)" },
	{ "data_validation_debug", 0, false, "use --verify (every payload byte checked)" },
	{ "write_with_imm", 0, false, "use rdx-perf --test write_imm" },
	{ "send_with_imm", 0, false, NULL },
	{ "bind_source_ip", 0, true, "use --source_ip with -R" },
	{ "report-histogrm", 0, false, "use -o FILE (every WR's times) or --json (percentiles)" },
	{ "no_enhanced_reorder", 0, false, "memory is registered with the device's default ordering" },
	{ "reply_every", 0, true, NULL },
	{ "use-null-mr", 0, false, NULL },
	{ "use_ooo", 0, false, NULL },
	{ "use_data_direct", 0, false, NULL },
	{ "unsolicited_write", 0, false, NULL },
	{ "connectionless", 0, false, NULL },
	{ "cqe_poll", 0, true, NULL },
	{ "congest_type", 0, true, NULL },
	{ "disable_dynamic_polling", 0, false, "rdx-perf always busy-polls (-e: completion events)" },
};

#define NB_REFUSED (sizeof(refused) / sizeof(refused[0]))

size_t
perf_compat_long_opts(struct option *out, size_t cap)
{
	size_t i;

	for (i = 0; i < NB_REFUSED && i < cap; i++) {
		out[i].name = refused[i].name;
		out[i].has_arg = refused[i].arg ? optional_argument : no_argument;
		out[i].flag = NULL;
		out[i].val = PERF_OPT_REFUSED + (int)i;
	}
	return i;
}

size_t
perf_compat_short_opts(char *buf, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < NB_REFUSED; i++) {
		if (refused[i].letter == 0 || n + 3 >= len)
			continue;
		buf[n++] = refused[i].letter;
		if (refused[i].arg)
			buf[n++] = ':';
	}
	buf[n] = '\0';
	return n;
}

/* c: a value getopt_long returned (a refused letter or PERF_OPT_REFUSED + i). */
int
perf_compat_refuse(int c)
{
	const struct perf_compat_flag *f = NULL;
	char shown[64];
	size_t i;

	if (c >= PERF_OPT_REFUSED && c < PERF_OPT_REFUSED + (int)NB_REFUSED)
		f = &refused[c - PERF_OPT_REFUSED];
	for (i = 0; f == NULL && i < NB_REFUSED; i++)
		if (refused[i].letter != 0 && refused[i].letter == c)
			f = &refused[i];
	if (f == NULL)
		return 0;
	if (f->letter != 0)
		snprintf(shown, sizeof(shown), "-%c/--%s", f->letter, f->name);
	else
		snprintf(shown, sizeof(shown), "--%s", f->name);
	fprintf(stderr, "rdx-perf: perftest's %s is not implemented by rdx-perf%s%s\n", shown,
		f->instead != NULL ? ": " : "", f->instead != NULL ? f->instead : "");
	return -EINVAL;
}

int
perf_parse_output(const char *s, enum perf_output *out)
{
	if (strcmp(s, "bandwidth") == 0)
		*out = PERF_OUTPUT_BW;
	else if (strcmp(s, "latency") == 0)
		*out = PERF_OUTPUT_LAT;
	else if (strcmp(s, "message_rate") == 0)
		*out = PERF_OUTPUT_MSG_RATE;
	else {
		fprintf(stderr, "rdx-perf: bad value '%s' for --output: expected bandwidth, latency or message_rate (the per-WR log is -o/--wr-log FILE)\n",
			s);
		return -EINVAL;
	}
	return 0;
}

/* A rate in ops/s: decimal, optional fraction, K (10^3) or M (10^6). */
int
perf_parse_rate(const char *opt, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(v) || s[0] == '-' || s[0] == '+' ||
	    s[0] == ' ')
		goto bad;
	if (*end == 'K' || *end == 'k')
		v *= 1e3, end++;
	else if (*end == 'M' || *end == 'm')
		v *= 1e6, end++;
	if (*end != '\0' || v < 1 || v > 1e9)
		goto bad;
	*out = v;
	return 0;
bad:
	fprintf(stderr, "rdx-perf: bad value '%s' for %s: expected ops/s, 1..1e9 (K = 10^3, M = 10^6)\n",
		s, opt);
	return -EINVAL;
}

/* --rate-sweep R1,R2,... (at most PERF_MAX_RATES, increasing). */
int
perf_parse_rates(const char *s, double *rates, unsigned int *n)
{
	char buf[512], *tok, *next;

	if (strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "rdx-perf: bad value for --rate-sweep: list too long\n");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	*n = 0;
	for (tok = buf; tok != NULL; tok = next) {
		next = strchr(tok, ',');
		if (next != NULL)
			*next++ = '\0';
		if (*n == PERF_MAX_RATES) {
			fprintf(stderr, "rdx-perf: bad value '%s' for --rate-sweep: at most %d rates\n",
				s, PERF_MAX_RATES);
			return -EINVAL;
		}
		if (perf_parse_rate("--rate-sweep", tok, &rates[*n]) < 0)
			return -EINVAL;
		if (*n > 0 && rates[*n] <= rates[*n - 1]) {
			fprintf(stderr, "rdx-perf: bad value '%s' for --rate-sweep: rates must increase\n",
				s);
			return -EINVAL;
		}
		(*n)++;
	}
	return 0;
}

/*
 * -b: both ends of every QP pair post the bandwidth loop. In one process
 * (--loopback) for write and read; across two (--server / --connect) also
 * for send and write_imm (both processes keep receives posted). Each
 * refusal is one line.
 */
static int
bidir_check(const struct perf_opts *o, const struct perf_opts_given *g)
{
	const bool procs = o->server || o->connect != NULL;
	const struct rdx_perf_engine *e = o->test != NULL ? perf_engine_find(o->test) : NULL;

	if (o->mode != PERF_MODE_BW) {
		fprintf(stderr, "rdx-perf: -b applies to --mode bw (a latency test is already both ways)\n");
		return -EINVAL;
	}
	if (e != NULL && (e->atomic || e->req_size != 0 ||
			  (!procs && e->server_recv))) {
		fprintf(stderr, "rdx-perf: -b is implemented for --test write and read%s (test %s is not)\n",
			procs ? ", send and write_imm across two processes" :
			" in one process; send and write_imm across two (--server/--connect)", o->test);
		return -EINVAL;
	}
	if (g->rate || o->rate != 0 || o->nb_rates != 0) {
		fprintf(stderr, "rdx-perf: -b with --rate/--rate-sweep is not implemented: -b is a closed-loop bandwidth test\n");
		return -EINVAL;
	}
	if (procs && o->transport == PERF_TRANSPORT_UD) {
		fprintf(stderr, "rdx-perf: -b across two processes over --transport ud is not implemented (RC only)\n");
		return -EINVAL;
	}
	if (procs && o->sweep_hi != o->sweep_lo) {
		fprintf(stderr, "rdx-perf: -b across two processes runs one QP count: --qp-sweep does not apply\n");
		return -EINVAL;
	}
	if (procs && o->infinite) {
		fprintf(stderr, "rdx-perf: -b across two processes with --run_infinitely is not implemented\n");
		return -EINVAL;
	}
	return 0;
}

int
perf_opts_compat_check(struct perf_opts *o, const struct perf_opts_given *g)
{
	if (o->connect != NULL && o->connect[0] != '[' && strchr(o->connect, ':') == NULL) {
		if (strlen(o->connect) + 7 > sizeof(o->connect_buf)) {
			fprintf(stderr, "rdx-perf: bad value '%s' for the server host: name too long\n",
				o->connect);
			return -EINVAL;
		}
		snprintf(o->connect_buf, sizeof(o->connect_buf), "%s:%u", o->connect, o->port);
		o->connect = o->connect_buf;
	}
	if (o->rdma_cm && !o->server && o->connect == NULL) {
		fprintf(stderr, "rdx-perf: -R (rdma_cm) connects two processes: give --server on one end and the server's host (or --connect HOST:PORT) on the other\n");
		return -EINVAL;
	}
	if (o->rdma_cm && o->transport == PERF_TRANSPORT_UD) {
		fprintf(stderr, "rdx-perf: -R (rdma_cm) connects RC QPs: --transport ud (-c UD) with -R is not implemented\n");
		return -EINVAL;
	}
	if (o->source_ip != NULL && !o->rdma_cm) {
		fprintf(stderr, "rdx-perf: --source_ip applies to -R (rdma_cm): the TCP bootstrap does not bind it\n");
		return -EINVAL;
	}
	if (o->bidir) {
		int rc = bidir_check(o, g);

		if (rc < 0)
			return rc;
	}
	/* as perftest: a latency test has a latency, a bandwidth test a
	 * bandwidth and a message rate (open-loop runs are about latency) */
	if (o->output == PERF_OUTPUT_LAT && o->mode == PERF_MODE_BW && !g->rate) {
		fprintf(stderr, "rdx-perf: --output=latency applies to --mode lat (or --rate); --mode bw prints bandwidth or message_rate\n");
		return -EINVAL;
	}
	if ((o->output == PERF_OUTPUT_BW || o->output == PERF_OUTPUT_MSG_RATE) &&
	    (o->mode == PERF_MODE_LAT || g->rate)) {
		fprintf(stderr, "rdx-perf: --output=%s applies to closed-loop --mode bw; a latency run prints latency\n",
			o->output == PERF_OUTPUT_BW ? "bandwidth" : "message_rate");
		return -EINVAL;
	}
	if (o->rate != 0 && o->nb_rates != 0) {
		fprintf(stderr, "rdx-perf: --rate and --rate-sweep exclude each other\n");
		return -EINVAL;
	}
	if (g->rate && g->sig_every && o->sig_every != 1) {
		fprintf(stderr, "rdx-perf: bad value '%u' for -Q: --rate times every op from its intended send time, so every WR is signaled (-Q 1)\n",
			o->sig_every);
		return -EINVAL;
	}
	if (g->rate && o->transport == PERF_TRANSPORT_UD) {
		fprintf(stderr, "rdx-perf: --rate over --transport ud is not implemented (RC only)\n");
		return -EINVAL;
	}
	if (o->tsweep_lo != 0) {
		const char *why = o->mode != PERF_MODE_BW ? "--mode lat (one op in flight)" :
			o->sweep_lo != o->sweep_hi || o->lsweep_lo != 0 ? "another sweep (one at a time)" :
			g->window ? "-t (the sweep sets it)" :
			o->bidir && (o->server || o->connect != NULL) ? "-b across two processes" :
			o->server ? "--server (the client's -t is swept)" : o->infinite ? "--run_infinitely" :
			g->rate ? "--rate (open loop)" : NULL;

		if (why != NULL) {
			fprintf(stderr, "rdx-perf: --tx-depth-sweep with %s is not implemented\n", why);
			return -EINVAL;
		}
		if (o->post_list > o->tsweep_lo) {
			fprintf(stderr, "rdx-perf: bad value '%u' for -l: a post list longer than the sweep's first -t %u\n",
				o->post_list, o->tsweep_lo);
			return -EINVAL;
		}
	}
	if (o->lsweep_lo != 0) {
		const char *why = o->sweep_lo != o->sweep_hi ? "--qp-sweep (one sweep at a time)" :
			o->bidir && (o->server || o->connect != NULL) ? "-b across two processes" :
			o->server ? "--server (the client's lcores are swept)" : o->infinite ? "--run_infinitely" : NULL;

		if (why != NULL) {
			fprintf(stderr, "rdx-perf: --lcore-sweep with %s is not implemented\n", why);
			return -EINVAL;
		}
	}
	if (o->infinite) {
		if (o->iters != 0) {
			fprintf(stderr, "rdx-perf: --run_infinitely prints a line every -D seconds: -n does not apply\n");
			return -EINVAL;
		}
		if (o->nb_sizes > 1 || o->sweep_hi != o->sweep_lo || o->nb_rates != 0) {
			fprintf(stderr, "rdx-perf: --run_infinitely runs one size, QP count and rate (no -a, --sizes, --qp-sweep, --rate-sweep)\n");
			return -EINVAL;
		}
		if (o->duration == 0)
			o->duration = 5;
	}
	return 0;
}
