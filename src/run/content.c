/* SPDX-License-Identifier: GPL-2.0-or-later */
/* content.c: the memory suites' content checks: counting wrong pages and keeping the first. */
#include <string.h>

#include "core/json.h"
#include "core/kb.h"
#include "run/content.h"

void kb_content_add(struct kb_content *c, uint64_t n, const char *where, uint64_t pass, uint64_t gpa,
		    uint64_t expected, uint64_t found)
{
	if (!n)
		return;
	if (!c->wrong) {
		c->where = where;
		c->pass = pass;
		c->gpa = gpa;
		c->expected = expected;
		c->found = found;
	}
	c->wrong += n;
}

void kb_content_merge(struct kb_content *a, const struct kb_content *b)
{
	kb_content_add(a, b->wrong, b->where, b->pass, b->gpa, b->expected, b->found);
}

void kb_content_guest(struct kb_content *c, const struct kb_memvm *mv, const struct kb_mem_phase *ph,
		      const char *where, uint64_t pass, uint64_t (*expect)(uint64_t gpa, void *arg), void *arg)
{
	for (int v = 0; v < mv->m.nvcpus; v++) {
		const uint64_t *a = ph->vcpu[v].args;

		kb_content_add(c, a[2], where, pass, a[3], a[2] ? expect(a[3], arg) : 0, a[4]);
	}
}

uint64_t kb_content_word(const struct kb_memvm *mv, uint64_t page)
{
	uint64_t w;

	memcpy(&w, mv->mem.hva + page * KB_PAGE_SIZE, sizeof(w));
	return w;
}

static json_object *hex(uint64_t v)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%llx", (unsigned long long)v);
	return json_object_new_string(s);
}

json_object *kb_content_json(const struct kb_content *c)
{
	json_object *o = json_object_new_object(), *f;

	kb_json_set_u64(o, "pages_wrong", c->wrong);
	if (!c->wrong)
		return o;
	f = json_object_new_object();
	kb_json_set_str(f, "where", c->where);
	kb_json_set_u64(f, "pass", c->pass);
	kb_json_set(f, "gpa", hex(c->gpa));
	kb_json_set(f, "expected", hex(c->expected));
	kb_json_set(f, "found", hex(c->found));
	kb_json_set(o, "first", f);
	return o;
}

void kb_content_check(struct kb_test_result *r, const struct kb_content *c)
{
	kb_test_check(r, "page_content_wrong", 0, 0, 0, (double)c->wrong, true,
		      "a page of test memory held another value than the guest put there: a wrong mapping or a lost "
		      "write (extra.content.first: GPA, expected, found; each sample's content says which)");
	kb_json_set(r->extra, "content", kb_content_json(c));
}
