/* SPDX-License-Identifier: GPL-2.0-or-later */
/* content.h: what the memory suites find in their pages' content: how many pages held another value
 * than the guest put there, and the first of them with its GPA, what was expected and what was found. */
#ifndef KB_CONTENT_H
#define KB_CONTENT_H

#include <stdint.h>
#include <json-c/json.h>

#include "run/memvm.h"

struct kb_content {
	uint64_t wrong;               /* pages found wrong */
	const char *where;            /* the first: who found it ("host, after harvest", "guest, ...") */
	uint64_t pass;                /* the guest's pass over the memory it was found in (0: populate) */
	uint64_t gpa, expected, found;
};

/* n more wrong pages, the first of which is at gpa (kept only if c has none yet). */
void kb_content_add(struct kb_content *c, uint64_t n, const char *where, uint64_t pass, uint64_t gpa,
		    uint64_t expected, uint64_t found);
/* Add b's pages to a (a's first stays first). */
void kb_content_merge(struct kb_content *a, const struct kb_content *b);
/* The guest's findings in phase ph, from each vCPU's args[2] (count), args[3] (GPA), args[4] (found);
 * expect(gpa, arg) says what the page should have held. */
void kb_content_guest(struct kb_content *c, const struct kb_memvm *mv, const struct kb_mem_phase *ph,
		      const char *where, uint64_t pass, uint64_t (*expect)(uint64_t gpa, void *arg), void *arg);
/* The first 8 bytes of test-memory page 'page' (counted from KB_MEM_GPA) as the host sees them. */
uint64_t kb_content_word(const struct kb_memvm *mv, uint64_t page);
/* {"pages_wrong": N[, "first": {"where", "pass", "gpa", "expected", "found"} as hex strings]} */
json_object *kb_content_json(const struct kb_content *c);
/* The check every memory test records: page_content_wrong, which must be 0. */
void kb_content_check(struct kb_test_result *r, const struct kb_content *c);

#endif
