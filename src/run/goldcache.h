/* goldcache: golden results kept for a whole run, shared by every runner of one GPU. In one run with
 * one seed, the golden kernel's outputs for a (problem, case, seed) are the same for every team and
 * every file, so each is computed once per GPU instead of once per entry; the golden worker is run
 * only for what the cache does not hold. The values live in the scoring process, as the runner's
 * own golden results always did: never in a process that runs submission code (DESIGN §4.4).
 *
 * Values are opaque (the runner's ks_golden_run) and freed by the destructor given at creation.
 * A value is referenced while a runner uses it; above max_bytes, the least recently used values
 * that nobody references are dropped (they are computed again when needed). Thread-safe. */
#ifndef KS_GOLDCACHE_H
#define KS_GOLDCACHE_H

#include <stddef.h>
#include <stdint.h>

/* What a golden result depends on besides the problem set and plan limits of the run. */
typedef struct {
	const void *problem;      /* the problem (its address: the run's problem set outlives the cache) */
	int perf;                 /* 1: a perf case, 0: a correctness case */
	size_t case_index;
	uint64_t seed;
} ks_goldcache_key;

typedef struct ks_goldcache ks_goldcache;
typedef struct ks_goldcache_entry ks_goldcache_entry;

/* The default budget of one GPU's cache (the hackathon's ten problems at perf size take about
 * 150 MiB: each kept perf result is its outputs' samples, KS_VERIFY_SAMPLES elements each). */
#define KS_GOLDCACHE_DEFAULT_MAX_BYTES (256ull << 20)

/* A cache of at most max_bytes (0: no bound) whose values free_value frees. Caller frees with
 * ks_goldcache_free once no runner uses it. */
ks_goldcache *ks_goldcache_new(uint64_t max_bytes, void (*free_value)(void *value));

/* The entry of key with a reference taken for the caller, or NULL when it is not held. */
ks_goldcache_entry *ks_goldcache_get(ks_goldcache *c, const ks_goldcache_key *key);

/* Stores value (bytes: its size, for the budget; the cache owns it from now on) under key and
 * returns its entry with a reference taken for the caller. When key is present already (another
 * runner computed it meanwhile), value is freed and the present entry is returned. */
ks_goldcache_entry *ks_goldcache_put(ks_goldcache *c, const ks_goldcache_key *key, void *value, uint64_t bytes);

/* The value of an entry the caller holds a reference on. */
void *ks_goldcache_value(const ks_goldcache_entry *e);

/* Drops the caller's reference (NULL is fine); the entry may be dropped from then on. */
void ks_goldcache_release(ks_goldcache *c, ks_goldcache_entry *e);

typedef struct {
	uint64_t hits, misses;    /* get calls that found / did not find their key */
	uint64_t computed;        /* values put (a put that found its key present counts too) */
	uint64_t evicted;         /* values dropped for the budget */
	uint64_t bytes;           /* held now */
	size_t entries;
} ks_goldcache_stats;

void ks_goldcache_stats_get(ks_goldcache_stats *out, ks_goldcache *c);

/* Frees every value. Every reference must have been released. NULL is fine. */
void ks_goldcache_free(ks_goldcache *c);

#endif
