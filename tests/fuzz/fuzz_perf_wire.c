/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target (STUB): the rdx-perf wire message checks.
 *
 * TODO(lead, after merging the perf_wire branch): apps/rdx-perf/perf_wire.h
 * gets pure validation functions (perf_wire_*_check) for the messages the
 * rdx-perf peers exchange over lib/conn. Wire them here:
 *   1. #include "perf_wire.h" (tests/fuzz/meson.build: add
 *      include_directories('../../apps/rdx-perf') and the .c that defines
 *      them, if any, to fuzz_perf_wire's sources);
 *   2. pick the message by the first input byte, copy the rest into a
 *      zeroed message struct of that type (short input: zero padding), and
 *      call its perf_wire_*_check;
 *   3. abort() when a check accepts a message whose fields the setup code
 *      would use out of range (counts, sizes, QP numbers, keys);
 *   4. add seeds for every message type to tests/fuzz/corpus/perf_wire/
 *      (gen_seeds.py) and register the test in tests/fuzz/meson.build
 *      (fuzz_tests list).
 * Until then this target only builds, so the wiring is a small diff.
 */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}
