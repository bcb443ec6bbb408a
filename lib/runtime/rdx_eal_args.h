/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to lib/runtime (not installed): what rdx_runtime.c uses from
 * rdx_eal_args.c beyond the public rdx_runtime.h.
 */
#ifndef RDX_EAL_ARGS_H
#define RDX_EAL_ARGS_H

/* The --file-prefix rdx gives each process: RDX_FILE_PREFIX "<pid>". */
#define RDX_FILE_PREFIX "rdx-"

/* First option of argv (before "--") that is not an EAL option, or NULL. */
const char *rdx_runtime_eal_unknown_option(int argc, char **argv);

#endif /* RDX_EAL_ARGS_H */
