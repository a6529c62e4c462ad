/* proto: the framed messages between the scoring process and its GPU workers. A message is a
 * 24-byte header (magic, type, JSON length, blob length), a JSON object and an optional binary blob
 * (CUBIN images going out, buffer contents coming back). Both sides enforce caps, and the reading
 * side enforces a deadline, because a worker runs untrusted kernels and may hang or die mid-reply. */
#ifndef KS_PROTO_H
#define KS_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "util/buf.h"
#include "load/plan.h"

#define KS_PROTO_MAGIC 0x3157534bu /* "KSW1" */
#define KS_PROTO_MAX_JSON (16u << 20)

/* Limits both sides keep: the scoring process never asks for more, the worker refuses more. */
#define KS_PROTO_MAX_MODULES 64 /* modules loaded in one worker at a time */
#define KS_PROTO_MAX_FUNCS KS_PLAN_MAX_FUNCS /* kernels resolved per image */
#define KS_PROTO_MAX_SETS 8     /* input sets of one timing session */
#define KS_PROTO_MAX_RUNS 256   /* timed runs per KS_MSG_TIME_RUN */
#define KS_PROTO_MAX_SNAPSHOT (256ull << 20) /* device memory for the kept outputs of the timed runs
					      * of one KS_MSG_TIME_RUN (KS_MSG_TIME_CHECK) */

typedef enum {
	KS_MSG_HELLO = 1,   /* -> {device}; <- device info. Before it, unasked, the worker sends one
			     * reply: ok once its driver is initialised, or the error it exits on */
	KS_MSG_HARNESS,     /* -> harness CUBIN; <- ok */
	KS_MSG_LOAD,        /* -> {funcs} + CUBIN; <- {module, funcs: [attrs]} */
	KS_MSG_UNLOAD,      /* -> {module}; <- ok */
	KS_MSG_RUN,         /* -> {module, plan, fetch}; <- {status, ms, bufs} + data */
	KS_MSG_TIME_START,  /* -> {module, plan, seeds, flush_bytes}: allocate and fill input sets */
	KS_MSG_TIME_RUN,    /* -> {runs: [set...], flush}; <- {ms: [...]} one sample per run */
	KS_MSG_TIME_VERIFY, /* -> {set, seed, fetch}: refill with a new seed, one timed run, fetch */
	KS_MSG_TIME_END,
	KS_MSG_CALIBRATE,   /* -> {funcs} + calibration CUBIN; <- measured ceilings */
	KS_MSG_STATUS,      /* <- clocks, temperature, power, throttle reasons (NVML, when present) */
	KS_MSG_QUIT,
	KS_MSG_TIME_CHECK,  /* -> {run, fetch}: the outputs one run of the last TIME_RUN left (kept
			     * after it, see TIME_START's check_k), the set's guards and input checksums
			     * as they are now; <- like RUN */
	KS_MSG_REPLY = 100
} ks_msg_type;

/* How a buffer comes back after a run ("fetch": one mode per plan buffer). */
typedef enum {
	KS_FETCH_NONE = 0,
	KS_FETCH_FULL = 1,       /* guard + data + guard */
	KS_FETCH_GUARDS = 2,     /* both guard bands, and a checksum of the data */
	KS_FETCH_CHECKSUM = 3,   /* only a checksum of the data */
	KS_FETCH_SAMPLE = 4      /* both guard bands and sample_k sampled elements (ks_sample_index);
				  * the worker sends small buffers whole (FULL) instead */
} ks_fetch_mode;

/* The calibration kernels of KS_MSG_CALIBRATE, in the order their names are sent
 * (ks_calibrate_kernels). The reply names each figure after ks_proto_cal_keys: "<key>_tflops",
 * or "<key>_error" when the driver refused the kernel. */
typedef enum {
	KS_CAL_COPY = 0,
	KS_CAL_READ,
	KS_CAL_FMA,
	KS_CAL_MMA_F16,
	KS_CAL_MMA_BF16,
	KS_CAL_WGMMA_F16,
	KS_CAL_WGMMA_BF16,
	KS_CAL_COUNT
} ks_cal_kernel;

extern const char *const ks_proto_cal_keys[KS_CAL_COUNT];

typedef struct {
	uint32_t type;
	cJSON *json;        /* owned */
	unsigned char *blob;/* owned, may be NULL */
	uint64_t blob_len;
} ks_msg;

/* Sends one message. blob may be NULL. Returns 0 or KS_EIO (peer gone). */
int ks_proto_send(int fd, uint32_t type, const cJSON *json, const void *blob, uint64_t blob_len);

/* Receives one message, waiting at most timeout_s seconds (<= 0: forever). Fails with
 * KS_ETIMEOUT, KS_ECHILD (peer closed: EOF), KS_ELIMIT (over max_blob / JSON cap) or KS_EINVALID
 * (bad magic or JSON). The blob's memory grows with the bytes that arrive (64 MiB at a time), not
 * with what the header claims. Caller frees with ks_msg_clear. */
int ks_proto_recv(int fd, ks_msg *out, double timeout_s, uint64_t max_blob);

void ks_msg_clear(ks_msg *m);

/* What a worker writes on its standard output and error (device printf, driver messages) arrives
 * through a pipe that the scoring process drains while it waits for replies, so a worker blocked on
 * a full pipe never stalls the protocol and nothing reaches the scorer's own output. The first
 * `kept.max` bytes are kept, the rest only counted: a flood costs bounded memory. */
typedef struct {
	ks_buf kept;
	uint64_t total;     /* every byte read, kept or not */
	int closed;         /* the writing end is closed (EOF seen) */
} ks_proto_capture;

#define KS_PROTO_CAPTURE_INIT(keep) { KS_BUF_INIT(keep), 0, 0 }

/* Reads what fd (non-blocking) holds now, at most max_bytes (0: until it would block), into c.
 * Returns the number of bytes read; sets c->closed at EOF. Never blocks and never fails: a read
 * error counts as EOF. */
uint64_t ks_proto_capture_drain(ks_proto_capture *c, int fd, uint64_t max_bytes);

/* Hands the kept bytes to the caller (NUL-terminated, never NULL; caller frees) with their length
 * in *len and the total read in *total, and starts counting afresh. */
char *ks_proto_capture_take(ks_proto_capture *c, size_t *len, uint64_t *total);

void ks_proto_capture_free(ks_proto_capture *c);

/* ks_proto_send and ks_proto_recv that drain out_fd into cap whenever it has data while they
 * wait (out_fd < 0: none). fd may be non-blocking. */
int ks_proto_send_capture(int fd, uint32_t type, const cJSON *json, const void *blob, uint64_t blob_len,
			  int out_fd, ks_proto_capture *cap);
int ks_proto_recv_capture(int fd, ks_msg *out, double timeout_s, uint64_t max_blob, int out_fd,
			  ks_proto_capture *cap);

/* Untrusted output made safe to show and to store: valid UTF-8 is kept, every byte that is not
 * part of a valid character becomes U+FFFD, and control characters other than newline and tab
 * (NUL, escape sequences, carriage returns) are written as \xNN. Caller frees. */
char *ks_proto_output_text(const char *s, size_t n);

#endif
