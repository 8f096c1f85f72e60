/* cpu.c: CPU knowledge: raw CPUID (live via libcpuid or read from a dump), the microarchitecture
 * table, PMU and virtualization decoding, and the "what matters on this host" advice table. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libcpuid/libcpuid.h>

#include "cpu.h"
#include "kb.h"

/* ------------------------------------------------------------------ files */

/* No CPUID dump or topology comes near this; a device such as /dev/zero would never end. */
#define KB_READ_MAX ((size_t)64 << 20)

static int read_fd(int fd, char **buf, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap);

	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap >= KB_READ_MAX) {
				free(b);
				return -EFBIG;
			}
			nb = realloc(b, cap * 2);

			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			free(b);
			return err;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

static bool is_xz(const char *b, size_t len)
{
	static const unsigned char magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	return len >= sizeof(magic) && !memcmp(b, magic, sizeof(magic));
}

static int unxz(const char *path, const char *in, size_t inlen, char **out, size_t *outlen)
{
	lzma_stream z = LZMA_STREAM_INIT;
	size_t cap = inlen * 8 + 4096;
	char *o = malloc(cap);
	lzma_ret r;

	if (!o)
		return -ENOMEM;
	if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
		free(o);
		return kb_fail(ENOMEM, "%s: cannot start the xz decoder (liblzma): out of memory", path);
	}
	z.next_in = (const uint8_t *)in;
	z.avail_in = inlen;
	z.next_out = (uint8_t *)o;
	z.avail_out = cap - 1;
	do {
		if (!z.avail_out) {
			size_t used = cap - 1, ncap = cap * 2 > KB_READ_MAX + 1 ? KB_READ_MAX + 1 : cap * 2;
			char *no;

			if (ncap <= cap) {
				lzma_end(&z);
				free(o);
				return kb_fail(EFBIG, "%s: decompresses to more than %zu MiB: not a file kvmbench reads",
					       path, KB_READ_MAX >> 20);
			}
			no = realloc(o, ncap);
			if (!no) {
				lzma_end(&z);
				free(o);
				return -ENOMEM;
			}
			o = no;
			cap = ncap;
			z.next_out = (uint8_t *)o + used;
			z.avail_out = cap - 1 - used;
		}
		r = lzma_code(&z, LZMA_FINISH);
	} while (r == LZMA_OK);
	*outlen = (size_t)z.total_out;
	lzma_end(&z);
	if (r != LZMA_STREAM_END) {
		free(o);
		return kb_fail(EINVAL, "%s: xz data is damaged or truncated (liblzma error %d); re-fetch the file",
			       path, (int)r);
	}
	o[*outlen] = 0;
	*out = o;
	return 0;
}

int kb_read_file(const char *path, char **buf, size_t *len)
{
	char *raw = NULL;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int err;

	if (fd < 0)
		return kb_fail(errno, "%s: cannot open: %s (check the path)", path, strerror(errno));
	err = read_fd(fd, &raw, &n);
	close(fd);
	if (err == -EFBIG)
		return kb_fail(err, "%s: larger than %zu MiB (or endless, like a device): not a file kvmbench reads",
			       path, KB_READ_MAX >> 20);
	if (err)
		return kb_fail(err, "%s: cannot read: %s", path, strerror(-err));
	if (!is_xz(raw, n)) {
		*buf = raw;
		*len = n;
		return 0;
	}
	err = unxz(path, raw, n, buf, len);
	free(raw);
	return err;
}

/* ------------------------------------------------------------------ raw CPUID sets */

/* Room for one more element in a growing array of *cap elements holding n. */
static void *grow(void *arr, size_t n, size_t *cap, size_t elem)
{
	size_t ncap;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 16;
	arr = realloc(arr, ncap * elem);
	if (!arr)
		kb_die("out of memory reading CPUID data");
	*cap = ncap;
	return arr;
}

static struct kb_cpuid_cpu *add_cpu(struct kb_cpuid_set *s, int os_index)
{
	struct kb_cpuid_cpu *c;

	s->cpu = grow(s->cpu, s->ncpus, &s->cap, sizeof(*s->cpu));
	c = &s->cpu[s->ncpus++];
	memset(c, 0, sizeof(*c));
	c->os_index = os_index;
	return c;
}

static void add_entry(struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub, const uint32_t r[4])
{
	struct kb_cpuid_entry *e;

	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].leaf == leaf && c->e[i].subleaf == sub) {
			memcpy(c->e[i].r, r, sizeof(c->e[i].r));
			return;
		}
	c->e = grow(c->e, c->n, &c->cap, sizeof(*c->e));
	e = &c->e[c->n++];
	e->leaf = leaf;
	e->subleaf = sub;
	memcpy(e->r, r, sizeof(e->r));
}

static const struct kb_cpuid_entry *find_entry(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t sub)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->e[i].leaf == leaf && c->e[i].subleaf == sub)
			return &c->e[i];
	return NULL;
}

bool kb_cpuid_get(const struct kb_cpuid_cpu *c, uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	uint32_t range = leaf & 0xffff0000u;
	const struct kb_cpuid_entry *max = find_entry(c, range == 0x40000000u ? leaf & 0xffffff00u : range, 0);
	const struct kb_cpuid_entry *e;

	/* Past the maximum leaf a CPU answers with unrelated data, which a dump may have recorded. */
	if (!max || (leaf != max->leaf && leaf > max->r[0]))
		return false;
	e = find_entry(c, leaf, subleaf);
	if (!e)
		return false;
	memcpy(r, e->r, sizeof(e->r));
	return true;
}

void kb_cpuid_free(struct kb_cpuid_set *s)
{
	for (size_t i = 0; i < s->ncpus; i++)
		free(s->cpu[i].e);
	free(s->cpu);
	memset(s, 0, sizeof(*s));
}

/* libcpuid's own serialisation: NAME[INDEX]=EAX EBX ECX EDX, one array per leaf family. */
static const struct {
	const char *name;
	uint32_t leaf;      /* the index is added to the leaf ... */
	bool index_is_sub;  /* ... or is the subleaf */
} libcpuid_arrays[] = {
	{ "basic_cpuid", 0x0, false },
	{ "ext_cpuid", 0x80000000u, false },
	{ "intel_fn4", 0x4, true },
	{ "intel_fn11", 0xb, true },
	{ "intel_fn12h", 0x12, true },
	{ "intel_fn14h", 0x14, true },
	{ "amd_fn8000001dh", 0x8000001du, true },
};

static bool parse_libcpuid_line(struct kb_cpuid_set *s, struct kb_cpuid_cpu **cur, const char *line)
{
	char name[32];
	unsigned int idx;
	uint32_t r[4];

	if (sscanf(line, "%31[a-z0-9_][%u]=%x %x %x %x", name, &idx, &r[0], &r[1], &r[2], &r[3]) != 6)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(libcpuid_arrays); i++) {
		if (strcmp(name, libcpuid_arrays[i].name))
			continue;
		if (!*cur)
			*cur = add_cpu(s, 0);
		if (libcpuid_arrays[i].index_is_sub)
			add_entry(*cur, libcpuid_arrays[i].leaf, idx, r);
		else
			add_entry(*cur, libcpuid_arrays[i].leaf + idx, 0, r);
		return true;
	}
	return false;
}

/* AIDA64 and InstLatX64: "CPUID 0000000B: 00000001-00000002-00000100-00000000 [SL 00]". */
static bool parse_aida_line(struct kb_cpuid_set *s, struct kb_cpuid_cpu **cur, const char *line)
{
	uint32_t leaf, sub = 0, r[4];
	const char *sl;

	if (sscanf(line, "CPUID %x: %x-%x-%x-%x", &leaf, &r[0], &r[1], &r[2], &r[3]) != 5)
		return false;
	if (!*cur)
		*cur = add_cpu(s, 0);
	sl = strstr(line, "[SL ");
	if (sl)
		sub = (uint32_t)strtoul(sl + 4, NULL, 16);
	else if ((*cur)->n && (*cur)->e[(*cur)->n - 1].leaf == leaf)
		/* Older AIDA64 dumps list a leaf's subleaves in order, without "[SL nn]". */
		sub = (*cur)->e[(*cur)->n - 1].subleaf + 1;
	add_entry(*cur, leaf, sub, r);
	return true;
}

static bool is_dash_line(const char *line, size_t len)
{
	if (len < 40)
		return false;
	for (size_t i = 0; i < len; i++)
		if (line[i] != '-')
			return false;
	return true;
}

int kb_cpuid_parse(struct kb_cpuid_set *s, const char *text)
{
	struct kb_cpuid_cpu *cur = NULL;
	const char *p = text;
	char line[512];
	bool blocks = false;

	memset(s, 0, sizeof(*s));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *hash;

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' '))
			len--;
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = 0;
		p = nl ? nl + 1 : p + strlen(p);

		/* The dumps carry expected decodings after a line of dashes: not CPUID data. */
		if (is_dash_line(line, len))
			break;
		if ((hash = strstr(line, "Logical CPU #")) || (!strncmp(line, "CPU#", 4) && strstr(line, "AffMask"))) {
			int idx = atoi(hash ? hash + strlen("Logical CPU #") : line + 4);

			cur = add_cpu(s, idx);
			blocks = true;
			continue;
		}
		if (!parse_aida_line(s, &cur, line))
			parse_libcpuid_line(s, &cur, line);
	}
	if (!s->ncpus || !find_entry(&s->cpu[0], 0, 0)) {
		kb_cpuid_free(s);
		return kb_fail(EINVAL, "no CPUID leaf 0 found: not a raw CPUID dump in a known format "
			       "(libcpuid 'basic_cpuid[N]=', AIDA64 'CPUID xxxxxxxx:' blocks, InstLatX64 'CPU#000 AffMask')");
	}
	s->per_cpu = blocks;
	return 0;
}

int kb_cpuid_read_file(struct kb_cpuid_set *s, const char *path)
{
	char *buf;
	size_t len;
	int err = kb_read_file(path, &buf, &len);

	if (err)
		return err;
	err = kb_cpuid_parse(s, buf);
	free(buf);
	if (err) {
		char why[512];

		snprintf(why, sizeof(why), "%s", kb_last_error());
		return kb_fail(err, "%s: %s", path, why);
	}
	snprintf(s->source, sizeof(s->source), "%s", path);
	return 0;
}

/* ------------------------------------------------------------------ this machine's CPUID */

static void exec_cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4])
{
	uint32_t regs[4] = { leaf, 0, sub, 0 };

	cpu_exec_cpuid_ext(regs);
	memcpy(r, regs, sizeof(regs));
}

/* Leaves with subleaves, how many at most, and whether an empty subleaf ends the list. */
static const struct {
	uint32_t leaf;
	uint32_t max_sub;
	enum { SUB_FIXED, SUB_CACHE_TYPE, SUB_TOPO_LEVEL } end;
} subleaf_leaves[] = {
	{ 0x4, 16, SUB_CACHE_TYPE },
	{ 0x7, 3, SUB_FIXED },
	{ 0xb, 8, SUB_TOPO_LEVEL },
	{ 0xd, 20, SUB_FIXED },
	{ 0xf, 4, SUB_FIXED },
	{ 0x10, 4, SUB_FIXED },
	{ 0x12, 4, SUB_FIXED },
	{ 0x14, 2, SUB_FIXED },
	{ 0x18, 8, SUB_FIXED },
	{ 0x1f, 8, SUB_TOPO_LEVEL },
	{ 0x23, 4, SUB_FIXED },
	{ 0x8000001du, 8, SUB_CACHE_TYPE },
	{ 0x80000020u, 4, SUB_FIXED },
	{ 0x80000026u, 4, SUB_TOPO_LEVEL },
};

static void collect_leaf(struct kb_cpuid_cpu *c, uint32_t leaf)
{
	uint32_t r[4];

	for (size_t i = 0; i < ARRAY_SIZE(subleaf_leaves); i++) {
		if (subleaf_leaves[i].leaf != leaf)
			continue;
		for (uint32_t sub = 0; sub < subleaf_leaves[i].max_sub; sub++) {
			exec_cpuid(leaf, sub, r);
			if (sub && subleaf_leaves[i].end == SUB_CACHE_TYPE && !(r[0] & 0x1f))
				break;
			if (sub && subleaf_leaves[i].end == SUB_TOPO_LEVEL && !(r[2] & 0xff00))
				break;
			add_entry(c, leaf, sub, r);
		}
		return;
	}
	exec_cpuid(leaf, 0, r);
	add_entry(c, leaf, 0, r);
}

static void collect_range(struct kb_cpuid_cpu *c, uint32_t base, uint32_t limit)
{
	uint32_t r[4], max;

	exec_cpuid(base, 0, r);
	max = r[0];
	if (max < base || max > base + limit)
		max = max < base ? base : base + limit;
	for (uint32_t leaf = base; leaf <= max; leaf++)
		collect_leaf(c, leaf);
}

static void collect_this_cpu(struct kb_cpuid_cpu *c)
{
	uint32_t r[4];

	collect_range(c, 0, 0x3f);
	exec_cpuid(1, 0, r);
	if (r[2] & (1u << 31)) {
		collect_range(c, 0x40000000u, 0x20);
		/* A hypervisor offering Hyper-V's interface names itself in the second range. */
		collect_range(c, 0x40000100u, 0x20);
	}
	collect_range(c, 0x80000000u, 0x40);
}

int kb_cpuid_collect(struct kb_cpuid_set *s)
{
	long nconf = sysconf(_SC_NPROCESSORS_CONF);
	int nvisit = nconf > 0 ? (int)nconf : 1, ncpu = nvisit;
	size_t size;
	cpu_set_t *orig, *one;

	memset(s, 0, sizeof(*s));
	if (!cpuid_present())
		return kb_fail(ENODEV, "this CPU has no CPUID instruction: kvmbench needs an x86-64 host");
	if (ncpu < CPU_SETSIZE)
		ncpu = CPU_SETSIZE;
	size = CPU_ALLOC_SIZE(ncpu);
	orig = CPU_ALLOC(ncpu);
	one = CPU_ALLOC(ncpu);
	if (!orig || !one)
		kb_die("out of memory");
	if (sched_getaffinity(0, size, orig)) {
		int err = errno;

		CPU_FREE(orig);
		CPU_FREE(one);
		return kb_fail(err, "reading this thread's CPU affinity: %s", strerror(err));
	}
	/* CPUID answers for the CPU it runs on (APIC IDs, hybrid core types): visit each one this process
	 * may use, even when this thread is pinned; offline CPUs and CPUs outside its cpuset refuse. */
	for (int cpu = 0; cpu < nvisit; cpu++) {
		CPU_ZERO_S(size, one);
		CPU_SET_S(cpu, size, one);
		if (sched_setaffinity(0, size, one))
			continue;
		collect_this_cpu(add_cpu(s, cpu));
	}
	sched_setaffinity(0, size, orig);
	CPU_FREE(orig);
	CPU_FREE(one);
	if (!s->ncpus)
		collect_this_cpu(add_cpu(s, -1));
	s->per_cpu = true;
	snprintf(s->source, sizeof(s->source), "this machine");
	return 0;
}

/* ------------------------------------------------------------------ microarchitecture table */

enum { UA_AMD_PERFMON_V2 = 1 };   /* bare-metal parts have AMD PerfMonV2 */

static const struct uarch_def {
	const char *id, *name;
	unsigned int flags;
} uarch_defs[] = {
	{ "zen", "Zen", 0 },
	{ "zen+", "Zen+", 0 },
	{ "zen2", "Zen 2", 0 },
	{ "zen3", "Zen 3", 0 },
	{ "zen4", "Zen 4", UA_AMD_PERFMON_V2 },
	{ "zen5", "Zen 5", UA_AMD_PERFMON_V2 },
	{ "zen6", "Zen 6", UA_AMD_PERFMON_V2 },
	{ "nehalem", "Nehalem", 0 },
	{ "westmere", "Westmere", 0 },
	{ "sandy-bridge", "Sandy Bridge", 0 },
	{ "ivy-bridge", "Ivy Bridge", 0 },
	{ "haswell", "Haswell", 0 },
	{ "broadwell", "Broadwell", 0 },
	{ "skylake", "Skylake", 0 },
	{ "kaby-lake", "Kaby Lake", 0 },
	{ "coffee-lake", "Coffee Lake", 0 },
	{ "comet-lake", "Comet Lake", 0 },
	{ "cannon-lake", "Cannon Lake", 0 },
	{ "cascade-lake", "Cascade Lake", 0 },
	{ "cooper-lake", "Cooper Lake", 0 },
	{ "ice-lake", "Ice Lake", 0 },
	{ "tiger-lake", "Tiger Lake", 0 },
	{ "rocket-lake", "Rocket Lake", 0 },
	{ "sapphire-rapids", "Sapphire Rapids", 0 },
	{ "emerald-rapids", "Emerald Rapids", 0 },
	{ "granite-rapids", "Granite Rapids", 0 },
	{ "diamond-rapids", "Diamond Rapids", 0 },
	{ "sierra-forest", "Sierra Forest", 0 },
	{ "clearwater-forest", "Clearwater Forest", 0 },
	{ "alder-lake", "Alder Lake", 0 },
	{ "raptor-lake", "Raptor Lake", 0 },
	{ "meteor-lake", "Meteor Lake", 0 },
	{ "lunar-lake", "Lunar Lake", 0 },
	{ "arrow-lake", "Arrow Lake", 0 },
	{ "panther-lake", "Panther Lake", 0 },
	{ "silvermont", "Silvermont", 0 },
	{ "goldmont", "Goldmont", 0 },
	{ "goldmont-plus", "Goldmont Plus", 0 },
	{ "tremont", "Tremont", 0 },
	{ "knights-landing", "Knights Landing", 0 },
	{ "knights-mill", "Knights Mill", 0 },
	{ "unknown", "unknown", 0 },
};

#define INTEL "GenuineIntel"
#define AMD "AuthenticAMD"
#define HYGON "HygonGenuine"
#define ANY_STEP 0x0, 0xf

/*
 * Vendor, display family, model range, stepping range, brand substring (NULL: any) -> id, codename.
 * Public facts: AMD's family 17h/19h/1Ah model ranges (as Linux's bsp_init_amd() sorts them into
 * Zen generations) and Intel's family 6 model numbers (Linux's intel-family.h).  The first
 * matching row wins, so a row with a brand condition comes before the row it refines.
 */
static const struct uarch_row {
	const char *vendor;
	int family, model_lo, model_hi, step_lo, step_hi;
	const char *brand;
	const char *id, *codename;
} uarch_rows[] = {
	/* AMD family 17h: Zen, Zen+, Zen 2 */
	{ AMD, 0x17, 0x00, 0x07, ANY_STEP, "EPYC", "zen", "Naples" },
	{ AMD, 0x17, 0x00, 0x07, ANY_STEP, "Threadripper", "zen", "Whitehaven" },
	{ AMD, 0x17, 0x00, 0x07, ANY_STEP, NULL, "zen", "Summit Ridge" },
	{ AMD, 0x17, 0x08, 0x0f, ANY_STEP, "Threadripper", "zen+", "Colfax" },
	{ AMD, 0x17, 0x08, 0x0f, ANY_STEP, NULL, "zen+", "Pinnacle Ridge" },
	{ AMD, 0x17, 0x10, 0x17, ANY_STEP, NULL, "zen", "Raven Ridge" },
	{ AMD, 0x17, 0x18, 0x1f, ANY_STEP, NULL, "zen+", "Picasso" },
	{ AMD, 0x17, 0x20, 0x2f, ANY_STEP, NULL, "zen", "Dali" },
	{ AMD, 0x17, 0x30, 0x3f, ANY_STEP, "Threadripper", "zen2", "Castle Peak" },
	{ AMD, 0x17, 0x30, 0x3f, ANY_STEP, NULL, "zen2", "Rome" },
	{ AMD, 0x17, 0x40, 0x4f, ANY_STEP, NULL, "zen2", NULL },
	{ AMD, 0x17, 0x50, 0x5f, ANY_STEP, NULL, "zen", NULL },
	{ AMD, 0x17, 0x60, 0x67, ANY_STEP, NULL, "zen2", "Renoir" },
	{ AMD, 0x17, 0x68, 0x6f, ANY_STEP, NULL, "zen2", "Lucienne" },
	{ AMD, 0x17, 0x70, 0x7f, ANY_STEP, NULL, "zen2", "Matisse" },
	{ AMD, 0x17, 0x90, 0x91, ANY_STEP, NULL, "zen2", "Van Gogh" },
	{ AMD, 0x17, 0xa0, 0xaf, ANY_STEP, NULL, "zen2", "Mendocino" },
	/* AMD family 19h: Zen 3, Zen 4 */
	{ AMD, 0x19, 0x00, 0x07, ANY_STEP, NULL, "zen3", "Milan" },
	{ AMD, 0x19, 0x08, 0x0f, ANY_STEP, NULL, "zen3", "Chagall" },
	{ AMD, 0x19, 0x10, 0x17, ANY_STEP, NULL, "zen4", "Genoa" },
	{ AMD, 0x19, 0x18, 0x1f, ANY_STEP, NULL, "zen4", "Storm Peak" },
	{ AMD, 0x19, 0x20, 0x2f, ANY_STEP, NULL, "zen3", "Vermeer" },
	{ AMD, 0x19, 0x30, 0x3f, ANY_STEP, NULL, "zen3", NULL },
	{ AMD, 0x19, 0x40, 0x4f, ANY_STEP, NULL, "zen3", "Rembrandt" },
	{ AMD, 0x19, 0x50, 0x5f, ANY_STEP, NULL, "zen3", "Cezanne" },
	{ AMD, 0x19, 0x60, 0x6f, ANY_STEP, NULL, "zen4", "Raphael" },
	{ AMD, 0x19, 0x70, 0x7f, ANY_STEP, NULL, "zen4", "Phoenix" },
	{ AMD, 0x19, 0x80, 0x9f, ANY_STEP, NULL, "zen4", NULL },
	{ AMD, 0x19, 0xa0, 0xaf, ANY_STEP, "EPYC 8", "zen4", "Siena" },
	{ AMD, 0x19, 0xa0, 0xaf, ANY_STEP, NULL, "zen4", "Bergamo" },
	/* AMD family 1Ah: Zen 5, Zen 6 */
	{ AMD, 0x1a, 0x00, 0x0f, ANY_STEP, NULL, "zen5", "Turin" },
	{ AMD, 0x1a, 0x10, 0x1f, ANY_STEP, NULL, "zen5", "Turin Dense" },
	{ AMD, 0x1a, 0x20, 0x2f, ANY_STEP, NULL, "zen5", "Strix Point" },
	{ AMD, 0x1a, 0x40, 0x4f, ANY_STEP, NULL, "zen5", "Granite Ridge" },
	{ AMD, 0x1a, 0x50, 0x5f, ANY_STEP, NULL, "zen6", NULL },
	{ AMD, 0x1a, 0x60, 0x6f, ANY_STEP, NULL, "zen5", "Krackan Point" },
	{ AMD, 0x1a, 0x70, 0x7f, ANY_STEP, NULL, "zen5", "Strix Halo" },
	{ AMD, 0x1a, 0x80, 0xaf, ANY_STEP, NULL, "zen6", NULL },
	{ AMD, 0x1a, 0xc0, 0xcf, ANY_STEP, NULL, "zen6", NULL },
	/* Hygon family 18h: licensed Zen */
	{ HYGON, 0x18, 0x00, 0x0f, ANY_STEP, NULL, "zen", "Dhyana" },

	/* Intel family 6, big cores */
	{ INTEL, 6, 0x1a, 0x1a, ANY_STEP, NULL, "nehalem", "Nehalem-EP" },
	{ INTEL, 6, 0x1e, 0x1f, ANY_STEP, NULL, "nehalem", "Lynnfield" },
	{ INTEL, 6, 0x2e, 0x2e, ANY_STEP, NULL, "nehalem", "Nehalem-EX" },
	{ INTEL, 6, 0x25, 0x25, ANY_STEP, NULL, "westmere", "Westmere" },
	{ INTEL, 6, 0x2c, 0x2c, ANY_STEP, NULL, "westmere", "Westmere-EP" },
	{ INTEL, 6, 0x2f, 0x2f, ANY_STEP, NULL, "westmere", "Westmere-EX" },
	{ INTEL, 6, 0x2a, 0x2a, ANY_STEP, NULL, "sandy-bridge", "Sandy Bridge" },
	{ INTEL, 6, 0x2d, 0x2d, ANY_STEP, NULL, "sandy-bridge", "Sandy Bridge-E" },
	{ INTEL, 6, 0x3a, 0x3a, ANY_STEP, NULL, "ivy-bridge", "Ivy Bridge" },
	{ INTEL, 6, 0x3e, 0x3e, ANY_STEP, NULL, "ivy-bridge", "Ivy Bridge-E" },
	{ INTEL, 6, 0x3c, 0x3c, ANY_STEP, NULL, "haswell", "Haswell" },
	{ INTEL, 6, 0x45, 0x45, ANY_STEP, NULL, "haswell", "Haswell-ULT" },
	{ INTEL, 6, 0x46, 0x46, ANY_STEP, NULL, "haswell", "Crystal Well" },
	{ INTEL, 6, 0x3f, 0x3f, ANY_STEP, NULL, "haswell", "Haswell-E" },
	{ INTEL, 6, 0x3d, 0x3d, ANY_STEP, NULL, "broadwell", "Broadwell" },
	{ INTEL, 6, 0x47, 0x47, ANY_STEP, NULL, "broadwell", "Broadwell-H" },
	{ INTEL, 6, 0x4f, 0x4f, ANY_STEP, NULL, "broadwell", "Broadwell-E" },
	{ INTEL, 6, 0x56, 0x56, ANY_STEP, NULL, "broadwell", "Broadwell-DE" },
	{ INTEL, 6, 0x4e, 0x4e, ANY_STEP, NULL, "skylake", "Skylake" },
	{ INTEL, 6, 0x5e, 0x5e, ANY_STEP, NULL, "skylake", "Skylake" },
	/* Model 0x55 is three generations told apart by stepping. */
	{ INTEL, 6, 0x55, 0x55, 0x0, 0x4, "Xeon", "skylake", "Skylake-SP" },
	{ INTEL, 6, 0x55, 0x55, 0x0, 0x4, NULL, "skylake", "Skylake-X" },
	{ INTEL, 6, 0x55, 0x55, 0x5, 0x7, "Xeon", "cascade-lake", "Cascade Lake-SP" },
	{ INTEL, 6, 0x55, 0x55, 0x5, 0x7, NULL, "cascade-lake", "Cascade Lake-X" },
	{ INTEL, 6, 0x55, 0x55, 0xa, 0xb, NULL, "cooper-lake", "Cooper Lake-SP" },
	{ INTEL, 6, 0x8e, 0x8e, 0x0, 0x9, NULL, "kaby-lake", "Kaby Lake" },
	{ INTEL, 6, 0x8e, 0x8e, 0xa, 0xa, NULL, "kaby-lake", "Kaby Lake-R" },
	{ INTEL, 6, 0x8e, 0x8e, 0xb, 0xb, NULL, "coffee-lake", "Whiskey Lake" },
	{ INTEL, 6, 0x8e, 0x8e, 0xc, 0xc, NULL, "comet-lake", "Comet Lake-U" },
	{ INTEL, 6, 0x9e, 0x9e, 0x0, 0x9, NULL, "kaby-lake", "Kaby Lake" },
	{ INTEL, 6, 0x9e, 0x9e, 0xa, 0xd, NULL, "coffee-lake", "Coffee Lake" },
	{ INTEL, 6, 0xa5, 0xa5, ANY_STEP, NULL, "comet-lake", "Comet Lake" },
	{ INTEL, 6, 0xa6, 0xa6, ANY_STEP, NULL, "comet-lake", "Comet Lake-U" },
	{ INTEL, 6, 0x66, 0x66, ANY_STEP, NULL, "cannon-lake", "Cannon Lake" },
	{ INTEL, 6, 0x7d, 0x7e, ANY_STEP, NULL, "ice-lake", "Ice Lake" },
	{ INTEL, 6, 0x6a, 0x6a, ANY_STEP, NULL, "ice-lake", "Ice Lake-SP" },
	{ INTEL, 6, 0x6c, 0x6c, ANY_STEP, NULL, "ice-lake", "Ice Lake-D" },
	{ INTEL, 6, 0x8c, 0x8c, ANY_STEP, NULL, "tiger-lake", "Tiger Lake" },
	{ INTEL, 6, 0x8d, 0x8d, ANY_STEP, NULL, "tiger-lake", "Tiger Lake-H" },
	{ INTEL, 6, 0xa7, 0xa7, ANY_STEP, NULL, "rocket-lake", "Rocket Lake" },
	{ INTEL, 6, 0x8f, 0x8f, ANY_STEP, NULL, "sapphire-rapids", "Sapphire Rapids" },
	{ INTEL, 6, 0xcf, 0xcf, ANY_STEP, NULL, "emerald-rapids", "Emerald Rapids" },
	{ INTEL, 6, 0xad, 0xad, ANY_STEP, NULL, "granite-rapids", "Granite Rapids" },
	{ INTEL, 6, 0xae, 0xae, ANY_STEP, NULL, "granite-rapids", "Granite Rapids-D" },
	{ INTEL, 6, 0xaf, 0xaf, ANY_STEP, NULL, "sierra-forest", "Sierra Forest" },
	{ INTEL, 6, 0xdd, 0xdd, ANY_STEP, NULL, "clearwater-forest", "Clearwater Forest" },
	{ INTEL, 6, 0x97, 0x97, ANY_STEP, NULL, "alder-lake", "Alder Lake-S" },
	{ INTEL, 6, 0x9a, 0x9a, ANY_STEP, NULL, "alder-lake", "Alder Lake-P" },
	{ INTEL, 6, 0xbe, 0xbe, ANY_STEP, NULL, "alder-lake", "Alder Lake-N" },
	{ INTEL, 6, 0xb7, 0xb7, ANY_STEP, NULL, "raptor-lake", "Raptor Lake-S" },
	{ INTEL, 6, 0xba, 0xba, ANY_STEP, NULL, "raptor-lake", "Raptor Lake-P" },
	{ INTEL, 6, 0xbf, 0xbf, ANY_STEP, NULL, "raptor-lake", "Raptor Lake-S" },
	{ INTEL, 6, 0xaa, 0xaa, ANY_STEP, NULL, "meteor-lake", "Meteor Lake" },
	{ INTEL, 6, 0xac, 0xac, ANY_STEP, NULL, "meteor-lake", "Meteor Lake" },
	{ INTEL, 6, 0xb5, 0xb5, ANY_STEP, NULL, "meteor-lake", "Arrow Lake-U" },
	{ INTEL, 6, 0xbd, 0xbd, ANY_STEP, NULL, "lunar-lake", "Lunar Lake" },
	{ INTEL, 6, 0xc5, 0xc5, ANY_STEP, NULL, "arrow-lake", "Arrow Lake-H" },
	{ INTEL, 6, 0xc6, 0xc6, ANY_STEP, NULL, "arrow-lake", "Arrow Lake-S" },
	{ INTEL, 6, 0xcc, 0xcc, ANY_STEP, NULL, "panther-lake", "Panther Lake" },
	/* Intel family 6, Atom and Xeon Phi cores */
	{ INTEL, 6, 0x37, 0x37, ANY_STEP, NULL, "silvermont", "Bay Trail" },
	{ INTEL, 6, 0x4d, 0x4d, ANY_STEP, NULL, "silvermont", "Avoton" },
	{ INTEL, 6, 0x4c, 0x4c, ANY_STEP, NULL, "silvermont", "Cherry Trail" },
	{ INTEL, 6, 0x5c, 0x5c, ANY_STEP, NULL, "goldmont", "Apollo Lake" },
	{ INTEL, 6, 0x5f, 0x5f, ANY_STEP, NULL, "goldmont", "Denverton" },
	{ INTEL, 6, 0x7a, 0x7a, ANY_STEP, NULL, "goldmont-plus", "Gemini Lake" },
	{ INTEL, 6, 0x86, 0x86, ANY_STEP, NULL, "tremont", "Snow Ridge" },
	{ INTEL, 6, 0x96, 0x96, ANY_STEP, NULL, "tremont", "Elkhart Lake" },
	{ INTEL, 6, 0x9c, 0x9c, ANY_STEP, NULL, "tremont", "Jasper Lake" },
	{ INTEL, 6, 0x57, 0x57, ANY_STEP, NULL, "knights-landing", "Knights Landing" },
	{ INTEL, 6, 0x85, 0x85, ANY_STEP, NULL, "knights-mill", "Knights Mill" },
	/* Intel family 19 */
	{ INTEL, 19, 0x01, 0x01, ANY_STEP, NULL, "diamond-rapids", "Diamond Rapids" },
};

static const struct uarch_def *uarch_def(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(uarch_defs); i++)
		if (!strcmp(uarch_defs[i].id, id))
			return &uarch_defs[i];
	return NULL;
}

const char *const *kb_uarch_vocabulary(void)
{
	static const char *ids[ARRAY_SIZE(uarch_defs) + 1];

	if (!ids[0])
		for (size_t i = 0; i < ARRAY_SIZE(uarch_defs); i++)
			ids[i] = uarch_defs[i].id;
	return ids;
}

static bool row_matches(const struct uarch_row *r, const char *vendor, int family, int model, int stepping,
			const char *brand)
{
	return !strcmp(r->vendor, vendor) && r->family == family && model >= r->model_lo &&
	       model <= r->model_hi && stepping >= r->step_lo && stepping <= r->step_hi &&
	       (!r->brand || (brand && strstr(brand, r->brand)));
}

void kb_uarch_lookup(const char *vendor, int family, int model, int stepping, const char *brand,
		     struct kb_uarch *u)
{
	const struct uarch_def *d = uarch_def("unknown");

	u->codename = "unknown";
	for (size_t i = 0; i < ARRAY_SIZE(uarch_rows); i++) {
		const struct uarch_row *r = &uarch_rows[i];

		if (!row_matches(r, vendor, family, model, stepping, brand))
			continue;
		d = uarch_def(r->id);
		if (r->codename)
			u->codename = r->codename;
		break;
	}
	u->id = d->id;
	u->name = d->name;
}

static bool ranges_overlap(int a_lo, int a_hi, int b_lo, int b_hi)
{
	return a_lo <= b_hi && b_lo <= a_hi;
}

int kb_uarch_table_validate(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(uarch_rows); i++) {
		const struct uarch_row *a = &uarch_rows[i];

		if (!uarch_def(a->id) || !strcmp(a->id, "unknown"))
			return kb_fail(EINVAL, "microarchitecture table row %zu: '%s' is not in the vocabulary", i, a->id);
		if (a->model_lo > a->model_hi || a->step_lo > a->step_hi || a->step_hi > 0xf)
			return kb_fail(EINVAL, "microarchitecture table row %zu (%s): empty or bad range", i, a->id);
		for (size_t j = i + 1; j < ARRAY_SIZE(uarch_rows); j++) {
			const struct uarch_row *b = &uarch_rows[j];

			if (strcmp(a->vendor, b->vendor) || a->family != b->family ||
			    !ranges_overlap(a->model_lo, a->model_hi, b->model_lo, b->model_hi) ||
			    !ranges_overlap(a->step_lo, a->step_hi, b->step_lo, b->step_hi))
				continue;
			/* Overlap is only a brand refinement of one part, placed before the general row. */
			if (!a->brand || strcmp(a->id, b->id))
				return kb_fail(EINVAL, "microarchitecture table rows %zu and %zu (%s, %s) overlap for %s "
					       "family %#x", i, j, a->id, b->id, a->vendor, a->family);
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ decoding */

static const struct {
	const char *signature;      /* CPUID 0x40000000 EBX:ECX:EDX, NULs dropped */
	const char *name;
} hypervisors[] = {
	{ "KVMKVMKVM", "KVM" },
	{ "Linux KVM Hv", "KVM (Hyper-V interface)" },
	{ "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },
	{ "XenVMMXenVMM", "Xen" },
	{ "TCGTCGTCGTCG", "QEMU TCG" },
	{ "bhyve bhyve ", "bhyve" },
	{ " lrpepyh  vr", "Parallels" },
	{ "VBoxVBoxVBox", "VirtualBox" },
	{ "ACRNACRNACRN", "ACRN" },
	{ "QNXQVMBSQG", "QNX" },
	{ "Jailhouse", "Jailhouse" },
	{ "EVMMEVMMEVMM", "Intel KGT" },
};

static void hv_signature(const struct kb_cpuid_cpu *c, uint32_t leaf, char sig[13])
{
	uint32_t r[4];
	size_t n = 0;

	sig[0] = 0;
	if (!kb_cpuid_get(c, leaf, 0, r))
		return;
	for (int reg = 1; reg <= 3; reg++)
		for (int b = 0; b < 4; b++) {
			char ch = (char)(r[reg] >> (8 * b));

			if (ch)
				sig[n++] = isprint((unsigned char)ch) ? ch : '?';
		}
	sig[n] = 0;
}

static const char *hv_name(const char *sig)
{
	for (size_t i = 0; i < ARRAY_SIZE(hypervisors); i++)
		if (!strcmp(sig, hypervisors[i].signature))
			return hypervisors[i].name;
	return "unknown";
}

static void decode_virt(const struct kb_cpuid_cpu *c, struct kb_cpu_virt *v)
{
	uint32_t r[4];

	memset(v, 0, sizeof(*v));
	if (kb_cpuid_get(c, 1, 0, r)) {
		v->vmx = r[2] & (1u << 5);
		v->hypervisor = r[2] & (1u << 31);
	}
	if (kb_cpuid_get(c, 0x80000001u, 0, r))
		v->svm = r[2] & (1u << 2);
	if (!v->hypervisor)
		return;
	hv_signature(c, 0x40000000u, v->hv_signature);
	v->hv_name = hv_name(v->hv_signature);
	/* KVM offering Hyper-V enlightenments answers "Microsoft Hv" first and names itself at 0x40000100. */
	if (!strcmp(v->hv_name, "Hyper-V")) {
		char second[13];

		hv_signature(c, 0x40000100u, second);
		if (!strcmp(hv_name(second), "KVM"))
			v->hv_name = "KVM (Hyper-V interface)";
	}
}

static void decode_pmu(const struct kb_cpuid_cpu *c, bool amd, struct kb_pmu *p)
{
	uint32_t r[4];

	memset(p, 0, sizeof(*p));
	if (!amd) {
		if (!kb_cpuid_get(c, 0xa, 0, r))
			return;
		p->arch_version = r[0] & 0xff;
		p->gp_counters = (r[0] >> 8) & 0xff;
		p->gp_width = (r[0] >> 16) & 0xff;
		if (p->arch_version > 1) {
			p->fixed_counters = r[3] & 0x1f;
			p->fixed_width = (r[3] >> 5) & 0xff;
		}
		/* From version 5 ECX is a bitmap of fixed counters, possibly beyond EDX's contiguous count. */
		for (int bit = 31; p->arch_version >= 5 && bit >= 0; bit--)
			if (r[2] & (1u << bit)) {
				if (bit + 1 > p->fixed_counters)
					p->fixed_counters = bit + 1;
				break;
			}
		p->core_counters = p->gp_counters;
		p->global_ctrl = p->arch_version >= 2;
		return;
	}
	if (kb_cpuid_get(c, 0x80000001u, 0, r))
		p->core_counters = (r[2] & (1u << 23)) ? 6 : 4;   /* PerfCtrExtCore */
	if (kb_cpuid_get(c, 0x80000022u, 0, r)) {
		p->amd_leaf = true;
		p->perfmon_v2 = r[0] & 1;
		p->lbr_v2 = r[0] & 2;
		if (p->perfmon_v2)
			p->core_counters = r[1] & 0xf;
		p->nb_counters = (r[1] >> 10) & 0x3f;
	}
	p->global_ctrl = p->perfmon_v2;
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

static void fill_raw(const struct kb_cpuid_cpu *c, struct cpu_raw_data_t *raw)
{
	uint32_t r[4];

	memset(raw, 0, sizeof(*raw));
	for (uint32_t i = 0; i < MAX_CPUID_LEVEL; i++)
		if (kb_cpuid_get(c, i, 0, r))
			memcpy(raw->basic_cpuid[i], r, sizeof(r));
	for (uint32_t i = 0; i < MAX_EXT_CPUID_LEVEL; i++)
		if (kb_cpuid_get(c, 0x80000000u + i, 0, r))
			memcpy(raw->ext_cpuid[i], r, sizeof(r));
	/* libcpuid 0.6 keeps one cache mask per leaf 4 subleaf in an array of 5 (L1I, L1D, L2, L3,
	 * L4): a sixth cache description overruns its stack (found by fuzzing).  CPUs describe at
	 * most those five, so a dump with more is damaged; the rest is not handed on. */
	for (uint32_t i = 0; i < MAX_INTELFN4_LEVEL && i < 5; i++)
		if (kb_cpuid_get(c, 4, i, r))
			memcpy(raw->intel_fn4[i], r, sizeof(r));
	/* libcpuid 0.6 divides by the logical processor count (EBX[15:0]) of each leaf 0xB level it
	 * walks (found by fuzzing: SIGFPE in cpu_identify()).  Hardware counts at least one at every
	 * level, so a subleaf that counts none ends the list, as the level-type-0 subleaf does. */
	for (uint32_t i = 0; i < MAX_INTELFN11_LEVEL; i++) {
		if (!kb_cpuid_get(c, 0xb, i, r) || !(r[1] & 0xffff))
			break;
		memcpy(raw->intel_fn11[i], r, sizeof(r));
	}
	for (uint32_t i = 0; i < MAX_INTELFN12H_LEVEL; i++)
		if (kb_cpuid_get(c, 0x12, i, r))
			memcpy(raw->intel_fn12h[i], r, sizeof(r));
	for (uint32_t i = 0; i < MAX_INTELFN14H_LEVEL; i++)
		if (kb_cpuid_get(c, 0x14, i, r))
			memcpy(raw->intel_fn14h[i], r, sizeof(r));
	for (uint32_t i = 0; i < MAX_AMDFN8000001DH_LEVEL; i++)
		if (kb_cpuid_get(c, 0x8000001du, i, r))
			memcpy(raw->amd_fn8000001dh[i], r, sizeof(r));
}

static void quiet_libcpuid(const char *msg)
{
	kb_debug("libcpuid: %s", msg);
}

/* libcpuid lists one CPU type per purpose and package: fold them into purposes for the machine. */
static void fold_types(const struct system_id_t *sys, struct kb_cpu_info *info)
{
	for (int i = 0; i < sys->num_cpu_types; i++) {
		const struct cpu_id_t *t = &sys->cpu_types[i];
		const char *purpose = cpu_purpose_str(t->purpose);
		struct kb_cpu_type *k = NULL;

		for (int j = 0; j < info->ntypes; j++)
			if (!strcmp(info->types[j].purpose, purpose))
				k = &info->types[j];
		if (!k && info->ntypes < KB_CPU_MAX_TYPES) {
			k = &info->types[info->ntypes++];
			snprintf(k->purpose, sizeof(k->purpose), "%s", purpose);
		}
		if (!k)
			continue;
		k->cores += t->num_cores;
		k->threads += t->num_logical_cpus;
		if (!strcmp(purpose, info->types[0].purpose))
			info->packages++;
	}
}

/*
 * Whether libcpuid 0.6 can take these blocks as the logical CPUs of one machine without crashing
 * (each case found by fuzzing, SIGFPE or SIGSEGV in cpu_identify_all()):
 * - its per-CPU pass divides by each CPU type's core count, 0 for a vendor it cannot count cores
 *   of: every block must be of one vendor it counts, with at least one core;
 * - it reads leaf 0xB subleaf by subleaf and masks the x2APIC ID with an SMT mask that only an
 *   SMT level sets, and indexes hash tables with the signed IDs it derives (-1 when no core level
 *   sets one): subleaf 0 must be the SMT level and a core level must follow (as the SDM has it),
 *   and the x2APIC ID must fit in 31 bits;
 * - it numbers CPU types (a new one at each change of package or core kind) in a uint8_t: far
 *   fewer than 256 of them, and no more blocks than its logical_cpu_t counts.
 * Otherwise the first block is decoded alone.
 */
static bool per_cpu_decodable(const struct kb_cpuid_set *s, struct cpu_raw_data_t *raw)
{
	uint32_t first[4], r[4], prev_pkg = 0, prev_kind = 0;
	int types = 0;

	/* Leaf 0xB as libcpuid walks it: raw[].intel_fn11, subleaves while EAX and EBX are set. */
	if (s->ncpus > 8192 || !kb_cpuid_get(&s->cpu[0], 0, 0, first))
		return false;
	for (size_t i = 0; i < s->ncpus; i++) {
		const struct kb_cpuid_cpu *c = &s->cpu[i];
		uint32_t shift = 0, apic = 0, kind, sub;
		bool core_level = false;
		struct cpu_id_t id;

		if (!kb_cpuid_get(c, 0, 0, r) || memcmp(r + 1, first + 1, 3 * sizeof(r[0])))
			return false;
		if (cpu_identify(&raw[i], &id) || id.num_cores < 1 ||
		    (id.vendor != VENDOR_INTEL && id.vendor != VENDOR_AMD && id.vendor != VENDOR_HYGON))
			return false;
		for (sub = 0; sub < MAX_INTELFN11_LEVEL && raw[i].intel_fn11[sub][0] && raw[i].intel_fn11[sub][1]; sub++) {
			const uint32_t *l = raw[i].intel_fn11[sub];

			if ((sub == 0 && ((l[2] >> 8) & 0xff) != 1) || (l[3] & 0x80000000u))
				return false;
			core_level |= ((l[2] >> 8) & 0xff) == 2;
			shift = l[0] & 0x1f;
			apic = l[3];
		}
		if (sub && !core_level)
			return false;
		kind = raw[i].basic_cpuid[0x1a][0] >> 24;
		if (!i || apic >> shift != prev_pkg || kind != prev_kind)
			types++;
		prev_pkg = apic >> shift;
		prev_kind = kind;
	}
	return types <= 64;
}

int kb_cpu_identify(const struct kb_cpuid_set *s, struct kb_cpu_info *info)
{
	struct cpu_raw_data_array_t arr = { 0 };
	struct system_id_t sys = { 0 };
	const struct cpu_id_t *id;
	bool per_cpu = s->per_cpu;
	int err = 0;

	memset(info, 0, sizeof(*info));
	if (!s->ncpus)
		return kb_fail(EINVAL, "no CPUID data to identify");
	cpuid_set_warn_function(quiet_libcpuid);
	arr.raw = kb_xcalloc(per_cpu ? s->ncpus : 1, sizeof(*arr.raw));
	for (size_t i = 0; i < (per_cpu ? s->ncpus : 1); i++)
		fill_raw(&s->cpu[i], &arr.raw[i]);
	if (per_cpu && !per_cpu_decodable(s, arr.raw)) {
		kb_debug("%s: the CPU blocks are not one machine libcpuid can count; decoding the first alone",
			 s->source);
		per_cpu = false;
	}
	arr.with_affinity = per_cpu;
	arr.num_raw = (logical_cpu_t)(per_cpu ? s->ncpus : 1);
	if (cpu_identify_all(&arr, &sys) || sys.num_cpu_types < 1) {
		err = kb_fail(EINVAL, "%s: libcpuid cannot decode this CPUID data: %s", s->source, cpuid_error());
		goto out;
	}
	id = &sys.cpu_types[0];
	snprintf(info->vendor, sizeof(info->vendor), "%s", id->vendor_str);
	snprintf(info->brand, sizeof(info->brand), "%s", id->brand_str);
	trim(info->brand);
	snprintf(info->libcpuid_codename, sizeof(info->libcpuid_codename), "%s", id->cpu_codename);
	info->family = id->ext_family;
	info->model = id->ext_model;
	info->stepping = id->stepping;
	info->base_family = id->family;
	info->base_model = id->model;
	kb_uarch_lookup(info->vendor, info->family, info->model, info->stepping, info->brand, &info->uarch);

	fold_types(&sys, info);
	if (!per_cpu) {
		/* An old single-CPU dump tells one package's counts, nothing about how many packages. */
		info->types[0].cores = id->num_cores;
		info->types[0].threads = id->num_logical_cpus;
		info->packages = 1;
	}
	for (int i = 0; i < info->ntypes; i++) {
		info->cores += info->types[i].cores;
		info->threads += info->types[i].threads;
	}
	if (info->packages < 1)
		info->packages = 1;
	info->cores_per_package = info->cores / info->packages;
	info->threads_per_package = info->threads / info->packages;
	info->hybrid = info->ntypes > 1;

	decode_pmu(&s->cpu[0], id->vendor == VENDOR_AMD || id->vendor == VENDOR_HYGON, &info->pmu);
	decode_virt(&s->cpu[0], &info->virt);
out:
	if (sys.cpu_types)
		cpuid_free_system_id(&sys);
	free(arr.raw);
	return err;
}

/* ------------------------------------------------------------------ JSON */

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

json_object *kb_cpu_json(const struct kb_cpu_info *c)
{
	json_object *o = json_object_new_object();
	json_object *types = json_object_new_array();

	ADD(o, "vendor", json_object_new_string(c->vendor));
	ADD(o, "brand", json_object_new_string(c->brand));
	ADD(o, "family", json_object_new_int(c->family));
	ADD(o, "model", json_object_new_int(c->model));
	ADD(o, "stepping", json_object_new_int(c->stepping));
	ADD(o, "microarchitecture", json_object_new_string(c->uarch.id));
	ADD(o, "microarchitecture_name", json_object_new_string(c->uarch.name));
	ADD(o, "codename", json_object_new_string(c->uarch.codename));
	ADD(o, "libcpuid_codename", json_object_new_string(c->libcpuid_codename));
	ADD(o, "packages", json_object_new_int(c->packages));
	ADD(o, "cores", json_object_new_int(c->cores));
	ADD(o, "threads", json_object_new_int(c->threads));
	ADD(o, "cores_per_package", json_object_new_int(c->cores_per_package));
	ADD(o, "threads_per_package", json_object_new_int(c->threads_per_package));
	ADD(o, "hybrid", json_object_new_boolean(c->hybrid));
	for (int i = 0; i < c->ntypes; i++) {
		json_object *t = json_object_new_object();

		ADD(t, "purpose", json_object_new_string(c->types[i].purpose));
		ADD(t, "cores", json_object_new_int(c->types[i].cores));
		ADD(t, "threads", json_object_new_int(c->types[i].threads));
		json_object_array_add(types, t);
	}
	ADD(o, "core_types", types);
	ADD(o, "hypervisor_present", json_object_new_boolean(c->virt.hypervisor));
	return o;
}

static const char *vpmu_note(const struct kb_cpu_info *c)
{
	bool amd = !strcmp(c->vendor, AMD) || !strcmp(c->vendor, HYGON);

	if (c->pmu.global_ctrl)
		return amd ? "PerfMonV2: one write to PERF_CNTR_GLOBAL_CTL starts or stops every counter, so a "
			     "guest's PMU switch costs one MSR exit, and a global_ctrl-based vPMU fast path applies"
			   : "IA32_PERF_GLOBAL_CTRL starts or stops every counter with one write, so a guest's PMU "
			     "switch costs one MSR exit, and a global_ctrl-based vPMU fast path applies";
	if (amd)
		return "no PerfMonV2: the guest starts and stops each counter through its own event-select MSR, "
		       "one exit per counter; a global_ctrl-based vPMU fast path cannot help";
	if (!c->pmu.arch_version)
		return "no architectural PMU visible in CPUID 0xA: a guest gets no vPMU from this CPU description";
	return "architectural PMU v1 has no global control: one MSR exit per counter start or stop";
}

json_object *kb_pmu_json(const struct kb_cpu_info *c)
{
	json_object *o = json_object_new_object();
	bool amd = !strcmp(c->vendor, AMD) || !strcmp(c->vendor, HYGON);

	if (amd) {
		ADD(o, "cpuid_0x80000022", json_object_new_boolean(c->pmu.amd_leaf));
		ADD(o, "perfmon_v2", json_object_new_boolean(c->pmu.perfmon_v2));
		ADD(o, "lbr_v2", json_object_new_boolean(c->pmu.lbr_v2));
		ADD(o, "core_counters", json_object_new_int(c->pmu.core_counters));
		ADD(o, "northbridge_counters", json_object_new_int(c->pmu.nb_counters));
	} else {
		ADD(o, "arch_perfmon_version", json_object_new_int(c->pmu.arch_version));
		ADD(o, "gp_counters", json_object_new_int(c->pmu.gp_counters));
		ADD(o, "gp_counter_width", json_object_new_int(c->pmu.gp_width));
		ADD(o, "fixed_counters", json_object_new_int(c->pmu.fixed_counters));
		ADD(o, "fixed_counter_width", json_object_new_int(c->pmu.fixed_width));
	}
	ADD(o, "global_ctrl", json_object_new_boolean(c->pmu.global_ctrl));
	ADD(o, "vpmu", json_object_new_string(vpmu_note(c)));
	return o;
}

json_object *kb_cpu_virt_json(const struct kb_cpu_info *c)
{
	json_object *o = json_object_new_object();

	ADD(o, "vmx", json_object_new_boolean(c->virt.vmx));
	ADD(o, "svm", json_object_new_boolean(c->virt.svm));
	ADD(o, "under_hypervisor", json_object_new_boolean(c->virt.hypervisor));
	ADD(o, "hypervisor", c->virt.hypervisor ? json_object_new_string(c->virt.hv_name) : NULL);
	ADD(o, "hypervisor_signature", c->virt.hypervisor ? json_object_new_string(c->virt.hv_signature) : NULL);
	return o;
}

/* ------------------------------------------------------------------ advice */

static const char *param(const struct kb_host_facts *f, const char *name)
{
	json_object *v;

	if (!f->params || !json_object_object_get_ex(f->params, name, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

static bool param_is(const struct kb_host_facts *f, const char *name, const char *const *values)
{
	const char *v = param(f, name);

	for (; v && *values; values++)
		if (!strcasecmp(v, *values))
			return true;
	return false;
}

static const char *const on_values[] = { "Y", "1", "force", "on", NULL };
static const char *const off_values[] = { "N", "0", "off", NULL };

static bool is_amd(const struct kb_host_facts *f) { return !strcmp(f->cpu->vendor, AMD) || !strcmp(f->cpu->vendor, HYGON); }
static bool is_intel(const struct kb_host_facts *f) { return !strcmp(f->cpu->vendor, INTEL); }
static bool pmv2_expected(const struct kb_host_facts *f)
{
	const struct uarch_def *d = uarch_def(f->cpu->uarch.id);

	return d && (d->flags & UA_AMD_PERFMON_V2);
}
static bool backend_is(const struct kb_host_facts *f, const char *b) { return f->backend && !strcmp(f->backend, b); }

static bool a_amd_no_pmv2(const struct kb_host_facts *f) { return is_amd(f) && !f->cpu->pmu.perfmon_v2 && !pmv2_expected(f); }
static bool a_amd_pmv2_hidden(const struct kb_host_facts *f) { return is_amd(f) && !f->cpu->pmu.perfmon_v2 && pmv2_expected(f); }
static bool a_amd_pmv2(const struct kb_host_facts *f) { return is_amd(f) && f->cpu->pmu.perfmon_v2; }
static bool a_intel_global(const struct kb_host_facts *f) { return is_intel(f) && f->cpu->pmu.global_ctrl; }
static bool a_intel_no_pmu(const struct kb_host_facts *f) { return is_intel(f) && !f->cpu->pmu.arch_version; }
static bool a_pmu_off(const struct kb_host_facts *f) { return param_is(f, "enable_pmu", off_values); }
static bool a_nested(const struct kb_host_facts *f) { return f->cpu->virt.hypervisor; }
static bool a_pvm(const struct kb_host_facts *f) { return backend_is(f, "kvm_pvm"); }
static bool a_no_hw_virt(const struct kb_host_facts *f)
{
	return !f->cpu->virt.vmx && !f->cpu->virt.svm && !backend_is(f, "kvm_pvm");
}
static bool a_nx_huge(const struct kb_host_facts *f) { return param_is(f, "nx_huge_pages", on_values); }
static bool a_tdp_mmu_off(const struct kb_host_facts *f) { return !a_pvm(f) && param_is(f, "tdp_mmu", off_values); }
static bool a_shadow_paging(const struct kb_host_facts *f) { return param_is(f, "ept", off_values) || param_is(f, "npt", off_values); }
static bool a_eager_split(const struct kb_host_facts *f) { return param_is(f, "eager_page_split", on_values); }
static bool a_apicv_off(const struct kb_host_facts *f)
{
	return (backend_is(f, "kvm_intel") && param_is(f, "enable_apicv", off_values)) ||
	       (backend_is(f, "kvm_amd") && param_is(f, "avic", off_values));
}
static bool a_hybrid(const struct kb_host_facts *f) { return f->cpu->hybrid; }
static bool a_smt(const struct kb_host_facts *f) { return f->threads_per_core > 1; }
static bool a_numa(const struct kb_host_facts *f) { return f->numa_nodes > 1; }
static bool a_memory_only(const struct kb_host_facts *f) { return f->memory_only_nodes && *f->memory_only_nodes; }
static bool a_unknown(const struct kb_host_facts *f) { return !strcmp(f->cpu->uarch.id, "unknown"); }

/* The project's table: when a rule applies, its text (with {tokens} filled in) is shown. */
static const struct advice_rule {
	const char *id;
	bool (*applies)(const struct kb_host_facts *f);
	const char *text;
} advice_rules[] = {
	{ "unknown-microarchitecture", a_unknown,
	  "{vendor} family {family} model {model}: microarchitecture unknown to kvmbench's table (src/cpu.c); "
	  "advice that depends on the generation is left out" },
	{ "amd-no-perfmonv2", a_amd_no_pmv2,
	  "{uarch}: no PerfMonV2 — a vPMU fast path based on global_ctrl cannot help here; the guest "
	  "starts and stops each of its {counters} counters with its own MSR exit" },
	{ "amd-perfmonv2-hidden", a_amd_pmv2_hidden,
	  "{uarch} has PerfMonV2, but CPUID here does not report it{under}: vPMU results here do not "
	  "show what a bare-metal {uarch} host does" },
	{ "amd-perfmonv2", a_amd_pmv2,
	  "{uarch}: PerfMonV2 with {counters} core counters — one global_ctrl write starts or stops all "
	  "of them, so a global_ctrl-based vPMU fast path can pay off here" },
	{ "intel-global-ctrl", a_intel_global,
	  "{uarch}: architectural PMU v{pmu_version}, {counters} general-purpose and {fixed} fixed counters; "
	  "IA32_PERF_GLOBAL_CTRL lets a global_ctrl-based vPMU fast path apply" },
	{ "intel-no-pmu", a_intel_no_pmu,
	  "CPUID 0xA shows no architectural PMU{under}: vPMU tests have nothing to measure" },
	{ "vpmu-disabled", a_pmu_off,
	  "kvm.enable_pmu=N: guests get no vPMU, so vPMU tests measure nothing on this host" },
	{ "nested", a_nested,
	  "this host itself runs under {hypervisor}: every exit also pays the outer hypervisor, so compare "
	  "results only with runs on the same setup" },
	{ "kvm-pvm", a_pvm,
	  "kvm_pvm backend (software, pagetable-based): guest ring 0 runs at CPL3 and privileged "
	  "instructions trap; VMCALL/VMMCALL never reach it; rates are not comparable with VMX/SVM hosts" },
	{ "no-hardware-virtualization", a_no_hw_virt,
	  "neither VMX nor SVM is visible: kvm_intel/kvm_amd cannot run guests here" },
	{ "shadow-paging", a_shadow_paging,
	  "two-dimensional paging is off (ept/npt=N): guest page-table writes trap to the shadow MMU" },
	{ "tdp-mmu-off", a_tdp_mmu_off,
	  "tdp_mmu=N: the legacy MMU serialises faults and dirty logging on one lock; memory-suite "
	  "numbers differ from hosts with the TDP MMU" },
	{ "nx-huge-pages", a_nx_huge,
	  "nx_huge_pages is on (iTLB multihit mitigation): executable guest huge pages are split into 4K "
	  "pages, so execute-from-memory tests pay extra faults" },
	{ "eager-page-split", a_eager_split,
	  "eager_page_split=Y: enabling dirty logging splits huge pages up front, so the first dirty-log "
	  "round is expensive and later rounds cheaper" },
	{ "apicv-off", a_apicv_off,
	  "APIC virtualization is off (enable_apicv/avic): guest APIC accesses, EOIs and IPIs exit, so "
	  "interrupt tests measure the slow path" },
	{ "hybrid", a_hybrid,
	  "hybrid CPU ({core_types}): rates depend on the core type; kvmbench plan puts vCPUs on the "
	  "fastest kind first" },
	{ "smt", a_smt,
	  "SMT is on ({tpc} threads per core): a busy sibling slows a vCPU, so kvmbench plan leaves the "
	  "siblings of vCPU cores idle" },
	{ "numa", a_numa,
	  "{numa_nodes} NUMA nodes: remote memory skews memory suites; kvmbench plan keeps vCPUs and guest "
	  "memory on one node" },
	{ "memory-only-nodes", a_memory_only,
	  "memory-only NUMA nodes ({memory_only}): never used for vCPUs, and guest memory stays on the "
	  "vCPUs' node" },
};

static void token_value(const struct kb_host_facts *f, const char *tok, char *out, size_t n)
{
	const struct kb_cpu_info *c = f->cpu;

	out[0] = 0;
	if (!strcmp(tok, "uarch"))
		snprintf(out, n, "%s", c->uarch.name);
	else if (!strcmp(tok, "vendor"))
		snprintf(out, n, "%s", c->vendor);
	else if (!strcmp(tok, "family"))
		snprintf(out, n, "%#x", c->family);
	else if (!strcmp(tok, "model"))
		snprintf(out, n, "%#x", c->model);
	else if (!strcmp(tok, "counters"))
		snprintf(out, n, "%d", c->pmu.core_counters);
	else if (!strcmp(tok, "fixed"))
		snprintf(out, n, "%d", c->pmu.fixed_counters);
	else if (!strcmp(tok, "pmu_version"))
		snprintf(out, n, "%d", c->pmu.arch_version);
	else if (!strcmp(tok, "hypervisor"))
		snprintf(out, n, "%s", c->virt.hv_name ? c->virt.hv_name : "a hypervisor");
	else if (!strcmp(tok, "under") && c->virt.hypervisor)
		snprintf(out, n, " (hidden by %s, the hypervisor this host runs under)",
			 c->virt.hv_name ? c->virt.hv_name : "a hypervisor");
	else if (!strcmp(tok, "numa_nodes"))
		snprintf(out, n, "%d", f->numa_nodes);
	else if (!strcmp(tok, "tpc"))
		snprintf(out, n, "%d", f->threads_per_core);
	else if (!strcmp(tok, "memory_only"))
		snprintf(out, n, "%s", f->memory_only_nodes ? f->memory_only_nodes : "");
	else if (!strcmp(tok, "core_types"))
		for (int i = 0; i < c->ntypes; i++) {
			size_t len = strlen(out);

			snprintf(out + len, n - len, "%s%d %s cores", i ? ", " : "", c->types[i].cores,
				 c->types[i].purpose);
		}
}

static void fill_text(const struct kb_host_facts *f, const char *tmpl, char *out, size_t n)
{
	size_t len = 0;

	out[0] = 0;
	for (const char *p = tmpl; *p && len + 1 < n;) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;

		if (end && end - p < 32) {
			char tok[32], val[256];

			memcpy(tok, p + 1, (size_t)(end - p - 1));
			tok[end - p - 1] = 0;
			token_value(f, tok, val, sizeof(val));
			len += (size_t)snprintf(out + len, n - len, "%s", val);
			p = end + 1;
		} else {
			out[len++] = *p++;
			out[len] = 0;
		}
		if (len >= n)
			len = n - 1;
	}
}

json_object *kb_advice_json(const struct kb_host_facts *f)
{
	json_object *a = json_object_new_array();
	char text[512];

	for (size_t i = 0; i < ARRAY_SIZE(advice_rules); i++) {
		json_object *o;

		if (!advice_rules[i].applies(f))
			continue;
		fill_text(f, advice_rules[i].text, text, sizeof(text));
		o = json_object_new_object();
		ADD(o, "id", json_object_new_string(advice_rules[i].id));
		ADD(o, "text", json_object_new_string(text));
		json_object_array_add(a, o);
	}
	return a;
}
