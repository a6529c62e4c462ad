/* runq tests: the queue of one run across files and teams, with fake lanes and fake stages (no
 * GPU): every entry of every job goes through its stages once, a job is completed exactly once, when
 * its own last entry is done, never waiting for another job; an earlier job's items go first;
 * completions come one at a time; lost lanes and runs without lanes leave no job unfinished. */
#include "ktest.h"
#include "session/runq.h"
#include "util/errors.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define MAXE 64
#define MAXJ 8

typedef struct {
	int id;
	size_t n;
	int stages[MAXE][2];      /* runs of each stage to completion */
	int done[MAXE];           /* the entry reached its end (no further stage) */
	int orphaned[MAXE];
	int first_stage[MAXE];    /* what ready() sent it to */
	int wants_time[MAXE];     /* the check sends it on to the timing stage */
	atomic_int completed;
	int complete_order;
	int entries_done_at_complete;
	ks_runq_job *rq;
} fjob;

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	ks_runq *q;
	int fail_lane;            /* every item on it is lost (-1: none) */
	fjob *block_job;          /* entry 0 of this job waits for `release` */
	int blocked, release;
	atomic_int in_complete, overlap, ncomplete;
	int order[4 * MAXE * MAXJ], norder;
} world;

static void world_init(world *w)
{
	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->fail_lane = -1;
}

static ks_lane_outcome f_run(void *ud, size_t lane, size_t thread, int stage, void *jp, size_t i, int *next, char **why)
{
	world *w = ud;
	fjob *j = jp;
	(void)thread;
	if ((int)lane == w->fail_lane) {
		*why = ks_strdup("the GPU fell off the bus");
		return KS_LANE_LOST;
	}
	if (j == w->block_job && i == 0 && stage == 0) {
		pthread_mutex_lock(&w->mu);
		w->blocked = 1;
		pthread_cond_broadcast(&w->cv);
		while (!w->release)
			pthread_cond_wait(&w->cv, &w->mu);
		pthread_mutex_unlock(&w->mu);
	}
	usleep(100);
	pthread_mutex_lock(&w->mu);
	KT_ASSERT_MSG(!atomic_load(&j->completed), "job %d ran an entry after it completed", j->id);
	j->stages[i][stage]++;
	*next = stage == 0 && j->wants_time[i] ? 1 : KS_RUNQ_DONE;
	if (*next == KS_RUNQ_DONE)
		j->done[i]++;
	if (w->norder < (int)(sizeof(w->order) / sizeof(w->order[0])))
		w->order[w->norder++] = j->id * 1000 + (int)i * 10 + stage;
	pthread_mutex_unlock(&w->mu);
	return KS_LANE_DONE;
}

static void f_orphan(void *ud, int stage, void *jp, size_t i, const char *why)
{
	fjob *j = jp;
	(void)ud;
	(void)stage;
	(void)why;
	j->orphaned[i]++;
	j->done[i]++;
}

static void f_complete(void *ud, void *jp)
{
	world *w = ud;
	fjob *j = jp;
	size_t i;
	int d = 0;
	if (atomic_fetch_add(&w->in_complete, 1) != 0)
		atomic_store(&w->overlap, 1);
	usleep(2000);
	pthread_mutex_lock(&w->mu);
	for (i = 0; i < j->n; i++)
		d += j->done[i] == 1;
	j->entries_done_at_complete = d;
	j->complete_order = atomic_fetch_add(&w->ncomplete, 1);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	atomic_fetch_add(&j->completed, 1);
	atomic_fetch_sub(&w->in_complete, 1);
}

static int f_start(void *ud, size_t lane, size_t thread, char **why)
{
	(void)ud;
	(void)lane;
	(void)thread;
	(void)why;
	return 0;
}

static atomic_int stops;

static void f_stop(void *ud, size_t lane, size_t thread)
{
	(void)ud;
	(void)lane;
	(void)thread;
	atomic_fetch_add(&stops, 1);
}

static ks_lanes *lanes_of(size_t n, size_t threads)
{
	ks_lane_setup s = { f_start, NULL, NULL };
	ks_lanes *l;
	size_t i;
	KT_EQ_INT(ks_lanes_new(&l, &s), 0);
	for (i = 0; i < n; i++)
		KT_EQ_INT(ks_lanes_add(l, threads), (int)i);
	ks_lanes_wait_started(l);
	return l;
}

static ks_runq *runq_of(world *w, ks_lanes *l)
{
	ks_runq_ops ops = { f_run, f_orphan, NULL, f_complete, NULL };
	ops.ud = w;
	KT_EQ_INT(ks_runq_new(&w->q, l, &ops), 0);
	return w->q;
}

static void job_init(fjob *j, int id, size_t n)
{
	memset(j, 0, sizeof(*j));
	j->id = id;
	j->n = n;
}

/* The compile thread of a run: makes the entries of every job ready, in an order of its own. */
typedef struct {
	world *w;
	fjob *jobs;
	size_t njobs;
} feeder;

static void *feed(void *arg)
{
	feeder *f = arg;
	size_t k, i, total = 0, step;
	for (k = 0; k < f->njobs; k++)
		total += f->jobs[k].n;
	/* a stride through all entries of all jobs: jobs interleave, entries come out of order */
	for (step = 0; step < total; step++) {
		size_t x = (step * 7) % total, acc = 0;
		for (k = 0; k < f->njobs; k++) {
			if (x < acc + f->jobs[k].n) {
				i = x - acc;
				if (f->jobs[k].first_stage[i] == KS_RUNQ_DONE) {
					pthread_mutex_lock(&f->w->mu);
					f->jobs[k].done[i]++; /* settled by its prepare step */
					pthread_mutex_unlock(&f->w->mu);
				}
				ks_runq_ready(f->w->q, f->jobs[k].rq, i, f->jobs[k].first_stage[i]);
				break;
			}
			acc += f->jobs[k].n;
		}
	}
	return NULL;
}

static void test_every_job_completes_once_when_its_own_entries_are_done(void)
{
	static const size_t sizes[] = { 3, 0, 20, 1, 9, 5 };
	world w;
	ks_lanes *l;
	fjob jobs[6];
	feeder f;
	pthread_t th;
	size_t k, i;
	world_init(&w);
	l = lanes_of(3, 2);
	runq_of(&w, l);
	for (k = 0; k < 6; k++) {
		job_init(&jobs[k], (int)k, sizes[k]);
		for (i = 0; i < sizes[k]; i++) {
			jobs[k].first_stage[i] = (i % 5 == 4) ? KS_RUNQ_DONE : 0; /* settled without a GPU */
			jobs[k].wants_time[i] = i % 2 == 0;
		}
		ks_runq_add(&jobs[k].rq, w.q, &jobs[k], sizes[k]);
	}
	f.w = &w;
	f.jobs = jobs;
	f.njobs = 6;
	KT_EQ_INT(pthread_create(&th, NULL, feed, &f), 0);
	pthread_join(th, NULL);
	ks_runq_wait(w.q);
	for (k = 0; k < 6; k++) {
		KT_EQ_INT(atomic_load(&jobs[k].completed), 1);
		KT_EQ_INT(jobs[k].entries_done_at_complete, (int)sizes[k]);
		for (i = 0; i < sizes[k]; i++) {
			int ran = jobs[k].first_stage[i] == 0;
			KT_EQ_INT(jobs[k].done[i], 1);
			KT_EQ_INT(jobs[k].stages[i][0], ran);
			KT_EQ_INT(jobs[k].stages[i][1], ran && jobs[k].wants_time[i]);
			KT_EQ_INT(jobs[k].orphaned[i], 0);
		}
	}
	KT_EQ_INT(atomic_load(&w.ncomplete), 6);
	KT_EQ_INT(atomic_load(&w.overlap), 0); /* one completion at a time */
	ks_runq_free(w.q);
	ks_lanes_free(l);
}


static void wait_for(world *w, int *flag)
{
	pthread_mutex_lock(&w->mu);
	while (!*flag)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* A file whose kernel is slow does not hold back the file after it: the later job completes (its
 * results are written) while the earlier one still runs, and the earlier completes when it is done. */
static void test_a_job_never_waits_for_another(void)
{
	world w;
	ks_lanes *l;
	fjob a, b;
	size_t i;
	int t;
	world_init(&w);
	l = lanes_of(1, 2);
	runq_of(&w, l);
	job_init(&a, 1, 3);
	job_init(&b, 2, 4);
	w.block_job = &a;
	ks_runq_add(&a.rq, w.q, &a, a.n);
	ks_runq_add(&b.rq, w.q, &b, b.n);
	for (i = 0; i < a.n; i++)
		ks_runq_ready(w.q, a.rq, i, 0);
	wait_for(&w, &w.blocked);
	for (i = 0; i < b.n; i++)
		ks_runq_ready(w.q, b.rq, i, 0);
	/* b completes on the lane's other thread while a's first entry is still running */
	for (t = 0; t < 5000 && !atomic_load(&b.completed); t++)
		usleep(1000);
	KT_EQ_INT(atomic_load(&b.completed), 1);
	KT_EQ_INT(atomic_load(&a.completed), 0);
	pthread_mutex_lock(&w.mu);
	w.release = 1;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	ks_runq_wait(w.q);
	KT_EQ_INT(atomic_load(&a.completed), 1);
	KT_EQ_INT(b.complete_order, 0);
	KT_EQ_INT(a.complete_order, 1);
	ks_runq_free(w.q);
	ks_lanes_free(l);
}

/* One queue: a lane takes an earlier job's checks and timings before a later job's checks, so
 * files complete in order when their kernels cost alike. */
static void test_an_earlier_jobs_items_go_first(void)
{
	static const int want[] = { 1000, 1010, 1001, 1011, 2000, 2010, 2001, 2011 };
	world w;
	ks_lanes *l;
	fjob gate, a, b;
	size_t i;
	world_init(&w);
	l = lanes_of(1, 1);
	runq_of(&w, l);
	job_init(&gate, 0, 1);
	job_init(&a, 1, 2);
	job_init(&b, 2, 2);
	for (i = 0; i < 2; i++)
		a.wants_time[i] = b.wants_time[i] = 1;
	w.block_job = &gate;
	ks_runq_add(&gate.rq, w.q, &gate, 1);
	ks_runq_add(&a.rq, w.q, &a, 2);
	ks_runq_add(&b.rq, w.q, &b, 2);
	ks_runq_ready(w.q, gate.rq, 0, 0);
	wait_for(&w, &w.blocked);
	/* the later job's entries are ready first */
	for (i = 0; i < 2; i++)
		ks_runq_ready(w.q, b.rq, i, 0);
	for (i = 0; i < 2; i++)
		ks_runq_ready(w.q, a.rq, i, 0);
	pthread_mutex_lock(&w.mu);
	w.release = 1;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.mu);
	ks_runq_wait(w.q);
	KT_EQ_INT(w.norder, 9);
	for (i = 0; i < 8; i++)
		KT_EQ_INT(w.order[i + 1], want[i]);
	KT_EQ_INT(a.complete_order, 1);
	KT_EQ_INT(b.complete_order, 2);
	ks_runq_free(w.q);
	ks_lanes_free(l);
}

/* A lane whose GPU fails: its items run on the other lane, no job is charged or left unfinished;
 * with every lane gone, what is left is orphaned and every job still completes. */
static void test_lost_lanes_leave_no_job_unfinished(void)
{
	world w;
	ks_lanes *l;
	fjob a, b;
	size_t i;
	world_init(&w);
	w.fail_lane = 1;
	l = lanes_of(2, 1);
	runq_of(&w, l);
	job_init(&a, 1, 10);
	job_init(&b, 2, 10);
	for (i = 0; i < 10; i++)
		a.wants_time[i] = 1;
	ks_runq_add(&a.rq, w.q, &a, 10);
	ks_runq_add(&b.rq, w.q, &b, 10);
	for (i = 0; i < 10; i++) {
		ks_runq_ready(w.q, a.rq, i, 0);
		ks_runq_ready(w.q, b.rq, i, 0);
	}
	ks_runq_wait(w.q);
	for (i = 0; i < 10; i++) {
		KT_EQ_INT(a.stages[i][0], 1);
		KT_EQ_INT(a.stages[i][1], 1);
		KT_EQ_INT(b.stages[i][0], 1);
		KT_EQ_INT(a.orphaned[i] + b.orphaned[i], 0);
	}
	KT_EQ_INT(atomic_load(&a.completed) + atomic_load(&b.completed), 2);
	KT_EQ_INT(ks_lanes_live(l), 1);
	ks_runq_free(w.q);
	ks_lanes_free(l);

	/* every lane fails: orphans, and the jobs complete */
	world_init(&w);
	w.fail_lane = 0;
	l = lanes_of(1, 2);
	runq_of(&w, l);
	job_init(&a, 1, 6);
	ks_runq_add(&a.rq, w.q, &a, 6);
	for (i = 0; i < 6; i++)
		ks_runq_ready(w.q, a.rq, i, 0);
	ks_runq_wait(w.q);
	KT_EQ_INT(atomic_load(&a.completed), 1);
	KT_EQ_INT(a.entries_done_at_complete, 6);
	for (i = 0; i < 6; i++) {
		KT_EQ_INT(a.orphaned[i], 1);
		KT_EQ_INT(a.stages[i][0], 0);
	}
	ks_runq_free(w.q);
	ks_lanes_free(l);
}

/* No GPU: entries settled without one complete their job; one sent to a stage is handed back. */
static void test_without_lanes_every_job_completes(void)
{
	world w;
	fjob a, empty;
	world_init(&w);
	runq_of(&w, NULL);
	job_init(&a, 1, 2);
	job_init(&empty, 2, 0);
	ks_runq_add(&a.rq, w.q, &a, 2);
	ks_runq_add(&empty.rq, w.q, &empty, 0);
	ks_runq_ready(w.q, a.rq, 0, KS_RUNQ_DONE);
	ks_runq_ready(w.q, a.rq, 1, 0);
	ks_runq_wait(w.q);
	KT_EQ_INT(atomic_load(&a.completed), 1);
	KT_EQ_INT(atomic_load(&empty.completed), 1);
	KT_EQ_INT(a.orphaned[0], 0);
	KT_EQ_INT(a.orphaned[1], 1);
	ks_runq_free(w.q);
	ks_runq_free(NULL);
}

/* The input ended: the lanes are sealed only once the last entry is ready too (a lane thread that
 * finds the queue empty before then keeps its workers for what is still compiling); then a thread
 * with nothing left closes them before the run ends. */
static void test_the_lanes_are_sealed_after_the_input_ended_and_the_last_entry_is_ready(void)
{
	ks_lane_setup s = { f_start, f_stop, NULL };
	world w;
	ks_lanes *l;
	fjob j;
	int i;
	world_init(&w);
	atomic_store(&stops, 0);
	KT_EQ_INT(ks_lanes_new(&l, &s), 0);
	KT_EQ_INT(ks_lanes_add(l, 1), 0);
	ks_lanes_wait_started(l);
	runq_of(&w, l);
	job_init(&j, 1, 3);
	ks_runq_add(&j.rq, w.q, &j, 3);
	ks_runq_end_input(w.q);
	ks_runq_ready(w.q, j.rq, 0, 0);
	ks_runq_ready(w.q, j.rq, 1, KS_RUNQ_DONE);
	for (i = 0; i < 500 && !j.done[0]; i++)
		usleep(10000);
	usleep(50000);
	KT_EQ_INT(j.done[0], 1);
	KT_EQ_INT(atomic_load(&stops), 0); /* entry 2 is still being prepared */
	ks_runq_ready(w.q, j.rq, 2, 0);
	for (i = 0; i < 500 && !atomic_load(&stops); i++)
		usleep(10000);
	KT_EQ_INT(atomic_load(&stops), 1);
	KT_EQ_INT(j.stages[2][0], 1);
	ks_runq_free(w.q);
	ks_lanes_free(l);
	KT_EQ_INT(atomic_load(&stops), 1);
	KT_EQ_INT(atomic_load(&j.completed), 1);
}

static const kt_test tests[] = {
	KT(test_every_job_completes_once_when_its_own_entries_are_done),
	KT(test_a_job_never_waits_for_another),
	KT(test_an_earlier_jobs_items_go_first),
	KT(test_lost_lanes_leave_no_job_unfinished),
	KT(test_without_lanes_every_job_completes),
	KT(test_the_lanes_are_sealed_after_the_input_ended_and_the_last_entry_is_ready),
	{ NULL, NULL }
};

KT_MAIN("runq", tests)
