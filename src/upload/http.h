/* http: the small HTTPS client that upload speaks through (libcurl): one request with capped
 * reply buffers, Server-Sent Events for streamed replies, the retry policy (which failures are
 * worth another attempt, exponential backoff with jitter, Retry-After), and messages that never
 * hold the bearer token.
 *
 * TLS verification is always on. Plain http is accepted only for loopback hosts (tests, local
 * relays); redirects are not followed; libcurl never runs verbose (its debug output would show the
 * Authorization header). The caller runs curl_global_init once before the first request. */
#ifndef KS_HTTP_H
#define KS_HTTP_H

#include <stddef.h>
#include "util/buf.h"

/* Caps on what a server can make us hold. */
#define KS_HTTP_RESPONSE_MAX (64u << 10) /* a reply body: enough for any error page worth quoting */
#define KS_HTTP_STREAM_MAX (1u << 20)    /* an event stream, heartbeats included */
#define KS_HTTP_EXCERPT_MAX 200          /* characters of a reply quoted in a message */

typedef void (*ks_http_sleep_fn)(double seconds, void *payload);
typedef void (*ks_http_log_fn)(const char *line, void *payload);

/* How to make requests. Strings are borrowed; every number must be set (> 0, retries >= 0). */
typedef struct {
	const char *token;         /* sent as "Authorization: Bearer"; blanked out of messages */
	const char *ca_bundle;     /* PEM file of CAs to trust instead of the system's; NULL: system */
	double connect_timeout;    /* seconds per connection attempt */
	double total_timeout;      /* seconds per request, an event stream included */
	int max_retries;           /* retries after the first attempt */
	double backoff_initial;    /* seconds, the first retry's upper bound */
	double backoff_max;        /* seconds, the cap of every wait, Retry-After included */
	ks_http_sleep_fn sleep_fn; /* NULL: nanosleep */
	void *sleep_payload;
	ks_http_log_fn log_fn;     /* receives one line per retry; NULL: silent */
	void *log_payload;
} ks_http_options;

/* The state of a Server-Sent Events stream: "event: NAME" / "data: TEXT" lines, events ended by
 * a blank line. Only the first `complete` or `error` event matters. */
typedef struct {
	ks_buf line;
	char event[32];
	ks_buf data;
	int outcome;               /* 0 none yet, 1 a complete event, -1 an error event */
	char *result;              /* the data of that event; owned */
} ks_http_sse;

/* One request and its reply. Initialise with ks_http_call_init, free with ks_http_call_free. */
typedef struct {
	int sse;                   /* in: read the reply as an event stream (stop at its answer) */
	int cc;                    /* libcurl's CURLcode of the transfer */
	long status;               /* the HTTP status; 0 when no response came */
	char errbuf[256];          /* libcurl's message for cc (CURL_ERROR_SIZE) */
	ks_buf body;               /* capped; for SSE a capped copy of the stream, for messages */
	size_t stream_bytes;
	int too_big;               /* the reply went over its cap (the transfer was stopped) */
	double retry_after;        /* seconds from Retry-After, -1 when the reply had none */
	ks_http_sse sse_st;
} ks_http_call;

/* The verdict on one attempt (which may be several requests). */
typedef struct {
	int ok;
	int retryable;
	long status;
	double retry_after;        /* seconds, -1 none */
	char *msg;                 /* why it failed; owned; never holds the token */
} ks_http_outcome;

/* Checks that url may be used: https anywhere, http only on a loopback host, nothing else; no user
 * name or password in it (URLs are printed in messages; secrets belong in the token). Sets
 * *loopback. KS_EINVALID with a message otherwise (a URL that cannot be parsed is not quoted: it
 * may hold a password). */
int ks_http_check_url(int *loopback, const char *url);

void ks_http_call_init(ks_http_call *hc, int sse);
void ks_http_call_free(ks_http_call *hc);

/* Makes one request: method "POST" (with body) or "GET", the NULL-terminated header lines, then
 * "Authorization: Bearer <o->token>" when there is a token (cleared from memory afterwards). The
 * result is in hc: a transport failure in cc/errbuf, else the status and the capped body. */
void ks_http_request(ks_http_call *hc, const ks_http_options *o, const char *method,
		     const char *url, const char *body, const char *const *headers);

/* Turns a finished call into an outcome: 2xx is success; transport errors, 408, 429 and 5xx
 * gateways are worth retrying; anything else fails at once with the status and a body excerpt.
 * Messages start with url and have `token` blanked out. */
void ks_http_classify(ks_http_outcome *o, const ks_http_call *hc, const char *url,
		      const char *token);

/* Marks o failed (retryable or not) with a printf message, `token` blanked out of it. */
void ks_http_fail(ks_http_outcome *o, int retryable, const char *token, const char *fmt, ...)
	KS_PRINTF(4, 5);

/* A one-line excerpt of an untrusted reply: control and non-ASCII bytes become spaces, runs of
 * spaces collapse, at most KS_HTTP_EXCERPT_MAX characters, `token` blanked out. Caller frees. */
char *ks_http_excerpt(const char *data, size_t len, const char *token);

/* One attempt of a retried operation: fills *o (cleared before each call). */
typedef void (*ks_http_attempt_fn)(ks_http_outcome *o, void *payload);

/* Runs attempt until it succeeds, fails in a way not worth retrying, or o->max_retries retries are
 * spent. Between attempts it waits Retry-After when the server gave one, else "full jitter"
 * exponential backoff (uniform in [0, min(max, initial * 2^(retry-1))]), both capped at
 * backoff_max, and logs one line. *attempts is the number of attempts made; o->msg is owned by the
 * caller afterwards. */
void ks_http_retry(ks_http_outcome *o, int *attempts, const ks_http_options *opts,
		   ks_http_attempt_fn attempt, void *payload);

#endif
