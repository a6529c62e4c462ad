/* runq: see include/runq.h. */
#include "session/runq.h"
#include "util/errors.h"
#include "util/mem.h"

#include <pthread.h>
#include <string.h>

struct ks_runq_job {
	void *job;
	size_t n, left, first;       /* entries, not done yet, first item number */
	uint64_t rank;
	ks_runq_job *next_done;      /* completed, waiting for the finisher */
};

struct ks_runq {
	ks_lanes *lanes;
	ks_runq_ops ops;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t finisher;
	int threaded, stop;
	ks_runq_job **item;          /* per item number: its job (NULL once complete) */
	size_t nitems, capitems;
	uint64_t next_rank;
	size_t open;                 /* jobs added and not completed yet */
	size_t unready;              /* entries added and not ready yet (ks_runq_ready) */
	size_t inflight;             /* ks_runq_ready calls not returned yet */
	int input_ended, sealed;     /* no job follows; the lanes were told so (ks_lanes_seal) */
	ks_runq_job *done_head, *done_tail;
};

/* Entry done (any thread): the job goes to the finisher after its last one. */
static void entry_done(ks_runq *q, ks_runq_job *j)
{
	pthread_mutex_lock(&q->mu);
	if (--j->left == 0) {
		if (q->done_tail)
			q->done_tail->next_done = j;
		else
			q->done_head = j;
		q->done_tail = j;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
}

static ks_runq_job *job_of(ks_runq *q, size_t item, size_t *i)
{
	ks_runq_job *j;
	pthread_mutex_lock(&q->mu);
	j = item < q->nitems ? q->item[item] : NULL;
	pthread_mutex_unlock(&q->mu);
	*i = j ? item - j->first : 0;
	return j;
}

static ks_lane_outcome lane_run(void *ud, size_t lane, size_t thread, int kind, size_t item, char **why)
{
	ks_runq *q = ud;
	size_t i;
	ks_runq_job *j = job_of(q, item, &i);
	int next = KS_RUNQ_DONE;
	ks_lane_outcome out;
	if (!j)
		return KS_LANE_DONE;
	out = q->ops.run(q->ops.ud, lane, thread, kind, j->job, i, &next, why);
	if (out == KS_LANE_LOST)
		return out;
	if (next >= 0 && next < KS_LANES_KINDS)
		ks_lanes_push(q->lanes, next, item, j->rank);
	else
		entry_done(q, j);
	return KS_LANE_DONE;
}

static void lane_orphan(void *ud, int kind, size_t item, const char *why)
{
	ks_runq *q = ud;
	size_t i;
	ks_runq_job *j = job_of(q, item, &i);
	if (!j)
		return;
	if (q->ops.orphan)
		q->ops.orphan(q->ops.ud, kind, j->job, i, why);
	entry_done(q, j);
}

static void lane_lost(void *ud, size_t lane, const char *why)
{
	ks_runq *q = ud;
	if (q->ops.lost)
		q->ops.lost(q->ops.ud, lane, why);
}

static void *finisher_main(void *ud)
{
	ks_runq *q = ud;
	pthread_mutex_lock(&q->mu);
	for (;;) {
		ks_runq_job *j;
		size_t k;
		while (!q->done_head && !q->stop)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->done_head)
			break;
		j = q->done_head;
		q->done_head = j->next_done;
		if (!q->done_head)
			q->done_tail = NULL;
		for (k = 0; k < j->n; k++)
			q->item[j->first + k] = NULL;
		pthread_mutex_unlock(&q->mu);
		q->ops.complete(q->ops.ud, j->job);
		ks_free(j);
		pthread_mutex_lock(&q->mu);
		q->open--;
		pthread_cond_broadcast(&q->cv);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int ks_runq_new(ks_runq **out, ks_lanes *lanes, const ks_runq_ops *ops)
{
	ks_runq *q = ks_calloc(1, sizeof(*q));
	q->lanes = lanes;
	q->ops = *ops;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	if (pthread_create(&q->finisher, NULL, finisher_main, q) != 0) {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv);
		ks_free(q);
		*out = NULL;
		return ks_error_set(KS_ERROR, "cannot start the run's finisher thread");
	}
	q->threaded = 1;
	if (lanes) {
		ks_lane_work w = { lane_run, lane_orphan, lane_lost, NULL, 0 };
		w.ud = q;
		ks_lanes_begin(lanes, &w);
	}
	*out = q;
	return 0;
}

/* An entry was made ready (readied 1) or the input ended (0): after the last job's last entry, only
 * the lane threads push, and the lanes are sealed, once. Called after the entry's push, inside its
 * `inflight` count, so that ks_runq_free cannot free the queue under it (lock not held). */
static void seal_when_ready(ks_runq *q, size_t readied)
{
	int seal;
	pthread_mutex_lock(&q->mu);
	q->unready -= readied;
	seal = q->input_ended && !q->unready && !q->sealed && q->lanes;
	q->sealed |= seal;
	pthread_mutex_unlock(&q->mu);
	if (seal)
		ks_lanes_seal(q->lanes);
}

void ks_runq_end_input(ks_runq *q)
{
	pthread_mutex_lock(&q->mu);
	q->input_ended = 1;
	pthread_mutex_unlock(&q->mu);
	seal_when_ready(q, 0);
}

void ks_runq_add(ks_runq_job **out, ks_runq *q, void *job, size_t n)
{
	ks_runq_job *j = ks_calloc(1, sizeof(*j));
	size_t k;
	j->job = job;
	j->n = n;
	j->left = n ? n : 1; /* a job of no entries is done at once, below */
	pthread_mutex_lock(&q->mu);
	*out = j;
	j->rank = q->next_rank++;
	j->first = q->nitems;
	q->item = ks_grow(q->item, sizeof(*q->item), &q->capitems, q->nitems + n + 1);
	for (k = 0; k < n; k++)
		q->item[q->nitems++] = j;
	q->open++;
	q->unready += n;
	pthread_mutex_unlock(&q->mu);
	if (n == 0)
		entry_done(q, j);
}

void ks_runq_ready(ks_runq *q, ks_runq_job *j, size_t i, int stage)
{
	/* once the entry is pushed or done, its job may complete and the caller free the queue: the
	 * call counts as in flight until it has sealed the lanes */
	pthread_mutex_lock(&q->mu);
	q->inflight++;
	pthread_mutex_unlock(&q->mu);
	if (stage >= 0 && q->lanes && j->first + i < KS_LANES_MAX_ITEMS)
		ks_lanes_push(q->lanes, stage, j->first + i, j->rank);
	else {
		if (stage >= 0 && q->ops.orphan)
			q->ops.orphan(q->ops.ud, stage, j->job, i, q->lanes ? "too many entries in one run" : "no GPU lane");
		entry_done(q, j);
	}
	seal_when_ready(q, 1);
	pthread_mutex_lock(&q->mu);
	q->inflight--;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void ks_runq_wait(ks_runq *q)
{
	pthread_mutex_lock(&q->mu);
	while (q->open)
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
}

void ks_runq_free(ks_runq *q)
{
	if (!q)
		return;
	ks_runq_wait(q);
	pthread_mutex_lock(&q->mu);
	while (q->inflight)
		pthread_cond_wait(&q->cv, &q->mu);
	pthread_mutex_unlock(&q->mu);
	if (q->lanes)
		ks_lanes_end(q->lanes);
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	if (q->threaded)
		pthread_join(q->finisher, NULL);
	ks_free(q->item);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	ks_free(q);
}
