/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL argument side of the runtime: the argv handed to rte_eal_init
 * (rdx_runtime_eal_args), the core mask/list checks made before EAL sees
 * them, and the hugepage probe. Pure functions of argv and of the machine
 * (sysconf, /sys, /proc): nothing here calls EAL. Contracts in
 * rdx_runtime.h; rdx_runtime_init (rdx_runtime.c) puts them together.
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "rdx_eal_args.h"
#include "rdx_runtime.h"

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
	/* EAL's and the drivers' chatter off, rdx's notices on (rdx_runtime.h) */
	static char log_arg[] = "--log-level=*:error";
	static char log_rdx_arg[] = "--log-level=rdx.*:notice";
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
	if (p.added_log_level) {
		out[n++] = log_arg;
		out[n++] = log_rdx_arg;
	}
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

/* ------------------------------------------------------- unknown options */

/* First option of argv (before "--") that is not an EAL option, or NULL. */
const char *
rdx_runtime_eal_unknown_option(int argc, char **argv)
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

bool
rdx_runtime_is_eal_option(const char *arg)
{
	char *argv[3] = { (char *)"app", (char *)arg, (char *)"x" };
	enum opt_kind kind;
	const char *value, *name;
	int used;

	if (arg == NULL || arg[0] != '-' || strcmp(arg, "--") == 0)
		return false;
	if (opt_match(3, argv, 1, &kind, &value, &name, &used) < 0)
		return false;
	for (size_t k = 0; k < RTE_DIM(eal_opts); k++)
		if (name == eal_opts[k].name)
			return true;
	return false;
}
