/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The smallest program built against an installed rdx (README.md, "Using
 * the library"): lists the drivers the shared library registered and puts
 * 1000 values through a latency histogram. It includes the headers an app
 * uses (rdx_runtime.h pulls DPDK's, so pkg-config must give their flags).
 */
#include <stdio.h>

#include <rdx_dev.h>
#include <rdx_hist.h>
#include <rdx_runtime.h>

static int
print_driver(const char *name, const char *desc, void *arg)
{
	(void)arg;
	printf("driver %s: %s\n", name, desc);
	return 0;
}

int
main(void)
{
	static struct rdx_hist h;
	unsigned int i;

	rdx_dev_driver_foreach(print_driver, NULL);
	rdx_hist_init(&h);
	for (i = 1; i <= 1000; i++)
		rdx_hist_record(&h, i);
	printf("%u drivers; p50 of 1..1000 = %.0f\n", rdx_dev_driver_count(),
	       rdx_hist_percentile(&h, 50.0));
	return 0;
}
