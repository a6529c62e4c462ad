/* lanes: the scheduler behind `--devices`. A lane is one item of the device list (one GPU, or one
 * share of a GPU listed twice); it is served by one or more threads, each owning its own GPU
 * workers, which it creates, uses and frees itself (a worker dies with the thread that started it,
 * PR_SET_PDEATHSIG). Work items of a few kinds (entries to check, kernels to time) wait in one
 * queue for the whole run; every free thread takes the next item: the lowest rank first (the
 * caller's order of its jobs: a file, a team), then the lowest kind (checks before timings), then
 * the oldest. A lane can be held (its threads take nothing) until it is ready, e.g. until its GPU
 * is calibrated. A lane whose GPU fails is taken out of the rotation, and the item it was running
 * goes back to the front of its rank and kind for the other lanes; when no lane is left, every
 * item still waiting is handed back as an orphan.
 *
 * The module knows nothing of GPUs: the callbacks do, so the tests drive it with fake lanes.
 *
 * It also holds each lane's gate, which lets the threads of one lane share its GPU without
 * disturbing a measurement: a timed request runs alone on the GPU, every other request may run
 * beside other untimed ones, and requests are admitted in the order they arrive. */
#ifndef KS_LANES_H
#define KS_LANES_H

#include <stddef.h>
#include <stdint.h>

#define KS_LANES_MAX 64       /* lanes in one run */
#define KS_LANES_THREADS 4    /* threads of one lane, at most */
#define KS_LANES_KINDS 4      /* kinds of items: of one rank, kind 0 is taken before kind 1, ... */
#define KS_LANES_MAX_ITEMS (1u << 24) /* item numbers of one round */

typedef struct ks_lanes ks_lanes;

typedef enum {
	KS_LANE_DONE = 0,     /* the item is finished (whatever its verdict) */
	KS_LANE_LOST          /* the lane's GPU failed: the item is to be run elsewhere */
} ks_lane_outcome;

/* How a lane's threads come up and go down; called in the lane's own thread. */
typedef struct {
	/* Sets up thread `thread` of `lane`. 0, or -1 with *why (allocated with ks_malloc) when it
	 * cannot: the lane is out of the rotation from the start. */
	int (*start)(void *ud, size_t lane, size_t thread, char **why);
	/* Frees what start made (also after a failed start or ready): the thread ends afterwards, or
	 * waits parked in a sealed round (ks_lanes_seal), from which it may start again. */
	void (*stop)(void *ud, size_t lane, size_t thread);
	void *ud;
	/* Optional: the rest of the thread's start, which ks_lanes_wait_started does not wait for
	 * (what a run can go on without: a GPU's description comes from start, its context may
	 * still be made here). The thread takes no item before it returns. 0, or -1 with *why:
	 * the lane is out as a lost GPU would be. */
	int (*ready)(void *ud, size_t lane, size_t thread, char **why);
} ks_lane_setup;

/* One round of work (a whole run: every file, every team). The callbacks other than run are called
 * with the scheduler's lock held: they must not call back into it. */
typedef struct {
	/* Runs an item in the calling lane thread; may push further items. On KS_LANE_LOST, *why
	 * (allocated, may be NULL) says how the GPU failed. */
	ks_lane_outcome (*run)(void *ud, size_t lane, size_t thread, int kind, size_t item, char **why);
	/* An item that no lane will run: every lane is out, or it was running on max_tries lanes
	 * that were lost. */
	void (*orphan)(void *ud, int kind, size_t item, const char *why);
	/* A lane has just been taken out of the rotation (once per lane). */
	void (*lost)(void *ud, size_t lane, const char *why);
	void *ud;
	unsigned max_tries;   /* 0: 2 */
} ks_lane_work;

/* Creates an empty scheduler. Caller frees with ks_lanes_free. */
int ks_lanes_new(ks_lanes **out, const ks_lane_setup *setup);

/* Adds a lane of nthreads threads (1 to KS_LANES_THREADS) and starts them; does not wait for them
 * (ks_lanes_wait_started). Returns the lane's index, or -1 with a message when KS_LANES_MAX lanes
 * exist already or a thread cannot be created. */
int ks_lanes_add(ks_lanes *l, size_t nthreads);

/* Waits until the first thread of every lane added so far has returned from start; a thread whose
 * start failed has been stopped (setup's stop) by then. Its ready may still run. A lane's other
 * threads start after its first is ready too, while it works: one of them that cannot start takes
 * its lane out then (as a lost GPU), and a lane out before they start never starts them. */
void ks_lanes_wait_started(ks_lanes *l);

/* Waits until the first thread of `lane` has returned from ready, or the lane is out. */
void ks_lanes_wait_ready(ks_lanes *l, size_t lane);

size_t ks_lanes_count(const ks_lanes *l);
/* Lanes still in the rotation. */
size_t ks_lanes_live(ks_lanes *l);
/* 1 while the lane is in the rotation. */
int ks_lanes_alive(ks_lanes *l, size_t lane);
/* Why the lane is out (NULL while it is in); valid until ks_lanes_free. */
const char *ks_lanes_why(ks_lanes *l, size_t lane);

/* Takes a lane out of the rotation from outside its threads (KS_LANE_LOST is the way from inside):
 * used when a lane that started must not be used (another GPU model). */
void ks_lanes_remove(ks_lanes *l, size_t lane, const char *why);

/* Holds a lane: its threads finish the item they run and take no other until ks_lanes_release.
 * A held lane still counts as live (its items wait for it). */
void ks_lanes_hold(ks_lanes *l, size_t lane);
void ks_lanes_release(ks_lanes *l, size_t lane);

/* Starts a round; items are any numbers below KS_LANES_MAX_ITEMS, pushed as they come. The work is
 * copied. */
void ks_lanes_begin(ks_lanes *l, const ks_lane_work *w);
/* Queues an item of a kind (0 to KS_LANES_KINDS-1) at a rank (lower ranks are taken first), from
 * any thread, lane threads included. Each (kind, item) at most once a round. */
void ks_lanes_push(ks_lanes *l, int kind, size_t item, uint64_t rank);
/* No item will be pushed from outside the lane threads any more in this round; returns at once.
 * What is still to come are the next stages of the items running, which their own threads push and
 * take after them. From here on a thread that finds nothing queued stops (setup's stop: its workers
 * close while the other lanes finish the round) and waits, parked, and a lane's later thread that
 * has not started yet does not start; a parked thread starts again (start, then ready) only for an
 * item that no running thread will take: one put back after its lane was lost, or more items than
 * threads running. */
void ks_lanes_seal(ks_lanes *l);

/* No item will be pushed from outside the lane threads any more (ks_lanes_seal need not have been
 * called): returns once every item pushed in the round has been run or orphaned. */
void ks_lanes_end(ks_lanes *l);

/* Stops every thread (each calls setup->stop) and frees everything. NULL is fine. */
void ks_lanes_free(ks_lanes *l);

/* The gate of a lane (see above): exclusive = 1 for a timed request. */
void ks_lanes_gate_enter(ks_lanes *l, size_t lane, int exclusive);
void ks_lanes_gate_leave(ks_lanes *l, size_t lane, int exclusive);

#endif
