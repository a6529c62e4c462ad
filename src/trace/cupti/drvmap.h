/* drvmap: the live device allocations of a traced process, as an interval map from address to
 * allocation id. One implementation serves both sides of the driver-level tracer: the injection
 * library (libkscore-cupti.so) keeps it while it records, so that it knows which launch parameters
 * point into memory it has seen allocated, and the scorer's reader (trace/drvtrace.c) rebuilds it
 * from the recorded allocations and frees to classify every 8-byte word of a parameter block.
 *
 * Plain C and libc alone (the injection library links nothing of kscore): no error messages, no
 * aborting allocator; every function reports failure by its return value. Not thread-safe: the
 * recorder holds its own lock around it. */
#ifndef KS_DRVMAP_H
#define KS_DRVMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint64_t base;
	uint64_t size; /* > 0 */
	uint64_t id;   /* the recorder's allocation id */
} ks_drvmap_range;

typedef struct {
	ks_drvmap_range *r; /* sorted by base, never overlapping */
	size_t n, cap;
	size_t max; /* the most live ranges it holds */
} ks_drvmap;

#define KS_DRVMAP_INIT(maxranges) { NULL, 0, 0, (maxranges) }

/* Adds [base, base + size) as allocation id. A range that overlaps live ones replaces them (the
 * driver reuses freed addresses; a free the recorder missed must not leave a stale range that
 * claims the new memory). Returns 0; -1 when size is 0, base + size overflows, the map holds max
 * ranges, or memory runs out (the map is then unchanged). */
int ks_drvmap_add(ks_drvmap *m, uint64_t base, uint64_t size, uint64_t id);

/* Removes the range that starts at base, writing its id to *id when id is not NULL. Returns 0, or
 * -1 when no live range starts there. */
int ks_drvmap_remove(uint64_t *id, ks_drvmap *m, uint64_t base);

/* The live range that holds address a (base <= a < base + size), or NULL. Borrowed: valid until
 * the map next changes. */
const ks_drvmap_range *ks_drvmap_find(const ks_drvmap *m, uint64_t a);

void ks_drvmap_clear(ks_drvmap *m);

#endif
