/* SPDX-License-Identifier: BSD-3-Clause */
#include "rdx_report.h"
