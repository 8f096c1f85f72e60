/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn.c: the one place kvmbench runs a program (by argv, output captured): GNU patch. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/kb.h"
#include "patches/internal.h"

/* An executable named 'name' on $PATH. */
bool kbp_find_program(const char *name)
{
	const char *path = getenv("PATH");
	bool found = false;
	char *copy, *save = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = kb_xstrdup(path);
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = kb_xasprintf("%s/%s", *d ? d : ".", name);
		struct stat st;

		found = !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
		free(p);
	}
	free(copy);
	return found;
}

/*
 * Run argv (looked up on $PATH) in dir, stdin from in_fd (-1: /dev/null), stdout and stderr
 * captured into *output.  The child runs in a session of its own (a terminal's ^C reaches
 * kvmbench only) with child_mask as its signal mask when given.  Returns the exit status,
 * 128 + the signal when it was killed, or -errno when it could not be started.
 */
int kbp_spawn_capture(char *const argv[], const char *dir, int in_fd, const sigset_t *child_mask,
		      char **output)
{
	struct kb_buf out = { 0 };
	char chunk[4096];
	int pfd[2], status, err;
	ssize_t n;
	pid_t pid;

	*output = NULL;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		return -err;
	}
	if (pid == 0) {
		int in = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY);

		if (child_mask)
			sigprocmask(SIG_SETMASK, child_mask, NULL);
		setsid();
		if (in < 0 || dup2(in, 0) < 0 || dup2(pfd[1], 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(126);
		if (dir && chdir(dir)) {
			dprintf(2, "cannot enter %s: %s\n", dir, strerror(errno));
			_exit(126);
		}
		/* GNU patch: POSIX mode would make backup files; never run get(1)/co(1). */
		unsetenv("POSIXLY_CORRECT");
		setenv("PATCH_GET", "0", 1);
		execvp(argv[0], argv);
		dprintf(2, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		kb_buf_add(&out, chunk, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			err = errno;
			free(out.p);
			return -err;
		}
	if (!out.p)
		kb_buf_add(&out, "", 0);
	*output = out.p;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* GNU patch's arguments as kernel/README.md specifies them. */
static int run_patch(const char *tree, int in_fd, bool reverse, bool dry_run, const sigset_t *child_mask,
		     char **output)
{
	char *argv[12];
	int n = 0;

	argv[n++] = "patch";
	argv[n++] = "-p1";
	argv[n++] = "-N";
	argv[n++] = "-F0";
	argv[n++] = "--no-backup-if-mismatch";
	argv[n++] = "-r";
	argv[n++] = "-";
	if (reverse)
		argv[n++] = "-R";
	if (dry_run)
		argv[n++] = "--dry-run";
	argv[n] = NULL;
	return kbp_spawn_capture(argv, tree, in_fd, child_mask, output);
}

const char *kbp_patch_command(bool reverse, bool dry_run)
{
	return reverse ? (dry_run ? "patch -p1 -N -F0 --no-backup-if-mismatch -r - -R --dry-run"
				  : "patch -p1 -N -F0 --no-backup-if-mismatch -r - -R")
		       : (dry_run ? "patch -p1 -N -F0 --no-backup-if-mismatch -r - --dry-run"
				  : "patch -p1 -N -F0 --no-backup-if-mismatch -r -");
}

/* Dry-run (or apply) a patch given as a file or as text; the outcome goes into 'o'. */
int kbp_patch_run(const char *tree, const char *file, const char *text, bool reverse, bool dry_run,
		  const sigset_t *child_mask, json_object *o)
{
	char *output = NULL;
	int fd, rc;

	if (file) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
	} else {
		size_t len = strlen(text), off = 0;

		fd = memfd_create("kvmbench-patch", MFD_CLOEXEC);
		while (fd >= 0 && off < len) {
			ssize_t w = write(fd, text + off, len - off);

			if (w <= 0) {
				close(fd);
				fd = -1;
				break;
			}
			off += (size_t)w;
		}
		if (fd >= 0)
			lseek(fd, 0, SEEK_SET);
	}
	if (fd < 0) {
		rc = -errno;
		kb_json_set_str(o, "command", kbp_patch_command(reverse, dry_run));
		kb_json_set(o, "exit_status", NULL);
		kb_json_set_str(o, "output", strerror(-rc));
		return rc;
	}
	rc = run_patch(tree, fd, reverse, dry_run, child_mask, &output);
	close(fd);
	kb_json_set_str(o, "command", kbp_patch_command(reverse, dry_run));
	kb_json_set(o, "exit_status", rc >= 0 ? json_object_new_int(rc) : NULL);
	kb_json_set_str(o, "output", output ? output : strerror(-rc));
	free(output);
	return rc;
}
