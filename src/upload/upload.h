/* upload: sends a scored result folder to a leaderboard (DESIGN §7), and keeps what could not be
 * sent in a spool on disk so that nothing is lost.
 *
 * Two modes:
 *  - native: an HTTPS POST of the versioned "kscore.upload/1" JSON payload (docs/upload.md) with
 *    an Idempotency-Key header, so a retried upload is counted once;
 *  - gradio: the hackathon's Hugging Face space: POST {"data": [team, score]} to
 *    <endpoint>/gradio_api/call/submit_results, then follow the returned event id until the space
 *    reports `complete` (the original shell script never checked).
 *
 * The bearer token is a secret: it is read from a file or from an environment variable (which is
 * then removed from the environment, so child processes never inherit it) and goes only into the
 * Authorization header. It is never in argv, a message, a log line, the spool or any file; messages
 * built from server replies have it blanked out in case a server echoes it.
 *
 * TLS verification is always on; a private CA is given with ca_bundle. Plain http is accepted only
 * for loopback hosts (127.0.0.1, localhost, ::1), for tests and local relays. */
#ifndef KS_UPLOAD_H
#define KS_UPLOAD_H

#include <stddef.h>
#include "util/errors.h"

typedef enum {
	KS_UPLOAD_MODE_UNSET = 0, /* take it from the config file, else native */
	KS_UPLOAD_NATIVE,
	KS_UPLOAD_GRADIO
} ks_upload_mode;

/* "native" or "gradio" (UNSET reads "native"). */
const char *ks_upload_mode_name(ks_upload_mode m);

/* Parses "native" or "gradio" into *out; -1 (no message) for anything else. */
int ks_upload_mode_parse(ks_upload_mode *out, const char *s);

/* Ranges the options and the config file must stay in. */
#define KS_UPLOAD_MAX_RETRIES 20
#define KS_UPLOAD_MAX_SECONDS 3600.0

/* Sleeps between retries. Injectable so that tests record the delays instead of waiting. */
typedef void (*ks_upload_sleep_fn)(double seconds, void *payload);
/* Receives progress and warning lines (retries, a token file others can read). The lines never
 * contain the token. */
typedef void (*ks_upload_log_fn)(const char *line, void *payload);

/* Every field is optional. Strings are borrowed: they must outlive the calls that use them.
 * "Unset" (NULL, 0, or -1 for max_retries) means: the config file's value, else the default
 * given in brackets. */
typedef struct {
	const char *endpoint;      /* native: the URL posted to; gradio: the space's base URL */
	ks_upload_mode mode;       /* [native] */
	const char *token;         /* the secret itself, already read; NULL: none */
	const char *token_file;    /* where ks_upload_setup_new reads the token from */
	const char *token_env;     /* the variable it reads otherwise [KSCORE_UPLOAD_TOKEN] */
	const char *ca_bundle;     /* PEM file of CAs to trust instead of the system's */
	double connect_timeout;    /* seconds per connection attempt [10] */
	double total_timeout;      /* seconds per HTTP request, the Gradio event stream included [60] */
	int max_retries;           /* retries after the first attempt; -1 unset [4] */
	double backoff_initial;    /* seconds, the first retry's upper bound [1] */
	double backoff_max;        /* seconds, the cap of every wait, Retry-After included [60] */
	const char *spool_dir;     /* [$XDG_STATE_HOME/kscore/spool, else ~/.local/state/kscore/spool] */
	const char *team;          /* overrides the record's team */
	ks_upload_sleep_fn sleep_fn; /* [nanosleep] */
	void *sleep_payload;
	ks_upload_log_fn log_fn;   /* [silent] */
	void *log_payload;
} ks_upload_options;

/* The defaults in brackets above, for the settings neither the options nor the config file set
 * (upload.c applies them; `score upload --help` prints them). */
#define KS_UPLOAD_DEFAULT_CONNECT_TIMEOUT_S 10.0
#define KS_UPLOAD_DEFAULT_TOTAL_TIMEOUT_S 60.0
#define KS_UPLOAD_DEFAULT_RETRIES 4
#define KS_UPLOAD_DEFAULT_BACKOFF_INITIAL_S 1.0
#define KS_UPLOAD_DEFAULT_BACKOFF_MAX_S 60.0
#define KS_UPLOAD_DEFAULT_TOKEN_ENV "KSCORE_UPLOAD_TOKEN"

#define KS_UPLOAD_OPTIONS_INIT { .mode = KS_UPLOAD_MODE_UNSET, .max_retries = -1 }

typedef enum {
	KS_UPLOAD_SENT = 0,  /* the endpoint confirmed it */
	KS_UPLOAD_ALREADY,   /* the spool records it as sent to this endpoint: skipped */
	KS_UPLOAD_SPOOLED,   /* failed (after retries); kept in <spool>/pending for --pending */
	KS_UPLOAD_FAILED,    /* failed, and could not be written to the spool either */
	KS_UPLOAD_INVALID,   /* the result folder (or a pending file) is unreadable or unfit: not sent */
	KS_UPLOAD_CONFIG     /* the options are unusable (no endpoint, no token, bad URL): not sent */
} ks_upload_status;

/* "sent", "already", "spooled", "failed", "invalid", "config". */
const char *ks_upload_status_name(ks_upload_status s);

/* The `score upload` exit code for a status: 0 sent/already, 1 spooled/failed,
 * KS_EXIT_DATAERR (65) invalid, KS_EXIT_CONFIG (78) config. */
int ks_upload_status_exit(ks_upload_status s);

/* What happened to one upload. Caller frees with ks_upload_report_clear. */
typedef struct {
	ks_upload_status status;
	long http_status;    /* of the last response; 0 when none came */
	int attempts;        /* requests made this time (a Gradio attempt is a POST and a GET) */
	int spooled;         /* 1 when the payload is (still) in the pending spool */
	char key[65];        /* the idempotency key; "" when the record could not be read */
	char *source;        /* the result folder, or the pending file */
	char *endpoint;      /* where it went; NULL when not known */
	char *spool_path;    /* the pending file when spooled, else NULL */
	char *message;       /* one line for a person; never NULL after a call */
} ks_upload_report;

void ks_upload_report_clear(ks_upload_report *r);
void ks_upload_reports_free(ks_upload_report *r, size_t n);

/* Uploads RESULT_DIR/score.json ("kscore.score/1"). Before sending, a sent record in the spool for
 * the same key, endpoint and mode makes it KS_UPLOAD_ALREADY; a success is recorded in
 * <spool>/sent/<key>.json and removes any pending copy; a failure after the retries is written to
 * <spool>/pending/<key>.json. A compile-only record, a record without a score or team, and a
 * missing required field are KS_UPLOAD_INVALID, naming the file and field.
 *
 * Fills *out in every case. Returns 0 when sent or already sent; otherwise a negative KS_E* code
 * with the same message as out->message (KS_EINVALID for config and record errors, KS_ERROR for a
 * failed upload). */
int ks_upload_result_dir(ks_upload_report *out, const char *dir, const ks_upload_options *opts);

/* Sends every file in <spool>/pending, each to the endpoint and in the mode it was spooled for
 * (opts->endpoint and mode are not used; the token, CA bundle, timeouts and retries are). Successes
 * move to <spool>/sent; failures stay with their attempt count and last error updated. One report
 * per pending file, in name order (caller frees with ks_upload_reports_free). Returns 0 when all
 * were sent (or there were none), KS_ERROR (message set) when some were not, KS_EIO when the spool
 * cannot be read or another process is sending it. */
int ks_upload_pending(ks_upload_report **out, size_t *n, const ks_upload_options *opts);

/* Passes one formatted line to o->log_fn (nothing without one): the upload stage's and its
 * set-up's progress and warnings. */
void ks_upload_log(const ks_upload_options *o, const char *fmt, ...) KS_PRINTF(2, 3);

/* Checks options before anything is sent: the endpoint (if need_endpoint) is an https URL, or http
 * on a loopback host, without credentials in it; mode, timeouts, retries and backoff are in range;
 * the CA bundle exists; native mode has a token. KS_EINVALID with a message otherwise. */
int ks_upload_options_check(const ks_upload_options *opts, int need_endpoint);

#endif
