/* lanes tests: the --devices scheduler with fake lanes (no GPU): every item runs exactly once,
 * checks before timings, a lane that loses its GPU leaves the rotation and its item runs
 * elsewhere, items no lane can take are handed back, threads set up and tear down their own
 * workers, and the GPU gate keeps timed requests alone and in order. */
#include "ktest.h"
#include "session/lanes.h"
#include "util/errors.h"
#include "util/mem.h"

#include <pthread.h>
#include <unistd.h>
#include <stdatomic.h>
#include <time.h>

#define NITEMS 200

typedef struct {
	pthread_mutex_t mu;
	int runs[KS_LANES_KINDS][NITEMS];      /* times each item ran to completion */
	int lane_of[KS_LANES_KINDS][NITEMS];
	int orphaned[KS_LANES_KINDS][NITEMS];
	char orphan_why[512];
	int lost[KS_LANES_MAX];
	char lost_why[KS_LANES_MAX][128];
	int fail_lane;          /* this lane loses its GPU on its first item (-1: none) */
	int fail_start_lane;    /* this lane cannot start (-1: none) */
	int fail_later_lane;    /* this lane's threads after the first cannot start (-1: none) */
	long later_start_us;    /* how long the start of a thread after a lane's first takes */
	double begin[KS_LANES_MAX][KS_LANES_THREADS], end[KS_LANES_MAX][KS_LANES_THREADS];
	int thread_of[KS_LANES_KINDS][NITEMS];
	int poison_item;        /* kind 0 item that makes every lane it runs on fail (-1: none) */
	int follow_up;          /* a kind 0 item queues the same item of kind 1 */
	ks_lanes *l;
	pthread_t started_by[KS_LANES_MAX][KS_LANES_THREADS];
	int started[KS_LANES_MAX][KS_LANES_THREADS], stopped[KS_LANES_MAX][KS_LANES_THREADS];
	int stop_same_thread;
	int order[2 * NITEMS], norder;
	/* a blocker: item 0 of kind 0 waits until `release` */
	int block, release, blocked, blocked_lane;
	int block2, release2, blocked2, blocked2_lane; /* the same for item 1 of kind 0 */
	pthread_cond_t cv;
	/* ready: this lane's first thread waits in it until ready_go (-1: none); this lane's fails */
	int ready_block_lane, ready_go, ready_fail_lane;
	double ready_end[KS_LANES_MAX][KS_LANES_THREADS];
} fake;

static void fake_init(fake *f)
{
	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->fail_lane = f->fail_start_lane = f->fail_later_lane = f->poison_item = -1;
	f->ready_block_lane = f->ready_fail_lane = -1;
	f->stop_same_thread = 1;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static int f_start(void *ud, size_t lane, size_t thread, char **why)
{
	fake *f = ud;
	int rc = 0;
	pthread_mutex_lock(&f->mu);
	f->started_by[lane][thread] = pthread_self();
	f->started[lane][thread]++;
	f->begin[lane][thread] = now_s();
	pthread_mutex_unlock(&f->mu);
	if (thread > 0 && f->later_start_us)
		usleep((useconds_t)f->later_start_us);
	if ((int)lane == f->fail_start_lane) {
		*why = ks_strdup("no CUDA device 9 (the driver sees 1)");
		rc = -1;
	} else if (thread > 0 && (int)lane == f->fail_later_lane) {
		*why = ks_strdup("out of memory for a second worker");
		rc = -1;
	}
	pthread_mutex_lock(&f->mu);
	f->end[lane][thread] = now_s();
	pthread_mutex_unlock(&f->mu);
	return rc;
}

static int f_ready(void *ud, size_t lane, size_t thread, char **why)
{
	fake *f = ud;
	int rc = 0;
	pthread_mutex_lock(&f->mu);
	while ((int)lane == f->ready_block_lane && thread == 0 && !f->ready_go)
		pthread_cond_wait(&f->cv, &f->mu);
	if ((int)lane == f->ready_fail_lane) {
		*why = ks_strdup("the context could not be made");
		rc = -1;
	}
	f->ready_end[lane][thread] = now_s();
	pthread_mutex_unlock(&f->mu);
	return rc;
}

static void f_stop(void *ud, size_t lane, size_t thread)
{
	fake *f = ud;
	/* a slow stop (a worker that takes its time to exit): it must still be over when the lane
	 * that could not start counts as started */
	if ((int)lane == f->fail_start_lane)
		usleep(20000);
	pthread_mutex_lock(&f->mu);
	f->stopped[lane][thread]++;
	if (!pthread_equal(f->started_by[lane][thread], pthread_self()))
		f->stop_same_thread = 0;
	pthread_mutex_unlock(&f->mu);
}

static ks_lane_outcome f_run(void *ud, size_t lane, size_t thread, int kind, size_t item, char **why)
{
	fake *f = ud;
	if (f->block && kind == 0 && item == 0) {
		pthread_mutex_lock(&f->mu);
		f->blocked = 1;
		f->blocked_lane = (int)lane;
		pthread_cond_broadcast(&f->cv);
		while (!f->release)
			pthread_cond_wait(&f->cv, &f->mu);
		pthread_mutex_unlock(&f->mu);
	}
	if (f->block2 && kind == 0 && item == 1) {
		pthread_mutex_lock(&f->mu);
		f->blocked2 = 1;
		f->blocked2_lane = (int)lane;
		pthread_cond_broadcast(&f->cv);
		while (!f->release2)
			pthread_cond_wait(&f->cv, &f->mu);
		pthread_mutex_unlock(&f->mu);
	}
	if ((int)lane == f->fail_lane || (kind == 0 && (int)item == f->poison_item)) {
		*why = ks_asprintf("a fresh worker on lane %zu could not start", lane);
		return KS_LANE_LOST;
	}
	{
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	pthread_mutex_lock(&f->mu);
	f->runs[kind][item]++;
	f->lane_of[kind][item] = (int)lane;
	f->thread_of[kind][item] = (int)thread;
	if (f->norder < 2 * NITEMS)
		f->order[f->norder++] = kind * 1000 + (int)item;
	pthread_mutex_unlock(&f->mu);
	if (f->follow_up && kind == 0)
		ks_lanes_push(f->l, 1, item, 0);
	return KS_LANE_DONE;
}

static void f_orphan(void *ud, int kind, size_t item, const char *why)
{
	fake *f = ud;
	f->orphaned[kind][item]++;
	snprintf(f->orphan_why, sizeof(f->orphan_why), "%s", why);
}

static void f_lost(void *ud, size_t lane, const char *why)
{
	fake *f = ud;
	f->lost[lane]++;
	snprintf(f->lost_why[lane], sizeof(f->lost_why[lane]), "%s", why);
}

static ks_lanes *make(fake *f, size_t nlanes, size_t nthreads)
{
	ks_lane_setup s = { f_start, f_stop, f };
	ks_lanes *l = NULL;
	size_t i;
	KT_EQ_INT(ks_lanes_new(&l, &s), 0);
	for (i = 0; i < nlanes; i++)
		KT_EQ_INT(ks_lanes_add(l, nthreads), (int)i);
	ks_lanes_wait_started(l);
	f->l = l;
	return l;
}

static ks_lanes *make_with_ready(fake *f, size_t nlanes, size_t nthreads)
{
	ks_lane_setup s = { f_start, f_stop, f, f_ready };
	ks_lanes *l = NULL;
	size_t i;
	KT_EQ_INT(ks_lanes_new(&l, &s), 0);
	for (i = 0; i < nlanes; i++)
		KT_EQ_INT(ks_lanes_add(l, nthreads), (int)i);
	ks_lanes_wait_started(l);
	f->l = l;
	return l;
}

static void round_of(fake *f, ks_lanes *l, size_t n)
{
	ks_lane_work w = { f_run, f_orphan, f_lost, f, 0 };
	size_t i;
	ks_lanes_begin(l, &w);
	for (i = 0; i < n; i++)
		ks_lanes_push(l, 0, i, 0);
	ks_lanes_end(l);
}

static void test_every_item_runs_exactly_once_over_lanes_and_threads(void)
{
	fake f;
	ks_lanes *l;
	int used[KS_LANES_MAX] = { 0 }, nused = 0;
	size_t i;
	fake_init(&f);
	f.follow_up = 1;
	l = make(&f, 3, 2);
	KT_EQ_INT(ks_lanes_count(l), 3);
	KT_EQ_INT(ks_lanes_live(l), 3);
	round_of(&f, l, NITEMS);
	for (i = 0; i < NITEMS; i++) {
		KT_EQ_INT(f.runs[0][i], 1);
		KT_EQ_INT(f.runs[1][i], 1); /* pushed by the lane thread that ran kind 0 */
		used[f.lane_of[0][i]] = 1;
	}
	for (i = 0; i < 3; i++)
		nused += used[i];
	KT_ASSERT_MSG(nused >= 2, "only %d of 3 lanes took work", nused);
	/* a second round on the same threads */
	memset(f.runs, 0, sizeof(f.runs));
	round_of(&f, l, 10);
	for (i = 0; i < 10; i++)
		KT_EQ_INT(f.runs[0][i], 1);
	ks_lanes_free(l);
	for (i = 0; i < 3; i++) {
		KT_EQ_INT(f.stopped[i][0], 1);
		KT_EQ_INT(f.stopped[i][1], 1);
	}
	KT_ASSERT_MSG(f.stop_same_thread, "a lane's workers were torn down by another thread than the one that "
			 "started them");
}

/* Checks come before timings: kind 0 waiting is taken before kind 1 waiting. */
static void test_kind_zero_is_taken_first(void)
{
	fake f;
	ks_lanes *l;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	int i;
	fake_init(&f);
	f.block = 1;
	w.ud = &f;
	l = make(&f, 1, 1);
	ks_lanes_begin(l, &w);
	ks_lanes_push(l, 0, 0, 0);
	pthread_mutex_lock(&f.mu);
	while (!f.blocked)
		pthread_cond_wait(&f.cv, &f.mu);
	pthread_mutex_unlock(&f.mu);
	for (i = 1; i < 5; i++)
		ks_lanes_push(l, 1, (size_t)i, 0);
	for (i = 1; i < 5; i++)
		ks_lanes_push(l, 0, (size_t)i, 0);
	pthread_mutex_lock(&f.mu);
	f.release = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	ks_lanes_end(l);
	KT_EQ_INT(f.norder, 9);
	for (i = 0; i < 5; i++)
		KT_EQ_INT(f.order[i], i);           /* checks, in push order */
	for (i = 5; i < 9; i++)
		KT_EQ_INT(f.order[i], 1000 + i - 4); /* then timings */
	ks_lanes_free(l);
}

/* One queue for a whole run: an earlier job's items (a lower rank) go first, then, within a rank,
 * checks before timings, then the order they came in. */
static void test_lower_ranks_go_first_then_kinds_then_arrival(void)
{
	static const int want[] = { 0, 1004, 3, 6, 1002, 1, 5 };
	fake f;
	ks_lanes *l;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	size_t i;
	fake_init(&f);
	f.block = 1;
	w.ud = &f;
	l = make(&f, 1, 1);
	ks_lanes_begin(l, &w);
	ks_lanes_push(l, 0, 0, 0);
	pthread_mutex_lock(&f.mu);
	while (!f.blocked)
		pthread_cond_wait(&f.cv, &f.mu);
	pthread_mutex_unlock(&f.mu);
	ks_lanes_push(l, 0, 1, 2);
	ks_lanes_push(l, 1, 2, 1);
	ks_lanes_push(l, 0, 3, 1);
	ks_lanes_push(l, 1, 4, 0);
	ks_lanes_push(l, 0, 5, 2);
	ks_lanes_push(l, 0, 6, 1);
	pthread_mutex_lock(&f.mu);
	f.release = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	ks_lanes_end(l);
	KT_EQ_INT(f.norder, 7);
	for (i = 0; i < 7; i++)
		KT_EQ_INT(f.order[i], want[i]);
	ks_lanes_free(l);
}

/* A held lane (its GPU not calibrated yet) takes nothing; its items wait for it, not orphaned. */
static void test_a_held_lane_takes_nothing_until_released(void)
{
	fake f;
	ks_lanes *l;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	size_t i;
	fake_init(&f);
	w.ud = &f;
	l = make(&f, 2, 1);
	ks_lanes_hold(l, 1);
	round_of(&f, l, 30);
	for (i = 0; i < 30; i++)
		KT_EQ_INT(f.lane_of[0][i], 0);
	memset(f.runs, 0, sizeof(f.runs));
	ks_lanes_hold(l, 0);
	ks_lanes_begin(l, &w);
	for (i = 0; i < 5; i++)
		ks_lanes_push(l, 0, i, 0);
	usleep(50000);
	for (i = 0; i < 5; i++) {
		KT_EQ_INT(f.runs[0][i], 0);
		KT_EQ_INT(f.orphaned[0][i], 0);
	}
	KT_EQ_INT(ks_lanes_live(l), 2);
	ks_lanes_release(l, 1);
	ks_lanes_end(l);
	for (i = 0; i < 5; i++) {
		KT_EQ_INT(f.runs[0][i], 1);
		KT_EQ_INT(f.lane_of[0][i], 1);
	}
	ks_lanes_free(l);
}

/* The item a lost lane was running goes back before the items of its rank and kind that waited
 * behind it: it was next, and stays next. */
static void test_a_lost_item_goes_back_to_the_front_of_its_rank(void)
{
	fake f;
	ks_lanes *l;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	int lost;
	fake_init(&f);
	f.fail_lane = 0;
	w.ud = &f;
	l = make(&f, 2, 1);
	ks_lanes_hold(l, 0);
	ks_lanes_hold(l, 1);
	ks_lanes_begin(l, &w);
	ks_lanes_push(l, 0, 1, 3);
	ks_lanes_push(l, 0, 2, 3);
	ks_lanes_release(l, 0);
	do {
		usleep(1000);
		pthread_mutex_lock(&f.mu);
		lost = f.lost[0];
		pthread_mutex_unlock(&f.mu);
	} while (!lost);
	ks_lanes_release(l, 1);
	ks_lanes_end(l);
	KT_EQ_INT(f.norder, 2);
	KT_EQ_INT(f.order[0], 1);
	KT_EQ_INT(f.order[1], 2);
	ks_lanes_free(l);
}

static void test_a_lost_lane_leaves_and_its_item_runs_elsewhere(void)
{
	fake f;
	ks_lanes *l;
	size_t i;
	fake_init(&f);
	f.fail_lane = 1;
	l = make(&f, 2, 2);
	round_of(&f, l, 50);
	for (i = 0; i < 50; i++) {
		KT_EQ_INT(f.runs[0][i], 1);
		KT_EQ_INT(f.orphaned[0][i], 0);
		KT_EQ_INT(f.lane_of[0][i], 0);
	}
	KT_EQ_INT(f.lost[1], 1);  /* said once, although both its threads failed */
	KT_EQ_INT(f.lost[0], 0);
	KT_CONTAINS(f.lost_why[1], "could not start");
	KT_ASSERT(!ks_lanes_alive(l, 1));
	KT_ASSERT(ks_lanes_alive(l, 0));
	KT_EQ_INT(ks_lanes_live(l), 1);
	KT_CONTAINS(ks_lanes_why(l, 1), "lane 1 could not start");
	KT_ASSERT(ks_lanes_why(l, 0) == NULL);
	/* its threads stopped (and freed their workers) as soon as it was out; its second one, which
	 * starts after the first, only when it had started before the lane was out */
	for (i = 0; i < 200; i++) {
		int done;
		pthread_mutex_lock(&f.mu);
		done = f.stopped[1][0] == 1 && f.stopped[1][1] == f.started[1][1];
		pthread_mutex_unlock(&f.mu);
		if (done)
			break;
		usleep(10000);
	}
	KT_EQ_INT(f.stopped[1][0], 1);
	KT_EQ_INT(f.stopped[1][1], f.started[1][1]);
	/* the next round runs on the lane left */
	memset(f.runs, 0, sizeof(f.runs));
	round_of(&f, l, 20);
	for (i = 0; i < 20; i++)
		KT_EQ_INT(f.runs[0][i], 1);
	KT_EQ_INT(f.lost[1], 1);
	ks_lanes_free(l);
}

static void test_with_every_lane_lost_the_work_is_handed_back(void)
{
	fake f;
	ks_lanes *l;
	size_t i;
	int orphans = 0;
	fake_init(&f);
	f.fail_lane = 0;
	l = make(&f, 1, 2);
	round_of(&f, l, 30);
	for (i = 0; i < 30; i++) {
		KT_EQ_INT(f.runs[0][i], 0);
		orphans += f.orphaned[0][i];
		KT_ASSERT(f.orphaned[0][i] <= 1);
	}
	KT_EQ_INT(orphans, 30);
	KT_CONTAINS(f.orphan_why, "every GPU lane is out");
	KT_CONTAINS(f.orphan_why, "lane 0: a fresh worker on lane 0 could not start");
	/* a later round: nothing to run it on, handed back at once */
	memset(f.orphaned, 0, sizeof(f.orphaned));
	round_of(&f, l, 3);
	KT_EQ_INT(f.orphaned[0][0] + f.orphaned[0][1] + f.orphaned[0][2], 3);
	ks_lanes_free(l);
}

/* An item that takes down every lane it touches is not passed around for ever. */
static void test_an_item_lost_on_two_lanes_is_handed_back(void)
{
	fake f;
	ks_lanes *l;
	size_t i;
	fake_init(&f);
	f.poison_item = 7;
	l = make(&f, 3, 1);
	round_of(&f, l, 40);
	KT_EQ_INT(f.orphaned[0][7], 1);
	KT_EQ_INT(f.runs[0][7], 0);
	KT_CONTAINS(f.orphan_why, "failed while it ran on 2 lanes");
	KT_EQ_INT(ks_lanes_live(l), 1);
	for (i = 0; i < 40; i++)
		if (i != 7)
			KT_EQ_INT(f.runs[0][i], 1);
	ks_lanes_free(l);
}

static void test_a_lane_that_cannot_start_is_out_from_the_start(void)
{
	fake f;
	ks_lanes *l;
	size_t i;
	fake_init(&f);
	f.fail_start_lane = 0;
	l = make(&f, 2, 2);
	KT_ASSERT(!ks_lanes_alive(l, 0));
	KT_CONTAINS(ks_lanes_why(l, 0), "no CUDA device 9");
	/* its first thread was stopped; the second, which starts after the first, never started */
	KT_EQ_INT(f.stopped[0][0], 1);
	KT_EQ_INT(f.started[0][1] + f.stopped[0][1], 0);
	round_of(&f, l, 20);
	for (i = 0; i < 20; i++) {
		KT_EQ_INT(f.runs[0][i], 1);
		KT_EQ_INT(f.lane_of[0][i], 1);
	}
	KT_EQ_INT(f.lost[0], 0); /* out before the round: not a loss during it */
	ks_lanes_remove(l, 1, "another GPU model");
	KT_EQ_INT(ks_lanes_live(l), 0);
	KT_CONTAINS(ks_lanes_why(l, 1), "another GPU model");
	ks_lanes_free(l);
	KT_ASSERT(f.stop_same_thread);
}

/* A lane works once its first thread has started; its other threads start after that one (not at
 * the same time: starting GPU processes is serialised by the driver), while it works. */
static void test_a_lanes_later_threads_start_after_its_first_while_it_works(void)
{
	fake f;
	ks_lanes *l;
	size_t i;
	int on_first = 0;
	fake_init(&f);
	f.later_start_us = 300000;
	l = make(&f, 2, 2);
	for (i = 0; i < 2; i++) {
		KT_EQ_INT(f.started[i][0], 1);
		pthread_mutex_lock(&f.mu);
		KT_ASSERT_MSG(!f.started[i][1] || f.begin[i][1] >= f.end[i][0],
			      "lane %zu: its second thread began starting before its first was done", i);
		pthread_mutex_unlock(&f.mu);
	}
	round_of(&f, l, 20); /* 20 short items, over well before 300 ms */
	for (i = 0; i < 20; i++) {
		KT_EQ_INT(f.runs[0][i], 1);
		on_first += f.thread_of[0][i] == 0;
	}
	KT_EQ_INT(on_first, 20);
	for (i = 0; i < 500; i++) { /* the second threads' starts end about 300 ms after the first's */
		int up;
		pthread_mutex_lock(&f.mu);
		up = f.end[0][1] > 0 && f.end[1][1] > 0;
		pthread_mutex_unlock(&f.mu);
		if (up)
			break;
		usleep(10000);
	}
	round_of(&f, l, NITEMS); /* now every thread is up */
	for (i = 0; i < 2; i++) {
		KT_EQ_INT(f.started[i][1], 1);
		KT_ASSERT(f.begin[i][1] >= f.end[i][0]);
	}
	ks_lanes_free(l);
	KT_ASSERT(f.stop_same_thread);
}

/* A later thread that cannot start takes its lane out as a lost GPU would: nothing is lost, the
 * other lane takes the rest. */
static void test_a_later_thread_that_cannot_start_takes_its_lane_out(void)
{
	fake f;
	ks_lanes *l;
	size_t i;
	fake_init(&f);
	f.later_start_us = 50000;
	f.fail_later_lane = 0;
	l = make(&f, 2, 2);
	KT_ASSERT(ks_lanes_alive(l, 0)); /* its first thread is up */
	for (i = 0; i < 500 && ks_lanes_alive(l, 0); i++)
		usleep(10000);
	KT_ASSERT(!ks_lanes_alive(l, 0));
	KT_CONTAINS(ks_lanes_why(l, 0), "out of memory for a second worker");
	round_of(&f, l, NITEMS);
	for (i = 0; i < NITEMS; i++) {
		KT_EQ_INT(f.runs[0][i], 1);
		KT_EQ_INT(f.lane_of[0][i], 1);
		KT_EQ_INT(f.orphaned[0][i], 0);
	}
	ks_lanes_free(l);
	KT_EQ_INT(f.stopped[0][0], 1);
	KT_EQ_INT(f.stopped[0][1], 1);
}

/* A lane counts as started before its ready is over (the run goes on: its compiles start), but
 * takes no item until then, and its second thread starts only after it. */
static void test_a_lane_is_started_before_it_is_ready_and_works_after(void)
{
	fake f;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	ks_lanes *l;
	size_t i;
	int ran = 0;
	fake_init(&f);
	w.ud = &f;
	f.ready_block_lane = 0;
	l = make_with_ready(&f, 1, 2); /* returns while lane 0's first thread waits in ready */
	KT_ASSERT(ks_lanes_alive(l, 0));
	ks_lanes_begin(l, &w);
	for (i = 0; i < 20; i++)
		ks_lanes_push(l, 0, i, 0);
	usleep(50000);
	pthread_mutex_lock(&f.mu);
	for (i = 0; i < 20; i++)
		ran += f.runs[0][i];
	KT_EQ_INT(ran, 0);
	KT_EQ_INT(f.started[0][1], 0);
	f.ready_go = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	ks_lanes_wait_ready(l, 0);
	ks_lanes_end(l);
	for (i = 0; i < 20; i++)
		KT_EQ_INT(f.runs[0][i], 1);
	ks_lanes_free(l);
	KT_ASSERT(f.ready_end[0][0] > 0);
	KT_ASSERT_MSG(!f.started[0][1] || f.begin[0][1] >= f.ready_end[0][0],
		      "the second thread began starting before the first was ready");
	KT_ASSERT(f.stop_same_thread);
}

/* A lane whose ready fails is out as a lost GPU: stopped once, its second thread never started,
 * the items run on the other lane, none is lost. */
static void test_a_lane_whose_ready_fails_is_out(void)
{
	fake f;
	ks_lanes *l;
	size_t i;
	fake_init(&f);
	f.ready_fail_lane = 0;
	l = make_with_ready(&f, 2, 2);
	ks_lanes_wait_ready(l, 0);
	ks_lanes_wait_ready(l, 1);
	KT_ASSERT(!ks_lanes_alive(l, 0));
	KT_CONTAINS(ks_lanes_why(l, 0), "the context could not be made");
	round_of(&f, l, NITEMS);
	for (i = 0; i < NITEMS; i++) {
		KT_EQ_INT(f.runs[0][i], 1);
		KT_EQ_INT(f.lane_of[0][i], 1);
		KT_EQ_INT(f.orphaned[0][i], 0);
	}
	ks_lanes_free(l);
	KT_EQ_INT(f.stopped[0][0], 1);
	KT_EQ_INT(f.started[0][1] + f.stopped[0][1], 0);
	KT_EQ_INT(f.stopped[1][0], 1);
}

/* Polls (up to 5 s) until *v (under f's lock) reaches want; returns what it saw last. */
static int wait_for(fake *f, const int *v, int want)
{
	int i, seen = 0;
	for (i = 0; i < 500; i++) {
		pthread_mutex_lock(&f->mu);
		seen = *v;
		pthread_mutex_unlock(&f->mu);
		if (seen >= want)
			break;
		usleep(10000);
	}
	return seen;
}

/* Sealed (nothing more comes from outside), a thread that finds the queue empty closes its workers
 * while another lane still works, and is not stopped twice. */
static void test_a_sealed_round_closes_an_idle_lane_while_another_works(void)
{
	fake f;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	ks_lanes *l;
	size_t i;
	int other;
	fake_init(&f);
	w.ud = &f;
	f.block = 1;
	l = make(&f, 2, 1);
	ks_lanes_begin(l, &w);
	for (i = 0; i < 20; i++)
		ks_lanes_push(l, 0, i, 0);
	ks_lanes_seal(l);
	KT_EQ_INT(wait_for(&f, &f.blocked, 1), 1);
	other = 1 - f.blocked_lane;
	KT_EQ_INT(wait_for(&f, &f.stopped[other][0], 1), 1);
	pthread_mutex_lock(&f.mu);
	KT_EQ_INT(f.stopped[f.blocked_lane][0], 0); /* the lane that works keeps its workers */
	for (i = 1; i < 20; i++)
		KT_EQ_INT(f.runs[0][i], 1);
	f.release = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	ks_lanes_end(l);
	KT_EQ_INT(f.runs[0][0], 1);
	ks_lanes_free(l);
	KT_EQ_INT(f.started[other][0], 1);
	KT_EQ_INT(f.stopped[other][0], 1);
	KT_EQ_INT(f.stopped[f.blocked_lane][0], 1);
	KT_ASSERT(f.stop_same_thread);
}

/* A parked thread starts again for an item put back after the lane that ran it was lost: the
 * round still runs every item, on the lane left. */
static void test_a_parked_thread_comes_back_for_an_item_a_lost_lane_put_back(void)
{
	fake f;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	ks_lanes *l;
	int other, bad;
	fake_init(&f);
	w.ud = &f;
	f.block = 1;
	l = make(&f, 2, 1);
	ks_lanes_begin(l, &w);
	ks_lanes_push(l, 0, 0, 0);
	ks_lanes_seal(l);
	KT_EQ_INT(wait_for(&f, &f.blocked, 1), 1);
	bad = f.blocked_lane;
	other = 1 - bad;
	KT_EQ_INT(wait_for(&f, &f.stopped[other][0], 1), 1);
	pthread_mutex_lock(&f.mu);
	f.fail_lane = bad; /* its GPU fails under the item */
	f.release = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	ks_lanes_end(l);
	KT_EQ_INT(f.runs[0][0], 1);
	KT_EQ_INT(f.lane_of[0][0], other);
	KT_EQ_INT(f.orphaned[0][0], 0);
	KT_EQ_INT(f.lost[bad], 1);
	KT_EQ_INT(f.started[other][0], 2);
	ks_lanes_free(l);
	KT_EQ_INT(f.stopped[other][0], 2);
	KT_ASSERT(f.stop_same_thread);
}

/* ... also while another lane still runs an item of its own: the item put back does not wait
 * for it. */
static void test_a_parked_thread_comes_back_while_another_lane_works(void)
{
	fake f;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	ks_lanes *l;
	int i, bad, idle = -1, ran;
	fake_init(&f);
	w.ud = &f;
	f.block = f.block2 = 1;
	l = make(&f, 3, 1);
	ks_lanes_begin(l, &w);
	ks_lanes_push(l, 0, 0, 0);
	ks_lanes_push(l, 0, 1, 0);
	ks_lanes_seal(l);
	KT_EQ_INT(wait_for(&f, &f.blocked, 1), 1);
	KT_EQ_INT(wait_for(&f, &f.blocked2, 1), 1);
	bad = f.blocked_lane;
	for (i = 0; i < 3; i++)
		if (i != bad && i != f.blocked2_lane)
			idle = i;
	KT_EQ_INT(wait_for(&f, &f.stopped[idle][0], 1), 1);
	pthread_mutex_lock(&f.mu);
	f.fail_lane = bad;
	f.release = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	KT_EQ_INT(wait_for(&f, &f.runs[0][0], 1), 1); /* item 1 still holds its lane */
	pthread_mutex_lock(&f.mu);
	ran = f.runs[0][1];
	KT_EQ_INT(f.lane_of[0][0], idle);
	f.release2 = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	KT_EQ_INT(ran, 0);
	ks_lanes_end(l);
	KT_EQ_INT(f.runs[0][1], 1);
	ks_lanes_free(l);
}

/* A round sealed with nothing queued: the lane's first thread closes its workers once ready, and
 * its later thread never starts. */
static void test_a_sealed_empty_round_starts_no_later_thread(void)
{
	fake f;
	ks_lane_work w = { f_run, f_orphan, f_lost, NULL, 0 };
	ks_lanes *l;
	fake_init(&f);
	w.ud = &f;
	f.ready_block_lane = 0;
	l = make_with_ready(&f, 1, 2);
	ks_lanes_begin(l, &w);
	ks_lanes_seal(l);
	pthread_mutex_lock(&f.mu);
	f.ready_go = 1;
	pthread_cond_broadcast(&f.cv);
	pthread_mutex_unlock(&f.mu);
	KT_EQ_INT(wait_for(&f, &f.stopped[0][0], 1), 1);
	usleep(50000);
	ks_lanes_end(l);
	ks_lanes_free(l);
	KT_EQ_INT(f.started[0][0], 1);
	KT_EQ_INT(f.stopped[0][0], 1);
	KT_EQ_INT(f.started[0][1] + f.stopped[0][1], 0);
}

static void test_lane_and_thread_limits(void)
{
	fake f;
	ks_lanes *l;
	ks_lane_setup s = { f_start, f_stop, NULL };
	size_t i;
	fake_init(&f);
	s.ud = &f;
	KT_EQ_INT(ks_lanes_new(&l, &s), 0);
	KT_EQ_INT(ks_lanes_add(l, 0), KS_EINVALID);
	KT_EQ_INT(ks_lanes_add(l, KS_LANES_THREADS + 1), KS_EINVALID);
	for (i = 0; i < KS_LANES_MAX; i++)
		KT_EQ_INT(ks_lanes_add(l, 1), (int)i);
	KT_EQ_INT(ks_lanes_add(l, 1), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "at most 64 lanes");
	ks_lanes_wait_started(l);
	KT_EQ_INT(ks_lanes_live(l), KS_LANES_MAX);
	ks_lanes_free(l);
	ks_lanes_free(NULL);
}

/* ---- the gate */

typedef struct {
	atomic_int inside_shared, inside_excl, overlap, exclusive_runs;
} gate_counts;

typedef struct {
	ks_lanes *l;
	gate_counts *c;
	unsigned seed;
} gate_load;

static void *hammer(void *arg)
{
	gate_load *g = arg;
	unsigned s = g->seed;
	int i;
	for (i = 0; i < 300; i++) {
		int ex;
		s = s * 1103515245u + 12345u;
		ex = (s >> 16) % 4 == 0;
		ks_lanes_gate_enter(g->l, 0, ex);
		if (ex) {
			atomic_fetch_add(&g->c->exclusive_runs, 1);
			if (atomic_fetch_add(&g->c->inside_excl, 1) != 0 || atomic_load(&g->c->inside_shared) != 0)
				atomic_store(&g->c->overlap, 1);
		} else {
			atomic_fetch_add(&g->c->inside_shared, 1);
			if (atomic_load(&g->c->inside_excl) != 0)
				atomic_store(&g->c->overlap, 1);
		}
		{
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
		}
		if (ex)
			atomic_fetch_sub(&g->c->inside_excl, 1);
		else
			atomic_fetch_sub(&g->c->inside_shared, 1);
		ks_lanes_gate_leave(g->l, 0, ex);
	}
	return NULL;
}

static void test_gate_keeps_timed_requests_alone(void)
{
	fake f;
	ks_lanes *l;
	gate_counts c;
	gate_load g[6];
	pthread_t th[6];
	int i;
	fake_init(&f);
	l = make(&f, 1, 1);
	memset(&c, 0, sizeof(c));
	for (i = 0; i < 6; i++) {
		g[i].l = l;
		g[i].c = &c;
		g[i].seed = (unsigned)i + 1;
		KT_EQ_INT(pthread_create(&th[i], NULL, hammer, &g[i]), 0);
	}
	for (i = 0; i < 6; i++)
		pthread_join(th[i], NULL);
	KT_EQ_INT(atomic_load(&c.overlap), 0);
	KT_ASSERT(atomic_load(&c.exclusive_runs) > 100);
	ks_lanes_free(l);
}

typedef struct {
	ks_lanes *l;
	int ex;
	atomic_int *seq;
	int at;           /* the sequence number at which it got in */
	atomic_int in;
} gate_req;

static void *one_request(void *arg)
{
	gate_req *r = arg;
	ks_lanes_gate_enter(r->l, 0, r->ex);
	r->at = atomic_fetch_add(r->seq, 1);
	atomic_store(&r->in, 1);
	ks_lanes_gate_leave(r->l, 0, r->ex);
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* A request that comes after a waiting timed request does not jump the queue. */
static void test_gate_admits_in_arrival_order(void)
{
	fake f;
	ks_lanes *l;
	atomic_int seq = 0;
	gate_req b = { 0 }, c = { 0 };
	pthread_t tb, tc;
	fake_init(&f);
	l = make(&f, 1, 1);
	ks_lanes_gate_enter(l, 0, 0); /* an untimed request in progress */
	b.l = c.l = l;
	b.ex = 1;
	c.ex = 0;
	b.seq = c.seq = &seq;
	KT_EQ_INT(pthread_create(&tb, NULL, one_request, &b), 0);
	sleep_ms(50);
	KT_EQ_INT(pthread_create(&tc, NULL, one_request, &c), 0);
	sleep_ms(50);
	KT_EQ_INT(atomic_load(&b.in), 0); /* waits for the untimed request to end */
	KT_EQ_INT(atomic_load(&c.in), 0); /* waits behind the timed one, although only untimed runs */
	ks_lanes_gate_leave(l, 0, 0);
	pthread_join(tb, NULL);
	pthread_join(tc, NULL);
	KT_EQ_INT(b.at, 0);
	KT_EQ_INT(c.at, 1);
	/* untimed requests share the GPU */
	ks_lanes_gate_enter(l, 0, 0);
	memset(&c, 0, sizeof(c));
	c.l = l;
	c.seq = &seq;
	KT_EQ_INT(pthread_create(&tc, NULL, one_request, &c), 0);
	pthread_join(tc, NULL);
	KT_EQ_INT(atomic_load(&c.in), 1);
	ks_lanes_gate_leave(l, 0, 0);
	ks_lanes_free(l);
}

static const kt_test tests[] = {
	KT(test_every_item_runs_exactly_once_over_lanes_and_threads),
	KT(test_kind_zero_is_taken_first),
	KT(test_lower_ranks_go_first_then_kinds_then_arrival),
	KT(test_a_held_lane_takes_nothing_until_released),
	KT(test_a_lost_item_goes_back_to_the_front_of_its_rank),
	KT(test_a_lost_lane_leaves_and_its_item_runs_elsewhere),
	KT(test_with_every_lane_lost_the_work_is_handed_back),
	KT(test_an_item_lost_on_two_lanes_is_handed_back),
	KT(test_a_lane_that_cannot_start_is_out_from_the_start),
	KT(test_a_lanes_later_threads_start_after_its_first_while_it_works),
	KT(test_a_later_thread_that_cannot_start_takes_its_lane_out),
	KT(test_a_lane_is_started_before_it_is_ready_and_works_after),
	KT(test_a_lane_whose_ready_fails_is_out),
	KT(test_a_sealed_round_closes_an_idle_lane_while_another_works),
	KT(test_a_parked_thread_comes_back_for_an_item_a_lost_lane_put_back),
	KT(test_a_parked_thread_comes_back_while_another_lane_works),
	KT(test_a_sealed_empty_round_starts_no_later_thread),
	KT(test_lane_and_thread_limits),
	KT(test_gate_keeps_timed_requests_alone),
	KT(test_gate_admits_in_arrival_order),
	{ 0 }
};
KT_MAIN("lanes", tests)
