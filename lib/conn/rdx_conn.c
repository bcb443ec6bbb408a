/* SPDX-License-Identifier: BSD-3-Clause */
#include "rdx_conn.h"
