/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * examples/kv/kv_server.c (included, its main renamed) when the queue pair
 * that carries its responses goes to error: the software device fails the
 * first response's send (rdx_sw_qp_inject_error on the endpoint's UD QP,
 * or on the session's RC QP for infrc, right after the client's session is
 * bootstrapped). kv_server must end with exit 1 and one line of its own
 * (UD: at once, the endpoint is dead; infrc: once its client left, the
 * device error counted), never wedge nor exit 0. Each case runs kv_server
 * in a child process (its own EAL) and the kv_client binary (the test's
 * argument) against it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#include <rdx_rpc.h>

#include "rdx_rpc_priv.h"
#include "rdx_sw.h"
#include "rdx_ut.h"

/* kv_server's bootstraps go through this: the session it returns gets
 * its responses' QP failed at the first send */
static int kv_ut_bootstrap_poll(struct rdx_rpc_endpoint *ep, struct rdx_conn *c,
				struct rdx_rpc_session **sess);
int kv_server_main(int argc, char **argv);
#define rdx_rpc_session_bootstrap_poll kv_ut_bootstrap_poll
#define main kv_server_main
#include "../../../examples/kv/kv_server.c"
#undef main
#undef rdx_rpc_session_bootstrap_poll

static int
kv_ut_bootstrap_poll(struct rdx_rpc_endpoint *ep, struct rdx_conn *c,
		     struct rdx_rpc_session **sess)
{
	int ret = rdx_rpc_session_bootstrap_poll(ep, c, sess);

	if (ret == 0 &&
	    rdx_sw_qp_inject_error(ep->qp != NULL ? ep->qp : (*sess)->qp, 1, 0x04) != 0)
		fprintf(stderr, "kv_server_ut: cannot inject the QP error\n");
	return ret;
}

static const char *kv_client_path;

static unsigned int
free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned int port = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wait for pid up to sec seconds (then kill it): its status, or -1. */
static int
wait_for(pid_t pid, double sec)
{
	double end = now_s() + sec;
	int status;

	while (now_s() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static void
qp_error_case(const char *transport, const char *want)
{
	char port[16], log[] = "/tmp/kv_server_ut.XXXXXX", line[512];
	unsigned int n_own = 0, n_want = 0;
	pid_t srv, cli;
	int fd, status;
	FILE *f;

	snprintf(port, sizeof(port), "%u", free_port());
	fd = mkstemp(log);
	CU_ASSERT_FATAL(fd >= 0);
	srv = fork();
	CU_ASSERT_FATAL(srv >= 0);
	if (srv == 0) {
		char *argv[] = { "kv_server", "--no-huge", "-l", "0", "--log-level", "*:error",
				 "--", "--transport", (char *)transport, "-p", port, "--clients",
				 "1", NULL };

		dup2(fd, 2);
		_exit(kv_server_main((int)RTE_DIM(argv) - 1, argv));
	}
	usleep(500000);
	cli = fork();
	CU_ASSERT_FATAL(cli >= 0);
	if (cli == 0) {
		char hostport[64];
		int null = open("/dev/null", O_WRONLY);

		snprintf(hostport, sizeof(hostport), "127.0.0.1:%s", port);
		dup2(null, 1);
		dup2(null, 2);
		execl(kv_client_path, "kv_client", "--no-huge", "-l", "1", "--", "--connect",
		      hostport, "--transport", transport, "-n", "200", (char *)NULL);
		_exit(127);
	}
	/* UD: the endpoint is dead at the first response; infrc: the client's
	 * calls time out (5 s) and it leaves */
	status = wait_for(srv, 30);
	wait_for(cli, 20);
	CU_ASSERT(status != -1); /* no wedge */
	CU_ASSERT(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 1);
	f = fdopen(fd, "r");
	CU_ASSERT_FATAL(f != NULL);
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "kv_server:", 10) == 0)
			n_own++;
		if (strstr(line, want) != NULL)
			n_want++;
	}
	fclose(f);
	unlink(log);
	if (n_own != 1 || n_want != 1)
		fprintf(stderr, "%s: %u kv_server line(s), %u matching '%s'\n", transport, n_own,
			n_want, want);
	CU_ASSERT_EQUAL(n_own, 1);
	CU_ASSERT_EQUAL(n_want, 1);
}

static void
test_homa_qp_error(void)
{
	qp_error_case("homa+infud", "kv_server: endpoint kv is dead (its QP went to error): exiting");
}

static void
test_basic_qp_error(void)
{
	qp_error_case("basic+infud", "kv_server: endpoint kv is dead (its QP went to error): exiting");
}

static void
test_infrc_qp_error(void)
{
	qp_error_case("infrc", "device error(s) on the endpoint: exit 1");
}

int
main(int argc, char **argv)
{
	static const struct rdx_ut_case cases[] = {
		{ "homa_qp_error", test_homa_qp_error },
		{ "basic_qp_error", test_basic_qp_error },
		{ "infrc_qp_error", test_infrc_qp_error },
		{ NULL, NULL },
	};

	if (argc != 2) {
		fprintf(stderr, "usage: kv_server_ut PATH/TO/kv_client\n");
		return 2;
	}
	kv_client_path = argv[1];
	return rdx_ut_run("kv_server", cases, NULL, NULL);
}
