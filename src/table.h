/* table.h: the human view of a result: an aligned table with units and the checks. */
#ifndef KB_TABLE_H
#define KB_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "result.h"

void kb_table_header(FILE *f, bool color);
void kb_table_test(FILE *f, const struct kb_test_result *t, bool color);
void kb_table_print(FILE *f, const struct kb_result *r, bool color);
/* A number with thousands separators or significant digits, whichever reads better. */
void kb_format_number(double v, char *buf, size_t size);

#endif
