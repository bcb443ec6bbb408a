# SPDX-License-Identifier: BSD-3-Clause
# The preamble of the end-to-end tests under mpirun (sourced instead of
# lib.sh, whose helpers it brings): skipped (77) when mpirun is absent;
# Open MPI allowed to run as root; no leak checks in the ranks; MPI, the
# mpirun command line for ranks on this host (shared memory + self), to
# which a test adds its own arguments (-np ...).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: mpirun not found (scripts/setup.sh installs openmpi-bin)"
    exit 77
fi
# as root Open MPI wants both variables
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# an ASan build: LeakSanitizer reports Open MPI's own allocations (MPI_Init
# and MPI_Finalize alone show them), and 4 ranks' leak checks at exit have
# stalled this VM for minutes: leak checking off for the ranks
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPI=(mpirun --oversubscribe --mca btl self,vader)
