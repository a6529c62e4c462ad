/* worker_int: the insides of the kscore-worker process, shared by its files only:
 *   worker_main.c   the process: device set-up, modules, status, the dispatch loop
 *   worker_reply.c  replies and failures sent to the scoring process, device attributes
 *   worker_exec.c   running a plan: buffer sets, fills, launches, read-back (KS_MSG_RUN)
 *   worker_time.c   timing sessions (KS_MSG_TIME_*)
 *   worker_calib.c  the calibration kernels (KS_MSG_CALIBRATE)
 * The scoring process never includes this: its side of a worker is worker.h. Everything the
 * process owns lives in one wk_ctx, passed to every function; names are wk_<what>. */
#ifndef KS_WORKER_INT_H
#define KS_WORKER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "worker/cudadrv.h"
#include "lang/image.h"
#include "run/harness.h"
#include "load/plan.h"
#include "run/proto.h"

#define WK_FD 3 /* the protocol's file descriptor, set up by the scoring process */

/* A loaded image (lang/image.h): one module per CUBIN of a bundle, its kernels flat in plan order. */
typedef struct {
	CUmodule mod[KS_IMAGE_MAX_PARTS];
	int nmod;
	CUfunction fn[KS_PROTO_MAX_FUNCS];
	int nfn;
	int used;
} wk_module;

/* One plan buffer on the device: guard band, data (rounded up to 256 bytes), guard band. */
typedef struct {
	CUdeviceptr base;
	uint64_t total;
} wk_buf;

/* The device buffers of one plan instance. */
typedef struct {
	wk_buf *b;
	size_t n;
} wk_set;

/* The outputs one timed run left, kept after it for a check decided later (KS_MSG_TIME_CHECK). */
typedef struct {
	CUdeviceptr base;         /* the run's slot */
	const uint64_t *off;      /* per plan buffer: where its kept bytes start in the slot */
	const int *mode;          /* per plan buffer: KS_FETCH_SAMPLE (k elements) or KS_FETCH_FULL
				   * (all of its data) when kept, KS_FETCH_GUARDS for an input whose
				   * checksum (8 bytes) is kept, else 0 */
	uint64_t k;
} wk_kept;

/* A timing session: several input sets of one plan, rotated between runs. */
typedef struct {
	int active;
	ks_plan plan;
	wk_module *mod;
	wk_set sets[KS_PROTO_MAX_SETS];
	CUdeviceptr *pristine[KS_PROTO_MAX_SETS]; /* per buffer: an inout tensor's initial contents */
	uint64_t seed[KS_PROTO_MAX_SETS];         /* the seed each set's inputs are filled from now */
	uint64_t version[KS_PROTO_MAX_SETS];      /* and the version of them each set holds now (inout
						   * tensors: their pristine copies) */
	int nsets;
	CUdeviceptr flush;        /* the L2 flush buffer */
	uint64_t flush_words;
	/* kept outputs of the runs of the last KS_MSG_TIME_RUN (check_runs slots of slot_bytes) */
	CUdeviceptr kept;
	uint64_t check_k, slot_bytes;
	uint64_t *kept_off;
	int *kept_mode;
	int check_runs;
	int last_n;               /* runs of the last TIME_RUN whose outputs are kept; 0: none */
	int last_set[KS_PROTO_MAX_RUNS];
} wk_timing;

/* Events of one TIME_RUN that asks for its phases: a pair per run, a pair around the batch and four
 * phase marks per run (worker_time.c). */
#define WK_MAX_EVENTS (6 * KS_PROTO_MAX_RUNS + 2)

typedef struct {
	ks_cu_api cu;             /* the driver's entry points, loaded at run time */
	CUcontext ctx;
	CUdevice dev;
	CUstream stream;
	int ready;                /* HELLO succeeded */
	wk_module mods[KS_PROTO_MAX_MODULES];
	CUmodule hmod;            /* the harness kernels (fills, checksums, flush, gather) */
	CUfunction hk[KS_HK_COUNT];
	CUdeviceptr sum;          /* WK_MAX_SUMS u64 slots for the checksums of one fetch */
	CUdeviceptr gath;         /* sampled elements of every buffer of a fetch */
	uint64_t gath_bytes;
	CUevent ev[WK_MAX_EVENTS]; /* two per timed run and two around a batch (and, when a TIME_RUN
				    * asks for its phases, four more per run), created once and reused */
	int nev;
	wk_set run;               /* the buffers of the last KS_MSG_RUN, reused by the next one of the same
				   * sizes (the checks of timed runs ask the golden worker for one run
				   * after another); freed when a timing session starts or ends */
	wk_timing t;
} wk_ctx;

/* Checksummed buffers per fetch: more than a plan can have (64 arguments + 8 scratch). */
#define WK_MAX_SUMS 128

/* ---- worker_reply.c ---- */

/* Sends a reply and frees j; exits when the scoring process is gone. */
void wk_reply(cJSON *j, const void *blob, uint64_t len);
/* Sends a failure; after a sticky error the process exits (the scoring process starts another). */
void wk_reply_error(const char *stage, CUresult r, const char *msg, int sticky);
/* {"ok": true}, to be completed and sent with wk_reply. */
cJSON *wk_ok_reply(void);
/* A device attribute, 0 when the driver cannot tell. */
int wk_attr(wk_ctx *w, CUdevice_attribute a);

/* ---- worker_exec.c ---- */

/* The loaded module a request names ("module"), or NULL. */
wk_module *wk_module_of(wk_ctx *w, const cJSON *req);
/* One fetch mode per plan buffer from a request's "fetch" array; NULL when malformed. Caller
 * frees. */
int *wk_parse_modes(const cJSON *fetch, size_t n);
/* Checks that every kernel of the plan is loaded and takes the parameters the plan passes. */
int wk_check_plan(wk_ctx *w, const ks_plan *plan, const wk_module *mod, char *err, size_t errlen);
CUresult wk_alloc_set(wk_ctx *w, const ks_plan *plan, wk_set *s, char *err, size_t errlen);
void wk_free_set(wk_ctx *w, wk_set *s);
/* Guard bands and contents of every buffer, inputs from `seed`. */
CUresult wk_fill_set(wk_ctx *w, const ks_plan *plan, wk_set *s, uint64_t seed, char *err,
		     size_t errlen);
/* Changes the random inputs of s (inout tensors: their pristine copies) from version `from` of
 * seed's inputs, which they hold, to version `to` (plan.h), writing only the elements in which the
 * two differ. */
CUresult wk_redraw_inputs(wk_ctx *w, const ks_plan *plan, const wk_set *s, const CUdeviceptr *pristine,
			  uint64_t seed, uint64_t from, uint64_t to);
/* Resets every buffer the plan fills with poison or zeros (outputs, scratch) before a timed run;
 * inputs and inout tensors are left alone. */
CUresult wk_reset_outputs(wk_ctx *w, const ks_plan *plan, const wk_set *s);
/* 1 when a SAMPLE fetch of k elements of a count-element buffer sends the whole buffer instead. */
int wk_sample_whole(uint64_t k, uint64_t count);
/* Enqueues a copy of the outputs of s into a kept slot (kept->base, layout of kept). */
CUresult wk_keep_outputs(wk_ctx *w, const ks_plan *plan, const wk_set *s, const wk_kept *kept,
			 uint64_t seed);
/* Reads the buffers of s back per modes (see wk_run_fetch) into a reply *out ({"ok", "bufs"}) and
 * *blob; with kept, the data of SAMPLE and FULL buffers comes from a kept slot instead (gathered
 * when it was kept), and only buffers kept there may be fetched so. */
CUresult wk_fetch(wk_ctx *w, cJSON **out, unsigned char **blob, uint64_t *blob_len, const ks_plan *plan,
		  const wk_set *s, int *modes, uint64_t sample_k, uint64_t sample_seed, const wk_kept *kept,
		  char *err, size_t errlen);
/* At least n events in *out (from the context's pool). */
CUresult wk_events(wk_ctx *w, CUevent **out, int n);
/* One run of the plan on a buffer set between two events (the buffers are as the caller left
 * them); the caller synchronises. */
CUresult wk_timed_launch(wk_ctx *w, const ks_plan *plan, const wk_module *mod, wk_set *s,
			 CUevent e0, CUevent e1, char *err, size_t errlen);
/* Runs the plan once on s (timed), waits, and reads the buffers back per modes (a SAMPLE buffer
 * small enough is sent whole: its mode changes to FULL) and the request's sample_k / sample_seed.
 * *out is the reply to send ({"ok", "ms", "bufs"}, caller sends or frees it) and *blob its data
 * (caller frees). On failure *out is NULL, and *stage and err say what failed. */
CUresult wk_run_fetch(wk_ctx *w, cJSON **out, unsigned char **blob, uint64_t *blob_len,
		      const ks_plan *plan, const wk_module *mod, wk_set *s, int *modes,
		      const cJSON *req, const char **stage, char *err, size_t errlen);
void wk_do_run(wk_ctx *w, const ks_msg *m);

/* ---- worker_time.c ---- */

void wk_time_start(wk_ctx *w, const ks_msg *m);
void wk_time_run(wk_ctx *w, const ks_msg *m);
void wk_time_verify(wk_ctx *w, const ks_msg *m);
void wk_time_check(wk_ctx *w, const ks_msg *m);
/* Frees the session (nothing when none is active). */
void wk_time_end(wk_ctx *w);

/* ---- worker_calib.c ---- */

void wk_calibrate(wk_ctx *w, const ks_msg *m);

#endif
