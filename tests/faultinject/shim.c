/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shim.c: an LD_PRELOAD library for tests/scripts/faultinject.test that makes the Nth call of one
 * kind fail with a chosen errno: an ioctl of a given request, mmap, open of a path, pthread_create.
 *
 *   KB_FAULT=ioctl:KVM_CREATE_VCPU:1:ENOMEM   the first KVM_CREATE_VCPU fails with ENOMEM
 *   KB_FAULT=mmap:3:ENOMEM                    the third mmap
 *   KB_FAULT=open:/dev/kvm:1:EACCES           the first open of a path containing /dev/kvm
 *   KB_FAULT=pthread_create:2:EAGAIN          the second thread creation
 *   KB_FAULT_LOG=FILE                         append one line per call seen ("ioctl KVM_RUN", ...)
 *
 * Each fault fires once.  A request not in the table below is logged as its number. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define REQ(name) { name, #name }
static const struct {
	unsigned long req;
	const char *name;
} requests[] = {
	REQ(KVM_GET_API_VERSION), REQ(KVM_CREATE_VM), REQ(KVM_CHECK_EXTENSION), REQ(KVM_GET_VCPU_MMAP_SIZE),
	REQ(KVM_GET_SUPPORTED_CPUID), REQ(KVM_CREATE_VCPU), REQ(KVM_CREATE_IRQCHIP), REQ(KVM_ENABLE_CAP),
	REQ(KVM_SET_USER_MEMORY_REGION), REQ(KVM_GET_DIRTY_LOG), REQ(KVM_CLEAR_DIRTY_LOG),
	REQ(KVM_RESET_DIRTY_RINGS), REQ(KVM_GET_STATS_FD), REQ(KVM_RUN), REQ(KVM_GET_REGS), REQ(KVM_SET_REGS),
	REQ(KVM_GET_SREGS), REQ(KVM_SET_SREGS), REQ(KVM_GET_MSRS), REQ(KVM_SET_MSRS), REQ(KVM_SET_CPUID2),
	REQ(KVM_GET_TSC_KHZ), REQ(KVM_SET_MP_STATE), REQ(KVM_GET_MP_STATE), REQ(KVM_SET_SIGNAL_MASK),
	REQ(KVM_IOEVENTFD),
};

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "ENOMEM", ENOMEM }, { "EINVAL", EINVAL }, { "EFAULT", EFAULT }, { "EAGAIN", EAGAIN }, { "EIO", EIO },
	{ "EACCES", EACCES }, { "ENOENT", ENOENT }, { "EBUSY", EBUSY }, { "EINTR", EINTR }, { "ENOSPC", ENOSPC },
};

enum kind { K_NONE, K_IOCTL, K_MMAP, K_OPEN, K_THREAD };

static struct {
	enum kind kind;
	char what[128];       /* ioctl name, or a path fragment for open */
	long nth;
	int err;
	long seen;
	int fired;
	int ready;
} fault;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static const char *request_name(unsigned long req, char *buf, size_t size)
{
	for (size_t i = 0; i < sizeof(requests) / sizeof(requests[0]); i++)
		if (requests[i].req == req)
			return requests[i].name;
	snprintf(buf, size, "0x%lx", req);
	return buf;
}

static void setup(void)
{
	const char *s = getenv("KB_FAULT");
	char spec[256], *f[4] = { 0 }, *save = NULL;
	int n = 0;

	/* Calls made while the process starts (an ASan runtime's mmap, say) may come before the
	 * environment is there: the spec counts as read only once it was seen. */
	if (!s || !*s || strlen(s) >= sizeof(spec))
		return;
	fault.ready = 1;
	strcpy(spec, s);
	for (char *t = strtok_r(spec, ":", &save); t && n < 4; t = strtok_r(NULL, ":", &save))
		f[n++] = t;
	if (!strcmp(f[0], "ioctl") || !strcmp(f[0], "open")) {
		if (n != 4)
			return;
		fault.kind = !strcmp(f[0], "ioctl") ? K_IOCTL : K_OPEN;
		snprintf(fault.what, sizeof(fault.what), "%s", f[1]);
		fault.nth = atol(f[2]);
		f[1] = f[3];
	} else if (!strcmp(f[0], "mmap") || !strcmp(f[0], "pthread_create")) {
		if (n != 3)
			return;
		fault.kind = !strcmp(f[0], "mmap") ? K_MMAP : K_THREAD;
		fault.nth = atol(f[1]);
		f[1] = f[2];
	} else {
		return;
	}
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(errnos[i].name, f[1]))
			fault.err = errnos[i].err;
	if (!fault.err)
		fault.kind = K_NONE;
}

static void log_call(const char *kind, const char *what)
{
	const char *path = getenv("KB_FAULT_LOG");
	int fd;
	char line[256];
	int n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%s %s\n", kind, what ? what : "");
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		n = 0;
	close(fd);
}

/* Whether this call (of 'kind', naming 'what') is the one to fail. */
static int should_fail(enum kind kind, const char *what)
{
	int hit = 0;

	pthread_mutex_lock(&lock);
	if (!fault.ready)
		setup();
	if (fault.kind == kind && !fault.fired &&
	    (kind == K_MMAP || kind == K_THREAD || (kind == K_IOCTL && !strcmp(what, fault.what)) ||
	     (kind == K_OPEN && what && strstr(what, fault.what))) &&
	    ++fault.seen == fault.nth) {
		fault.fired = 1;
		hit = 1;
	}
	pthread_mutex_unlock(&lock);
	if (hit) {
		char msg[192];

		snprintf(msg, sizeof(msg), "fault injected: %s\n", what ? what : "");
		if (write(2, msg, strlen(msg)) < 0)
			hit = 1;
	}
	return hit;
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	char buf[32];
	const char *name = request_name(req, buf, sizeof(buf));
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	if (req == KVM_CHECK_EXTENSION) {
		char what[64];

		snprintf(what, sizeof(what), "%s %ld", name, (long)(intptr_t)arg);
		log_call("ioctl", what);
	} else {
		log_call("ioctl", name);
	}
	if (should_fail(K_IOCTL, name)) {
		errno = fault.err;
		return -1;
	}
	return real(fd, req, arg);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);

	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	if (should_fail(K_MMAP, "mmap")) {
		errno = fault.err;
		return MAP_FAILED;
	}
	return real(addr, len, prot, flags, fd, off);
}

static int open_common(const char *sym, int dirfd, const char *path, int flags, mode_t mode)
{
	if (should_fail(K_OPEN, path)) {
		errno = fault.err;
		return -1;
	}
	if (!strcmp(sym, "openat")) {
		static int (*real)(int, const char *, int, ...);

		if (!real)
			real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
		return real(dirfd, path, flags, mode);
	} else {
		static int (*real)(const char *, int, ...);

		if (!real)
			real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
		return real(path, flags, mode);
	}
}

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode = 0;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return open_common("open", AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...) __attribute__((alias("open")));

int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode = 0;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = (mode_t)va_arg(ap, int);
	va_end(ap);
	return open_common("openat", dirfd, path, flags, mode);
}

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
			dlsym(RTLD_NEXT, "pthread_create");
	log_call("pthread_create", "");
	if (should_fail(K_THREAD, "pthread_create"))
		return fault.err;
	return real(t, a, fn, arg);
}
