/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The KV example's messages over lib/rpc (examples/kv, doc/embedding.md).
 * One request type per operation; a request is a header, the key and (PUT)
 * the value; a response is a status and (GET) the value. Host byte order:
 * both ends are the same build on little-endian hosts, as lib/rpc's session
 * info assumes.
 */
#ifndef KV_PROTO_H
#define KV_PROTO_H

#include <stdint.h>

#define KV_GET 1
#define KV_PUT 2
#define KV_DEL 3

#define KV_KEY_MAX 64            /* bytes of a key */
#define KV_VALUE_MAX_DEFAULT 4096 /* bytes of a value (--value-max) */

/* request: this header, key_len key bytes, then val_len value bytes (PUT) */
struct kv_req {
	uint16_t key_len;
	uint16_t rsv;                /* 0 */
	uint32_t val_len;            /* PUT only; 0 otherwise */
};

/* response: this header, then val_len value bytes (GET hit) */
struct kv_resp {
	int32_t status;              /* 0, -ENOENT (miss), -EINVAL, -ENOSPC */
	uint32_t val_len;
};

#endif /* KV_PROTO_H */
