/* compare: the element-wise checks of DESIGN §4.5, run in the scoring process on buffers the
 * workers sent back: outputs against the golden kernel's (|out - ref| <= atol + rtol * |ref|,
 * NaN/Inf exact, integers exact), poison left in outputs (unwritten elements) and guard bands
 * around every buffer (out-of-bounds writes). */
#ifndef KS_COMPARE_H
#define KS_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include "load/dtype.h"

typedef struct {
	uint64_t total;          /* elements compared */
	uint64_t bad;            /* elements outside tolerance (unwritten ones included) */
	uint64_t unwritten;      /* elements still holding the poison pattern */
	uint64_t first_bad;      /* index of the first bad element (valid when bad > 0) */
	double got, want;        /* values at first_bad */
	double max_abs_err;      /* over finite pairs */
	double max_rel_err;
} ks_cmp_stats;

/* Compares count elements of type t. `poison` is the variant the output was filled with. */
void ks_compare_tensor(ks_cmp_stats *st, ks_dtype t, const void *got, const void *want,
		       uint64_t count, double atol, double rtol, int poison);

/* How many of count elements of type t still hold the poison pattern `poison` (never written);
 * *first (when not NULL) gets the index of the first one. For checking a golden kernel's own
 * outputs, where there is no reference to compare with. */
uint64_t ks_compare_count_poison(uint64_t *first, ks_dtype t, const void *buf, uint64_t count, int poison);

/* Checks a guard band; returns -1 if intact, else the offset of the first modified byte. `phase`
 * is the band's offset within the guard pattern (the back band starts mid-pattern). */
int64_t ks_compare_guard(const unsigned char *band, uint64_t len, uint64_t phase);

/* "got 0.5, expected 0.25 at index 17 (tolerance 1e-05 + 1e-05*|ref|); 3 of 1000 elements wrong,
 * max abs error 0.25". Caller frees. */
char *ks_compare_describe(const ks_cmp_stats *st, const char *tensor, double atol, double rtol);

#endif
