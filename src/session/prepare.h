/* prepare: the CPU stage of every entry of a run, before any GPU sees it: its problem, its launch
 * plan (evaluated on every correctness case, so a formula that fails is reported before anything
 * runs) and the compiles of its kernel and of its problem's golden kernel. One queue serves a whole
 * run, every file of `score a.json b.json dir/` and every team of a batch: submissions are added as
 * they come (ks_prepare_add), and one compile thread takes everything waiting at once and compiles
 * it with --jobs helpers (all cores by default), ahead of the GPU lanes. Within what it takes, each
 * submission's golden kernels it needs come before its own kernels, and submissions keep their
 * order, so the first file's kernels are ready first. A golden kernel is compiled once per run.
 *
 * Each entry's prepare step ends in one place: ready(ud, set_ud, i, img), called from the compile
 * thread exactly once per entry, with img the candidate to run on a GPU, or NULL when the entry is
 * settled without one (its result then holds why: a compile error, an unknown problem, a golden
 * kernel that does not compile, or compiled only, without a GPU). A Triton answer is not compiled
 * here: once its problem's golden kernel is in, it is handed on as it is, and the check that takes
 * it traces it on its lane's GPU first (run/candidate.h); without a GPU it gets the static check
 * alone. */
#ifndef KS_PREPARE_H
#define KS_PREPARE_H

#include <stddef.h>
#include "run/check.h"
#include "run/result.h"
#include "load/submission.h"

typedef struct ks_prepare ks_prepare;
typedef struct ks_prepare_set ks_prepare_set;

typedef void (*ks_prepare_ready_fn)(void *ud, void *set_ud, size_t i, const ks_candidate_image *img);

/* Starts the queue and its compile thread. With gpu set, golden kernels are compiled into store and
 * entries are handed on with their image; without (store may be NULL), entries are compiled only.
 * o is copied (its problems must outlive the queue). Caller frees with ks_prepare_free. */
int ks_prepare_new(ks_prepare **out, ks_golden_store *store, int gpu, const ks_check_options *o,
		   ks_prepare_ready_fn ready, void *ud);

/* Adds one submission: initialises results[i] for entries[i] (pass[i]: the file it came from),
 * decides what needs no compile, and queues the compiles. *out is the set, stored before the
 * compile thread can see it; every ready call for it comes from that thread (after its last one,
 * the set may be freed before this returns: the caller must not rely on it after the call).
 * entries, results and pass must live until the set is freed. */
void ks_prepare_add(ks_prepare_set **out, ks_prepare *q, ks_kernel_result *results,
		    const ks_entry *const *entries, const size_t *pass, size_t n, void *set_ud);

/* Entry i's candidate (NULL when it is not to be run, or before its ready call): a compiled CUDA
 * kernel, or a Triton answer that its check traces (run/candidate.h) and later stages use as the
 * check made it. Valid until the set is freed. */
ks_candidate_image *ks_prepare_image(ks_prepare_set *s, size_t i);

/* Frees a set once every one of its entries has had its ready call (the queue no longer touches a
 * set after its last one). NULL is fine. */
void ks_prepare_set_free(ks_prepare_set *s);

/* While held, the compile thread takes nothing new: a caller that adds several submissions at
 * once (every file of one command line) holds the queue around the adds, so that they go into
 * one wave on all cores instead of the first alone, then the rest once it is done. A wave already
 * running goes on. ks_prepare_free compiles what is queued even when held. */
void ks_prepare_hold(ks_prepare *q, int held);

/* Compiles what is queued, stops the thread and frees the queue; sets are the caller's. */
void ks_prepare_free(ks_prepare *q);

#endif
