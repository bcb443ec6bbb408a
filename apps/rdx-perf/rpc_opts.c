/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The option values of echo on lib/rpc (rpc_echo.c), kept apart from it so
 * the option parser (opts.c), the wire checks (perf_wire.c) and their fuzz
 * targets link them without the library: transport names and --mix.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "perf_app.h"
#include "perf_opts.h"

static const char *const transport_names[PERF_TRANSPORT_MAX] = {
	[PERF_TRANSPORT_RC] = "rc",
	[PERF_TRANSPORT_UD] = "ud",
	[PERF_TRANSPORT_INFRC] = "infrc",
	[PERF_TRANSPORT_BASIC_INFUD] = "basic+infud",
	[PERF_TRANSPORT_HOMA_INFUD] = "homa+infud",
};

const char *
perf_transport_name(unsigned int t)
{
	return t < PERF_TRANSPORT_MAX ? transport_names[t] : "?";
}

int
perf_transport_parse(const char *name)
{
	unsigned int t;

	for (t = PERF_TRANSPORT_INFRC; name != NULL && t < PERF_TRANSPORT_MAX; t++)
		if (strcmp(name, transport_names[t]) == 0)
			return (int)t;
	return -EINVAL;
}

int
perf_rpc_test_parse(const char *name, struct perf_opts *o)
{
	if (strcmp(name, "basic.read") == 0)
		o->rpc_kv = PERF_RPC_KV_READ;
	else if (strcmp(name, "basic.write") == 0)
		o->rpc_kv = PERF_RPC_KV_WRITE;
	else
		return 0;
	o->test = "echo";
	return 1;
}

const char *
perf_rpc_test_name(const struct perf_opts *o)
{
	return o->rpc_kv == PERF_RPC_KV_READ ? "basic.read" :
		o->rpc_kv == PERF_RPC_KV_WRITE ? "basic.write" : o->test;
}

static int
mix_bad(const char *s, const char *why)
{
	fprintf(stderr, "rdx-perf: bad value '%s' for --mix: %s\n", s, why);
	return -EINVAL;
}

/*
 * "100:90,1M:10": response sizes (K/M suffixes, 1 B .. 64 MiB) and their
 * integer weights (1..1000000), at most PERF_MAX_MIX items, each size once.
 */
int
perf_mix_parse(const char *s, struct perf_opts *o)
{
	char buf[256], *tok, *next, *colon;
	unsigned int i;

	if (strlen(s) >= sizeof(buf))
		return mix_bad(s, "list too long");
	snprintf(buf, sizeof(buf), "%s", s);
	o->nb_mix = 0;
	for (tok = buf; tok != NULL; tok = next) {
		uint64_t size, w;

		next = strchr(tok, ',');
		if (next != NULL)
			*next++ = '\0';
		colon = strchr(tok, ':');
		if (colon == NULL)
			return mix_bad(s, "expected SIZE:WEIGHT items, e.g. 100:90,1M:10");
		*colon = '\0';
		if (perf_parse_size(tok, &size) < 0 || size == 0 || size > (64u << 20))
			return mix_bad(s, "a size is not 1 B .. 64M");
		if (perf_parse_size(colon + 1, &w) < 0 || w == 0 || w > 1000000 ||
		    strpbrk(colon + 1, "KkMmGgBb") != NULL)
			return mix_bad(s, "a weight is not an integer 1..1000000");
		if (o->nb_mix == PERF_MAX_MIX)
			return mix_bad(s, "at most 8 sizes");
		for (i = 0; i < o->nb_mix; i++)
			if (o->mix_size[i] == size)
				return mix_bad(s, "a size appears twice");
		o->mix_size[o->nb_mix] = size;
		o->mix_weight[o->nb_mix] = (uint32_t)w;
		o->nb_mix++;
	}
	return 0;
}

static const char *const knob_names[PERF_RPC_KNOBS] = {
	"rto_us", "call_timeout_us", "window", "rtt_bytes", "overcommit", "mtu", "queue_depth",
	"msg_bufs", "signal",
};

static uint32_t *
knob_ptr(struct perf_opts *o, unsigned int i)
{
	uint32_t *f[PERF_RPC_KNOBS] = {
		&o->rpc.rto_us, &o->rpc.call_timeout_us, &o->rpc.window, &o->rpc.rtt_bytes,
		&o->rpc.overcommit, &o->rpc.mtu, &o->rpc.queue_depth, &o->rpc.msg_bufs,
		&o->rpc.signal,
	};

	return f[i];
}

const char *
perf_rpc_knob(const struct perf_opts *o, unsigned int i, uint32_t *value)
{
	if (i >= PERF_RPC_KNOBS)
		return NULL;
	*value = *knob_ptr((struct perf_opts *)(uintptr_t)o, i);
	return knob_names[i];
}

/* The transports that read each knob (lib/rpc, struct rdx_rpc_conf):
 * infrc only call_timeout_us; window is basic's, rtt_bytes and overcommit
 * homa's; the rest both UD transports'. */
#define KT(t) (1u << (t))
#define KT_UD (KT(PERF_TRANSPORT_BASIC_INFUD) | KT(PERF_TRANSPORT_HOMA_INFUD))
static const uint8_t knob_transports[PERF_RPC_KNOBS] = {
	KT_UD,                                                          /* rto_us */
	KT(PERF_TRANSPORT_INFRC) | KT_UD,                               /* call_timeout_us */
	KT(PERF_TRANSPORT_BASIC_INFUD),                                 /* window */
	KT(PERF_TRANSPORT_HOMA_INFUD),                                  /* rtt_bytes */
	KT(PERF_TRANSPORT_HOMA_INFUD),                                  /* overcommit */
	KT_UD, KT_UD, KT_UD,                                            /* mtu, queue_depth, msg_bufs */
	KT_UD,                                                          /* signal */
};

int
perf_rpc_knobs_check(const struct perf_opts *o)
{
	unsigned int i;

	if (o->rpc_kv != 0 && !perf_transport_rpc(o->transport)) {
		fprintf(stderr, "rdx-perf: --test %s runs on lib/rpc: give --transport infrc, basic+infud or homa+infud\n",
			perf_rpc_test_name(o));
		return -EINVAL;
	}
	if (o->rpc_kv != 0 && o->nb_mix > 0) {
		fprintf(stderr, "rdx-perf: --mix applies to echo, not %s\n", perf_rpc_test_name(o));
		return -EINVAL;
	}
	for (i = 0; i < PERF_RPC_KNOBS; i++)
		if (*knob_ptr((struct perf_opts *)(uintptr_t)o, i) != 0 &&
		    (o->transport >= 8 || !(knob_transports[i] & KT(o->transport)))) {
			fprintf(stderr, "rdx-perf: --rpc %s is not used by --transport %s (%s)\n",
				knob_names[i], perf_transport_name(o->transport),
				knob_transports[i] == KT(PERF_TRANSPORT_BASIC_INFUD) ? "basic+infud only" :
				knob_transports[i] == KT(PERF_TRANSPORT_HOMA_INFUD) ? "homa+infud only" :
				"the UD transports only");
			return -EINVAL;
		}
	return 0;
}
#undef KT
#undef KT_UD

/*
 * "rto_us=5000,window=16": fields of struct rdx_rpc_conf, each 1..2^30
 * (lib/rpc checks its own ranges when the endpoint is made, in one line).
 */
int
perf_rpc_knobs_parse(const char *s, struct perf_opts *o)
{
	char buf[256], *tok, *next, *eq;
	unsigned int i;

	if (strlen(s) >= sizeof(buf)) {
		fprintf(stderr, "rdx-perf: bad value '%s' for --rpc: too long\n", s);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = buf; tok != NULL; tok = next) {
		uint64_t v;

		next = strchr(tok, ',');
		if (next != NULL)
			*next++ = '\0';
		eq = strchr(tok, '=');
		if (eq != NULL)
			*eq = '\0';
		for (i = 0; i < PERF_RPC_KNOBS; i++)
			if (strcmp(tok, knob_names[i]) == 0)
				break;
		if (eq == NULL || i == PERF_RPC_KNOBS) {
			fprintf(stderr, "rdx-perf: bad value '%s' for --rpc: expected KEY=VALUE items, keys rto_us, call_timeout_us, window, rtt_bytes, overcommit, mtu, queue_depth, msg_bufs, signal\n",
				s);
			return -EINVAL;
		}
		if (perf_parse_size(eq + 1, &v) < 0 || v == 0 || v > (1u << 30)) {
			fprintf(stderr, "rdx-perf: bad value '%s' for --rpc %s: expected 1..2^30\n",
				eq + 1, tok);
			return -EINVAL;
		}
		*knob_ptr(o, i) = (uint32_t)v;
	}
	return 0;
}
