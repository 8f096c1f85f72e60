/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ab-gate.c: sample-level interleaving of kvmbench ab: the gate of each side's 'kvmbench run' and the ab
 * process that grants their samples in turn. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/ab-gate.h"
#include "core/kb.h"

/* One line from the other end of a gate pipe: 1 read, 0 it closed (exited), -errno; -EINTR once *stop is
 * set (NULL: a signal only retries the read). */
static int read_line(int fd, char *line, size_t size, volatile sig_atomic_t *stop)
{
	size_t n = 0;

	while (n + 1 < size) {
		ssize_t got = read(fd, line + n, 1);

		if (got < 0 && errno == EINTR) {
			if (stop && *stop)
				return -EINTR;
			continue;
		}
		if (got < 0)
			return -errno;
		if (!got)
			return 0;
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = 0;
	return 1;
}

/* ---- the side: a 'kvmbench run' whose every sample waits for its turn ---- */

static int gate_rfd = -1, gate_wfd = -1;

static int child_gate(struct kb_run_ctx *ctx, int slot, bool done)
{
	char line[32], c;
	int len = done ? snprintf(line, sizeof(line), "d\n") : snprintf(line, sizeof(line), "%d\n", slot);
	ssize_t got;

	if (write(gate_wfd, line, (size_t)len) != len)
		return kb_fail(EPIPE, "the kvmbench ab process that paces this run is gone: %s", strerror(errno));
	if (done)
		return 0;
	while ((got = read(gate_rfd, &c, 1)) < 0 && errno == EINTR)
		if (*ctx->stop)
			return kb_fail(EINTR, "interrupted");
	if (got != 1)
		return kb_fail(EPIPE, "kvmbench ab closed this run's turns: the other side failed or ab was stopped");
	return 0;
}

static int child_agree(struct kb_run_ctx *ctx, uint64_t *iters)
{
	char line[32];
	int len = snprintf(line, sizeof(line), "i %llu\n", (unsigned long long)*iters), got;
	char *end;
	unsigned long long v;

	if (write(gate_wfd, line, (size_t)len) != len)
		return kb_fail(EPIPE, "the kvmbench ab process that paces this run is gone: %s", strerror(errno));
	got = read_line(gate_rfd, line, sizeof(line), ctx->stop);
	if (got == -EINTR)
		return kb_fail(EINTR, "interrupted");
	if (got != 1)
		return kb_fail(EPIPE, "kvmbench ab closed this run's turns: the other side failed or ab was stopped");
	v = strtoull(line, &end, 10);
	if (end == line || *end || !v)
		return kb_fail(EPROTO, "kvmbench ab answered '%s' for the iterations per sample", line);
	*iters = v;
	return 0;
}

int kb_ab_gate_child(struct kb_run_ctx *ctx)
{
	const char *v = getenv(KB_AB_GATE_ENV);
	int r, w, end = 0;

	if (!v)
		return 0;
	if (sscanf(v, "%d,%d%n", &r, &w, &end) != 2 || v[end] || r < 0 || w < 0 || fcntl(r, F_GETFD) < 0 ||
	    fcntl(w, F_GETFD) < 0) {
		kb_fail(EINVAL, "%s='%s' is not two open file descriptors RFD,WFD (it is set by kvmbench ab only)",
			KB_AB_GATE_ENV, v);
		return 2;
	}
	gate_rfd = r;
	gate_wfd = w;
	ctx->gate = child_gate;
	ctx->agree = child_agree;
	return 1;
}

/* ---- the ab process ---- */

int kb_ab_gate_start(char **const argv[2], struct kb_ab_side side[2])
{
	for (int s = 0; s < 2; s++) {
		int req[2], grant[2];
		pid_t pid;

		memset(&side[s], 0, sizeof(side[s]));
		side[s].req_fd = side[s].grant_fd = -1;
		if (pipe2(req, O_CLOEXEC) || pipe2(grant, O_CLOEXEC))
			return kb_fail(errno, "cannot make the pipes of side %c: %s", 'A' + s, strerror(errno));
		fflush(NULL);
		pid = fork();
		if (pid < 0)
			return kb_fail(errno, "cannot start side %c: %s", 'A' + s, strerror(errno));
		if (!pid) {
			char env[64];
			/* The child's ends survive exec; the pipe2 flags close every other end. */
			int r = dup(grant[0]), w = dup(req[1]);

			snprintf(env, sizeof(env), "%d,%d", r, w);
			setenv(KB_AB_GATE_ENV, env, 1);
			execv("/proc/self/exe", argv[s]);
			_exit(127);
		}
		close(req[1]);
		close(grant[0]);
		side[s].pid = pid;
		side[s].req_fd = req[0];
		side[s].grant_fd = grant[1];
		side[s].alive = true;
	}
	return 0;
}

/* May side s take its next measured sample?  The pairs go A B, B A, A B, ...: its sample of pair p
 * waits for the other side's of pair p - 1, or of pair p when the other goes first in p. */
static bool turn(const struct kb_ab_side side[2], int s)
{
	long p = side[s].measured;
	bool first = (p % 2 == 0) == (s == 0);

	return !side[1 - s].alive || side[1 - s].measured >= p + (first ? 0 : 1);
}

static void answer(struct kb_ab_side *sd, unsigned long long iters)
{
	char line[32];
	int len = snprintf(line, sizeof(line), "%llu\n", iters);

	if (write(sd->grant_fd, line, (size_t)len) != len)
		sd->alive = false;
	sd->agreeing = false;
}

/* Both sides calibrated the same test: both take the smaller count, so that both sides' samples are
 * the same size and neither runs longer than --sample-time.  A side whose partner measures something
 * else (it skipped the test) or has exited keeps its own. */
static void agree(struct kb_ab_side side[2])
{
	if (side[0].agreeing && side[1].agreeing) {
		unsigned long long n = side[0].iters < side[1].iters ? side[0].iters : side[1].iters;

		if (!n)
			n = 1;
		answer(&side[0], n);
		answer(&side[1], n);
		return;
	}
	for (int s = 0; s < 2; s++)
		if (side[s].agreeing && (!side[1 - s].alive || (side[1 - s].pending && side[1 - s].slot >= 0)))
			answer(&side[s], side[s].iters ? side[s].iters : 1);
}

/* Wait for a side that closed its requests; true when it failed (exit status above 1, or a signal). */
static bool reap(struct kb_ab_side *sd)
{
	pid_t pid = sd->pid;

	if (pid <= 0)
		return false;
	while (waitpid(pid, &sd->status, 0) < 0 && errno == EINTR)
		;
	sd->pid = 0;
	return !WIFEXITED(sd->status) || WEXITSTATUS(sd->status) > 1;
}

int kb_ab_gate_serve(struct kb_ab_side side[2], int (*before)(int side, void *arg), void *arg,
		     volatile sig_atomic_t *stop, char *order, size_t max_order)
{
	int running = -1, last = 1, err = 0;
	size_t norder = 0;

	order[0] = 0;
	while ((side[0].alive || side[1].alive) && !*stop && !err) {
		struct pollfd pfd[2];
		nfds_t n = 0;
		int idx[2];

		agree(side);
		if (running < 0) {
			int pick = -1;

			/* Calibration and warm-up whenever asked (alternating when both ask), measured samples in turn. */
			for (int k = 0; k < 2 && pick < 0; k++) {
				int s = (last + 1 + k) % 2;

				if (side[s].pending && side[s].slot < 0)
					pick = s;
			}
			for (int s = 0; s < 2 && pick < 0; s++)
				if (side[s].pending && side[s].slot >= 0 && turn(side, s))
					pick = s;
			if (pick >= 0) {
				char g = 'g';

				if (before && (err = before(pick, arg)))
					break;
				if (write(side[pick].grant_fd, &g, 1) != 1) {
					side[pick].alive = false;
					continue;
				}
				side[pick].pending = false;
				running = last = pick;
			}
		}
		for (int s = 0; s < 2; s++)
			if (side[s].alive) {
				pfd[n] = (struct pollfd){ .fd = side[s].req_fd, .events = POLLIN };
				idx[n++] = s;
			}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = kb_fail(errno, "waiting for the sides: %s", strerror(errno));
			break;
		}
		for (nfds_t i = 0; i < n; i++) {
			struct kb_ab_side *sd = &side[idx[i]];
			char line[32];
			int got;

			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read_line(sd->req_fd, line, sizeof(line), NULL);
			if (got <= 0) {
				sd->alive = false;
				if (running == idx[i])
					running = -1;
				/* The side is exiting: one that failed stops the other, which has nothing to pair with. */
				if (reap(sd) && !err)
					err = kb_fail(EIO, "side %c's 'kvmbench run' %s %d", 'A' + idx[i],
						      WIFEXITED(sd->status) ? "exited" : "was killed by signal",
						      WIFEXITED(sd->status) ? WEXITSTATUS(sd->status) : WTERMSIG(sd->status));
			} else if (!strcmp(line, "d")) {
				if (sd->slot >= 0) {
					sd->measured++;
					if (norder + 1 < max_order) {
						order[norder++] = (char)('A' + idx[i]);
						order[norder] = 0;
					}
				}
				running = -1;
			} else if (line[0] == 'i') {
				sd->agreeing = true;
				sd->iters = strtoull(line + 1, NULL, 10);
			} else {
				sd->pending = true;
				sd->slot = atoi(line);
			}
		}
	}
	return err;
}

int kb_ab_gate_finish(struct kb_ab_side side[2])
{
	int err = 0;

	for (int s = 0; s < 2; s++) {
		if (side[s].grant_fd >= 0)
			close(side[s].grant_fd);
		side[s].grant_fd = -1;
	}
	for (int s = 0; s < 2; s++) {
		int status;

		if (side[s].pid > 0)
			reap(&side[s]);
		status = side[s].status;
		if (side[s].req_fd >= 0)
			close(side[s].req_fd);
		side[s].req_fd = -1;
		if (!err && (!WIFEXITED(status) || WEXITSTATUS(status) > 1))
			err = kb_fail(EIO, "side %c's 'kvmbench run' %s %d", 'A' + s,
				      WIFEXITED(status) ? "exited" : "was killed by signal",
				      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	return err;
}
