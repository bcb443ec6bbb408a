/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL start-up with the defaults a VM or a laptop needs, the stop flag, the
 * TSC, and lcore launch. The run-to-completion loop is in rdx_lcore.c.
 *
 * Decisions (see rdx_runtime.h for the contract):
 * - Every process gets its own --file-prefix (rdx-<pid>) unless the user gave
 *   one, and keeps the shared config: two rdx processes never collide on the
 *   config lock, and DPDK telemetry stays available at
 *   /var/run/dpdk/rdx-<pid>/dpdk_telemetry.v2 (dpdk-telemetry.py -f rdx-<pid>).
 *   rdx_runtime_cleanup() removes that directory, and rdx_runtime_init()
 *   removes the ones left by rdx processes that died without cleaning up.
 * - --log-level=error is put FIRST unless the user set a global level, so a
 *   user's per-type level (--log-level=lib.eal:debug) still applies after it.
 * - Core masks and lists are checked here before EAL sees them, so a typo
 *   gives one line instead of EAL's usage text.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "rdx_runtime.h"

RTE_LOG_REGISTER(rdx_runtime_logtype, rdx.runtime, NOTICE)

#define RT_LOG(level, ...) \
	rte_log(RTE_LOG_ ## level, (uint32_t)rdx_runtime_logtype, "rdx.runtime: " __VA_ARGS__)

/* RTE_LCORE_FOREACH_WORKER without its int-to-unsigned -1 (-Wsign-conversion). */
#define RDX_FOREACH_WORKER(i) \
	for (i = rte_get_next_lcore(UINT_MAX, 1, 0); i < RTE_MAX_LCORE; \
	     i = rte_get_next_lcore(i, 1, 0))

#define RDX_FILE_PREFIX "rdx-"
#define RDX_TSC_COST_SAMPLES 1023

/* Set from signal handlers: only lock-free atomic stores there. */
static volatile int rdx_stop_flag;

static bool rdx_eal_up;
static bool rdx_own_prefix;
static uint64_t rdx_hz;
static double rdx_tsc_cost_median;
static double rdx_tsc_cost_min;

/* ---------------------------------------------------------------- options */

/* How an EAL option is handled by the argv builder. */
enum opt_kind {
	OPT_OTHER = 0,
	OPT_CORE_MASK,
	OPT_CORE_LIST,
	OPT_LCORES,
	OPT_MAIN_LCORE,
	OPT_MEMORY,       /* -m, --socket-mem: the user chose the memory */
	OPT_NO_HUGE,
	OPT_IN_MEMORY,
	OPT_PCI,          /* -a/-b/--allow/--block/--vdev: devices asked for */
	OPT_NO_PCI,
	OPT_LOG_LEVEL,
	OPT_FILE_PREFIX,
};

struct eal_opt {
	const char *name;   /* "-l" or "--lcores" */
	bool has_value;     /* takes a value (separate or attached) */
	enum opt_kind kind;
};

/* Every EAL option of DPDK 22.11 that takes a value, and the flags we act on. */
static const struct eal_opt eal_opts[] = {
	{ "-c", true, OPT_CORE_MASK },
	{ "-l", true, OPT_CORE_LIST },
	{ "--lcores", true, OPT_LCORES },
	{ "--main-lcore", true, OPT_MAIN_LCORE },
	{ "--master-lcore", true, OPT_MAIN_LCORE },
	{ "-m", true, OPT_MEMORY },
	{ "--socket-mem", true, OPT_MEMORY },
	{ "--socket-limit", true, OPT_OTHER },
	{ "--no-huge", false, OPT_NO_HUGE },
	{ "--in-memory", false, OPT_IN_MEMORY },
	{ "-a", true, OPT_PCI },
	{ "-b", true, OPT_PCI },
	{ "--allow", true, OPT_PCI },
	{ "--block", true, OPT_PCI },
	{ "-w", true, OPT_PCI },
	{ "--pci-whitelist", true, OPT_PCI },
	{ "--pci-blacklist", true, OPT_PCI },
	{ "--vdev", true, OPT_PCI },
	{ "--no-pci", false, OPT_NO_PCI },
	{ "--log-level", true, OPT_LOG_LEVEL },
	{ "--file-prefix", true, OPT_FILE_PREFIX },
	{ "-n", true, OPT_OTHER },
	{ "-r", true, OPT_OTHER },
	{ "-d", true, OPT_OTHER },
	{ "-s", true, OPT_OTHER },
	{ "-S", true, OPT_OTHER },
	{ "--service-corelist", true, OPT_OTHER },
	{ "--proc-type", true, OPT_OTHER },
	{ "--base-virtaddr", true, OPT_OTHER },
	{ "--huge-dir", true, OPT_OTHER },
	{ "--iova-mode", true, OPT_OTHER },
	{ "--syslog", true, OPT_OTHER },
	{ "--trace", true, OPT_OTHER },
	{ "--trace-dir", true, OPT_OTHER },
	{ "--trace-bufsz", true, OPT_OTHER },
	{ "--trace-mode", true, OPT_OTHER },
	{ "--mbuf-pool-ops-name", true, OPT_OTHER },
	{ "--vfio-intr", true, OPT_OTHER },
	{ "--vfio-vf-token", true, OPT_OTHER },
	{ "--force-max-simd-bitwidth", true, OPT_OTHER },
	{ "--match-allocations", false, OPT_OTHER },
	{ "--huge-unlink", false, OPT_OTHER },
	{ "--huge-worker-stack", false, OPT_OTHER },
	{ "--no-shconf", false, OPT_OTHER },
	{ "--no-telemetry", false, OPT_OTHER },
	{ "--telemetry", false, OPT_OTHER },
	{ "--legacy-mem", false, OPT_OTHER },
	{ "--single-file-segments", false, OPT_OTHER },
	{ "--create-uio-dev", false, OPT_OTHER },
	{ "--no-hpet", false, OPT_OTHER },
	{ "--vmware-tsc-map", false, OPT_OTHER },
	{ "-v", false, OPT_OTHER },
	{ "-h", false, OPT_OTHER },
	{ "--help", false, OPT_OTHER },
};

/*
 * Match argv[i] against the table. Handles "-l 0-1", "-l0-1", "--lcores 0-1"
 * and "--lcores=0-1". On a match sets *value (NULL for flags) and *used (1 or
 * 2 argv entries). Unknown options and non-options give OPT_OTHER, used 1.
 * @return 0, or -EINVAL when an option lacks its value.
 */
static int
opt_match(int argc, char **argv, int i, enum opt_kind *kind, const char **value,
	  const char **name, int *used)
{
	const char *a = argv[i];
	size_t k;

	*kind = OPT_OTHER;
	*value = NULL;
	*name = a;
	*used = 1;
	for (k = 0; k < RTE_DIM(eal_opts); k++) {
		const struct eal_opt *o = &eal_opts[k];
		size_t n = strlen(o->name);
		bool is_long = o->name[1] == '-';

		if (strncmp(a, o->name, n) != 0)
			continue;
		if (a[n] == '\0') {
			if (o->has_value) {
				if (i + 1 >= argc)
					return -EINVAL;
				*value = argv[i + 1];
				*used = 2;
			}
		} else if (is_long && a[n] == '=') {
			*value = a + n + 1;
		} else if (!is_long && o->has_value) {
			*value = a + n;        /* "-l0-1" */
		} else {
			continue;               /* "--no-hugeX" or "-vfoo" */
		}
		*kind = o->kind;
		*name = o->name;
		return 0;
	}
	return 0;
}

/* A --log-level value sets the global level when it names no log type. */
static bool
log_level_is_global(const char *v)
{
	return v != NULL && strchr(v, ':') == NULL && strchr(v, ',') == NULL;
}

int
rdx_runtime_eal_args(int argc, char **argv, bool hugepages_available,
		     char **out, int out_max, char *scratch, size_t scratch_len,
		     struct rdx_eal_plan *plan)
{
	bool memory = false, no_huge = false, in_memory = false, pci = false;
	bool no_pci = false, global_log = false, prefix = false, cores = false;
	static char no_huge_arg[] = "--no-huge";
	static char no_pci_arg[] = "--no-pci";
	static char no_shconf_arg[] = "--no-shconf";
	static char log_arg[] = "--log-level=error";
	static char prog[] = "rdx";
	struct rdx_eal_plan p;
	int i, n = 0, used, ret;

	if (argc < 0 || (argc > 0 && argv == NULL) || out == NULL || out_max < argc + 8 ||
	    scratch == NULL || scratch_len < 64)
		return -EINVAL;

	for (i = 1; i < argc; i += used) {
		enum opt_kind kind;
		const char *value, *name;

		if (strcmp(argv[i], "--") == 0)
			break;
		if (opt_match(argc, argv, i, &kind, &value, &name, &used) < 0)
			return -EINVAL;
		switch (kind) {
		case OPT_CORE_MASK:
		case OPT_CORE_LIST:
		case OPT_LCORES:
			cores = true;
			break;
		case OPT_MEMORY:
			memory = true;
			break;
		case OPT_NO_HUGE:
			no_huge = true;
			break;
		case OPT_IN_MEMORY:
			in_memory = true;
			break;
		case OPT_PCI:
			pci = true;
			break;
		case OPT_NO_PCI:
			no_pci = true;
			break;
		case OPT_LOG_LEVEL:
			if (log_level_is_global(value))
				global_log = true;
			break;
		case OPT_FILE_PREFIX:
			prefix = true;
			break;
		default:
			break;
		}
	}
	if (i < argc)
		argc = i;       /* stop at "--" */

	memset(&p, 0, sizeof(p));
	p.has_core_option = cores;
	p.added_no_huge = !hugepages_available && !memory && !no_huge;
	p.added_no_pci = !pci && !no_pci;
	p.added_log_level = !global_log;
	p.added_file_prefix = !prefix;

	out[n++] = argc > 0 ? argv[0] : prog;
	/* First, so that any --log-level of the user's comes later and wins. */
	if (p.added_log_level)
		out[n++] = log_arg;
	for (i = 1; i < argc; i++) {
		/*
		 * DPDK 22.11 refuses --in-memory with --no-huge; without
		 * hugepages --no-shconf gives what --in-memory means (no files).
		 */
		if ((p.added_no_huge || no_huge) && in_memory &&
		    strcmp(argv[i], "--in-memory") == 0) {
			out[n++] = no_shconf_arg;
			continue;
		}
		out[n++] = argv[i];
	}
	if (p.added_no_huge)
		out[n++] = no_huge_arg;
	if (p.added_no_pci)
		out[n++] = no_pci_arg;
	if (p.added_file_prefix) {
		ret = snprintf(scratch, scratch_len, "--file-prefix=" RDX_FILE_PREFIX "%ld",
			       (long)getpid());
		if (ret < 0 || (size_t)ret >= scratch_len)
			return -EINVAL;
		out[n++] = scratch;
	}
	if (n < out_max)
		out[n] = NULL;
	if (plan != NULL)
		*plan = p;
	return n;
}

/* ------------------------------------------------------------ core checks */

static unsigned int
cores_present(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned int)n : 1;
}

static void
err_machine(char *err, size_t len, const char *what, const char *value,
	    unsigned long core, unsigned int ncores)
{
	if (ncores == 1)
		snprintf(err, len, "%s '%s' names core %lu but this machine has 1 core (0)",
			 what, value, core);
	else
		snprintf(err, len, "%s '%s' names core %lu but this machine has %u cores (0-%u)",
			 what, value, core, ncores, ncores - 1);
}

/* Parse a decimal core number; returns the end or NULL. */
static const char *
parse_core(const char *s, unsigned long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return NULL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno != 0)
		return NULL;
	return end;
}

/*
 * Core mask: hex with optional 0x, any length (EAL accepts masks wider than
 * 64 bits). Sets the cores in set (ncores bits) when set != NULL.
 */
static int
check_mask(const char *value, unsigned int ncores, bool *set, char *err, size_t len)
{
	const char *s = value, *end;
	unsigned long bit = 0;
	bool any = false;

	while (isspace((unsigned char)*s))
		s++;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	if (end == s) {
		snprintf(err, len, "bad core mask '%s': empty", value);
		return -EINVAL;
	}
	for (const char *c = s; c < end; c++) {
		if (!isxdigit((unsigned char)*c)) {
			snprintf(err, len, "bad core mask '%s': not a hexadecimal number", value);
			return -EINVAL;
		}
	}
	/* Lowest bits are at the end of the string. */
	for (const char *c = end; c > s; c--, bit += 4) {
		unsigned int d = (unsigned int)(isdigit((unsigned char)c[-1]) ?
				c[-1] - '0' : tolower((unsigned char)c[-1]) - 'a' + 10);

		for (unsigned int b = 0; b < 4; b++) {
			unsigned long core = bit + b;

			if ((d & (1u << b)) == 0)
				continue;
			if (core >= ncores) {
				err_machine(err, len, "core mask", value, core, ncores);
				return -EINVAL;
			}
			any = true;
			if (set != NULL)
				set[core] = true;
		}
	}
	if (!any) {
		snprintf(err, len, "bad core mask '%s': selects no core", value);
		return -EINVAL;
	}
	return 0;
}

/* Core list: "a", "a-b", comma separated. what: "core list" or "lcore list". */
static int
check_list(const char *what, const char *value, unsigned int ncores, bool *set,
	   char *err, size_t len)
{
	const char *s = value;

	if (*s == '\0') {
		snprintf(err, len, "bad %s '%s': empty", what, value);
		return -EINVAL;
	}
	for (;;) {
		unsigned long a, b;

		s = parse_core(s, &a);
		if (s == NULL)
			goto syntax;
		b = a;
		if (*s == '-') {
			s = parse_core(s + 1, &b);
			if (s == NULL)
				goto syntax;
			if (b < a) {
				snprintf(err, len, "bad %s '%s': range %lu-%lu goes backwards",
					 what, value, a, b);
				return -EINVAL;
			}
		}
		if (b >= ncores) {
			err_machine(err, len, what, value, b, ncores);
			return -EINVAL;
		}
		for (unsigned long c = a; set != NULL && c <= b; c++)
			set[c] = true;
		if (*s == '\0')
			return 0;
		if (*s != ',')
			goto syntax;
		s++;
	}
syntax:
	snprintf(err, len, "bad %s '%s': expected core numbers and ranges like 0-3,5",
		 what, value);
	return -EINVAL;
}

static int
check_cores_n(const char *opt, const char *value, unsigned int ncores, bool *set,
	      char *err, size_t err_len)
{
	char dummy[1];

	if (err == NULL || err_len == 0) {
		err = dummy;
		err_len = sizeof(dummy);
	}
	err[0] = '\0';
	if (opt == NULL || value == NULL) {
		snprintf(err, err_len, "missing core option value");
		return -EINVAL;
	}
	if (strcmp(opt, "-c") == 0)
		return check_mask(value, ncores, set, err, err_len);
	if (strcmp(opt, "-l") == 0)
		return check_list("core list", value, ncores, set, err, err_len);
	if (strcmp(opt, "--lcores") == 0) {
		/* "lcore@cpu" and "(group)" forms are EAL's to check. */
		if (strpbrk(value, "@()") != NULL)
			return 0;
		return check_list("lcore list", value, ncores, set, err, err_len);
	}
	if (strcmp(opt, "--main-lcore") == 0 || strcmp(opt, "--master-lcore") == 0) {
		unsigned long v;
		const char *end = parse_core(value, &v);

		if (end == NULL || *end != '\0') {
			snprintf(err, err_len, "bad main lcore '%s': not a core number", value);
			return -EINVAL;
		}
		if (v >= ncores) {
			snprintf(err, err_len, "main lcore %lu does not exist: this machine has %u core%s (0-%u)",
				 v, ncores, ncores == 1 ? "" : "s", ncores - 1);
			return -EINVAL;
		}
		if (set != NULL)
			set[v] = true;
		return 0;
	}
	snprintf(err, err_len, "unknown core option '%s'", opt);
	return -EINVAL;
}

int
rdx_runtime_check_cores(const char *opt, const char *value, char *err, size_t err_len)
{
	return check_cores_n(opt, value, cores_present(), NULL, err, err_len);
}

/*
 * -m MB, --socket-mem MB[,MB..] and --log-level [TYPE:|PATTERN,]LEVEL: EAL
 * 22.11 reads -m with atoi (junk is 0 MB) and only warns about a bad level,
 * so they are checked here. LEVEL: 1..8 or a name (rte_log.h).
 */
static int
check_eal_value(enum opt_kind kind, const char *name, const char *v, char *err, size_t len)
{
	static const char *const levels[] = {
		"emergency", "alert", "critical", "error", "warning", "notice", "info", "debug",
	};
	const char *lvl, *p;
	unsigned long n;
	char *end;
	size_t i;

	if (kind == OPT_MEMORY) {
		for (p = v;; p = end + 1) {
			if (*p < '0' || *p > '9')
				break;
			errno = 0;
			n = strtoul(p, &end, 10);
			if (errno != 0 || n > (1ul << 30) ||
			    (strcmp(name, "-m") == 0 && (n == 0 || *end != '\0')))
				break;
			if (*end == '\0')
				return 0;
			if (*end != ',')
				break;
		}
		snprintf(err, len, "bad value '%s' for %s: expected megabytes%s", v, name,
			 strcmp(name, "-m") == 0 ? " > 0" : " per socket (N[,N..])");
		return -EINVAL;
	}
	lvl = strrchr(v, ':');
	if (lvl == NULL)
		lvl = strrchr(v, ',');
	lvl = lvl != NULL ? lvl + 1 : v;
	errno = 0;
	n = strtoul(lvl, &end, 10);
	if (lvl[0] >= '0' && lvl[0] <= '9' && errno == 0 && *end == '\0' && n >= 1 && n <= 8)
		return 0;
	for (i = 0; i < RTE_DIM(levels); i++)
		if (strcmp(lvl, levels[i]) == 0)
			return 0;
	snprintf(err, len, "bad value '%s' for %s: expected [TYPE:]LEVEL, LEVEL 1..8 or "
		 "emergency, alert, critical, error, warning, notice, info, debug", v, name);
	return -EINVAL;
}

/*
 * Every core option of argv (up to "--") checked together: each value, one
 * core set only (-c, -l, --lcores are exclusive in EAL), main lcore in set.
 */
static int
check_eal_cores_n(int argc, char **argv, unsigned int ncores, char *err, size_t len)
{
	const char *core_opt = NULL, *core_val = NULL, *main_val = NULL;
	bool set[RTE_MAX_LCORE];
	bool free_form = false;
	int i, used, ret;

	if (ncores > RTE_MAX_LCORE)
		ncores = RTE_MAX_LCORE;
	memset(set, 0, sizeof(set));
	for (i = 1; i < argc; i += used) {
		enum opt_kind kind;
		const char *value, *name;

		if (strcmp(argv[i], "--") == 0)
			break;
		if (opt_match(argc, argv, i, &kind, &value, &name, &used) < 0) {
			snprintf(err, len, "option %s needs a value", argv[i]);
			return -EINVAL;
		}
		switch (kind) {
		case OPT_CORE_MASK:
		case OPT_CORE_LIST:
		case OPT_LCORES:
			if (core_opt != NULL) {
				snprintf(err, len, "%s and %s both select cores: use only one of them",
					 core_opt, name);
				return -EINVAL;
			}
			core_opt = name;
			core_val = value;
			ret = check_cores_n(name, value, ncores, set, err, len);
			if (ret < 0)
				return ret;
			if (kind == OPT_LCORES && strpbrk(value, "@()") != NULL)
				free_form = true;
			break;
		case OPT_MAIN_LCORE:
			ret = check_cores_n(name, value, ncores, NULL, err, len);
			if (ret < 0)
				return ret;
			main_val = value;
			break;
		case OPT_MEMORY:
		case OPT_LOG_LEVEL:
			ret = check_eal_value(kind, name, value, err, len);
			if (ret < 0)
				return ret;
			break;
		default:
			break;
		}
	}
	if (main_val != NULL && core_opt != NULL && !free_form) {
		unsigned long m = strtoul(main_val, NULL, 10);

		if (!set[m]) {
			snprintf(err, len, "main lcore %lu is not in the cores selected by %s %s",
				 m, core_opt, core_val);
			return -EINVAL;
		}
	}
	return 0;
}

int
rdx_runtime_check_eal_args(int argc, char **argv, char *err, size_t err_len)
{
	char dummy[1];

	if (err == NULL || err_len == 0) {
		err = dummy;
		err_len = sizeof(dummy);
	}
	err[0] = '\0';
	if (argc < 0 || (argc > 0 && argv == NULL)) {
		snprintf(err, err_len, "no arguments");
		return -EINVAL;
	}
	return check_eal_cores_n(argc, argv, cores_present(), err, err_len);
}

/* ------------------------------------------------------------- hugepages */

static bool
hugetlbfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, " hugetlbfs ") != NULL;
	fclose(f);
	return found;
}

bool
rdx_runtime_hugepages_available(void)
{
	unsigned long free_pages = 0;
	glob_t g;
	size_t k;

	/* EAL needs free pages AND a hugetlbfs mount to map them from. */
	if (glob("/sys/kernel/mm/hugepages/hugepages-*/free_hugepages", 0, NULL, &g) == 0) {
		for (k = 0; k < g.gl_pathc; k++) {
			FILE *f = fopen(g.gl_pathv[k], "r");
			unsigned long v;

			if (f == NULL)
				continue;
			if (fscanf(f, "%lu", &v) == 1)
				free_pages += v;
			fclose(f);
		}
		globfree(&g);
	}
	return free_pages > 0 && hugetlbfs_mounted();
}

/* ----------------------------------------------------- runtime directories */

/* Remove a flat EAL runtime directory (config, fbarrays, sockets). */
static void
remove_runtime_dir(const char *path)
{
	char file[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(path);

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(file, sizeof(file), "%s/%s", path, e->d_name) < (int)sizeof(file))
			unlink(file);
	}
	closedir(d);
	rmdir(path);
}

/* The base EAL puts runtime directories under (eal_create_runtime_dir rule). */
static const char *
runtime_base(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");

	if (getuid() == 0)
		return "/var/run/dpdk";
	snprintf(buf, len, "%s/dpdk", xdg != NULL ? xdg : "/tmp");
	return buf;
}

/* Directories rdx-<pid> whose process is gone are left-overs of a crash. */
static void
prune_stale_runtime_dirs(void)
{
	char base_buf[PATH_MAX], path[PATH_MAX];
	const char *base = runtime_base(base_buf, sizeof(base_buf));
	struct dirent *e;
	DIR *d = opendir(base);

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid;

		if (strncmp(e->d_name, RDX_FILE_PREFIX, strlen(RDX_FILE_PREFIX)) != 0)
			continue;
		pid = strtol(e->d_name + strlen(RDX_FILE_PREFIX), &end, 10);
		if (*end != '\0' || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", base, e->d_name) < (int)sizeof(path))
			remove_runtime_dir(path);
	}
	closedir(d);
}

/* -------------------------------------------------------------- stop, TSC */

/*
 * First SIGINT/SIGTERM: ask everyone to stop. A second one while the flag
 * is still set: the app is stuck, so die the default way. Only
 * async-signal-safe calls here.
 */
static void
rdx_signal_handler(int sig)
{
	if (__atomic_exchange_n(&rdx_stop_flag, 1, __ATOMIC_RELAXED) != 0) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

static int
install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rdx_signal_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0)
		return -errno;
	return 0;
}

bool
rdx_runtime_stopping(void)
{
	return __atomic_load_n(&rdx_stop_flag, __ATOMIC_RELAXED) != 0;
}

void
rdx_runtime_stop(void)
{
	__atomic_store_n(&rdx_stop_flag, 1, __ATOMIC_RELAXED);
}

const volatile int *
rdx_runtime_stop_flag(void)
{
	return &rdx_stop_flag;
}

void
rdx_runtime_stop_reset(void)
{
	__atomic_store_n(&rdx_stop_flag, 0, __ATOMIC_RELAXED);
}

uint64_t
rdx_tsc(void)
{
	return rte_rdtsc();
}

uint64_t
rdx_tsc_hz(void)
{
	return rdx_hz;
}

double
rdx_tsc_cost_cycles(void)
{
	return rdx_tsc_cost_median;
}

double
rdx_tsc_cost_min_cycles(void)
{
	return rdx_tsc_cost_min;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Cost of one rdx_tsc(): back-to-back reads, min and median of many. */
void
rdx_tsc_calibrate(void)
{
	uint64_t d[RDX_TSC_COST_SAMPLES];
	unsigned int k;

	for (k = 0; k < RDX_TSC_COST_SAMPLES; k++) {
		uint64_t t0 = rdx_tsc();
		uint64_t t1 = rdx_tsc();

		d[k] = t1 - t0;
	}
	qsort(d, RDX_TSC_COST_SAMPLES, sizeof(d[0]), cmp_u64);
	rdx_tsc_cost_min = (double)d[0];
	rdx_tsc_cost_median = (double)d[RDX_TSC_COST_SAMPLES / 2];
	if (rdx_eal_up)
		rdx_hz = rte_get_tsc_hz();
}

/* ------------------------------------------------------------------ init */

/*
 * EAL prints its whole usage on stdout when it rejects an argument, and its
 * reason twice on stderr (getopt and the log, once for each of its two
 * parsing passes). Send both to memory files during rte_eal_init: on success
 * replay them; on failure keep only the first reason for our one line.
 * RDX_EAL_VERBOSE=1 in the environment turns the capture off.
 */
struct out_capture {
	int mfd[2];
	int saved[2];
};

static bool
wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return true;
	return false;
}

static void
capture_begin(struct out_capture *c, bool off)
{
	const char *v = getenv("RDX_EAL_VERBOSE");
	int k;

	for (k = 0; k < 2; k++) {
		c->mfd[k] = -1;
		c->saved[k] = -1;
	}
	if (off || (v != NULL && strcmp(v, "0") != 0))
		return;
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < 2; k++) {
		int fd = k == 0 ? STDOUT_FILENO : STDERR_FILENO;

		c->mfd[k] = memfd_create(k == 0 ? "rdx-eal-stdout" : "rdx-eal-stderr", 0);
		if (c->mfd[k] < 0)
			continue;
		c->saved[k] = dup(fd);
		if (c->saved[k] < 0 || dup2(c->mfd[k], fd) < 0) {
			if (c->saved[k] >= 0)
				close(c->saved[k]);
			close(c->mfd[k]);
			c->mfd[k] = -1;
			c->saved[k] = -1;
		}
	}
}

/* Restore; replay (success) or copy the first stderr line into reason. */
static void
capture_end(struct out_capture *c, bool replay, char *reason, size_t reason_len)
{
	char buf[4096];
	ssize_t n;
	int k;

	if (reason_len > 0)
		reason[0] = '\0';
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < 2; k++) {
		int fd = k == 0 ? STDOUT_FILENO : STDERR_FILENO;

		if (c->mfd[k] < 0)
			continue;
		dup2(c->saved[k], fd);
		close(c->saved[k]);
		if (lseek(c->mfd[k], 0, SEEK_SET) == 0) {
			if (replay) {
				while ((n = read(c->mfd[k], buf, sizeof(buf))) > 0)
					if (write(fd, buf, (size_t)n) != n)
						break;
			} else if (k == 1 && reason_len > 0) {
				n = read(c->mfd[k], buf, sizeof(buf) - 1);
				buf[n > 0 ? n : 0] = '\0';
				size_t len = strcspn(buf, "\n");

				if (len >= reason_len)
					len = reason_len - 1;
				memcpy(reason, buf, len);
				reason[len] = '\0';
			}
		}
		close(c->mfd[k]);
	}
}

/* First option of argv (before "--") that is not an EAL option, or NULL. */
static const char *
unknown_option(int argc, char **argv)
{
	int i, used;

	for (i = 1; i < argc; i += used) {
		enum opt_kind kind;
		const char *value, *name;
		bool known = false;

		if (strcmp(argv[i], "--") == 0)
			break;
		if (opt_match(argc, argv, i, &kind, &value, &name, &used) < 0)
			return NULL;
		if (argv[i][0] != '-')
			continue;
		for (size_t k = 0; k < RTE_DIM(eal_opts) && !known; k++)
			known = name == eal_opts[k].name;
		if (!known)
			return argv[i];
	}
	return NULL;
}

/* --no-huge among the arguments given to EAL. */
static bool
plan_no_huge(const struct rdx_eal_plan *plan, int argc, char **argv)
{
	int i;

	if (plan->added_no_huge)
		return true;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--no-huge") == 0)
			return true;
	return false;
}

/* "prog: unrecognized option" / "EAL: FATAL: x" -> the useful part. */
static const char *
strip_reason(const char *r, const char *prog)
{
	size_t n = strlen(prog);

	if (n > 0 && strncmp(r, prog, n) == 0 && strncmp(r + n, ": ", 2) == 0)
		r += n + 2;
	if (strncmp(r, "EAL: ", 5) == 0)
		r += 5;
	if (strncmp(r, "FATAL: ", 7) == 0)
		r += 7;
	return r;
}

int
rdx_runtime_init(int argc, char **argv)
{
	char *eal_argv[RDX_RUNTIME_MAX_EAL_ARGS + 8];
	char *shown[RDX_RUNTIME_MAX_EAL_ARGS + 8];
	char err[256], prefix_arg[64], reason[256];
	struct rdx_eal_plan plan;
	struct out_capture cap;
	int n_eal, eal_argc, ret, i;
	bool hugepages;

	if (argc < 1 || argv == NULL) {
		fprintf(stderr, "rdx: no arguments (argv[0] missing)\n");
		return -EINVAL;
	}
	if (rdx_eal_up) {
		fprintf(stderr, "rdx: runtime already initialised (EAL starts once per process)\n");
		return -EALREADY;
	}
	for (n_eal = 0; n_eal < argc; n_eal++)
		if (strcmp(argv[n_eal], "--") == 0)
			break;
	if (n_eal > RDX_RUNTIME_MAX_EAL_ARGS) {
		fprintf(stderr, "rdx: too many EAL arguments (%d, at most %d)\n",
			n_eal, RDX_RUNTIME_MAX_EAL_ARGS);
		return -EINVAL;
	}
	ret = rdx_runtime_check_eal_args(n_eal, argv, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "rdx: %s\n", err);
		return ret;
	}
	hugepages = rdx_runtime_hugepages_available();
	eal_argc = rdx_runtime_eal_args(n_eal, argv, hugepages,
					eal_argv, (int)RTE_DIM(eal_argv), prefix_arg,
					sizeof(prefix_arg), &plan);
	if (eal_argc < 0) {
		fprintf(stderr, "rdx: bad EAL arguments (an option lacks its value)\n");
		return eal_argc;
	}
	if (plan.added_no_huge)
		fprintf(stderr, "rdx: no hugepages configured: running EAL with --no-huge "
			"(pass -m/--socket-mem or configure hugepages to change)\n");
	if (plan.added_file_prefix)
		prune_stale_runtime_dirs();

	/* EAL permutes and overwrites the array: keep a copy for messages. */
	memcpy(shown, eal_argv, sizeof(shown[0]) * (size_t)eal_argc);
	/* EAL prints usage and exits on -h/--help: let that through. */
	capture_begin(&cap, wants_help(n_eal, argv));
	ret = rte_eal_init(eal_argc, eal_argv);
	capture_end(&cap, ret >= 0, reason, sizeof(reason));
	if (ret < 0) {
		int e = rte_errno != 0 ? rte_errno : EINVAL;
		const char *r = strip_reason(reason, argv[0]);
		const char *unknown = unknown_option(n_eal, argv);

		/* getopt is silent when the app set opterr = 0: name it ourselves. */
		if (unknown != NULL && (r[0] == '\0' || strstr(r, "command line") != NULL)) {
			snprintf(reason, sizeof(reason), "unrecognized EAL option '%.200s'", unknown);
			r = reason;
		}

		fprintf(stderr, "rdx: EAL initialisation failed: %s%s%s%s (EAL arguments:",
			r, *r != '\0' ? " (" : "", rte_strerror(e), *r != '\0' ? ")" : "");
		for (i = 1; i < eal_argc; i++)
			fprintf(stderr, " %s", shown[i]);
		fprintf(stderr, ")%s\n", !hugepages && !plan.added_no_huge && !plan_no_huge(&plan,
			eal_argc, shown) ? "; no hugepages here: add --no-huge" : "");
		return -e;
	}
	rdx_eal_up = true;
	rdx_own_prefix = plan.added_file_prefix;
	RT_LOG(DEBUG, "EAL up with %d arguments, %u lcores\n", eal_argc, rte_lcore_count());

	ret = install_signals();
	if (ret < 0) {
		fprintf(stderr, "rdx: cannot install signal handlers: %s\n", strerror(-ret));
		return ret;
	}
	rdx_tsc_calibrate();

	/*
	 * Same convention as rte_eal_init: argv[ret] becomes the program name
	 * so (argc - ret, argv + ret) is a complete argv for the app's getopt.
	 */
	ret = n_eal < argc ? n_eal : argc - 1;
	argv[ret] = argv[0];
	return ret;
}

int
rdx_runtime_cleanup(void)
{
	char dir[PATH_MAX];
	int ret;

	if (!rdx_eal_up)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	ret = rte_eal_cleanup();
	rdx_eal_up = false;
	if (rdx_own_prefix)
		remove_runtime_dir(dir);
	return ret;
}

/* ---------------------------------------------------------------- launch */

unsigned int
rdx_runtime_workers(unsigned int *ids, unsigned int max)
{
	unsigned int lcore, n = 0;

	RDX_FOREACH_WORKER(lcore) {
		if (ids != NULL && n < max)
			ids[n] = lcore;
		n++;
	}
	return n;
}

/* Per-lcore launch slot: our own copy of the return value. */
struct rdx_launch_slot {
	rdx_lcore_fn_t fn;
	void *arg;
	int ret;
};

static struct rdx_launch_slot rdx_slots[RTE_MAX_LCORE];

static int
rdx_launch_trampoline(void *p)
{
	struct rdx_launch_slot *s = p;

	s->ret = s->fn(s->arg);
	return s->ret;
}

int
rdx_runtime_launch(rdx_lcore_fn_t fn, void *const *args, unsigned int nb_args,
		   bool include_main)
{
	unsigned int lcore, idx = 0, nb_lcores, launched = 0;
	int ret, first = 0, main_ret = 0;

	if (fn == NULL || !rdx_eal_up || rte_lcore_id() != rte_get_main_lcore())
		return -EINVAL;
	nb_lcores = rdx_runtime_workers(NULL, 0) + (include_main ? 1 : 0);
	if (nb_lcores == 0)
		return -ENODEV;
	if (args != NULL && nb_args != 1 && nb_args < nb_lcores)
		return -EINVAL;

	RDX_FOREACH_WORKER(lcore) {
		struct rdx_launch_slot *s = &rdx_slots[lcore];

		s->fn = fn;
		s->arg = args == NULL ? NULL : args[nb_args == 1 ? 0 : idx];
		s->ret = 0;
		idx++;
		ret = rte_eal_remote_launch(rdx_launch_trampoline, s, lcore);
		if (ret < 0) {
			RT_LOG(ERR, "cannot launch on lcore %u: %s\n", lcore, strerror(-ret));
			s->ret = ret;
			continue;
		}
		launched++;
	}
	if (include_main)
		main_ret = fn(args == NULL ? NULL : args[nb_args == 1 ? 0 : idx]);
	if (launched > 0)
		rte_eal_mp_wait_lcore();
	/* First non-zero in launch order: workers, then main. */
	RDX_FOREACH_WORKER(lcore) {
		if (first == 0 && rdx_slots[lcore].ret != 0)
			first = rdx_slots[lcore].ret;
	}
	return first != 0 ? first : main_ret;
}
