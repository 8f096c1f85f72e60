/* patches.c: the kernel/ bundle: load and check it, judge a source tree or the running kernel,
 * apply and revert its patches all or nothing (kernel/README.md is the specification). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kb.h"
#include "kvm.h"
#include "patches.h"

#ifndef KB_PKGDATADIR
#define KB_PKGDATADIR "/usr/local/share/kvmbench"
#endif
#ifndef KB_SRCDIR
#define KB_SRCDIR "."
#endif

/* ---- small helpers -------------------------------------------------------------------------- */

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p)
			kb_die("out of memory");
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		kb_die("out of memory");
	buf_add(b, s, (size_t)n);
	free(s);
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		kb_die("out of memory");
	va_end(ap);
	return s;
}

/* The whole file, NUL-terminated (the NUL is not counted in *len).  -errno on failure. */
static int read_whole(const char *path, char **data, size_t *len)
{
	struct buf b = { 0 };
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			close(fd);
			free(b.p);
			return -err;
		}
		buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	if (!b.p)
		buf_add(&b, "", 0);
	*data = b.p;
	if (len)
		*len = b.len;
	return 0;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

/* A path relative to a tree top that cannot leave it: no leading '/', no '.' or '..' parts. */
static bool safe_relpath(const char *p)
{
	if (!*p || *p == '/')
		return false;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] < 0x20)
				return false;
		p += n + (slash ? 1 : 0);
		if (slash && !*p)
			return false;
	}
	return true;
}

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* A string member, or NULL when absent or not a string. */
static const char *mstr(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static bool is_null(json_object *v)
{
	return !v || json_object_is_type(v, json_type_null);
}

static void add_str(json_object *o, const char *key, const char *s)
{
	json_object_object_add(o, key, s ? json_object_new_string(s) : NULL);
}

/* Tri-state for JSON: 1 true, 0 false, anything else null. */
static json_object *tri(int v)
{
	return v == 1 ? json_object_new_boolean(1) : v == 0 ? json_object_new_boolean(0) : NULL;
}

static bool id_ok(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return true;
}

static bool in_list(const char *s, const char *const *list)
{
	for (; s && *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* An executable named 'name' on $PATH. */
static bool find_program(const char *name)
{
	const char *path = getenv("PATH");
	bool found = false;
	char *copy, *save = NULL;

	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	copy = kb_xstrdup(path);
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xprintf("%s/%s", *d ? d : ".", name);
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
static int spawn_capture(char *const argv[], const char *dir, int in_fd, const sigset_t *child_mask,
			 char **output)
{
	struct buf out = { 0 };
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
		buf_add(&out, chunk, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			err = errno;
			free(out.p);
			return -err;
		}
	if (!out.p)
		buf_add(&out, "", 0);
	*output = out.p;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static const char *host_arch(void)
{
	static struct utsname u;

	if (uname(&u))
		return "unknown";
	if (!strcmp(u.machine, "aarch64"))
		return "arm64";
	return u.machine;
}

int kb_kernel_version_parse(const char *s, int *major, int *minor, int *sub)
{
	for (; s && *s; s++) {
		char *end;
		long a, b, c = 0;

		if (*s < '0' || *s > '9')
			continue;
		a = strtol(s, &end, 10);
		if (*end != '.' || end[1] < '0' || end[1] > '9') {
			s = end - 1;
			continue;
		}
		b = strtol(end + 1, &end, 10);
		if (*end == '.' && end[1] >= '0' && end[1] <= '9')
			c = strtol(end + 1, &end, 10);
		*major = (int)a;
		*minor = (int)b;
		if (sub)
			*sub = (int)c;
		return 0;
	}
	return -EINVAL;
}

/* ---- the bundle ----------------------------------------------------------------------------- */

static const char *const statuses[] = { "bundled", "upstream", "known-bad", NULL };
static const char *const arches[] = { "x86_64", "arm64", "any", NULL };
static const char *const vendors[] = { "intel", "amd", "any", NULL };
static const char *const rule_sets[] = { "applicable_if", "present_if", "bundled_if", NULL };
static const char *const header_keys[] = {
	"Kvmbench-Patch", "Feature", "Title", "What", "Why", "Upstream", "Measured-By",
	"Expected-Effect", "Base", "Files",
};
#define NHEADER (sizeof(header_keys) / sizeof(header_keys[0]))

static void patch_free(struct kb_patch *p)
{
	if (!p)
		return;
	free(p->file);
	free(p->path);
	free(p->feature);
	free(p->title);
	free(p->upstream);
	free(p->base);
	for (size_t i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
	free(p);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The paths of the diff's "diff --git a/P b/P" lines, sorted, duplicates removed. */
static size_t diff_paths(const char *text, char ***out)
{
	char **v = NULL;
	size_t n = 0, m = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *start, *end;

		if (strncmp(p, "diff --git a/", 13))
			continue;
		start = p + 13;
		end = strstr(start, " b/");
		if (!end || memchr(start, '\n', (size_t)(end - start)))
			continue;
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v)
			kb_die("out of memory");
		v[n++] = strndup(start, (size_t)(end - start));
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1], v[i])) {
			free(v[i]);
			continue;
		}
		v[m++] = v[i];
	}
	*out = v;
	return m;
}

static char *join_words(char **v, size_t n)
{
	struct buf b = { 0 };

	buf_add(&b, "", 0);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i ? " " : "", v[i]);
	return b.p;
}

/* Parse and check a patch's Kvmbench-Patch 1 header (kernel/README.md) against its feature. */
static int patch_load(const char *dir, const char *rel, const char *feature, struct kb_patch **out)
{
	struct kb_patch *p = kb_xcalloc(1, sizeof(*p));
	char *vals[NHEADER] = { 0 }, *text = NULL, **diff = NULL, **sorted = NULL;
	size_t nk = 0, ndiff = 0;
	const char *s;
	int line = 1, err = 0, cur = -1;

	*out = NULL;
	p->file = kb_xstrdup(rel);
	p->path = xprintf("%s/%s", dir, rel);
	if (!safe_relpath(rel)) {
		err = kb_fail(EINVAL, "features.json: feature '%s': patch '%s' is not a path inside the bundle", feature, rel);
		goto out;
	}
	err = read_whole(p->path, &text, NULL);
	if (err) {
		err = kb_fail(err, "%s (the patch of feature '%s'): %s", p->path, feature, strerror(-err));
		goto out;
	}
	/* The header block: up to the first empty line; continuation lines start with a blank. */
	for (s = text; *s && *s != '\n'; line++) {
		const char *eol = strchr(s, '\n');
		size_t n = eol ? (size_t)(eol - s) : strlen(s);

		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			n--;
		if (*s == ' ' || *s == '\t') {
			size_t lead = 0, old;

			if (cur < 0) {
				err = kb_fail(EINVAL, "%s:%d: a continuation line before the first header field", p->path, line);
				goto out;
			}
			while (lead < n && (s[lead] == ' ' || s[lead] == '\t'))
				lead++;
			old = strlen(vals[cur]);
			vals[cur] = realloc(vals[cur], old + 1 + (n - lead) + 1);
			if (!vals[cur])
				kb_die("out of memory");
			vals[cur][old] = ' ';
			memcpy(vals[cur] + old + 1, s + lead, n - lead);
			vals[cur][old + 1 + n - lead] = 0;
		} else {
			size_t k = 0;

			if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z'))
				for (k = 1; k < n && (s[k] == '-' || (s[k] >= '0' && s[k] <= '9') ||
						     (s[k] >= 'A' && s[k] <= 'Z') || (s[k] >= 'a' && s[k] <= 'z')); k++)
					;
			if (!k || k + 1 >= n || s[k] != ':' || s[k + 1] != ' ') {
				err = kb_fail(EINVAL, "%s:%d: not a 'Key: value' header line (Kvmbench-Patch 1, kernel/README.md)",
					      p->path, line);
				goto out;
			}
			if (nk >= NHEADER || strlen(header_keys[nk]) != k || strncmp(s, header_keys[nk], k)) {
				err = kb_fail(EINVAL, "%s:%d: header field '%.*s' where %s%s%s is expected (Kvmbench-Patch 1 has each of %s and %s once, in this order)",
					      p->path, line, (int)k, s, nk < NHEADER ? "'" : "", nk < NHEADER ? header_keys[nk] : "the empty line that ends the header",
					      nk < NHEADER ? "'" : "", header_keys[0], header_keys[NHEADER - 1]);
				goto out;
			}
			vals[nk] = strndup(s + k + 2, n - k - 2);
			cur = (int)nk++;
		}
		if (!eol)
			break;
		s = eol + 1;
	}
	if (nk < NHEADER) {
		err = kb_fail(EINVAL, "%s: the header has no '%s' field (Kvmbench-Patch 1, kernel/README.md)", p->path,
			      header_keys[nk]);
		goto out;
	}
	if (strcmp(vals[0], "1")) {
		err = kb_fail(EINVAL, "%s: Kvmbench-Patch is '%s'; this kvmbench reads version 1", p->path, vals[0]);
		goto out;
	}
	if (strcmp(vals[1], feature)) {
		err = kb_fail(EINVAL, "%s: Feature is '%s' but features.json gives this patch to '%s'", p->path, vals[1], feature);
		goto out;
	}
	/* Files: what apply snapshots, so it must be exactly what the diff touches. */
	for (char *save = NULL, *w = strtok_r(vals[9], " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (!safe_relpath(w)) {
			err = kb_fail(EINVAL, "%s: Files: '%s' is not a path inside the tree", p->path, w);
			goto out;
		}
		p->files = realloc(p->files, (p->nfiles + 1) * sizeof(*p->files));
		if (!p->files)
			kb_die("out of memory");
		p->files[p->nfiles++] = kb_xstrdup(w);
	}
	ndiff = diff_paths(text, &diff);
	sorted = kb_xcalloc(p->nfiles + 1, sizeof(*sorted));
	memcpy(sorted, p->files, p->nfiles * sizeof(*sorted));
	qsort(sorted, p->nfiles, sizeof(*sorted), cmp_str);
	{
		bool same = ndiff && ndiff == p->nfiles;

		for (size_t i = 0; same && i < ndiff; i++)
			same = !strcmp(sorted[i], diff[i]);
		for (size_t i = 1; same && i < p->nfiles; i++)
			same = strcmp(sorted[i - 1], sorted[i]) != 0;
		if (!same) {
			char *a = join_words(p->files, p->nfiles), *b = join_words(diff, ndiff);

			err = kb_fail(EINVAL, "%s: Files lists '%s' but the diff touches '%s' (they must agree: apply snapshots the Files)",
				      p->path, a, b);
			free(a);
			free(b);
			goto out;
		}
	}
	p->feature = vals[1];
	p->title = vals[2];
	p->upstream = vals[5];
	p->base = vals[8];
	vals[1] = vals[2] = vals[5] = vals[8] = NULL;
	*out = p;
	p = NULL;
out:
	for (size_t i = 0; i < NHEADER; i++)
		free(vals[i]);
	for (size_t i = 0; i < ndiff; i++)
		free(diff[i]);
	free(diff);
	free(sorted);
	free(text);
	patch_free(p);
	return err;
}

/*
 * glibc's regcomp() copies a subexpression once per count of an interval ("x{1000}") and once
 * for each '+', so stacked or nested repetitions take memory multiplied up (found by fuzzing: 30
 * '+' in a row, 2^30 copies, exhausted 2 GiB).  The copies, taken as if all nested, may multiply
 * to 65536.
 */
static bool regex_bounded(const char *re)
{
	double copies = 1;
	bool bracket = false;

	if (strlen(re) > 4096)
		return false;
	for (const char *p = re; *p; p++) {
		if (bracket) {
			/* "[]...]" and "[^]...]" start with a literal ']'. */
			if (*p == ']' && p[-1] != '[' && !(p[-1] == '^' && p[-2] == '['))
				bracket = false;
		} else if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			bracket = true;
		} else if (*p == '+') {
			copies *= 2;
		} else if (*p == '{') {
			char *end;
			unsigned long lo = strtoul(p + 1, &end, 10), hi = lo;

			if (end == p + 1)
				continue;
			if (*end == ',')
				hi = end[1] == '}' ? lo + 1 : strtoul(end + 1, &end, 10);
			copies *= (double)(hi > lo ? hi : lo) + 1;
		}
	}
	return copies <= 65536;
}

static int check_source_rule(const char *id, const char *set, json_object *r)
{
	const char *file = mstr(r, "file"), *fixed = mstr(r, "fixed"), *re = mstr(r, "regex");
	json_object *match = member(r, "match");

	if (!json_object_is_type(r, json_type_object) || !file || !safe_relpath(file))
		return kb_fail(EINVAL, "features.json: feature '%s': a %s rule has no valid 'file'", id, set);
	if (!fixed == !re)
		return kb_fail(EINVAL, "features.json: feature '%s': a %s rule on %s needs exactly one of 'fixed' and 'regex'",
			       id, set, file);
	if (fixed && (!*fixed || strchr(fixed, '\n')))
		return kb_fail(EINVAL, "features.json: feature '%s': a %s 'fixed' string on %s is empty or has a newline",
			       id, set, file);
	if (match && !json_object_is_type(match, json_type_boolean))
		return kb_fail(EINVAL, "features.json: feature '%s': a %s rule on %s has a 'match' that is not true or false",
			       id, set, file);
	if (re && !regex_bounded(re))
		return kb_fail(EINVAL, "features.json: feature '%s': %s regex on %s is too long or repeats too much "
			       "(the counts of its '+' and {m,n} repetitions may multiply to at most 65536)", id, set, file);
	if (re) {
		regex_t rx;
		int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[256];

			regerror(rc, &rx, msg, sizeof(msg));
			return kb_fail(EINVAL, "features.json: feature '%s': %s regex on %s does not compile: %s",
				       id, set, file, msg);
		}
		regfree(&rx);
	}
	return 0;
}

static int check_runtime_rule(const char *id, const char *set, json_object *r)
{
	const char *sym = mstr(r, "kallsyms"), *param = mstr(r, "param"), *stat = mstr(r, "stat");
	json_object *match = member(r, "match");

	if (!json_object_is_type(r, json_type_object) || (!!sym + !!param + !!stat) != 1)
		return kb_fail(EINVAL, "features.json: feature '%s': a running_kernel %s rule needs exactly one of 'kallsyms', 'param' and 'stat'",
			       id, set);
	if (match && !json_object_is_type(match, json_type_boolean))
		return kb_fail(EINVAL, "features.json: feature '%s': a running_kernel %s rule has a 'match' that is not true or false", id, set);
	if (sym && !in_list(mstr(r, "type"), (const char *const[]){ "text", "data", NULL }))
		return kb_fail(EINVAL, "features.json: feature '%s': kallsyms rule %s: 'type' must be \"text\" or \"data\"", id, sym);
	if (param && (!strchr(param, '/') || !safe_relpath(param) || strchr(strchr(param, '/') + 1, '/')))
		return kb_fail(EINVAL, "features.json: feature '%s': param rule '%s' is not 'module/name'", id, param);
	if (stat && (!in_list(mstr(r, "scope"), (const char *const[]){ "vm", "vcpu", NULL }) || !safe_relpath(stat)))
		return kb_fail(EINVAL, "features.json: feature '%s': stat rule '%s': 'scope' must be \"vm\" or \"vcpu\"", id, stat);
	return 0;
}

static int check_feature(const struct kb_bundle *b, size_t idx, json_object *fj)
{
	const char *id = mstr(fj, "id"), *status = mstr(fj, "status"), *arch = mstr(fj, "arch");
	json_object *v, *st = member(fj, "source_tree"), *rk = member(fj, "running_kernel");
	int err;

	if (!id_ok(id))
		return kb_fail(EINVAL, "features.json: feature #%zu: 'id' is missing or not [a-z0-9-]+", idx + 1);
	for (size_t i = 0; i < idx; i++)
		if (!strcmp(b->features[i].id, id))
			return kb_fail(EINVAL, "features.json: feature id '%s' appears twice", id);
	if (!mstr(fj, "title"))
		return kb_fail(EINVAL, "features.json: feature '%s' has no 'title'", id);
	if (!in_list(status, statuses))
		return kb_fail(EINVAL, "features.json: feature '%s': 'status' must be bundled, upstream or known-bad", id);
	if (!in_list(arch, arches))
		return kb_fail(EINVAL, "features.json: feature '%s': 'arch' must be x86_64, arm64 or any", id);
	v = member(fj, "cpu_vendors");
	if (!v || !json_object_is_type(v, json_type_array) || !json_object_array_length(v))
		return kb_fail(EINVAL, "features.json: feature '%s': 'cpu_vendors' must be a non-empty array", id);
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (!json_object_is_type(e, json_type_string) || !in_list(json_object_get_string(e), vendors))
			return kb_fail(EINVAL, "features.json: feature '%s': cpu_vendors may hold intel, amd and any", id);
	}
	if (!strcmp(status, "bundled") != !is_null(member(fj, "patch")) ||
	    (!is_null(member(fj, "patch")) && !mstr(fj, "patch")))
		return kb_fail(EINVAL, "features.json: feature '%s': 'patch' must be a path for status bundled and null otherwise", id);
	if (!st || !json_object_is_type(st, json_type_object))
		return kb_fail(EINVAL, "features.json: feature '%s' has no 'source_tree' object", id);
	if (!rk || !json_object_is_type(rk, json_type_object))
		return kb_fail(EINVAL, "features.json: feature '%s' has no 'running_kernel' object", id);
	for (const char *const *set = rule_sets; *set; set++) {
		const char *rset = !strcmp(*set, "applicable_if") ? NULL : *set;

		v = member(st, *set);
		if (!is_null(v) && !json_object_is_type(v, json_type_array))
			return kb_fail(EINVAL, "features.json: feature '%s': source_tree.%s must be an array or null", id, *set);
		for (size_t i = 0; !is_null(v) && i < json_object_array_length(v); i++)
			if ((err = check_source_rule(id, *set, json_object_array_get_idx(v, i))))
				return err;
		if (!rset)
			continue;
		v = member(rk, rset);
		if (!is_null(v) && !json_object_is_type(v, json_type_array))
			return kb_fail(EINVAL, "features.json: feature '%s': running_kernel.%s must be an array or null", id, rset);
		for (size_t i = 0; !is_null(v) && i < json_object_array_length(v); i++)
			if ((err = check_runtime_rule(id, rset, json_object_array_get_idx(v, i))))
				return err;
	}
	v = member(rk, "min_version");
	if (!is_null(v)) {
		int a, c;

		if (!mstr(rk, "min_version") || kb_kernel_version_parse(mstr(rk, "min_version"), &a, &c, NULL))
			return kb_fail(EINVAL, "features.json: feature '%s': running_kernel.min_version must be \"X.Y\" or null", id);
	}
	return 0;
}

static int cmp_patch(const void *a, const void *b)
{
	return strcmp((*(struct kb_patch *const *)a)->file, (*(struct kb_patch *const *)b)->file);
}

static int bundle_load(struct kb_bundle *b)
{
	char *path = xprintf("%s/features.json", b->dir);
	json_object *fs;
	size_t n;
	int err;

	b->manifest = json_object_from_file(path);
	if (!b->manifest) {
		err = kb_fail(EINVAL, "%s: not readable JSON (%s)", path, json_util_get_last_err());
		free(path);
		return err;
	}
	free(path);
	if (!mstr(b->manifest, "schema") || strcmp(mstr(b->manifest, "schema"), "kvmbench-kernel-features") ||
	    !member(b->manifest, "schema_version") || json_object_get_int(member(b->manifest, "schema_version")) != 1)
		return kb_fail(EINVAL, "%s/features.json: not a kvmbench-kernel-features manifest of schema_version 1", b->dir);
	fs = member(b->manifest, "features");
	if (!fs || !json_object_is_type(fs, json_type_array))
		return kb_fail(EINVAL, "%s/features.json: 'features' is not an array", b->dir);
	n = json_object_array_length(fs);
	b->features = kb_xcalloc(n + 1, sizeof(*b->features));
	b->patches = kb_xcalloc(n + 1, sizeof(*b->patches));
	for (size_t i = 0; i < n; i++) {
		json_object *fj = json_object_array_get_idx(fs, i);
		struct kb_feature *f = &b->features[i];

		if ((err = check_feature(b, i, fj)))
			return err;
		f->id = mstr(fj, "id");
		f->title = mstr(fj, "title");
		f->status = mstr(fj, "status");
		f->arch = mstr(fj, "arch");
		f->j = fj;
		b->nfeatures = i + 1;
		if (mstr(fj, "patch")) {
			if ((err = patch_load(b->dir, mstr(fj, "patch"), f->id, &f->patch)))
				return err;
			b->patches[b->npatches++] = f->patch;
		}
	}
	qsort(b->patches, b->npatches, sizeof(*b->patches), cmp_patch);
	return 0;
}

/* Whether this executable is an uninstalled build: automake's config.status sits next to it. */
static bool uninstalled_build(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
	char *slash;

	if (n <= 0)
		return false;
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (!slash)
		return false;
	strcpy(slash + 1, "config.status");
	return !access(exe, F_OK);
}

static bool has_manifest(const char *dir)
{
	char *p = xprintf("%s/features.json", dir);
	bool ok = !access(p, R_OK);

	free(p);
	return ok;
}

int kb_bundle_open(const char *dir, struct kb_bundle *b)
{
	const char *env = getenv("KVMBENCH_KERNEL_DIR");
	char *installed = xprintf("%s/kernel", KB_PKGDATADIR), *srctree = xprintf("%s/kernel", KB_SRCDIR);
	const char *chosen = NULL;
	char real[PATH_MAX];
	int err;

	memset(b, 0, sizeof(*b));
	if (dir || (env && *env)) {
		chosen = dir ? dir : env;
		b->source = dir ? "--bundle" : "KVMBENCH_KERNEL_DIR";
		b->why = kb_xstrdup(dir ? "given with --bundle" : "from $KVMBENCH_KERNEL_DIR");
		if (!has_manifest(chosen)) {
			err = kb_fail(ENOENT, "%s (%s) is not a kvmbench kernel/ bundle: it has no readable features.json",
				      chosen, b->why);
			goto out;
		}
	} else {
		bool uninstalled = uninstalled_build();
		const char *order[2] = { uninstalled ? srctree : installed, uninstalled ? installed : srctree };

		for (int i = 0; i < 2 && !chosen; i++)
			if (has_manifest(order[i]))
				chosen = order[i];
		if (!chosen) {
			err = kb_fail(ENOENT, "the kernel/ patch bundle is neither installed (%s) nor in the source tree this kvmbench was built from (%s): give its directory with --bundle DIR or $KVMBENCH_KERNEL_DIR",
				      installed, srctree);
			goto out;
		}
		if (chosen == srctree) {
			b->source = "source-tree";
			b->why = kb_xstrdup(uninstalled ? "the source tree of this build, which is not installed"
						       : "the source tree this kvmbench was built from (no installed bundle)");
		} else {
			b->source = "installed";
			b->why = kb_xstrdup("installed with kvmbench");
		}
	}
	b->dir = kb_xstrdup(realpath(chosen, real) ? real : chosen);
	err = bundle_load(b);
out:
	free(installed);
	free(srctree);
	if (err) {
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", kb_last_error());
		kb_bundle_close(b);
		kb_fail(err, "%s", msg);
	}
	return err;
}

void kb_bundle_close(struct kb_bundle *b)
{
	for (size_t i = 0; i < b->nfeatures; i++)
		patch_free(b->features[i].patch);
	free(b->features);
	free(b->patches);
	if (b->manifest)
		json_object_put(b->manifest);
	free(b->dir);
	free(b->why);
	memset(b, 0, sizeof(*b));
}

const struct kb_feature *kb_bundle_feature(const struct kb_bundle *b, const char *id)
{
	for (size_t i = 0; i < b->nfeatures; i++)
		if (!strcmp(b->features[i].id, id))
			return &b->features[i];
	return NULL;
}

json_object *kb_bundle_origin_json(const struct kb_bundle *b)
{
	json_object *o = json_object_new_object();

	add_str(o, "dir", b->dir);
	add_str(o, "source", b->source);
	add_str(o, "description", b->why);
	return o;
}

static json_object *strings_json(char *const *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *patch_json(const struct kb_patch *p)
{
	json_object *o = json_object_new_object();

	add_str(o, "file", p->file);
	add_str(o, "path", p->path);
	add_str(o, "feature", p->feature);
	add_str(o, "title", p->title);
	add_str(o, "upstream", p->upstream);
	add_str(o, "base", p->base);
	json_object_object_add(o, "files", strings_json(p->files, p->nfiles));
	return o;
}

json_object *kb_bundle_list_json(const struct kb_bundle *b)
{
	json_object *root = json_object_new_object(), *fs = json_object_new_array(), *ps = json_object_new_array();

	json_object_object_add(root, "bundle", kb_bundle_origin_json(b));
	json_object_object_add(root, "schema_version", json_object_new_int(1));
	json_object_object_add(root, "base", json_object_get(member(b->manifest, "base")));
	for (size_t i = 0; i < b->nfeatures; i++) {
		const struct kb_feature *f = &b->features[i];
		json_object *o = json_object_new_object();
		bool bad = !strcmp(f->status, "known-bad");

		add_str(o, "id", f->id);
		add_str(o, "title", f->title);
		add_str(o, "status", f->status);
		add_str(o, "arch", f->arch);
		json_object_object_add(o, "cpu_vendors", json_object_get(member(f->j, "cpu_vendors")));
		json_object_object_add(o, "known_bad", json_object_new_boolean(bad));
		json_object_object_add(o, "offered", json_object_new_boolean(f->patch != NULL));
		json_object_object_add(o, "upstream", json_object_get(member(f->j, "upstream")));
		json_object_object_add(o, "patch", f->patch ? patch_json(f->patch) : NULL);
		json_object_object_add(o, "measured_by", json_object_get(member(f->j, "measured_by")));
		json_object_object_add(o, "notes", json_object_get(member(f->j, "notes")));
		json_object_array_add(fs, o);
	}
	for (size_t i = 0; i < b->npatches; i++)
		json_object_array_add(ps, patch_json(b->patches[i]));
	json_object_object_add(root, "features", fs);
	json_object_object_add(root, "patches", ps);
	return root;
}

/* ---- a kernel source tree ------------------------------------------------------------------ */

/* The value of "NAME = value" at the start of a line of a kernel Makefile, or NULL. */
static char *makefile_var(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *v, *eol;

		if (strncmp(p, name, n))
			continue;
		v = p + n;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != '=')
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		eol = strchr(v, '\n');
		if (!eol)
			eol = v + strlen(v);
		while (eol > v && (eol[-1] == ' ' || eol[-1] == '\t' || eol[-1] == '\r'))
			eol--;
		return strndup(v, (size_t)(eol - v));
	}
	return NULL;
}

int kb_tree_open(const char *dir, struct kb_tree *t)
{
	char real[PATH_MAX], *mk, *text = NULL, *ver, *pl, *sub, *extra;
	int err;

	memset(t, 0, sizeof(*t));
	if (!is_dir(dir))
		return kb_fail(ENOTDIR, "%s: %s", dir, exists(dir) ? "not a directory" : "no such directory");
	t->dir = kb_xstrdup(realpath(dir, real) ? real : dir);
	mk = xprintf("%s/Makefile", t->dir);
	err = read_whole(mk, &text, NULL);
	if (err) {
		err = kb_fail(EINVAL, "%s is not a kernel source tree: %s: %s (give the top directory of an unpacked Linux source tree, e.g. linux-source-6.1)",
			      dir, mk, strerror(-err));
		free(mk);
		kb_tree_close(t);
		return err;
	}
	ver = makefile_var(text, "VERSION");
	pl = makefile_var(text, "PATCHLEVEL");
	sub = makefile_var(text, "SUBLEVEL");
	extra = makefile_var(text, "EXTRAVERSION");
	free(text);
	if (!ver || !pl || !*ver || !*pl) {
		err = kb_fail(EINVAL, "%s is not a kernel source tree: %s sets no VERSION and PATCHLEVEL (give the top directory of an unpacked Linux source tree)",
			      dir, mk);
	} else {
		snprintf(t->version, sizeof(t->version), "%s.%s.%s", ver, pl, sub && *sub ? sub : "0");
		snprintf(t->release, sizeof(t->release), "%s%s", t->version, extra ? extra : "");
		free(mk);
		mk = xprintf("%s/arch/x86/kvm", t->dir);
		if (!is_dir(mk))
			err = kb_fail(EINVAL, "%s is not a kernel source tree with KVM: it has no arch/x86/kvm (the bundled patches change x86 KVM)",
				      dir);
	}
	free(mk);
	free(ver);
	free(pl);
	free(sub);
	free(extra);
	if (err)
		kb_tree_close(t);
	return err;
}

void kb_tree_close(struct kb_tree *t)
{
	free(t->dir);
	memset(t, 0, sizeof(*t));
}

/* ---- source rules and the source-tree verdict ---------------------------------------------- */

struct fcache_entry {
	char *rel;
	char *data;
	size_t len;
	int err;
};

struct fcache {
	const char *tree;
	struct fcache_entry *e;
	size_t n;
};

static const struct fcache_entry *fcache_get(struct fcache *c, const char *rel)
{
	struct fcache_entry *e;
	char *path;

	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].rel, rel))
			return &c->e[i];
	c->e = realloc(c->e, (c->n + 1) * sizeof(*c->e));
	if (!c->e)
		kb_die("out of memory");
	e = &c->e[c->n++];
	memset(e, 0, sizeof(*e));
	e->rel = kb_xstrdup(rel);
	path = xprintf("%s/%s", c->tree, rel);
	e->err = read_whole(path, &e->data, &e->len);
	free(path);
	return e;
}

static void fcache_free(struct fcache *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->e[i].rel);
		free(c->e[i].data);
	}
	free(c->e);
	c->e = NULL;
	c->n = 0;
}

/* Evaluate one source rule; its evidence goes to 'arr'.  Returns 1 when it holds, else 0. */
static int source_rule(struct fcache *c, json_object *r, json_object *arr)
{
	const char *file = mstr(r, "file"), *fixed = mstr(r, "fixed"), *re = mstr(r, "regex");
	json_object *mj = member(r, "match"), *ev = json_object_new_object();
	bool match = !mj || json_object_get_boolean(mj);
	const struct fcache_entry *e = fcache_get(c, file);
	int found = -1, holds;

	add_str(ev, "file", file);
	add_str(ev, fixed ? "fixed" : "regex", fixed ? fixed : re);
	json_object_object_add(ev, "match", json_object_new_boolean(match));
	if (e->err) {
		add_str(ev, "note", e->err == -ENOENT ? "the file does not exist: the rule does not hold"
						     : strerror(-e->err));
	} else if (fixed) {
		found = memmem(e->data, e->len, fixed, strlen(fixed)) != NULL;
	} else {
		regex_t rx;
		int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);

		if (!rc) {
			rc = regexec(&rx, e->data, 0, NULL, 0);
			found = rc == 0;
			if (rc && rc != REG_NOMATCH) {
				found = -1;
				add_str(ev, "note", "regexec failed (out of memory?)");
			}
			regfree(&rx);
		}
	}
	holds = found >= 0 && found == (int)match;
	json_object_object_add(ev, "found", tri(found));
	json_object_object_add(ev, "holds", json_object_new_boolean(holds));
	json_object_array_add(arr, ev);
	return holds;
}

/* A rule set: 2 when not defined (null or empty), 1 when every rule holds, 0 otherwise. */
static int source_set(struct fcache *c, json_object *set, json_object *evidence, const char *name)
{
	json_object *arr;
	int all = 1;

	if (is_null(set) || !json_object_array_length(set)) {
		json_object_object_add(evidence, name, NULL);
		return 2;
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(set); i++)
		all &= source_rule(c, json_object_array_get_idx(set, i), arr);
	json_object_object_add(evidence, name, arr);
	return all;
}

/* The first rule of a set that failed, in words. */
static char *failed_rule_text(json_object *evidence, const char *set)
{
	json_object *arr = member(evidence, set);

	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *ev = json_object_array_get_idx(arr, i);
		const char *pat = mstr(ev, "fixed") ? mstr(ev, "fixed") : mstr(ev, "regex");
		json_object *found = member(ev, "found");

		if (json_object_get_boolean(member(ev, "holds")))
			continue;
		return xprintf("%s: %s \"%s\" %s", mstr(ev, "file"), mstr(ev, "fixed") ? "string" : "regex", pat,
			       is_null(found) ? "cannot be searched (no such file)" :
			       json_object_get_boolean(found) ? "found" : "not found");
	}
	return kb_xstrdup("a rule failed");
}

enum pre_verdict {
	PV_NOT_APPLICABLE,
	PV_PRESENT,         /* present-upstream, or known-bad-present */
	PV_BUNDLED_APPLIED,
	PV_PATCHABLE,       /* a patch to dry-run */
	PV_ABSENT,          /* absent, or known-bad-absent */
};

/* Steps 1-4 and 6 of the verdict (kernel/README.md); PV_PATCHABLE leaves step 5 to the caller.
 * The rules' evidence goes into 'fe' ("evidence"), the reason into *why (allocated). */
static enum pre_verdict source_verdict(const struct kb_feature *f, struct fcache *c, const char *arch,
				       json_object *fe, char **why)
{
	json_object *st = member(f->j, "source_tree"), *ev = json_object_new_object();
	int app = source_set(c, member(st, "applicable_if"), ev, "applicable_if");
	int pres = source_set(c, member(st, "present_if"), ev, "present_if");
	int bund = source_set(c, member(st, "bundled_if"), ev, "bundled_if");
	bool bad = !strcmp(f->status, "known-bad");
	enum pre_verdict v;

	json_object_object_add(fe, "evidence", ev);
	if (strcmp(f->arch, "any") && strcmp(f->arch, arch)) {
		*why = xprintf("a feature of %s, the target architecture is %s (rules shown for information)", f->arch, arch);
		v = PV_NOT_APPLICABLE;
	} else if (app == 0) {
		char *r = failed_rule_text(ev, "applicable_if");

		*why = xprintf("the tree lacks the code the feature touches: applicable_if %s", r);
		free(r);
		v = PV_NOT_APPLICABLE;
	} else if (pres == 1) {
		*why = xprintf(bad ? "every present_if rule holds: the tree carries this known-bad change"
				   : "every present_if rule holds");
		v = PV_PRESENT;
	} else if (bund == 1) {
		*why = kb_xstrdup("every bundled_if rule holds: the bundled patch is applied");
		v = PV_BUNDLED_APPLIED;
	} else if (f->patch) {
		*why = NULL;
		v = PV_PATCHABLE;
	} else {
		*why = kb_xstrdup(bad ? "the known-bad change is not there (its present_if rules do not all hold)"
				      : pres == 2 ? "no present_if or bundled_if rule set holds, and there is no patch"
						  : "not every present_if rule holds, and there is no patch");
		v = PV_ABSENT;
	}
	return v;
}

static const char *pre_verdict_name(enum pre_verdict v, bool bad)
{
	switch (v) {
	case PV_NOT_APPLICABLE: return "not-applicable";
	case PV_PRESENT: return bad ? "known-bad-present" : "present-upstream";
	case PV_BUNDLED_APPLIED: return "bundled-applied";
	case PV_PATCHABLE: return "applies-cleanly";
	case PV_ABSENT: return bad ? "known-bad-absent" : "absent";
	}
	return "unknown";
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
	return spawn_capture(argv, tree, in_fd, child_mask, output);
}

static const char *patch_command(bool reverse, bool dry_run)
{
	return reverse ? (dry_run ? "patch -p1 -N -F0 --no-backup-if-mismatch -r - -R --dry-run"
				  : "patch -p1 -N -F0 --no-backup-if-mismatch -r - -R")
		       : (dry_run ? "patch -p1 -N -F0 --no-backup-if-mismatch -r - --dry-run"
				  : "patch -p1 -N -F0 --no-backup-if-mismatch -r -");
}

/* Dry-run (or apply) a patch given as a file or as text; the outcome goes into 'o'. */
static int patch_file_or_text(const char *tree, const char *file, const char *text, bool reverse, bool dry_run,
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
		add_str(o, "command", patch_command(reverse, dry_run));
		json_object_object_add(o, "exit_status", NULL);
		add_str(o, "output", strerror(-rc));
		return rc;
	}
	rc = run_patch(tree, fd, reverse, dry_run, child_mask, &output);
	close(fd);
	add_str(o, "command", patch_command(reverse, dry_run));
	json_object_object_add(o, "exit_status", rc >= 0 ? json_object_new_int(rc) : NULL);
	add_str(o, "output", output ? output : strerror(-rc));
	free(output);
	return rc;
}

static json_object *record_load(const char *tree, int *err);

static bool record_has(json_object *rec, const char *id)
{
	json_object *a = member(rec, "applied");

	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		const char *f = mstr(json_object_array_get_idx(a, i), "feature");

		if (f && !strcmp(f, id))
			return true;
	}
	return false;
}

static json_object *tree_json(const struct kb_tree *t)
{
	json_object *o = json_object_new_object();

	add_str(o, "dir", t->dir);
	add_str(o, "version", t->version);
	add_str(o, "release", t->release);
	return o;
}

static bool wanted(const char *id, char *const *ids, size_t nids)
{
	if (!nids)
		return true;
	for (size_t i = 0; i < nids; i++)
		if (!strcmp(ids[i], id))
			return true;
	return false;
}

static int check_ids(const struct kb_bundle *b, char *const *ids, size_t nids)
{
	for (size_t i = 0; i < nids; i++)
		if (!kb_bundle_feature(b, ids[i])) {
			struct buf known = { 0 };
			int err;

			for (size_t k = 0; k < b->nfeatures; k++)
				buf_printf(&known, "%s%s", k ? ", " : "", b->features[k].id);
			err = kb_fail(EINVAL, "unknown feature '%s' (the manifest has: %s)", ids[i], known.p ? known.p : "none");
			free(known.p);
			return err;
		}
	return 0;
}

static void count_verdict(json_object *summary, const char *verdict)
{
	json_object *v = member(summary, verdict);

	json_object_object_add(summary, verdict, json_object_new_int(v ? json_object_get_int(v) + 1 : 1));
}

int kb_tree_verify(const struct kb_bundle *b, const struct kb_tree *t, const char *arch,
		   char *const *ids, size_t nids, json_object **report)
{
	json_object *rep = json_object_new_object(), *fs = json_object_new_array(), *summary = json_object_new_object();
	struct fcache c = { .tree = t->dir };
	bool have_patch = find_program("patch");
	json_object *rec;
	int err, rerr = 0;

	*report = rep;
	if (!arch)
		arch = host_arch();
	add_str(rep, "target", "source-tree");
	json_object_object_add(rep, "bundle", kb_bundle_origin_json(b));
	json_object_object_add(rep, "tree", tree_json(t));
	add_str(rep, "arch", arch);
	rec = record_load(t->dir, &rerr);
	json_object_object_add(rep, "record", rec ? json_object_new_string(KB_PATCHES_RECORD) : NULL);
	if (rerr)
		add_str(rep, "record_error", kb_last_error());
	err = check_ids(b, ids, nids);
	if (err) {
		json_object_put(rec);
		return err;
	}
	for (size_t i = 0; i < b->nfeatures; i++) {
		const struct kb_feature *f = &b->features[i];
		json_object *fe;
		const char *verdict;
		char *why = NULL;
		enum pre_verdict pv;

		if (!wanted(f->id, ids, nids))
			continue;
		fe = json_object_new_object();
		add_str(fe, "id", f->id);
		add_str(fe, "title", f->title);
		add_str(fe, "status", f->status);
		add_str(fe, "arch", f->arch);
		pv = source_verdict(f, &c, arch, fe, &why);
		verdict = pre_verdict_name(pv, !strcmp(f->status, "known-bad"));
		if (f->patch)
			add_str(fe, "patch", f->patch->file);
		if (pv == PV_PATCHABLE && !have_patch) {
			verdict = "unknown";
			why = kb_xstrdup("the patch cannot be dry-run: patch(1) is not installed (apt-get install patch)");
		} else if (pv == PV_PATCHABLE) {
			json_object *dry = json_object_new_object();
			int rc = patch_file_or_text(t->dir, f->patch->path, NULL, false, true, NULL, dry);

			json_object_object_add(fe, "dry_run", dry);
			if (rc == 0) {
				verdict = "applies-cleanly";
				why = xprintf("%s succeeds", patch_command(false, true));
			} else {
				verdict = "conflicts";
				why = xprintf("%s fails (exit status %d); its output is the evidence", patch_command(false, true), rc);
			}
		}
		if (rec && record_has(rec, f->id)) {
			json_object_object_add(fe, "recorded", json_object_new_boolean(1));
			if (pv == PV_BUNDLED_APPLIED) {
				char *w = xprintf("%s; applied by kvmbench patches apply (recorded in %s)", why, KB_PATCHES_RECORD);

				free(why);
				why = w;
			}
		}
		add_str(fe, "verdict", verdict);
		add_str(fe, "reason", why);
		count_verdict(summary, verdict);
		free(why);
		json_object_array_add(fs, fe);
	}
	json_object_object_add(rep, "features", fs);
	json_object_object_add(rep, "summary", summary);
	json_object_put(rec);
	fcache_free(&c);
	return 0;
}

/* ---- the running kernel -------------------------------------------------------------------- */

struct names {
	char **v;
	size_t n;
	bool ok;
};

struct running {
	struct utsname u;
	int vmaj, vmin, vsub;
	bool have_version;
	const char *arch;
	const char *vendor;   /* "intel", "amd" or NULL */
	char *kallsyms;
	int kallsyms_err;
	int kallsyms_all;     /* 1, 0, or -1 unknown */
	char *kallsyms_all_how;
	struct names vm, vcpu;
	char *stats_error;
	const char *backend;
};

static void names_copy(struct names *d, const struct kb_stats *st)
{
	d->v = kb_xcalloc(st->ndesc + 1, sizeof(*d->v));
	for (uint32_t i = 0; i < st->ndesc; i++)
		d->v[d->n++] = kb_xstrdup(st->desc[i].name);
	d->ok = true;
}

static void names_free(struct names *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i]);
	free(d->v);
}

static bool names_has(const struct names *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->v[i], name))
			return true;
	return false;
}

/* A /proc/kallsyms line whose name (third field) is 'name', or a compiler clone of it
 * ("name.isra.0", "name.constprop.0", ...).  Fills type and the name found. */
static bool kallsyms_find(const char *text, const char *name, char *type, char *found, size_t size)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *sp = strchr(p, ' '), *nm, *end;

		if (!sp || !sp[1] || sp[2] != ' ')
			continue;
		nm = sp + 3;
		if (strncmp(nm, name, n) || (nm[n] != '\n' && nm[n] != '\t' && nm[n] != ' ' && nm[n] != '.' && nm[n]))
			continue;
		end = nm + strcspn(nm, " \t\n");
		*type = sp[1];
		snprintf(found, size, "%.*s", (int)(end - nm), nm);
		return true;
	}
	return false;
}

static void running_config(struct running *r)
{
	char *path = xprintf("/boot/config-%s", r->u.release), *text = NULL;
	const char *from = path;

	r->kallsyms_all = -1;
	if (read_whole(path, &text, NULL)) {
		char *argv[] = { "gzip", "-dc", "/proc/config.gz", NULL };

		text = NULL;
		if (!exists("/proc/config.gz") || spawn_capture(argv, NULL, -1, NULL, &text) != 0) {
			free(text);
			text = NULL;
		}
		from = "/proc/config.gz";
	}
	if (text && (strstr(text, "\nCONFIG_KALLSYMS_ALL=y\n") || !strncmp(text, "CONFIG_KALLSYMS_ALL=y\n", 22))) {
		r->kallsyms_all = 1;
		r->kallsyms_all_how = xprintf("CONFIG_KALLSYMS_ALL=y (%s)", from);
	} else if (text && strstr(text, "CONFIG_KALLSYMS")) {
		r->kallsyms_all = 0;
		r->kallsyms_all_how = xprintf("CONFIG_KALLSYMS_ALL is not set (%s)", from);
	} else if (r->kallsyms) {
		char type, name[128];

		/* No configuration to read: a data symbol every kernel has tells. */
		if (kallsyms_find(r->kallsyms, "jiffies_64", &type, name, sizeof(name)) && strchr("dDbB", type)) {
			r->kallsyms_all = 1;
			r->kallsyms_all_how = kb_xstrdup("jiffies_64, a data symbol, is listed (no kernel configuration found)");
		} else {
			r->kallsyms_all_how = kb_xstrdup("no kernel configuration found (/boot/config-RELEASE, /proc/config.gz)");
		}
	} else {
		r->kallsyms_all_how = kb_xstrdup("no kernel configuration found (/boot/config-RELEASE, /proc/config.gz)");
	}
	free(text);
	free(path);
}

static void running_stats(struct running *r, const char *kvm_path)
{
	struct kb_kvm kvm;
	struct kb_vm vm;
	struct kb_vcpu vcpu;

	r->backend = kb_backend_name(kb_backend_detect());
	if (kb_kvm_open(&kvm, kvm_path)) {
		r->stats_error = kb_xstrdup(kb_last_error());
		return;
	}
	if (kb_vm_create(&kvm, &vm, 1 << 20, false, NULL)) {
		r->stats_error = kb_xstrdup(kb_last_error());
		kb_kvm_close(&kvm);
		return;
	}
	names_copy(&r->vm, &vm.stats);
	if (kb_vcpu_create(&vm, 0, &vcpu))
		r->stats_error = kb_xstrdup(kb_last_error());
	else
		names_copy(&r->vcpu, &vcpu.stats);
	if (!r->stats_error)
		kb_vcpu_destroy(&vcpu);
	kb_vm_destroy(&vm);
	kb_kvm_close(&kvm);
}

static void running_probe(struct running *r, const char *kvm_path)
{
	char *cpuinfo = NULL;

	memset(r, 0, sizeof(*r));
	uname(&r->u);
	r->have_version = !kb_kernel_version_parse(r->u.release, &r->vmaj, &r->vmin, &r->vsub);
	r->arch = host_arch();
	if (!read_whole("/proc/cpuinfo", &cpuinfo, NULL)) {
		if (strstr(cpuinfo, "GenuineIntel"))
			r->vendor = "intel";
		else if (strstr(cpuinfo, "AuthenticAMD") || strstr(cpuinfo, "HygonGenuine"))
			r->vendor = "amd";
		free(cpuinfo);
	}
	r->kallsyms_err = read_whole("/proc/kallsyms", &r->kallsyms, NULL);
	if (!r->kallsyms_err && !*r->kallsyms) {
		free(r->kallsyms);
		r->kallsyms = NULL;
		r->kallsyms_err = -ENODATA;
	}
	running_config(r);
	running_stats(r, kvm_path);
}

static void running_free(struct running *r)
{
	free(r->kallsyms);
	free(r->kallsyms_all_how);
	free(r->stats_error);
	names_free(&r->vm);
	names_free(&r->vcpu);
}

static bool module_loaded(const char *module)
{
	char *p = xprintf("/sys/module/%s", module);
	bool ok = is_dir(p);

	free(p);
	return ok;
}

/* One runtime rule: 1 holds, 0 does not, -1 unknown; evidence into arr. */
static int runtime_rule(const struct running *r, json_object *rule, json_object *arr)
{
	const char *sym = mstr(rule, "kallsyms"), *param = mstr(rule, "param"), *stat = mstr(rule, "stat");
	json_object *mj = member(rule, "match"), *ev = json_object_new_object();
	bool match = !mj || json_object_get_boolean(mj);
	int found = -1, holds;
	char *note = NULL;

	if (sym) {
		const char *module = mstr(rule, "module"), *type = mstr(rule, "type");
		char t = 0, name[256];

		add_str(ev, "kind", "kallsyms");
		add_str(ev, "name", sym);
		add_str(ev, "type", type);
		add_str(ev, "module", module);
		if (r->kallsyms_err) {
			note = xprintf("/proc/kallsyms cannot be read: %s", strerror(-r->kallsyms_err));
		} else if (kallsyms_find(r->kallsyms, sym, &t, name, sizeof(name))) {
			found = 1;
			note = xprintf("listed as '%c %s'", t, name);
		} else if (module && !module_loaded(module)) {
			note = xprintf("module %s is not loaded (no /sys/module/%s)", module, module);
		} else if (!strcmp(type, "data") && r->kallsyms_all != 1) {
			note = xprintf("not listed, but data symbols are listed only with CONFIG_KALLSYMS_ALL=y: %s",
				       r->kallsyms_all_how);
		} else {
			found = 0;
			note = kb_xstrdup("not in /proc/kallsyms");
		}
	} else if (param) {
		char *mod = strndup(param, strcspn(param, "/"));
		char *path = xprintf("/sys/module/%s/parameters/%s", mod, strchr(param, '/') + 1);

		add_str(ev, "kind", "param");
		add_str(ev, "name", param);
		if (!module_loaded(mod)) {
			note = xprintf("module %s is not loaded (no /sys/module/%s)", mod, mod);
		} else {
			found = exists(path);
			note = xprintf("%s %s", path, found ? "exists" : "does not exist");
		}
		free(mod);
		free(path);
	} else {
		const char *scope = mstr(rule, "scope");
		const struct names *n = !strcmp(scope, "vm") ? &r->vm : &r->vcpu;
		char *dbg = xprintf("/sys/kernel/debug/kvm/%s", stat);

		add_str(ev, "kind", "stat");
		add_str(ev, "name", stat);
		add_str(ev, "scope", scope);
		if (n->ok) {
			found = names_has(n, stat);
			note = xprintf("%s in the %s's KVM binary stats (%zu names)", found ? "found" : "not found",
				       !strcmp(scope, "vm") ? "VM" : "vCPU", n->n);
		} else if (exists(dbg)) {
			found = 1;
			note = xprintf("%s exists", dbg);
		} else if (is_dir("/sys/kernel/debug/kvm")) {
			found = 0;
			note = xprintf("no %s's stats descriptors (%s), and %s does not exist", scope,
				       r->stats_error ? r->stats_error : "not read", dbg);
		} else {
			note = xprintf("the %s's KVM stats cannot be read (%s) and /sys/kernel/debug/kvm is not available",
				       !strcmp(scope, "vm") ? "VM" : "vCPU", r->stats_error ? r->stats_error : "?");
		}
		free(dbg);
	}
	holds = found < 0 ? -1 : found == (int)match;
	json_object_object_add(ev, "match", json_object_new_boolean(match));
	json_object_object_add(ev, "found", tri(found));
	json_object_object_add(ev, "holds", tri(holds));
	add_str(ev, "note", note);
	free(note);
	json_object_array_add(arr, ev);
	return holds;
}

/* 2 not defined, 1 all hold, 0 one does not hold, -1 none fails but one is unknown. */
static int runtime_set(const struct running *r, json_object *set, json_object *evidence, const char *name)
{
	json_object *arr;
	int any_false = 0, any_unknown = 0;

	if (is_null(set) || !json_object_array_length(set)) {
		json_object_object_add(evidence, name, NULL);
		return 2;
	}
	arr = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(set); i++) {
		int h = runtime_rule(r, json_object_array_get_idx(set, i), arr);

		any_false |= h == 0;
		any_unknown |= h < 0;
	}
	json_object_object_add(evidence, name, arr);
	return any_false ? 0 : any_unknown ? -1 : 1;
}

/* A JSON array of strings as "a and b" / "a, b and c". */
static char *strings_text(json_object *a)
{
	struct buf b = { 0 };
	size_t n = a ? json_object_array_length(a) : 0;

	buf_add(&b, "", 0);
	for (size_t i = 0; i < n; i++)
		buf_printf(&b, "%s%s", i == 0 ? "" : i + 1 == n ? " and " : ", ",
			   json_object_get_string(json_object_array_get_idx(a, i)));
	return b.p;
}

static bool vendor_applies(json_object *list, const char *vendor)
{
	if (!vendor)
		return true;
	for (size_t i = 0; list && i < json_object_array_length(list); i++) {
		const char *v = json_object_get_string(json_object_array_get_idx(list, i));

		if (!strcmp(v, "any") || !strcmp(v, vendor))
			return true;
	}
	return false;
}

static json_object *running_kernel_json(const struct running *r)
{
	json_object *k = json_object_new_object(), *ks = json_object_new_object(), *st = json_object_new_object();
	char v[64];

	add_str(k, "release", r->u.release);
	snprintf(v, sizeof(v), "%d.%d.%d", r->vmaj, r->vmin, r->vsub);
	add_str(k, "version", r->have_version ? v : NULL);
	add_str(k, "arch", r->arch);
	add_str(k, "cpu_vendor", r->vendor);
	add_str(k, "kvm_backend", r->backend);
	json_object_object_add(ks, "readable", json_object_new_boolean(!r->kallsyms_err));
	add_str(ks, "error", r->kallsyms_err ? strerror(-r->kallsyms_err) : NULL);
	json_object_object_add(ks, "data_symbols", tri(r->kallsyms_all));
	add_str(ks, "data_symbols_how", r->kallsyms_all_how);
	json_object_object_add(k, "kallsyms", ks);
	json_object_object_add(st, "vm", r->vm.ok ? json_object_new_int((int)r->vm.n) : NULL);
	json_object_object_add(st, "vcpu", r->vcpu.ok ? json_object_new_int((int)r->vcpu.n) : NULL);
	add_str(st, "error", r->stats_error);
	json_object_object_add(k, "kvm_stats", st);
	return k;
}

static int version_at_least(const struct running *r, const char *min)
{
	int a, b;

	if (!r->have_version || kb_kernel_version_parse(min, &a, &b, NULL))
		return -1;
	return r->vmaj > a || (r->vmaj == a && r->vmin >= b);
}

int kb_running_verify(const struct kb_bundle *b, const char *kvm_path, char *const *ids, size_t nids,
		      json_object **report)
{
	json_object *rep = json_object_new_object(), *fs = json_object_new_array(), *summary = json_object_new_object();
	struct running r;
	char version[64];
	int err;

	*report = rep;
	add_str(rep, "target", "running-kernel");
	json_object_object_add(rep, "bundle", kb_bundle_origin_json(b));
	err = check_ids(b, ids, nids);
	if (err)
		return err;
	running_probe(&r, kvm_path ? kvm_path : "/dev/kvm");
	snprintf(version, sizeof(version), "%d.%d.%d", r.vmaj, r.vmin, r.vsub);
	json_object_object_add(rep, "kernel", running_kernel_json(&r));
	for (size_t i = 0; i < b->nfeatures; i++) {
		const struct kb_feature *f = &b->features[i];
		json_object *rk = member(f->j, "running_kernel"), *fe, *ev, *params, *stats;
		const char *min = mstr(rk, "min_version"), *verdict;
		bool bad = !strcmp(f->status, "known-bad"), by_version = false;
		int pres, bund;
		char *why = NULL;

		if (!wanted(f->id, ids, nids))
			continue;
		fe = json_object_new_object();
		ev = json_object_new_object();
		add_str(fe, "id", f->id);
		add_str(fe, "title", f->title);
		add_str(fe, "status", f->status);
		add_str(fe, "arch", f->arch);
		add_str(fe, "min_version", min);
		bund = runtime_set(&r, member(rk, "bundled_if"), ev, "bundled_if");
		pres = runtime_set(&r, member(rk, "present_if"), ev, "present_if");
		if (strcmp(f->arch, "any") && strcmp(f->arch, r.arch)) {
			verdict = "not-applicable";
			why = xprintf("a feature of %s; this kernel runs on %s", f->arch, r.arch);
		} else if (!vendor_applies(member(f->j, "cpu_vendors"), r.vendor)) {
			verdict = "not-applicable";
			char *list = strings_text(member(f->j, "cpu_vendors"));

			why = xprintf("applies to %s CPUs; this one is %s", list, r.vendor);
			free(list);
		} else if (bund == 1) {
			verdict = "bundled-applied";
			why = kb_xstrdup("every bundled_if rule holds: the running kernel carries the bundled patch");
		} else if (pres != 2) {
			verdict = pres == 1 ? (bad ? "known-bad-present" : "present-upstream")
					    : pres == 0 ? (bad ? "known-bad-absent" : "absent") : "unknown";
			if (pres == 1)
				why = kb_xstrdup("every present_if rule holds");
			else if (pres == 0)
				why = kb_xstrdup("a present_if rule does not hold");
			else if (min && version_at_least(&r, min) >= 0)
				why = xprintf("a present_if rule cannot be evaluated here (no rule fails); by version alone it would be %s (%s %s %s)",
					      version_at_least(&r, min) ? "present-upstream" : "absent", version,
					      version_at_least(&r, min) ? ">=" : "<", min);
			else
				why = kb_xstrdup("a present_if rule cannot be evaluated here (no rule fails)");
		} else if (min && version_at_least(&r, min) >= 0) {
			int at = version_at_least(&r, min);

			by_version = true;
			verdict = at ? "present-upstream" : "absent";
			why = xprintf("by version: %s %s %s, the first release with the upstream form", version,
				      at ? ">=" : "<", min);
		} else {
			verdict = "unknown";
			why = kb_xstrdup(min ? "the kernel version cannot be read"
					     : "the manifest defines no running-kernel evidence for this feature");
		}
		add_str(fe, "verdict", verdict);
		json_object_object_add(fe, "by_version", json_object_new_boolean(by_version));
		add_str(fe, "reason", why);
		json_object_object_add(fe, "evidence", ev);
		params = json_object_new_array();
		for (size_t k = 0; member(rk, "params") && k < json_object_array_length(member(rk, "params")); k++) {
			const char *pn = mstr(json_object_array_get_idx(member(rk, "params"), k), "param");
			json_object *po = json_object_new_object();
			char *path, val[256];

			if (!pn || !strchr(pn, '/') || !safe_relpath(pn)) {
				json_object_put(po);
				continue;
			}
			path = xprintf("/sys/module/%.*s/parameters/%s", (int)strcspn(pn, "/"), pn, strchr(pn, '/') + 1);
			add_str(po, "param", pn);
			add_str(po, "value", kb_read_text(path, val, sizeof(val)) ? NULL : val);
			free(path);
			json_object_array_add(params, po);
		}
		json_object_object_add(fe, "params", params);
		stats = json_object_new_array();
		for (size_t k = 0; member(rk, "stats") && k < json_object_array_length(member(rk, "stats")); k++) {
			json_object *sj = json_object_array_get_idx(member(rk, "stats"), k), *so = json_object_new_object();
			const char *sn = mstr(sj, "stat"), *sc = mstr(sj, "scope");
			const struct names *n = sc && !strcmp(sc, "vm") ? &r.vm : &r.vcpu;

			if (!sn || !sc) {
				json_object_put(so);
				continue;
			}
			add_str(so, "stat", sn);
			add_str(so, "scope", sc);
			json_object_object_add(so, "present", n->ok ? json_object_new_boolean(names_has(n, sn)) : NULL);
			json_object_array_add(stats, so);
		}
		json_object_object_add(fe, "stats", stats);
		count_verdict(summary, verdict);
		free(why);
		json_object_array_add(fs, fe);
	}
	json_object_object_add(rep, "features", fs);
	json_object_object_add(rep, "summary", summary);
	running_free(&r);
	return 0;
}

/* ---- snapshots, signals, the record --------------------------------------------------------- */

struct snap_file {
	char *rel, *path;
	bool existed;
	char *data;
	size_t len;
	mode_t mode;
	char **made;     /* directories that did not exist, deepest first (a patch may create them) */
	size_t nmade;
};

struct snapshot {
	struct snap_file *f;
	size_t n;
};

static void snap_free(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->f[i].rel);
		free(s->f[i].path);
		free(s->f[i].data);
		for (size_t k = 0; k < s->f[i].nmade; k++)
			free(s->f[i].made[k]);
		free(s->f[i].made);
	}
	free(s->f);
	memset(s, 0, sizeof(*s));
}

static int snap_add(struct snapshot *s, const char *tree, const char *rel)
{
	struct snap_file *f;
	struct stat st;
	int err;

	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->f[i].rel, rel))
			return 0;
	s->f = realloc(s->f, (s->n + 1) * sizeof(*s->f));
	if (!s->f)
		kb_die("out of memory");
	f = &s->f[s->n++];
	memset(f, 0, sizeof(*f));
	f->rel = kb_xstrdup(rel);
	f->path = xprintf("%s/%s", tree, rel);
	if (!lstat(f->path, &st)) {
		if (!S_ISREG(st.st_mode))
			return kb_fail(EINVAL, "%s is not a regular file: kvmbench will not patch it", f->path);
		f->existed = true;
		f->mode = st.st_mode & 07777;
		err = read_whole(f->path, &f->data, &f->len);
		if (err)
			return kb_fail(err, "cannot snapshot %s: %s", f->path, strerror(-err));
		return 0;
	}
	if (errno != ENOENT)
		return kb_fail(errno, "cannot snapshot %s: %s", f->path, strerror(errno));
	/* A file the patch creates: remember which of its directories are new too. */
	{
		char *d = kb_xstrdup(f->path), *slash;

		while ((slash = strrchr(d, '/')) && slash > d + strlen(tree)) {
			*slash = 0;
			if (exists(d))
				break;
			f->made = realloc(f->made, (f->nmade + 1) * sizeof(*f->made));
			if (!f->made)
				kb_die("out of memory");
			f->made[f->nmade++] = kb_xstrdup(d);
		}
		free(d);
	}
	return 0;
}

/* Write data to path atomically (a temporary file in the same directory, renamed over it). */
static int write_atomic(const char *path, const char *data, size_t len, mode_t mode)
{
	char *tmp = xprintf("%s.kvmbench-XXXXXX", path);
	int fd = mkstemp(tmp), err = 0;
	size_t off = 0;

	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	if (fchmod(fd, mode))
		err = -errno;
	while (!err && off < len) {
		ssize_t w = write(fd, data + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			err = w < 0 ? -errno : -EIO;
		else
			off += (size_t)w;
	}
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

static void mkdirs_for(const char *path)
{
	char *d = kb_xstrdup(path);

	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(d, 0755);
			*p = '/';
		}
	free(d);
}

/* Put every snapshotted file back and check it; the problems, if any, go to 'problems'. */
static int snap_restore(const struct snapshot *s, struct buf *problems)
{
	int bad = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct snap_file *f = &s->f[i];
		char *now = NULL;
		size_t len = 0;
		int err;

		if (f->existed) {
			if (!read_whole(f->path, &now, &len) && len == f->len && !memcmp(now, f->data, len)) {
				struct stat st;

				if (!stat(f->path, &st) && (st.st_mode & 07777) != f->mode)
					chmod(f->path, f->mode);
				free(now);
				continue;
			}
			free(now);
			mkdirs_for(f->path);
			err = write_atomic(f->path, f->data, f->len, f->mode);
			if (err) {
				buf_printf(problems, "%s could not be restored: %s; ", f->path, strerror(-err));
				bad = 1;
			}
		} else {
			if (unlink(f->path) && errno != ENOENT) {
				buf_printf(problems, "%s (created by the patch) could not be removed: %s; ", f->path,
					   strerror(errno));
				bad = 1;
			}
			for (size_t k = 0; k < f->nmade; k++)
				rmdir(f->made[k]);
		}
	}
	/* Check: byte-identical files, absent files absent. */
	for (size_t i = 0; i < s->n && !bad; i++) {
		const struct snap_file *f = &s->f[i];
		char *now = NULL;
		size_t len = 0;

		if (f->existed) {
			if (read_whole(f->path, &now, &len) || len != f->len || memcmp(now, f->data, len)) {
				buf_printf(problems, "%s differs from its snapshot after the restore; ", f->path);
				bad = 1;
			}
			free(now);
		} else if (exists(f->path)) {
			buf_printf(problems, "%s still exists after the restore; ", f->path);
			bad = 1;
		}
	}
	return bad ? -EIO : 0;
}

/* The signals that interrupt an apply or revert (those not ignored), blocked meanwhile; SIGPIPE
 * (progress written to a closed pipe) is blocked too, so that it cannot kill a half-done change. */
struct sigguard {
	sigset_t set, old;
};

static void sig_block(struct sigguard *g)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	sigset_t block;

	sigemptyset(&g->set);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct sigaction sa;

		if (!sigaction(sigs[i], NULL, &sa) && sa.sa_handler != SIG_IGN)
			sigaddset(&g->set, sigs[i]);
	}
	block = g->set;
	sigaddset(&block, SIGPIPE);
	sigprocmask(SIG_BLOCK, &block, &g->old);
}

/* A pending interrupting signal, taken (0 when none); waits up to 'seconds' for one. */
static int sig_take(struct sigguard *g, double seconds)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	int sig;

	do
		sig = sigtimedwait(&g->set, NULL, &ts);
	while (sig < 0 && errno == EINTR);
	return sig > 0 ? sig : 0;
}

static void sig_release(struct sigguard *g)
{
	sigprocmask(SIG_SETMASK, &g->old, NULL);
}

static double test_delay(void)
{
	const char *s = getenv("KB_TEST_APPLY_DELAY");
	char *end;
	double d;

	if (!s || !*s)
		return 0;
	d = strtod(s, &end);
	return *end || d < 0 || d > 3600 ? 0 : d;
}

static json_object *record_load(const char *tree, int *err)
{
	char *path = xprintf("%s/%s", tree, KB_PATCHES_RECORD), *text = NULL;
	json_object *rec, *a;
	int rc;

	*err = 0;
	rc = read_whole(path, &text, NULL);
	if (rc == -ENOENT) {
		free(path);
		return NULL;
	}
	if (rc) {
		*err = kb_fail(rc, "%s: %s", path, strerror(-rc));
		free(path);
		return NULL;
	}
	rec = json_tokener_parse(text);
	free(text);
	a = member(rec, "applied");
	if (!rec || !mstr(rec, "schema") || strcmp(mstr(rec, "schema"), "kvmbench-applied-patches") ||
	    !a || !json_object_is_type(a, json_type_array)) {
		json_object_put(rec);
		*err = kb_fail(EINVAL, "%s is not a record kvmbench wrote (schema kvmbench-applied-patches): move it away or revert by hand",
			       path);
		free(path);
		return NULL;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i), *files = member(e, "files");
		bool ok = mstr(e, "feature") && mstr(e, "patch") && mstr(e, "diff") && files &&
			  json_object_is_type(files, json_type_array);

		for (size_t k = 0; ok && k < json_object_array_length(files); k++) {
			json_object *fj = json_object_array_get_idx(files, k);

			ok = json_object_is_type(fj, json_type_string) && safe_relpath(json_object_get_string(fj));
		}
		/* Revert snapshots 'files': the diff may touch nothing else. */
		if (ok) {
			char **touched = NULL;
			size_t nt = diff_paths(mstr(e, "diff"), &touched);

			for (size_t k = 0; k < nt; k++) {
				bool listed = false;

				for (size_t m = 0; m < json_object_array_length(files); m++)
					listed |= !strcmp(touched[k], json_object_get_string(json_object_array_get_idx(files, m)));
				ok &= listed;
				free(touched[k]);
			}
			free(touched);
			ok &= nt > 0;
		}
		if (!ok) {
			json_object_put(rec);
			*err = kb_fail(EINVAL, "%s: entry %zu lacks feature, patch, files or diff, or its diff touches files it does not list: the record is damaged (revert by hand with patch -R)",
				       path, i + 1);
			free(path);
			return NULL;
		}
	}
	free(path);
	return rec;
}

static int record_write(const char *tree, json_object *rec)
{
	char *path = xprintf("%s/%s", tree, KB_PATCHES_RECORD);
	const char *text = json_object_to_json_string_ext(rec, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	struct buf b = { 0 };
	int err;

	buf_printf(&b, "%s\n", text);
	err = write_atomic(path, b.p, b.len, 0644);
	if (err)
		err = kb_fail(err, "cannot write %s: %s", path, strerror(-err));
	free(b.p);
	free(path);
	return err;
}

/* Up-front check that the user may change 'path' ("apply"/"revert" in the message). */
static int check_writable(const char *path, const char *verb)
{
	struct stat st;
	int err;

	if (!faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
		return 0;
	err = errno;
	if (err == EROFS)
		return kb_fail(err, "%s is on a read-only file system: cannot %s patches there; nothing was changed", path, verb);
	if ((err == EACCES || err == EPERM) && !stat(path, &st)) {
		if (st.st_uid == 0 && geteuid() != 0)
			return kb_fail(err, "%s is not writable by this user (uid %u): it is owned by root, and to %s patches on a root-owned tree you need root (e.g. sudo kvmbench patches %s ...); nothing was changed",
				       path, (unsigned)geteuid(), verb, verb);
		if (st.st_uid == geteuid())
			return kb_fail(err, "%s is not writable (mode %03o): make it writable (chmod u+w) to %s patches; nothing was changed",
				       path, (unsigned)(st.st_mode & 0777), verb);
		return kb_fail(err, "%s is not writable by this user (uid %u; owner uid %u, mode %03o): run as its owner to %s patches; nothing was changed",
			       path, (unsigned)geteuid(), (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777), verb);
	}
	return kb_fail(err, "%s: %s; nothing was changed", path, strerror(err));
}

/* The tree top, and for each file the file (if it exists) and its nearest existing directory. */
static int check_tree_writable(const char *tree, char *const *files, size_t n, const char *verb)
{
	int err = check_writable(tree, verb);

	for (size_t i = 0; !err && i < n; i++) {
		char *p = xprintf("%s/%s", tree, files[i]), *slash;

		if (exists(p))
			err = check_writable(p, verb);
		while (!err && (slash = strrchr(p, '/')) && slash > p) {
			*slash = 0;
			if (exists(p)) {
				err = check_writable(p, verb);
				break;
			}
		}
		free(p);
	}
	return err;
}

static const char *signame(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	case SIGQUIT: return "SIGQUIT";
	}
	return "a signal";
}

/* One step of an apply or revert: what it needs from a patch. */
struct step {
	const char *feature;
	const char *file;       /* bundle patch file (apply) */
	const char *text;       /* recorded diff (revert) */
	char *const *files;
	size_t nfiles;
	struct kb_patch shown;  /* for the progress callback */
};

static bool shares_file(const struct step *a, const struct step *b)
{
	for (size_t i = 0; i < a->nfiles; i++)
		for (size_t k = 0; k < b->nfiles; k++)
			if (!strcmp(a->files[i], b->files[k]))
				return true;
	return false;
}

/*
 * The common part of apply and revert: dry-run each step (a step sharing a file with an earlier
 * one is checked by the real run instead), snapshot, run them with the interrupting signals
 * blocked, then 'commit' (write or remove the record); restore on any failure.
 */
static int run_steps(const char *tree, struct step *steps, size_t n, bool reverse,
		     int (*commit)(const char *tree, void *arg), void *commit_arg,
		     kb_patch_progress_fn *progress, void *parg, json_object *rep)
{
	json_object *checks = json_object_new_array(), *done = json_object_new_array();
	struct snapshot snap = { 0 };
	struct sigguard g;
	struct buf problems = { 0 };
	double delay = test_delay();
	const char *verb = reverse ? "revert" : "apply";
	int err = 0, sig = 0;

	json_object_object_add(rep, "checks", checks);
	json_object_object_add(rep, reverse ? "reverted" : "applied", done);
	for (size_t i = 0; i < n; i++) {
		json_object *c = json_object_new_object();
		bool later = false;
		int rc;

		for (size_t k = 0; k < i; k++)
			later |= shares_file(&steps[k], &steps[i]);
		add_str(c, "feature", steps[i].feature);
		json_object_array_add(checks, c);
		if (later) {
			add_str(c, "note", "shares a file with an earlier patch: checked by running it (the snapshot covers it)");
			continue;
		}
		rc = patch_file_or_text(tree, steps[i].file, steps[i].text, reverse, true, NULL, c);
		if (rc) {
			add_str(rep, "result", "conflict");
			add_str(rep, "failed_feature", steps[i].feature);
			return kb_fail(ECANCELED, "the patch of %s does not %s cleanly to %s (%s: exit status %d; its output is below); nothing was changed",
				       steps[i].feature, reverse ? "reverse-apply" : "apply", tree,
				       patch_command(reverse, true), rc);
		}
	}
	for (size_t i = 0; i < n && !err; i++)
		for (size_t k = 0; k < steps[i].nfiles && !err; k++)
			err = snap_add(&snap, tree, steps[i].files[k]);
	if (err) {
		add_str(rep, "result", "error");
		snap_free(&snap);
		return err;
	}
	sig_block(&g);
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object();
		int rc;

		if ((sig = sig_take(&g, 0)))
			break;
		if (progress)
			progress(reverse ? "reverting" : "applying", &steps[i].shown, parg);
		add_str(o, "feature", steps[i].feature);
		json_object_array_add(done, o);
		rc = patch_file_or_text(tree, steps[i].file, steps[i].text, reverse, false, &g.old, o);
		if (rc) {
			add_str(rep, "result", "failed");
			add_str(rep, "failed_feature", steps[i].feature);
			err = kb_fail(ECANCELED, "the patch of %s failed to %s (%s: exit status %d; its output is below)",
				      steps[i].feature, verb, patch_command(reverse, false), rc);
			break;
		}
		if (progress)
			progress(reverse ? "reverted" : "applied", &steps[i].shown, parg);
		if (delay > 0 && (sig = sig_take(&g, delay)))
			break;
	}
	if (!err && !sig && !(sig = sig_take(&g, 0))) {
		err = commit(tree, commit_arg);
		if (err)
			add_str(rep, "result", "error");
	}
	if (err || sig) {
		char msg[1024];
		int rerr;

		snprintf(msg, sizeof(msg), "%s", err ? kb_last_error() : "");
		rerr = snap_restore(&snap, &problems);
		json_object_object_add(rep, "restored", json_object_new_boolean(!rerr));
		if (sig) {
			add_str(rep, "result", "interrupted");
			json_object_object_add(rep, "signal", json_object_new_int(sig));
			add_str(rep, "signal_name", signame(sig));
			err = rerr ? kb_fail(EINTR, "interrupted by %s, and the tree could NOT be restored: %s", signame(sig), problems.p)
				   : kb_fail(EINTR, "interrupted by %s: the tree was restored as it was", signame(sig));
		} else if (rerr) {
			kb_fail(err, "%s; restoring the tree FAILED: %s", msg, problems.p);
		} else {
			kb_fail(err, "%s; the tree was restored as it was", msg);
		}
		free(problems.p);
	}
	sig_release(&g);
	snap_free(&snap);
	return err;
}

/* ---- apply and revert ----------------------------------------------------------------------- */

struct apply_commit {
	json_object *rec;
};

static int apply_commit(const char *tree, void *arg)
{
	return record_write(tree, ((struct apply_commit *)arg)->rec);
}

static int revert_commit(const char *tree, void *arg)
{
	char *path = xprintf("%s/%s", tree, KB_PATCHES_RECORD);
	int err = 0;

	(void)arg;
	if (unlink(path))
		err = kb_fail(errno, "cannot remove %s: %s", path, strerror(errno));
	free(path);
	return err;
}

static int cmp_feature_patch(const void *a, const void *b)
{
	const struct kb_feature *x = *(const struct kb_feature *const *)a, *y = *(const struct kb_feature *const *)b;

	return strcmp(x->patch->file, y->patch->file);
}

static void iso_now(char *buf, size_t size)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int kb_patches_apply(const struct kb_bundle *b, const struct kb_tree *t, char *const *ids, size_t nids,
		     kb_patch_progress_fn *progress, void *arg, json_object **report)
{
	json_object *rep = json_object_new_object(), *skipped = json_object_new_array(), *rec = NULL, *sel_j;
	const struct kb_feature **sel = kb_xcalloc(b->nfeatures + 1, sizeof(*sel));
	const char *arch = host_arch();
	struct fcache c = { .tree = t->dir };
	struct step *steps = NULL;
	struct apply_commit ac = { 0 };
	size_t nsel = 0, nsteps = 0;
	char **files = NULL;
	size_t nfiles = 0;
	int err = 0, rerr;

	*report = rep;
	json_object_object_add(rep, "bundle", kb_bundle_origin_json(b));
	json_object_object_add(rep, "tree", tree_json(t));
	json_object_object_add(rep, "skipped", skipped);
	/* What was asked for. */
	for (size_t i = 0; i < nids && !err; i++) {
		const struct kb_feature *f = kb_bundle_feature(b, ids[i]);
		bool dup = false;

		if (!f) {
			err = check_ids(b, ids + i, 1);
			break;
		}
		if (!strcmp(f->status, "known-bad"))
			err = kb_fail(EPERM, "'%s' is a known-bad change (%s): kvmbench never offers or applies it", f->id, f->title);
		else if (!f->patch)
			err = kb_fail(EINVAL, "'%s' is an upstream feature: kvmbench has no patch for it ('kvmbench patches list' shows the bundled ones)",
				      f->id);
		for (size_t k = 0; k < nsel; k++)
			dup |= sel[k] == f;
		if (!err && !dup)
			sel[nsel++] = f;
	}
	if (!nids)
		for (size_t i = 0; i < b->nfeatures; i++)
			if (b->features[i].patch)
				sel[nsel++] = &b->features[i];
	if (err)
		goto out;
	if (!find_program("patch")) {
		err = kb_fail(ENOENT, "patch(1) is not installed: apt-get install patch (Debian package 'patch'); nothing was changed");
		goto out;
	}
	rec = record_load(t->dir, &rerr);
	if (rerr) {
		err = rerr;
		goto out;
	}
	/* What the tree says about each: apply only what it lacks. */
	for (size_t i = 0; i < nsel && !err; i++) {
		const struct kb_feature *f = sel[i];
		json_object *fe = json_object_new_object();
		char *why = NULL, *skip = NULL;
		enum pre_verdict pv = source_verdict(f, &c, arch, fe, &why);

		json_object_put(fe);
		if (rec && record_has(rec, f->id))
			skip = xprintf("already applied by kvmbench (recorded in %s/%s): 'kvmbench patches revert' undoes it",
				       t->dir, KB_PATCHES_RECORD);
		else if (pv != PV_PATCHABLE)
			skip = xprintf("%s: %s", pre_verdict_name(pv, false), why);
		free(why);
		if (skip && nids) {
			err = kb_fail(EINVAL, "%s cannot be applied to %s: %s; nothing was changed", f->id, t->dir, skip);
		} else if (skip) {
			json_object *s = json_object_new_object();

			add_str(s, "feature", f->id);
			add_str(s, "reason", skip);
			json_object_array_add(skipped, s);
			sel[i] = NULL;
		}
		free(skip);
	}
	if (err)
		goto out;
	for (size_t i = 0; i < nsel; i++)
		if (sel[i])
			sel[nsteps++] = sel[i];
	nsel = nsteps;
	sel_j = json_object_new_array();
	for (size_t i = 0; i < nsel; i++)
		json_object_array_add(sel_j, json_object_new_string(sel[i]->id));
	json_object_object_add(rep, "selected", sel_j);
	if (!nsel) {
		add_str(rep, "result", "nothing-to-apply");
		json_object_object_add(rep, "applied", json_object_new_array());
		goto out;
	}
	qsort(sel, nsel, sizeof(*sel), cmp_feature_patch);
	steps = kb_xcalloc(nsel, sizeof(*steps));
	for (size_t i = 0; i < nsel; i++) {
		steps[i].feature = sel[i]->id;
		steps[i].file = sel[i]->patch->path;
		steps[i].files = sel[i]->patch->files;
		steps[i].nfiles = sel[i]->patch->nfiles;
		steps[i].shown = *sel[i]->patch;
		for (size_t k = 0; k < sel[i]->patch->nfiles; k++) {
			files = realloc(files, (nfiles + 1) * sizeof(*files));
			if (!files)
				kb_die("out of memory");
			files[nfiles++] = sel[i]->patch->files[k];
		}
	}
	err = check_tree_writable(t->dir, files, nfiles, "apply");
	if (err)
		goto out;
	/* The record after the apply: what was there plus these, with their diffs for revert. */
	ac.rec = rec ? json_object_get(rec) : json_object_new_object();
	if (!rec) {
		add_str(ac.rec, "schema", "kvmbench-applied-patches");
		json_object_object_add(ac.rec, "schema_version", json_object_new_int(1));
		json_object_object_add(ac.rec, "applied", json_object_new_array());
	}
	add_str(ac.rec, "tree_version", t->version);
	add_str(ac.rec, "kvmbench_version", PACKAGE_VERSION);
	for (size_t i = 0; i < nsel; i++) {
		json_object *e = json_object_new_object();
		char when[32], *text = NULL;

		if ((err = read_whole(sel[i]->patch->path, &text, NULL))) {
			json_object_put(e);
			err = kb_fail(err, "%s: %s", sel[i]->patch->path, strerror(-err));
			goto out;
		}
		iso_now(when, sizeof(when));
		add_str(e, "feature", sel[i]->id);
		add_str(e, "patch", sel[i]->patch->file);
		add_str(e, "title", sel[i]->patch->title);
		json_object_object_add(e, "files", strings_json(sel[i]->patch->files, sel[i]->patch->nfiles));
		add_str(e, "bundle", b->dir);
		add_str(e, "applied_at", when);
		add_str(e, "diff", text);
		free(text);
		json_object_array_add(member(ac.rec, "applied"), e);
	}
	err = run_steps(t->dir, steps, nsel, false, apply_commit, &ac, progress, arg, rep);
	if (!err) {
		add_str(rep, "result", "applied");
		add_str(rep, "record", KB_PATCHES_RECORD);
	}
out:
	if (err && !member(rep, "result"))
		add_str(rep, "result", "error");
	if (err)
		add_str(rep, "error", kb_last_error());
	json_object_put(ac.rec);
	json_object_put(rec);
	fcache_free(&c);
	free(files);
	free(steps);
	free(sel);
	return err;
}

int kb_patches_revert(const struct kb_tree *t, kb_patch_progress_fn *progress, void *arg, json_object **report)
{
	json_object *rep = json_object_new_object(), *rec, *a;
	struct step *steps = NULL;
	char **files = NULL, ***lists = NULL;
	size_t n = 0, nfiles = 0;
	int err = 0, rerr;

	*report = rep;
	json_object_object_add(rep, "tree", tree_json(t));
	rec = record_load(t->dir, &rerr);
	if (rerr) {
		err = rerr;
		goto out;
	}
	if (!rec) {
		err = kb_fail(ENOENT, "%s has no record of patches applied by kvmbench (%s): nothing to revert; nothing was changed",
			      t->dir, KB_PATCHES_RECORD);
		goto out;
	}
	if (!find_program("patch")) {
		err = kb_fail(ENOENT, "patch(1) is not installed: apt-get install patch (Debian package 'patch'); nothing was changed");
		goto out;
	}
	a = member(rec, "applied");
	n = json_object_array_length(a);
	steps = kb_xcalloc(n + 1, sizeof(*steps));
	lists = kb_xcalloc(n + 1, sizeof(*lists));
	/* Reverse order: the last applied is undone first. */
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, n - 1 - i), *fl = member(e, "files");
		struct step *s = &steps[i];

		s->feature = mstr(e, "feature");
		s->text = mstr(e, "diff");
		s->nfiles = json_object_array_length(fl);
		lists[i] = kb_xcalloc(s->nfiles + 1, sizeof(char *));
		for (size_t k = 0; k < s->nfiles; k++) {
			lists[i][k] = (char *)json_object_get_string(json_object_array_get_idx(fl, k));
			files = realloc(files, (nfiles + 1) * sizeof(*files));
			if (!files)
				kb_die("out of memory");
			files[nfiles++] = lists[i][k];
		}
		s->files = lists[i];
		s->shown.file = (char *)mstr(e, "patch");
		s->shown.feature = (char *)s->feature;
		s->shown.title = (char *)mstr(e, "title");
		s->shown.files = lists[i];
		s->shown.nfiles = s->nfiles;
	}
	err = check_tree_writable(t->dir, files, nfiles, "revert");
	if (err)
		goto out;
	err = run_steps(t->dir, steps, n, true, revert_commit, NULL, progress, arg, rep);
	if (!err)
		add_str(rep, "result", "reverted");
out:
	if (err && !member(rep, "result"))
		add_str(rep, "result", "error");
	if (err)
		add_str(rep, "error", kb_last_error());
	for (size_t i = 0; lists && i < n; i++)
		free(lists[i]);
	free(lists);
	free(files);
	free(steps);
	json_object_put(rec);
	return err;
}
