/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared CUnit scaffolding for the unit tests: register a suite from a
 * table and run it with the basic (verbose) runner, so `meson test -v`
 * prints CUnit's Run Summary; the exit status is non-zero on any failure.
 */
#ifndef RDX_UT_H
#define RDX_UT_H

#include <stdio.h>
#include <stdlib.h>

#include <CUnit/Basic.h>

struct rdx_ut_case {
	const char *name;
	void (*fn)(void);
};

static inline int
rdx_ut_run(const char *suite_name, const struct rdx_ut_case *cases,
	   int (*init)(void), int (*fini)(void))
{
	CU_pSuite suite;
	unsigned int failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return EXIT_FAILURE;
	suite = CU_add_suite(suite_name, init, fini);
	if (suite == NULL)
		goto err;
	for (; cases->name != NULL; cases++)
		if (CU_add_test(suite, cases->name, cases->fn) == NULL)
			goto err;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_tests_failed() + CU_get_number_of_failures();
	if (CU_get_number_of_suites_failed() > 0)
		failed++;
	CU_cleanup_registry();
	return failed != 0 ? EXIT_FAILURE : EXIT_SUCCESS;
err:
	fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
	CU_cleanup_registry();
	return EXIT_FAILURE;
}

#endif
