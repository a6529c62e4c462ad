#include "session/lanes.h"
#include "util/errors.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* The run's queue: a binary heap ordered by (rank, kind, seq). seq grows with every push; an item
 * put back after its lane was lost gets a negative seq, so it goes before everything of its rank
 * and kind. */
typedef struct {
	uint64_t rank;
	int kind;
	int64_t seq;
	size_t item;
} qent;

typedef struct {
	qent *v;
	size_t n, cap;
	int64_t next, front;
	size_t fronts;               /* items waiting that were put back to the front */
} queue;

/* Tries per item of one kind: how many lanes were lost while running it. */
typedef struct {
	unsigned *v;
	size_t cap;
} tries_t;

/* A FIFO reader-writer gate: tickets are admitted in the order they were drawn; a shared ticket
 * goes in beside other shared ones, an exclusive one waits until the GPU is empty and keeps
 * everyone behind it out. Strict order means neither side can starve the other. */
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned long next, turn;
	int readers, writer;
} gate;

struct ks_lanes;

typedef struct {
	struct ks_lanes *l;
	size_t lane, thread;
	pthread_t th;
	int created;
} lane_thread;

typedef struct {
	size_t nthreads;
	lane_thread th[KS_LANES_THREADS];
	int dead, held;
	int first_done;              /* its first thread has returned from start */
	int first_ready;             /* ... and from ready (or failed) */
	char *why;
	gate g;
} lane_rec;

struct ks_lanes {
	ks_lane_setup setup;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	lane_rec *lanes[KS_LANES_MAX];
	size_t n, live, starting;
	int shutdown;
	char *last_why;              /* why the last lane went out */
	/* the current round */
	int active;
	int sealed;                  /* nothing more is pushed from outside the lane threads */
	ks_lane_work w;
	tries_t tries[KS_LANES_KINDS];
	queue q;
	size_t running;
	size_t waking;               /* parked threads starting again for an item */
};

static int q_before(const qent *a, const qent *b)
{
	if (a->rank != b->rank)
		return a->rank < b->rank;
	if (a->kind != b->kind)
		return a->kind < b->kind;
	return a->seq < b->seq;
}

static void q_push(queue *q, int kind, size_t item, uint64_t rank, int front)
{
	size_t i;
	qent e;
	e.rank = rank;
	e.kind = kind;
	e.item = item;
	e.seq = front ? -(++q->front) : q->next++;
	q->fronts += front != 0;
	q->v = ks_grow(q->v, sizeof(*q->v), &q->cap, q->n + 1);
	i = q->n++;
	while (i > 0 && q_before(&e, &q->v[(i - 1) / 2])) {
		q->v[i] = q->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->v[i] = e;
}

static qent q_pop(queue *q)
{
	qent top = q->v[0], last = q->v[--q->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && q_before(&q->v[c + 1], &q->v[c]))
			c++;
		if (!q_before(&q->v[c], &last))
			break;
		q->v[i] = q->v[c];
		i = c;
	}
	if (q->n)
		q->v[i] = last;
	q->fronts -= top.seq < 0;
	return top;
}

/* The tries counter of (kind, item), grown as items come (lock held). */
static unsigned *tries_of(ks_lanes *l, int kind, size_t item)
{
	tries_t *t = &l->tries[kind];
	if (item >= t->cap) {
		size_t old = t->cap;
		t->v = ks_grow(t->v, sizeof(*t->v), &t->cap, item + 1);
		memset(t->v + old, 0, (t->cap - old) * sizeof(*t->v));
	}
	return &t->v[item];
}

/* Takes a lane out (lock held). */
static void mark_dead(ks_lanes *l, lane_rec *ln, size_t index, const char *why)
{
	if (ln->dead)
		return;
	ln->dead = 1;
	ln->why = ks_strdup(why);
	ks_free(l->last_why);
	l->last_why = ks_asprintf("lane %zu: %s", index, why);
	l->live--;
	if (l->active && l->w.lost)
		l->w.lost(l->w.ud, index, why);
	pthread_cond_broadcast(&l->cv);
}

/* With no lane left, nothing queued will ever run (lock held). */
static void orphan_all(ks_lanes *l)
{
	char *why;
	if (l->live || !l->q.n)
		return;
	why = ks_asprintf("every GPU lane is out of the rotation (%s)", l->last_why ? l->last_why : "none started");
	while (l->q.n) {
		qent e = q_pop(&l->q);
		if (l->w.orphan)
			l->w.orphan(l->w.ud, e.kind, e.item, why);
	}
	ks_free(why);
	pthread_cond_broadcast(&l->cv);
}

/* Marks thread 0 of a lane as past its start, or past its ready (lock held). */
static void first_step_done(ks_lanes *l, lane_rec *ln, int ready)
{
	if (ready)
		ln->first_ready = 1;
	else {
		ln->first_done = 1;
		l->starting--;
	}
	pthread_cond_broadcast(&l->cv);
}

/* A thread's failed start or ready: stopped before it counts, then its lane is out (lock not held). */
static void step_failed(ks_lanes *l, lane_thread *t, char *why, const char *dflt)
{
	lane_rec *ln = l->lanes[t->lane];
	if (l->setup.stop)
		l->setup.stop(l->setup.ud, t->lane, t->thread);
	pthread_mutex_lock(&l->mu);
	mark_dead(l, ln, t->lane, why ? why : dflt);
	orphan_all(l);
	pthread_mutex_unlock(&l->mu);
	ks_free(why);
}

/* A sealed round with nothing queued: what is still to come are the next stages of the items
 * running, which their own threads push and take; a thread with no item closes its workers rather
 * than hold them to the end of the run (lock held). */
static int nothing_left(const ks_lanes *l)
{
	return l->active && l->sealed && !l->q.n;
}

/* A parked thread is wanted back when an item waits that no running thread will take next: more
 * items than threads running or coming back, or one put back after its lane was lost (the threads
 * running take their own next stages first) (lock held). */
static int wanted_back(const ks_lanes *l, const lane_rec *ln)
{
	return l->active && !ln->held && l->q.n &&
	       (l->q.n > l->running + l->waking || l->q.fronts > l->waking);
}

/* Brings a thread up: start, then ready. The first time for thread 0, the lane's steps are
 * recorded for ks_lanes_wait_started and ks_lanes_wait_ready. A thread that fails has been
 * stopped and its lane is out (lock not held). */
static int bring_up(ks_lanes *l, lane_thread *t, int lane_first)
{
	lane_rec *ln = l->lanes[t->lane];
	char *why = NULL;
	int ok = l->setup.start ? l->setup.start(l->setup.ud, t->lane, t->thread, &why) : 0;
	/* a thread that could not start is stopped before it counts as started, so that after
	 * ks_lanes_wait_started nothing of it is left running */
	if (ok < 0)
		step_failed(l, t, why, "the lane could not start");
	if (lane_first) {
		pthread_mutex_lock(&l->mu);
		first_step_done(l, ln, 0);
		if (ok < 0)
			first_step_done(l, ln, 1);
		pthread_mutex_unlock(&l->mu);
	}
	if (ok < 0)
		return -1;
	/* the rest of the start, which no one waits for: the thread takes no item before it is over */
	why = NULL;
	ok = l->setup.ready ? l->setup.ready(l->setup.ud, t->lane, t->thread, &why) : 0;
	if (ok < 0)
		step_failed(l, t, why, "the lane could not start");
	if (lane_first) {
		pthread_mutex_lock(&l->mu);
		first_step_done(l, ln, 1);
		pthread_mutex_unlock(&l->mu);
	}
	return ok;
}

static void *thread_main(void *arg)
{
	lane_thread *t = arg;
	ks_lanes *l = t->l;
	lane_rec *ln = l->lanes[t->lane];
	char *why = NULL;
	int up = 0, parked = 0, lane_first = t->thread == 0;

	/* The lane counts as started once its first thread has passed start; the others start once
	 * it is also ready, while it works, so that a run's start is one runner per GPU (starting GPU
	 * processes is serialised by the driver: every one more at once delays them all). A lane out
	 * before they start never starts them, nor does a sealed round with nothing left. */
	pthread_mutex_lock(&l->mu);
	if (!lane_first) {
		while (!ln->first_ready && !ln->dead && !l->shutdown)
			pthread_cond_wait(&l->cv, &l->mu);
		parked = nothing_left(l);
	}
	for (;;) {
		ks_lane_outcome out;
		qent e;
		size_t item;
		int kind, ok;
		if (!up) {
			while (parked && !l->shutdown && !ln->dead && !wanted_back(l, ln))
				pthread_cond_wait(&l->cv, &l->mu);
			if (l->shutdown || ln->dead)
				break;
			l->waking += parked;
			pthread_mutex_unlock(&l->mu);
			ok = bring_up(l, t, lane_first);
			pthread_mutex_lock(&l->mu);
			l->waking -= parked;
			lane_first = 0;
			if (ok < 0)
				break;
			up = 1;
			parked = 0;
			pthread_cond_broadcast(&l->cv);
		}
		while (!l->shutdown && !ln->dead && !(l->active && l->q.n && !ln->held) && !nothing_left(l))
			pthread_cond_wait(&l->cv, &l->mu);
		if (l->shutdown || ln->dead)
			break;
		if (!(l->active && l->q.n && !ln->held)) {
			/* parked: its workers close now, while the other lanes finish the run */
			pthread_mutex_unlock(&l->mu);
			if (l->setup.stop)
				l->setup.stop(l->setup.ud, t->lane, t->thread);
			pthread_mutex_lock(&l->mu);
			up = 0;
			parked = 1;
			continue;
		}
		e = q_pop(&l->q);
		item = e.item;
		kind = e.kind;
		l->running++;
		pthread_mutex_unlock(&l->mu);
		why = NULL;
		out = l->w.run(l->w.ud, t->lane, t->thread, kind, item, &why);
		pthread_mutex_lock(&l->mu);
		l->running--;
		if (out == KS_LANE_LOST) {
			unsigned tries = ++*tries_of(l, kind, item);
			mark_dead(l, ln, t->lane, why ? why : "the GPU failed");
			if (tries >= l->w.max_tries) {
				char *m = ks_asprintf("the GPU failed while it ran on %u lanes (last: lane %zu: %s)",
						      tries, t->lane, ln->why);
				if (l->w.orphan)
					l->w.orphan(l->w.ud, kind, item, m);
				ks_free(m);
			} else
				q_push(&l->q, kind, item, e.rank, 1);
		}
		ks_free(why);
		orphan_all(l);
		pthread_cond_broadcast(&l->cv);
	}
	pthread_mutex_unlock(&l->mu);
	if (up && l->setup.stop)
		l->setup.stop(l->setup.ud, t->lane, t->thread);
	return NULL;
}

int ks_lanes_new(ks_lanes **out, const ks_lane_setup *setup)
{
	ks_lanes *l = ks_calloc(1, sizeof(*l));
	l->setup = *setup;
	pthread_mutex_init(&l->mu, NULL);
	pthread_cond_init(&l->cv, NULL);
	*out = l;
	return 0;
}

int ks_lanes_add(ks_lanes *l, size_t nthreads)
{
	lane_rec *ln;
	size_t i, index;

	if (nthreads < 1 || nthreads > KS_LANES_THREADS)
		return ks_error_set(KS_EINVALID, "a lane has 1 to %d threads", KS_LANES_THREADS);
	pthread_mutex_lock(&l->mu);
	if (l->n == KS_LANES_MAX) {
		pthread_mutex_unlock(&l->mu);
		return ks_error_set(KS_ELIMIT, "at most %d lanes", KS_LANES_MAX);
	}
	ln = ks_calloc(1, sizeof(*ln));
	ln->nthreads = nthreads;
	pthread_mutex_init(&ln->g.mu, NULL);
	pthread_cond_init(&ln->g.cv, NULL);
	index = l->n;
	l->lanes[l->n++] = ln;
	l->live++;
	for (i = 0; i < nthreads; i++) {
		lane_thread *t = &ln->th[i];
		t->l = l;
		t->lane = index;
		t->thread = i;
		if (i == 0)
			l->starting++;
		if (pthread_create(&t->th, NULL, thread_main, t) != 0) {
			if (i == 0)
				l->starting--;
			mark_dead(l, ln, index, "cannot create a thread");
			break;
		}
		t->created = 1;
	}
	pthread_mutex_unlock(&l->mu);
	return (int)index;
}

void ks_lanes_wait_started(ks_lanes *l)
{
	pthread_mutex_lock(&l->mu);
	while (l->starting)
		pthread_cond_wait(&l->cv, &l->mu);
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_wait_ready(ks_lanes *l, size_t lane)
{
	pthread_mutex_lock(&l->mu);
	while (lane < l->n && !l->lanes[lane]->first_ready && !l->lanes[lane]->dead && !l->shutdown)
		pthread_cond_wait(&l->cv, &l->mu);
	pthread_mutex_unlock(&l->mu);
}

size_t ks_lanes_count(const ks_lanes *l)
{
	return l ? l->n : 0;
}

size_t ks_lanes_live(ks_lanes *l)
{
	size_t n;
	if (!l)
		return 0;
	pthread_mutex_lock(&l->mu);
	n = l->live;
	pthread_mutex_unlock(&l->mu);
	return n;
}

int ks_lanes_alive(ks_lanes *l, size_t lane)
{
	int alive;
	pthread_mutex_lock(&l->mu);
	alive = lane < l->n && !l->lanes[lane]->dead;
	pthread_mutex_unlock(&l->mu);
	return alive;
}

const char *ks_lanes_why(ks_lanes *l, size_t lane)
{
	const char *why;
	pthread_mutex_lock(&l->mu);
	why = lane < l->n ? l->lanes[lane]->why : NULL;
	pthread_mutex_unlock(&l->mu);
	return why;
}

void ks_lanes_remove(ks_lanes *l, size_t lane, const char *why)
{
	pthread_mutex_lock(&l->mu);
	if (lane < l->n)
		mark_dead(l, l->lanes[lane], lane, why);
	orphan_all(l);
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_hold(ks_lanes *l, size_t lane)
{
	pthread_mutex_lock(&l->mu);
	if (lane < l->n)
		l->lanes[lane]->held = 1;
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_release(ks_lanes *l, size_t lane)
{
	pthread_mutex_lock(&l->mu);
	if (lane < l->n)
		l->lanes[lane]->held = 0;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_begin(ks_lanes *l, const ks_lane_work *w)
{
	int k;
	pthread_mutex_lock(&l->mu);
	l->w = *w;
	if (!l->w.max_tries)
		l->w.max_tries = 2;
	for (k = 0; k < KS_LANES_KINDS; k++)
		if (l->tries[k].cap)
			memset(l->tries[k].v, 0, l->tries[k].cap * sizeof(unsigned));
	l->q.n = 0;
	l->q.fronts = 0;
	l->running = 0;
	l->sealed = 0;
	l->active = 1;
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_push(ks_lanes *l, int kind, size_t item, uint64_t rank)
{
	pthread_mutex_lock(&l->mu);
	if (l->active && kind >= 0 && kind < KS_LANES_KINDS && item < KS_LANES_MAX_ITEMS) {
		q_push(&l->q, kind, item, rank, 0);
		orphan_all(l);
		pthread_cond_broadcast(&l->cv);
	}
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_seal(ks_lanes *l)
{
	pthread_mutex_lock(&l->mu);
	l->sealed = l->active;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_end(ks_lanes *l)
{
	pthread_mutex_lock(&l->mu);
	while (l->q.n || l->running)
		pthread_cond_wait(&l->cv, &l->mu);
	l->active = 0;
	pthread_mutex_unlock(&l->mu);
}

void ks_lanes_free(ks_lanes *l)
{
	size_t i, j;
	int k;
	if (!l)
		return;
	pthread_mutex_lock(&l->mu);
	l->shutdown = 1;
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	for (i = 0; i < l->n; i++)
		for (j = 0; j < l->lanes[i]->nthreads; j++)
			if (l->lanes[i]->th[j].created)
				pthread_join(l->lanes[i]->th[j].th, NULL);
	for (i = 0; i < l->n; i++) {
		pthread_mutex_destroy(&l->lanes[i]->g.mu);
		pthread_cond_destroy(&l->lanes[i]->g.cv);
		ks_free(l->lanes[i]->why);
		ks_free(l->lanes[i]);
	}
	ks_free(l->q.v);
	for (k = 0; k < KS_LANES_KINDS; k++)
		ks_free(l->tries[k].v);
	ks_free(l->last_why);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
	ks_free(l);
}

void ks_lanes_gate_enter(ks_lanes *l, size_t lane, int exclusive)
{
	gate *g = &l->lanes[lane]->g;
	unsigned long me;
	pthread_mutex_lock(&g->mu);
	me = g->next++;
	while (me != g->turn || g->writer || (exclusive && g->readers))
		pthread_cond_wait(&g->cv, &g->mu);
	g->turn++;
	if (exclusive)
		g->writer = 1;
	else
		g->readers++;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

void ks_lanes_gate_leave(ks_lanes *l, size_t lane, int exclusive)
{
	gate *g = &l->lanes[lane]->g;
	pthread_mutex_lock(&g->mu);
	if (exclusive)
		g->writer = 0;
	else
		g->readers--;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}
