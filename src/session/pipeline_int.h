/* pipeline_int: the insides of a scoring session, shared by its two files only:
 *   pipeline.c      the session: submissions queued as jobs, the stages each entry goes through
 *                   on a lane (check, time, the tools), the result folder of each job
 *   pipeline_gpu.c  the GPUs: lanes started in parallel, each GPU's ceilings measured while its
 *                   lanes are held, a failing GPU told from a failing kernel (probe)
 * Everything a session owns lives in one ks_pipeline; internal names are pl_<what>. */
#ifndef KS_PIPELINE_INT_H
#define KS_PIPELINE_INT_H

#include <pthread.h>
#include "session/pipeline.h"
#include "time/baseline.h"
#include "time/calibrate.h"
#include "run/check.h"
#include "time/config.h"
#include "run/goldcache.h"
#include "session/lanes.h"
#include "session/prepare.h"
#include "session/refbase.h"
#include "session/runq.h"
#include "time/timing.h"

/* Runners per lane. One checks while another times: the lane's gate keeps every timed request
 * alone on the GPU, so the checks of the next kernels fill the time the timing protocol spends
 * outside its timed runs (setting up input sets, golden runs behind verified runs, round trips)
 * without touching a measurement. */
#define PL_LANE_THREADS 2

/* One physical GPU (by uuid): its ceilings, stored golden times and golden results, for every lane
 * on it. */
typedef struct {
	ks_device_info dev;
	int ordinal;
	ks_ceilings ceil;
	int have_ceil;
	char *ceil_error;
	ks_baseline *baseline;
	char *golden_source;
	ks_goldcache *goldens;          /* golden results shared by its lanes' runners */
	double cal_s;                   /* how long its ceilings took (read or measured) */
	pthread_t cal_th;
	int cal_started;
	struct ks_pipeline *p;
} pl_gpu;

typedef struct {
	struct ks_pipeline *p;
	size_t index;
	int ordinal;
	ks_runner *run[PL_LANE_THREADS];  /* each created, used and freed by its own lane thread */
	int shares[PL_LANE_THREADS];      /* run[t] uses its GPU's golden cache */
	ks_worker_gate gate;
	ks_device_info dev;
	int started;
	double start_s;                   /* how long its runners took to start (begin to finish) */
	double t_begin[PL_LANE_THREADS];  /* when each began */
	int was_ready[PL_LANE_THREADS];   /* its first start is over (a parked thread starts again) */
	int shared;                       /* another lane runs on the same GPU */
	pl_gpu *g;
	size_t items;                     /* items finished (under the pipeline's lock) */
} pl_lane;

struct ks_pipeline {
	ks_pipeline_options opts;
	ks_problem_set *problems;
	ks_lanes *lanes;
	pl_lane lane[KS_PIPELINE_MAX_LANES];
	size_t nlanes;
	pl_gpu gpus[KS_PIPELINE_MAX_LANES];
	size_t ngpus;
	pl_lane *first;                 /* the first lane that started: the run's device */
	char *arch;
	char *no_gpu;
	char *nvrtc;
	ks_config cfg;
	char *config_path;
	ks_golden_store *goldens;
	unsigned char *golden_ok;       /* per problem: its golden kernel ran on a GPU of this run */
	int fail_lane, fail_after;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	ks_nvtool *nvtool;              /* the sanitizer and profiler stages; NULL when neither is asked */
	/* the start: lanes, then each GPU's ceilings while its lanes are held */
	double t_new;                   /* when the session started (monotonic seconds) */
	double lanes_s;                 /* until every lane's runners were up */
	double ready_s;                 /* until the last lane was released (-1: not yet) */
	size_t calibrating;             /* GPUs whose ceilings are still being taken */
	cJSON *start_json;              /* score.json's "start", once ready */
	ks_refbase *refbase;            /* --baseline reference: the references' times, once scored */
	int refbase_state;              /* 0: not scored, 1: being scored, 2: done (once a session) */
	cJSON *refbase_json;            /* its "baseline" record */
	/* the run's queue */
	int timing;                     /* kernels that pass are timed */
	ks_check_options co;
	ks_timing_options to;           /* the session's part of the timing options */
	ks_runq *runq;
	ks_prepare *prep;
	size_t open;                    /* submissions queued and not written yet */
	size_t njobs, ndone, nentries, prepared, checked, timed; /* prepared: compiled or settled */
};

double pl_now(void);

/* Starts every lane (all at once: each creates its CUDA contexts in its own threads), then checks
 * that they can be used together and groups them by GPU. Returns 0 (p->first is NULL when no lane
 * started: no GPU), or KS_EUNSUPPORTED when GPUs of different models were listed without
 * --mixed-gpus. */
int pl_start_lanes(ks_pipeline *p);

/* Holds every lane, then takes each GPU's ceilings in a thread of its own (when kernels are timed:
 * read from the cache or measured, never two on one GPU, never while a lane of the GPU works) and
 * releases the GPU's lanes when they are in. */
void pl_calibrate_start(ks_pipeline *p);

/* Waits until every GPU's ceilings are in (they are read by the reports). */
void pl_wait_calibrated(ks_pipeline *p);

/* The run's lanes' "start" record of score.json (after pl_wait_calibrated). */
cJSON *pl_start_json(ks_pipeline *p);

/* Lane L's thread t: its runner uses its GPU's golden results (after a start that could not know
 * the GPU yet). */
void pl_share_goldens(pl_lane *L, size_t t);

/* After a worker died or a golden kernel failed: is it the GPU? 0 when the lane is fine, -1 with
 * *why when its GPU is failing. */
int pl_probe(ks_pipeline *p, ks_runner *run, const ks_problem *hint, char **why);

/* KSCORE_TEST_FAIL_LANE: lane L's GPU goes away now (1, *why set). */
int pl_test_failure(ks_pipeline *p, pl_lane *L, size_t t, char **why);

/* p's golden kernel ran on a GPU of the session: a reference for pl_probe. */
void pl_mark_golden_ok(ks_pipeline *p, const ks_problem *q);

/* Stops the lanes and frees the GPU records. */
void pl_gpus_free(ks_pipeline *p);

#endif
