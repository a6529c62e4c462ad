/* runq: the queue of one run. A run scores jobs (a file of `score a.json b.json dir/`, a team of a
 * batch or shard), each a list of entries; every entry of every job goes through stages on the GPU
 * lanes (lanes.h: check, then time), all lanes pulling from the one queue, the items of an earlier
 * job first. A job is complete when its own last entry is done, and is then handed once to
 * complete(), in the run's finisher thread, whatever other jobs are still running: a file's or a
 * team's results are written as soon as it is scored, and no job waits for another.
 *
 * An entry enters the queue when its prepare step is over (prepare.h: today a compile on the CPU),
 * through ks_runq_ready with the stage it goes to first, or KS_RUNQ_DONE when it was settled
 * without a GPU. A stage of another kind (a Triton answer's trace on a lane's GPU) is one more
 * stage: the entry is made ready to it and the trace's run() sends it on to the check.
 *
 * The module knows nothing of GPUs or results: the callbacks do, so the tests drive it with fake
 * lanes and fake stages. */
#ifndef KS_RUNQ_H
#define KS_RUNQ_H

#include <stddef.h>
#include "session/lanes.h"

#define KS_RUNQ_DONE (-1)     /* the entry goes to no further stage */

typedef struct ks_runq ks_runq;
typedef struct ks_runq_job ks_runq_job;

typedef struct {
	/* Runs `stage` of entry i of job in the calling lane thread and sets *next to the stage it goes
	 * to next (KS_RUNQ_DONE: none). KS_LANE_LOST: the lane's GPU failed; the callee has undone what
	 * the stage recorded, and the stage runs again on another lane (*why as in lanes.h). */
	ks_lane_outcome (*run)(void *ud, size_t lane, size_t thread, int stage, void *job, size_t i, int *next,
			       char **why);
	/* The stage will not run (every lane is out, or it ran on lanes that were lost); the entry is
	 * done after this. Called with the scheduler's lock held: must not call back into it. */
	void (*orphan)(void *ud, int stage, void *job, size_t i, const char *why);
	/* A lane was taken out of the rotation (lanes.h; same restriction as orphan). */
	void (*lost)(void *ud, size_t lane, const char *why);
	/* Every entry of job is done: called once per job, in the finisher thread, one job at a time,
	 * in the order jobs complete. The runq no longer refers to job afterwards. */
	void (*complete)(void *ud, void *job);
	void *ud;
} ks_runq_ops;

/* A queue over lanes (NULL: no GPU, every entry is settled without one), whose round it begins;
 * and its finisher thread. ops is copied. Caller frees with ks_runq_free. */
int ks_runq_new(ks_runq **out, ks_lanes *lanes, const ks_runq_ops *ops);

/* Adds a job of n entries, its items ranked after every job added before. *out is its handle, set
 * before anything of the job can complete (a job of no entries completes at once). */
void ks_runq_add(ks_runq_job **out, ks_runq *q, void *job, size_t n);

/* Entry i of a job is prepared: it goes to `stage` on the lanes, or is done (KS_RUNQ_DONE). Once per
 * entry, from any thread. */
void ks_runq_ready(ks_runq *q, ks_runq_job *j, size_t i, int stage);

/* No job will be added any more. Once the last entry is ready too, only the lanes push (the next
 * stages of what runs): the lanes are sealed (ks_lanes_seal), so a lane thread with nothing left
 * closes its workers while the others finish. Optional; from any thread, once. */
void ks_runq_end_input(ks_runq *q);

/* Returns once every job added so far has completed (its complete() returned). */
void ks_runq_wait(ks_runq *q);

/* Waits (ks_runq_wait), ends the lanes' round, stops the finisher and frees the queue (not the
 * lanes). NULL is fine. */
void ks_runq_free(ks_runq *q);

#endif
