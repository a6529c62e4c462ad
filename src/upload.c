/* upload: see include/upload.h and docs/upload.md. */
#include "upload.h"
#include "buf.h"
#include "errors.h"
#include "fsutil.h"
#include "hash.h"
#include "jsonutil.h"
#include "mem.h"

#include <curl/curl.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef KS_VERSION
#define KS_VERSION "unknown"
#endif

#define PAYLOAD_SCHEMA "kscore.upload/1"
#define CONFIG_SCHEMA "kscore.upload-config/1"
#define PENDING_SCHEMA "kscore.upload-pending/1"
#define SENT_SCHEMA "kscore.upload-sent/1"
#define RECORD_SCHEMA "kscore.score/1"

#define DEF_CONNECT 10.0
#define DEF_TOTAL 60.0
#define DEF_RETRIES 4
#define DEF_BACKOFF_INITIAL 1.0
#define DEF_BACKOFF_MAX 60.0
#define DEF_TOKEN_ENV "KSCORE_UPLOAD_TOKEN"

#define MAX_RETRIES 20
#define MAX_SECONDS 3600.0
#define RESPONSE_MAX (64u << 10)   /* a reply body: enough for any error page worth quoting */
#define STREAM_MAX (1u << 20)      /* a Gradio event stream, heartbeats included */
#define SSE_LINE_MAX (64u << 10)
#define RECORD_MAX (64u << 20)     /* score.json holds every case of every kernel */
#define SPOOL_FILE_MAX (64u << 20)
#define CONFIG_MAX (1u << 20)
#define TOKEN_FILE_MAX (16u << 10)
#define EXCERPT_MAX 200
#define TEAM_MAX 128
#define EVENT_ID_MAX 128
#define GRADIO_CALL "/gradio_api/call/submit_results"

/* ------------------------------------------------------------------------------------------ */
/* small helpers */

static void wipe(void *p, size_t n)
{
	/* a volatile pointer keeps the compiler from dropping stores to memory about to be freed */
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}

void ks_upload_token_free(char *token)
{
	if (!token)
		return;
	wipe(token, strlen(token));
	ks_free(token);
}

static void now_iso(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *mode_name(ks_upload_mode m)
{
	return m == KS_UPLOAD_GRADIO ? "gradio" : "native";
}

static int parse_mode(ks_upload_mode *out, const char *s)
{
	if (!strcmp(s, "native"))
		*out = KS_UPLOAD_NATIVE;
	else if (!strcmp(s, "gradio"))
		*out = KS_UPLOAD_GRADIO;
	else
		return -1;
	return 0;
}

const char *ks_upload_status_name(ks_upload_status s)
{
	switch (s) {
	case KS_UPLOAD_SENT: return "sent";
	case KS_UPLOAD_ALREADY: return "already";
	case KS_UPLOAD_SPOOLED: return "spooled";
	case KS_UPLOAD_FAILED: return "failed";
	case KS_UPLOAD_INVALID: return "invalid";
	case KS_UPLOAD_CONFIG: return "config";
	}
	return "?";
}

int ks_upload_status_exit(ks_upload_status s)
{
	switch (s) {
	case KS_UPLOAD_SENT:
	case KS_UPLOAD_ALREADY: return 0;
	case KS_UPLOAD_SPOOLED:
	case KS_UPLOAD_FAILED: return 1;
	case KS_UPLOAD_INVALID: return 65;
	case KS_UPLOAD_CONFIG: return 78;
	}
	return 1;
}

void ks_upload_report_clear(ks_upload_report *r)
{
	if (!r)
		return;
	ks_free(r->source);
	ks_free(r->endpoint);
	ks_free(r->spool_path);
	ks_free(r->message);
	memset(r, 0, sizeof(*r));
}

void ks_upload_reports_free(ks_upload_report *r, size_t n)
{
	size_t i;
	for (i = 0; r && i < n; i++)
		ks_upload_report_clear(&r[i]);
	ks_free(r);
}

/* Replaces every occurrence of the token in s with "[token]". Messages quote server replies, and a
 * careless server may echo the Authorization header back. */
static char *scrub(char *s, const char *token)
{
	size_t tl;
	char *hit;
	if (!s || !token || !*token)
		return s;
	tl = strlen(token);
	while ((hit = strstr(s, token)) != NULL) {
		char *t = ks_asprintf("%.*s[token]%s", (int)(hit - s), s, hit + tl);
		wipe(s, strlen(s));
		ks_free(s);
		s = t;
	}
	return s;
}

/* A one-line excerpt of an untrusted reply: control and non-ASCII bytes become spaces (a reply may
 * hold anything), runs of spaces collapse, at most EXCERPT_MAX characters. */
static char *excerpt(const char *data, size_t len, const char *token)
{
	ks_buf b = KS_BUF_INIT(EXCERPT_MAX + 8);
	size_t i;
	int space = 1, cut = 0;
	for (i = 0; i < len; i++) {
		char c = data[i];
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
			c = ' ';
		if (c == ' ' && space)
			continue;
		space = c == ' ';
		if (b.len >= EXCERPT_MAX) {
			cut = 1;
			break;
		}
		ks_buf_put(&b, &c, 1);
	}
	while (b.len && b.ptr[b.len - 1] == ' ')
		b.ptr[--b.len] = '\0';
	if (cut)
		ks_buf_puts(&b, "...");
	return scrub(ks_buf_take(&b, NULL), token);
}

static void logf_(const ks_upload_options *o, const char *fmt, ...) KS_PRINTF(2, 3);
static void logf_(const ks_upload_options *o, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	if (!o->log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->log_fn(line, o->log_payload);
}

static void real_sleep(double seconds, void *payload)
{
	struct timespec ts;
	(void)payload;
	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Uniform in [0, 1). Jitter needs no cryptographic quality, only different processes drawing
 * different numbers, so that clients retrying after one outage do not retry in lockstep. */
static double rand01(void)
{
	static _Thread_local uint64_t s;
	if (!s) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		s = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^
		    (uint64_t)(uintptr_t)&s;
		if (!s)
			s = 0x9e3779b97f4a7c15ull;
	}
	s ^= s >> 12;
	s ^= s << 25;
	s ^= s >> 27;
	return (double)((s * 0x2545f4914f6cdd1dull) >> 11) * 0x1.0p-53;
}

/* ------------------------------------------------------------------------------------------ */
/* options: defaults and checks */

/* Options with every default filled in; what the senders use. */
typedef struct {
	ks_upload_options o;
	char *spool;         /* owned */
} resolved;

char *ks_upload_default_spool(void)
{
	const char *x = getenv("XDG_STATE_HOME");
	const char *h = getenv("HOME");
	/* XDG says a relative XDG_STATE_HOME is invalid and must be ignored */
	if (x && x[0] == '/')
		return ks_asprintf("%s/kscore/spool", x);
	return ks_asprintf("%s/.local/state/kscore/spool", h && *h ? h : ".");
}

static void resolve(resolved *r, const ks_upload_options *o)
{
	r->o = *o;
	if (r->o.mode == KS_UPLOAD_MODE_UNSET)
		r->o.mode = KS_UPLOAD_NATIVE;
	if (r->o.connect_timeout <= 0)
		r->o.connect_timeout = DEF_CONNECT;
	if (r->o.total_timeout <= 0)
		r->o.total_timeout = DEF_TOTAL;
	if (r->o.max_retries < 0)
		r->o.max_retries = DEF_RETRIES;
	if (r->o.backoff_initial <= 0)
		r->o.backoff_initial = DEF_BACKOFF_INITIAL;
	if (r->o.backoff_max <= 0)
		r->o.backoff_max = r->o.backoff_initial > DEF_BACKOFF_MAX ? r->o.backoff_initial
									  : DEF_BACKOFF_MAX;
	if (!r->o.sleep_fn)
		r->o.sleep_fn = real_sleep;
	r->spool = o->spool_dir ? ks_strdup(o->spool_dir) : ks_upload_default_spool();
	r->o.spool_dir = r->spool;
}

static void resolved_free(resolved *r)
{
	ks_free(r->spool);
	r->spool = NULL;
}

static int is_loopback(const char *host)
{
	return !strcasecmp(host, "localhost") || !strcmp(host, "127.0.0.1") ||
	       !strcmp(host, "[::1]") || !strcmp(host, "::1");
}

/* Checks that url may be used: https anywhere, http only on loopback, nothing else; no user name
 * or password in it (URLs are printed in messages; secrets belong in the token). */
static int check_url(int *loopback, const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *user = NULL;
	int rc = 0;

	*loopback = 0;
	if (!u)
		return ks_error_set(KS_ERROR, "out of memory parsing the endpoint");
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		/* a URL curl cannot parse may still hold a password: do not quote it */
		rc = ks_error_set(KS_EINVALID,
				  "the endpoint is not a valid absolute URL (expected https://HOST/...)");
		goto done;
	}
	if (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK && user) {
		rc = ks_error_set(KS_EINVALID, "the endpoint has a user name or password in it; put "
					       "the secret in the token file or variable instead");
		goto done;
	}
	*loopback = is_loopback(host);
	if (!strcasecmp(scheme, "https"))
		goto done;
	if (!strcasecmp(scheme, "http")) {
		if (!*loopback)
			rc = ks_error_set(KS_EINVALID,
					  "endpoint %s: plain http is allowed only for loopback hosts "
					  "(127.0.0.1, localhost, ::1); use https",
					  url);
		goto done;
	}
	rc = ks_error_set(KS_EINVALID, "endpoint %s: unsupported scheme \"%s\"; use https", url,
			  scheme);
done:
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_url_cleanup(u);
	return rc;
}

static int check_seconds(double v, const char *what)
{
	/* 0 means unset; negative values and NaN are mistakes */
	if (!(v >= 0) || v > MAX_SECONDS)
		return ks_error_set(KS_EINVALID, "%s must be between 0 and %.0f seconds", what,
				    MAX_SECONDS);
	return 0;
}

int ks_upload_options_check(const ks_upload_options *o, int need_endpoint)
{
	int loop;
	if (o->mode != KS_UPLOAD_MODE_UNSET && o->mode != KS_UPLOAD_NATIVE &&
	    o->mode != KS_UPLOAD_GRADIO)
		return ks_error_set(KS_EINVALID, "unknown upload mode %d", (int)o->mode);
	if (check_seconds(o->connect_timeout, "the connect timeout") < 0 ||
	    check_seconds(o->total_timeout, "the timeout") < 0 ||
	    check_seconds(o->backoff_initial, "the initial backoff") < 0 ||
	    check_seconds(o->backoff_max, "the maximum backoff") < 0)
		return KS_EINVALID;
	if (o->max_retries > MAX_RETRIES)
		return ks_error_set(KS_EINVALID, "retries must be between 0 and %d", MAX_RETRIES);
	if (o->backoff_max > 0 && o->backoff_initial > o->backoff_max)
		return ks_error_set(KS_EINVALID, "the initial backoff (%g s) exceeds the maximum (%g s)",
				    o->backoff_initial, o->backoff_max);
	if (o->ca_bundle) {
		struct stat st;
		if (stat(o->ca_bundle, &st) < 0 || !S_ISREG(st.st_mode))
			return ks_error_set(KS_ENOTFOUND, "CA bundle %s: no such file", o->ca_bundle);
	}
	if (o->team && (!*o->team || strlen(o->team) > TEAM_MAX))
		return ks_error_set(KS_EINVALID, "the team name must have 1 to %d characters",
				    TEAM_MAX);
	if (!need_endpoint)
		return 0;
	if (!o->endpoint || !*o->endpoint)
		return ks_error_set(KS_EINVALID, "no upload endpoint: give --endpoint URL or set "
						 "\"endpoint\" in the upload config");
	if (check_url(&loop, o->endpoint) < 0)
		return KS_EINVALID;
	if (o->mode != KS_UPLOAD_GRADIO && !o->token)
		return ks_error_set(KS_EINVALID,
				    "endpoint %s needs a token: give --token-file FILE or set $%s",
				    o->endpoint, o->token_env ? o->token_env : DEF_TOKEN_ENV);
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* HTTP */

/* The Gradio event stream: "event: NAME" / "data: TEXT" lines, events ended by a blank line. */
typedef struct {
	ks_buf line;
	char event[32];
	ks_buf data;
	int outcome;         /* 0 none yet, 1 complete, -1 error */
	char *result;        /* the data of the complete or error event */
} sse_state;

typedef struct {
	/* in */
	int sse;
	/* out */
	CURLcode cc;
	long status;
	char errbuf[CURL_ERROR_SIZE];
	ks_buf body;         /* capped; for SSE a capped copy of the stream for messages */
	size_t stream_bytes;
	int too_big;
	double retry_after;  /* seconds, -1 when the reply had none */
	sse_state sse_st;
} http_call;

static void sse_dispatch(sse_state *s)
{
	if (!strcmp(s->event, "complete") || !strcmp(s->event, "error")) {
		s->outcome = !strcmp(s->event, "complete") ? 1 : -1;
		s->result = ks_strdup(s->data.ptr ? s->data.ptr : "");
	}
	s->event[0] = '\0';
	ks_buf_reset(&s->data);
}

static void sse_line(sse_state *s, char *l, size_t n)
{
	if (n && l[n - 1] == '\r')
		l[--n] = '\0';
	if (n == 0) {
		sse_dispatch(s);
		return;
	}
	if (l[0] == ':')
		return; /* a comment / keep-alive */
	if (!strncmp(l, "event:", 6)) {
		const char *v = l + 6 + (l[6] == ' ');
		snprintf(s->event, sizeof(s->event), "%s", v);
	} else if (!strncmp(l, "data:", 5)) {
		const char *v = l + 5 + (l[5] == ' ');
		if (s->data.len)
			ks_buf_put_truncated(&s->data, "\n", 1);
		ks_buf_put_truncated(&s->data, v, strlen(v));
	}
}

/* Returns -1 when a line is over its cap. */
static int sse_feed(sse_state *s, const char *p, size_t n)
{
	size_t i;
	for (i = 0; i < n && !s->outcome; i++) {
		if (p[i] == '\n') {
			if (s->line.ptr)
				sse_line(s, s->line.ptr, s->line.len);
			else
				sse_line(s, (char[1]){0}, 0);
			ks_buf_reset(&s->line);
		} else if (ks_buf_put(&s->line, &p[i], 1) < 0) {
			return -1;
		}
	}
	return 0;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	http_call *hc = ud;
	size_t n = size * nmemb;
	if (hc->sse) {
		hc->stream_bytes += n;
		if (hc->stream_bytes > STREAM_MAX) {
			hc->too_big = 1;
			return 0;
		}
		ks_buf_put_truncated(&hc->body, p, n);
		if (sse_feed(&hc->sse_st, p, n) < 0) {
			hc->too_big = 1;
			return 0;
		}
		/* stop reading once the space has answered: some keep the stream open */
		return hc->sse_st.outcome ? 0 : n;
	}
	if (ks_buf_put_truncated(&hc->body, p, n)) {
		hc->too_big = 1;
		return 0;
	}
	return n;
}

/* Parses Retry-After: delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
static double parse_retry_after(const char *v)
{
	char *end;
	long long secs;
	time_t when;
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v >= '0' && *v <= '9') {
		errno = 0;
		secs = strtoll(v, &end, 10);
		while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
			end++;
		if (*end || errno)
			return -1;
		return (double)secs;
	}
	when = curl_getdate(v, NULL);
	if (when == -1)
		return -1;
	return when > time(NULL) ? difftime(when, time(NULL)) : 0;
}

/* Only Retry-After is looked at; no header is stored, let alone printed. */
static size_t on_header(char *p, size_t size, size_t nmemb, void *ud)
{
	http_call *hc = ud;
	size_t n = size * nmemb;
	if (n >= 5 && !strncmp(p, "HTTP/", 5)) {
		hc->retry_after = -1; /* a new response (after a 100 Continue, say) */
	} else if (n > 12 && !strncasecmp(p, "Retry-After:", 12) && n < 200) {
		char v[200];
		memcpy(v, p + 12, n - 12);
		v[n - 12] = '\0';
		hc->retry_after = parse_retry_after(v);
	}
	return n;
}

static void http_call_init(http_call *hc, int sse)
{
	memset(hc, 0, sizeof(*hc));
	hc->sse = sse;
	hc->retry_after = -1;
	ks_buf_init(&hc->body, RESPONSE_MAX);
	ks_buf_init(&hc->sse_st.line, SSE_LINE_MAX);
	ks_buf_init(&hc->sse_st.data, RESPONSE_MAX);
}

static void http_call_free(http_call *hc)
{
	ks_buf_free(&hc->body);
	ks_buf_free(&hc->sse_st.line);
	ks_buf_free(&hc->sse_st.data);
	ks_free(hc->sse_st.result);
}

static void headers_free(struct curl_slist *h)
{
	struct curl_slist *p;
	/* the Authorization line is in here: clear every line before libcurl frees it */
	for (p = h; p; p = p->next)
		if (p->data)
			wipe(p->data, strlen(p->data));
	curl_slist_free_all(h);
}

/* Adds "Authorization: Bearer <token>" without leaving a copy behind. */
static struct curl_slist *add_auth(struct curl_slist *h, const char *token)
{
	char *line;
	struct curl_slist *n;
	if (!token)
		return h;
	line = ks_asprintf("Authorization: Bearer %s", token);
	n = curl_slist_append(h, line);
	wipe(line, strlen(line));
	ks_free(line);
	if (!n) {
		headers_free(h);
		return NULL;
	}
	return n;
}

/* One request. method "POST" (with body) or "GET". Never verbose: libcurl's debug output would show
 * the Authorization header. */
static void http_do(http_call *hc, const resolved *r, const char *method, const char *url,
		    const char *body, struct curl_slist *headers)
{
	CURL *h = curl_easy_init();
	int loop = 0;
	long low_time;

	if (!h) {
		hc->cc = CURLE_FAILED_INIT;
		snprintf(hc->errbuf, sizeof(hc->errbuf), "cannot start libcurl");
		return;
	}
	if (check_url(&loop, url) < 0) {
		hc->cc = CURLE_UNSUPPORTED_PROTOCOL;
		snprintf(hc->errbuf, sizeof(hc->errbuf), "%s", ks_error_msg());
		curl_easy_cleanup(h);
		return;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, loop ? "http,https" : "https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (r->o.ca_bundle)
		curl_easy_setopt(h, CURLOPT_CAINFO, r->o.ca_bundle);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(r->o.connect_timeout * 1000));
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(r->o.total_timeout * 1000));
	/* a connection that delivers nothing for this long is dead even if the total is not spent */
	low_time = (long)ceil(r->o.total_timeout < 30 ? r->o.total_timeout : 30);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, low_time);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, hc->errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kscore/" KS_VERSION);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, hc);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, hc);
	if (loop)
		curl_easy_setopt(h, CURLOPT_PROXY, ""); /* a loopback endpoint is never proxied */
	if (!strcmp(method, "POST")) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	} else {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	}
	hc->cc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &hc->status);
	curl_easy_cleanup(h);
}

/* ------------------------------------------------------------------------------------------ */
/* attempts and retries */

typedef struct {
	int ok;
	int retryable;
	long status;
	double retry_after;  /* -1 none */
	char *msg;           /* why it failed; owned; token-free */
} outcome;

static void outcome_set(outcome *o, int retryable, const char *token, const char *fmt, ...)
	KS_PRINTF(4, 5);
static void outcome_set(outcome *o, int retryable, const char *token, const char *fmt, ...)
{
	char *m;
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	m = ks_malloc((size_t)(n > 0 ? n : 0) + 1);
	va_start(ap, fmt);
	vsnprintf(m, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	va_end(ap);
	ks_free(o->msg);
	o->msg = scrub(m, token);
	o->ok = 0;
	o->retryable = retryable;
}

static int transient_curl(CURLcode cc)
{
	switch (cc) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_HTTP3:
	case CURLE_QUIC_CONNECT_ERROR:
		return 1;
	default:
		return 0;
	}
}

static int transient_status(long s)
{
	return s == 408 || s == 429 || s == 500 || s == 502 || s == 503 || s == 504;
}

/* Turns a finished call into an outcome: 2xx is success; transport errors, 408, 429 and 5xx
 * gateways are worth retrying; anything else fails at once with the status and a body excerpt. */
static void classify(outcome *o, const http_call *hc, const char *url, const resolved *r)
{
	const char *tok = r->o.token;
	char *ex;

	o->status = hc->status;
	o->retry_after = hc->retry_after;
	if (hc->too_big && hc->sse) {
		outcome_set(o, 0, tok, "%s: the event stream is larger than the %u-byte limit", url,
			    STREAM_MAX);
		return;
	}
	/* an oversized reply was cut at its cap after the status line arrived: judge the status */
	if (hc->cc != CURLE_OK && !hc->too_big) {
		const char *why = hc->errbuf[0] ? hc->errbuf : curl_easy_strerror(hc->cc);
		if (hc->cc == CURLE_PEER_FAILED_VERIFICATION || hc->cc == CURLE_SSL_CACERT_BADFILE)
			outcome_set(o, 0, tok,
				    "%s: TLS verification failed (%s); for a private CA give "
				    "--ca-bundle FILE",
				    url, why);
		else
			outcome_set(o, transient_curl(hc->cc), tok, "%s: %s", url, why);
		return;
	}
	if (hc->status >= 200 && hc->status < 300) {
		o->ok = 1;
		return;
	}
	ex = excerpt(hc->body.ptr ? hc->body.ptr : "", hc->body.len, tok);
	if (hc->status == 401 || hc->status == 403)
		outcome_set(o, 0, tok,
			    "%s answered HTTP %ld: the token was rejected (check the token file or "
			    "variable)%s%s",
			    url, hc->status, *ex ? ": " : "", ex);
	else if (hc->status >= 300 && hc->status < 400)
		outcome_set(o, 0, tok,
			    "%s answered HTTP %ld (a redirect, not followed: configure the final "
			    "URL)",
			    url, hc->status);
	else
		outcome_set(o, transient_status(hc->status), tok, "%s answered HTTP %ld%s%s", url,
			    hc->status, *ex ? ": " : "", ex);
	ks_free(ex);
}

static char *join_url(const char *base, const char *path)
{
	size_t n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	return ks_asprintf("%.*s%s", (int)n, base, path);
}

static void attempt_native(outcome *o, const resolved *r, const char *endpoint, const char *body,
			   const char *key)
{
	http_call hc;
	struct curl_slist *h = NULL;
	char *idem = ks_asprintf("Idempotency-Key: %s", key);

	http_call_init(&hc, 0);
	h = curl_slist_append(h, "Content-Type: application/json");
	h = h ? curl_slist_append(h, "Accept: application/json") : NULL;
	h = h ? curl_slist_append(h, "Expect:") : NULL; /* no 100-continue round trip */
	h = h ? curl_slist_append(h, idem) : NULL;
	h = h ? add_auth(h, r->o.token) : NULL;
	ks_free(idem);
	if (!h) {
		outcome_set(o, 0, NULL, "cannot build the request headers");
		goto done;
	}
	http_do(&hc, r, "POST", endpoint, body, h);
	classify(o, &hc, endpoint, r);
done:
	headers_free(h);
	http_call_free(&hc);
}

/* Gradio's two-step call: the POST queues the function and returns an event id; the GET streams
 * the queue's events for it. Only `complete` means the space ran submit_results. */
static void attempt_gradio(outcome *o, const resolved *r, const char *endpoint, const char *body)
{
	http_call post, get;
	struct curl_slist *h = NULL;
	char *url = join_url(endpoint, GRADIO_CALL), *get_url = NULL;
	cJSON *reply = NULL;
	const char *event_id = NULL;
	size_t i;

	http_call_init(&post, 0);
	http_call_init(&get, 1);
	h = curl_slist_append(h, "Content-Type: application/json");
	h = h ? curl_slist_append(h, "Expect:") : NULL;
	h = h ? add_auth(h, r->o.token) : NULL;
	if (!h) {
		outcome_set(o, 0, NULL, "cannot build the request headers");
		goto done;
	}
	http_do(&post, r, "POST", url, body, h);
	classify(o, &post, url, r);
	if (!o->ok)
		goto done;
	o->ok = 0;
	if (ks_json_parse(&reply, post.body.ptr ? post.body.ptr : "", post.body.len, 8, url) < 0 ||
	    !cJSON_IsObject(reply) || ks_json_str(&event_id, reply, "event_id", 1) < 0) {
		char *ex = excerpt(post.body.ptr ? post.body.ptr : "", post.body.len, r->o.token);
		outcome_set(o, 0, r->o.token, "%s answered HTTP %ld without an event id: %s", url,
			    post.status, ex);
		ks_free(ex);
		goto done;
	}
	/* the id goes into a URL path: accept only what Gradio produces */
	for (i = 0; event_id[i]; i++)
		if (!(event_id[i] == '-' || event_id[i] == '_' ||
		      (event_id[i] >= '0' && event_id[i] <= '9') ||
		      (event_id[i] >= 'a' && event_id[i] <= 'z') ||
		      (event_id[i] >= 'A' && event_id[i] <= 'Z')))
			break;
	if (event_id[i] || i == 0 || i > EVENT_ID_MAX) {
		outcome_set(o, 0, r->o.token, "%s returned a malformed event id", url);
		goto done;
	}
	get_url = ks_asprintf("%s/%s", url, event_id);
	headers_free(h);
	h = curl_slist_append(NULL, "Accept: text/event-stream");
	h = h ? add_auth(h, r->o.token) : NULL;
	if (!h) {
		outcome_set(o, 0, NULL, "cannot build the request headers");
		goto done;
	}
	/* as the SSE specification says, an event not ended by a blank line is discarded */
	http_do(&get, r, "GET", get_url, NULL, h);
	if (get.sse_st.outcome) {
		/* we stopped the transfer ourselves once the answer was in; that is no error */
		char *ex = excerpt(get.sse_st.result, strlen(get.sse_st.result), r->o.token);
		o->status = get.status;
		if (get.sse_st.outcome > 0)
			o->ok = 1;
		else
			outcome_set(o, 1, r->o.token,
				    "%s: the space reported an error event (data: %s)", get_url,
				    *ex ? ex : "none");
		ks_free(ex);
		goto done;
	}
	classify(o, &get, get_url, r);
	if (o->ok)
		outcome_set(o, 1, r->o.token,
			    "%s: the event stream ended without a complete event", get_url);
done:
	headers_free(h);
	cJSON_Delete(reply);
	ks_free(url);
	ks_free(get_url);
	http_call_free(&post);
	http_call_free(&get);
}

/* The wait before retry number `retry` (1-based): Retry-After when the server gave one, else
 * "full jitter" exponential backoff, uniform in [0, min(max, initial * 2^(retry-1))]. Both are
 * capped at backoff_max. */
static double backoff(const resolved *r, int retry, double retry_after)
{
	double cap = r->o.backoff_initial * ldexp(1.0, retry - 1);
	if (cap > r->o.backoff_max)
		cap = r->o.backoff_max;
	if (retry_after >= 0)
		return retry_after < r->o.backoff_max ? retry_after : r->o.backoff_max;
	return rand01() * cap;
}

/* Sends until success, a failure not worth retrying, or the retries are spent. */
static void send_with_retries(outcome *o, int *attempts, const resolved *r, const char *endpoint,
			      ks_upload_mode mode, const cJSON *payload, const char *key)
{
	char *body = NULL;
	int n;

	if (mode == KS_UPLOAD_GRADIO) {
		cJSON *g = cJSON_CreateObject(), *data = cJSON_AddArrayToObject(g, "data");
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(payload, "summary");
		cJSON_AddItemToArray(data, cJSON_Duplicate(
						   cJSON_GetObjectItemCaseSensitive(payload, "team"), 0));
		cJSON_AddItemToArray(data, cJSON_Duplicate(
						   cJSON_GetObjectItemCaseSensitive(sum, "score"), 0));
		body = cJSON_PrintUnformatted(g);
		cJSON_Delete(g);
	} else {
		body = cJSON_PrintUnformatted(payload);
	}
	*attempts = 0;
	if (!body) {
		outcome_set(o, 0, NULL, "cannot serialise the payload");
		return;
	}
	for (n = 1;; n++) {
		double wait;
		ks_free(o->msg);
		memset(o, 0, sizeof(*o));
		o->retry_after = -1;
		if (mode == KS_UPLOAD_GRADIO)
			attempt_gradio(o, r, endpoint, body);
		else
			attempt_native(o, r, endpoint, body, key);
		*attempts = n;
		if (o->ok || !o->retryable || n > r->o.max_retries)
			break;
		wait = backoff(r, n, o->retry_after);
		logf_(&r->o, "attempt %d of %d failed (%s); retrying in %.1f s", n,
		      r->o.max_retries + 1, o->msg, wait);
		r->o.sleep_fn(wait, r->o.sleep_payload);
	}
	cJSON_free(body);
}

/* ------------------------------------------------------------------------------------------ */
/* the record and the payload */

static int need(const cJSON **out, const cJSON *obj, const char *key, const char *path,
		const char *name)
{
	const cJSON *v = obj ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
	if (!v || cJSON_IsNull(v))
		return ks_error_set(KS_EINVALID, "%s: missing field \"%s\"", path, name);
	*out = v;
	return 0;
}

static void copy_str(cJSON *dst, const char *dkey, const cJSON *src, const char *skey)
{
	const cJSON *v = src ? cJSON_GetObjectItemCaseSensitive(src, skey) : NULL;
	if (cJSON_IsString(v))
		cJSON_AddStringToObject(dst, dkey, v->valuestring);
	else
		cJSON_AddNullToObject(dst, dkey);
}

static void copy_num(cJSON *dst, const char *key, const cJSON *src)
{
	const cJSON *v = src ? cJSON_GetObjectItemCaseSensitive(src, key) : NULL;
	if (cJSON_IsNumber(v))
		ks_json_add_num(dst, key, v->valuedouble);
	else
		cJSON_AddNullToObject(dst, key);
}

static void copy_bool(cJSON *dst, const char *key, const cJSON *src)
{
	const cJSON *v = src ? cJSON_GetObjectItemCaseSensitive(src, key) : NULL;
	if (cJSON_IsBool(v))
		cJSON_AddBoolToObject(dst, key, cJSON_IsTrue(v));
	else
		cJSON_AddNullToObject(dst, key);
}

static int team_ok(const char *t)
{
	size_t i, n = strlen(t);
	if (n == 0 || n > TEAM_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)t[i] < 0x20 || t[i] == 0x7f)
			return 0;
	return 1;
}

/* Hashes a string as its length in 8 little-endian bytes, then its bytes: a fixed byte order,
 * because a server may recompute the key. */
static void key_part(ks_sha256 *h, const char *s)
{
	uint64_t n = strlen(s);
	unsigned char le[8];
	int i;
	for (i = 0; i < 8; i++)
		le[i] = (unsigned char)(n >> (8 * i));
	ks_sha256_update(h, le, sizeof(le));
	ks_sha256_update(h, s, (size_t)n);
}

/* The idempotency key: SHA-256 over the length-prefixed team, submission sha256, scorer version
 * and device uuid ("" without a device). The same result always gives the same key; another
 * team, submission, scorer or GPU gives another. */
static void make_key(char key[65], const char *team, const char *sub, const char *ver,
		     const char *uuid)
{
	ks_sha256 *h = ks_sha256_new();
	key_part(h, team);
	key_part(h, sub);
	key_part(h, ver);
	key_part(h, uuid ? uuid : "");
	ks_sha256_final(h, key);
}

/* Builds the "kscore.upload/1" payload from a parsed score.json. */
static int build_payload(cJSON **out, char key[65], const cJSON *rec, const char *path,
			 const char *team_override)
{
	const cJSON *scorer = NULL, *ver = NULL, *sub = NULL, *sha = NULL, *summary = NULL;
	const cJSON *score = NULL, *kernels = NULL, *dev, *v, *k;
	const char *team = team_override, *uuid = NULL;
	cJSON *p = NULL, *o, *arr;
	int rc;

	*out = NULL;
	if (!cJSON_IsObject(rec))
		return ks_error_set(KS_EINVALID, "%s: not a JSON object", path);
	v = cJSON_GetObjectItemCaseSensitive(rec, "schema");
	if (v && (!cJSON_IsString(v) || strcmp(v->valuestring, RECORD_SCHEMA)))
		return ks_error_set(KS_EINVALID, "%s: schema is not \"%s\"", path, RECORD_SCHEMA);
	v = cJSON_GetObjectItemCaseSensitive(rec, "mode");
	if (cJSON_IsString(v) && !strcmp(v->valuestring, "compile-only"))
		return ks_error_set(KS_EINVALID,
				    "%s: a compile-only record has no score and cannot be uploaded; "
				    "score the submission on a GPU first",
				    path);
	if ((rc = need(&scorer, rec, "scorer", path, "scorer.version")) < 0 ||
	    (rc = need(&ver, scorer, "version", path, "scorer.version")) < 0 ||
	    (rc = need(&sub, rec, "submission", path, "submission.sha256")) < 0 ||
	    (rc = need(&sha, sub, "sha256", path, "submission.sha256")) < 0 ||
	    (rc = need(&summary, rec, "summary", path, "summary.score")) < 0 ||
	    (rc = need(&score, summary, "score", path, "summary.score")) < 0 ||
	    (rc = need(&kernels, rec, "kernels", path, "kernels")) < 0)
		return rc;
	if (!cJSON_IsString(ver))
		return ks_error_set(KS_EINVALID, "%s: field \"scorer.version\" must be a string", path);
	if (!cJSON_IsString(sha))
		return ks_error_set(KS_EINVALID, "%s: field \"submission.sha256\" must be a string",
				    path);
	if (!cJSON_IsNumber(score) || !isfinite(score->valuedouble))
		return ks_error_set(KS_EINVALID, "%s: field \"summary.score\" must be a number", path);
	if (!cJSON_IsArray(kernels))
		return ks_error_set(KS_EINVALID, "%s: field \"kernels\" must be an array", path);
	if (!team) {
		v = cJSON_GetObjectItemCaseSensitive(rec, "team");
		if (cJSON_IsString(v))
			team = v->valuestring;
	}
	if (!team)
		return ks_error_set(KS_EINVALID, "%s: the record has no team; give --team NAME", path);
	if (!team_ok(team))
		return ks_error_set(KS_EINVALID,
				    "%s: the team name must have 1 to %d printable characters", path,
				    TEAM_MAX);
	dev = cJSON_GetObjectItemCaseSensitive(rec, "device");
	if (!cJSON_IsObject(dev))
		dev = NULL;
	v = dev ? cJSON_GetObjectItemCaseSensitive(dev, "uuid") : NULL;
	if (cJSON_IsString(v))
		uuid = v->valuestring;
	make_key(key, team, sha->valuestring, ver->valuestring, uuid);

	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "schema", PAYLOAD_SCHEMA);
	cJSON_AddStringToObject(p, "idempotency_key", key);
	cJSON_AddStringToObject(p, "team", team);
	copy_str(p, "created", rec, "created");
	o = cJSON_AddObjectToObject(p, "scorer");
	copy_str(o, "name", scorer, "name");
	cJSON_AddStringToObject(o, "version", ver->valuestring);
	o = cJSON_AddObjectToObject(p, "submission");
	cJSON_AddStringToObject(o, "sha256", sha->valuestring);
	if (dev) {
		o = cJSON_AddObjectToObject(p, "device");
		copy_str(o, "name", dev, "name");
		copy_str(o, "uuid", dev, "uuid");
		copy_str(o, "driver_version", dev, "driver_version");
		copy_str(o, "cuda_version", dev, "cuda_version");
		copy_str(o, "arch", dev, "arch");
	} else {
		cJSON_AddNullToObject(p, "device");
	}
	o = cJSON_AddObjectToObject(p, "summary");
	copy_num(o, "score", summary);
	copy_num(o, "call_accuracy", summary);
	copy_num(o, "exec_accuracy", summary);
	copy_num(o, "geomean_speedup", summary);
	copy_num(o, "fast_1", summary);
	copy_num(o, "fast_2", summary);
	copy_num(o, "kernels", summary);
	copy_num(o, "suspicious", summary);
	arr = cJSON_AddArrayToObject(p, "kernels");
	cJSON_ArrayForEach(k, kernels)
	{
		cJSON *e;
		if (!cJSON_IsObject(k))
			continue;
		e = cJSON_CreateObject();
		copy_str(e, "problem", k, "problem");
		copy_num(e, "pass", k);
		copy_bool(e, "call", k);
		copy_bool(e, "exec", k);
		copy_num(e, "speedup", k);
		copy_num(e, "score", k);
		copy_bool(e, "suspicious", k);
		cJSON_AddItemToArray(arr, e);
	}
	arr = cJSON_AddArrayToObject(p, "suspicious");
	v = cJSON_GetObjectItemCaseSensitive(rec, "suspicious");
	if (cJSON_IsArray(v)) {
		cJSON_ArrayForEach(k, v)
		{
			cJSON *e;
			if (!cJSON_IsObject(k))
				continue;
			e = cJSON_CreateObject();
			copy_str(e, "problem", k, "problem");
			copy_num(e, "pass", k);
			copy_str(e, "why", k, "why");
			cJSON_AddItemToArray(arr, e);
		}
	}
	*out = p;
	return 0;
}

static int load_record(cJSON **payload, char key[65], const char *dir, const char *team)
{
	char *path = ks_path_join(dir, "score.json"), *text = NULL;
	size_t len;
	cJSON *rec = NULL;
	int rc;

	if ((rc = ks_fs_read(&text, &len, path, RECORD_MAX)) < 0)
		goto done;
	if ((rc = ks_json_parse(&rec, text, len, 64, path)) < 0)
		goto done;
	rc = build_payload(payload, key, rec, path, team);
done:
	cJSON_Delete(rec);
	ks_free(text);
	ks_free(path);
	return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* the spool */

static char *spool_path(const char *spool, const char *sub, const char *name)
{
	return ks_asprintf("%s/%s/%s", spool, sub, name);
}

static int spool_mkdir(const char *spool, const char *sub)
{
	char *d = ks_asprintf("%s/%s", spool, sub);
	int rc = ks_fs_mkdir_p(d, 0700);
	ks_free(d);
	return rc;
}

static int read_json_file(cJSON **out, const char *path)
{
	char *text = NULL;
	size_t len;
	int rc = ks_fs_read(&text, &len, path, SPOOL_FILE_MAX);
	if (rc == 0)
		rc = ks_json_parse(out, text, len, 64, path);
	ks_free(text);
	return rc;
}

static int same_target(const cJSON *o, const char *endpoint, ks_upload_mode mode)
{
	const char *e = NULL, *m = NULL;
	return ks_json_str(&e, o, "endpoint", 0) == 0 && ks_json_str(&m, o, "mode", 0) == 0 &&
	       !strcmp(e, endpoint) && !strcmp(m, mode_name(mode));
}

/* The sent record for key, if it lists this endpoint and mode: returns 1 and its time. */
static int sent_has(char when[32], const char *spool, const char *key, const char *endpoint,
		    ks_upload_mode mode)
{
	char *name = ks_asprintf("%s.json", key), *path = spool_path(spool, "sent", name);
	cJSON *rec = NULL;
	const cJSON *u;
	int found = 0;

	if (ks_fs_exists(path) && read_json_file(&rec, path) == 0) {
		cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(rec, "uploads"))
		{
			const char *t = "";
			if (!same_target(u, endpoint, mode))
				continue;
			found = 1;
			ks_json_str(&t, u, "time", 0);
			snprintf(when, 32, "%s", t);
		}
	}
	cJSON_Delete(rec);
	ks_free(path);
	ks_free(name);
	return found;
}

/* Adds this endpoint to <spool>/sent/<key>.json (one file per key; a result sent to two
 * leaderboards lists both). */
static int sent_add(const char *spool, const char *key, const cJSON *payload,
		    const char *endpoint, ks_upload_mode mode, long status, int attempts)
{
	char *name = ks_asprintf("%s.json", key), *path = spool_path(spool, "sent", name);
	cJSON *rec = NULL, *ups, *u;
	char now[32];
	int rc;

	if ((rc = spool_mkdir(spool, "sent")) < 0)
		goto done;
	if (!ks_fs_exists(path) || read_json_file(&rec, path) < 0 || !cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "schema", SENT_SCHEMA);
		cJSON_AddStringToObject(rec, "key", key);
		copy_str(rec, "team", payload, "team");
		cJSON_AddItemToObject(rec, "submission",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(payload,
										 "submission"),
						      1));
	}
	ups = cJSON_GetObjectItemCaseSensitive(rec, "uploads");
	if (!cJSON_IsArray(ups)) {
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "uploads");
		ups = cJSON_AddArrayToObject(rec, "uploads");
	}
	now_iso(now);
	u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "endpoint", endpoint);
	cJSON_AddStringToObject(u, "mode", mode_name(mode));
	cJSON_AddStringToObject(u, "time", now);
	cJSON_AddNumberToObject(u, "http_status", (double)status);
	cJSON_AddNumberToObject(u, "attempts", attempts);
	cJSON_AddItemToArray(ups, u);
	rc = ks_json_write_file(path, rec, 1);
done:
	cJSON_Delete(rec);
	ks_free(path);
	ks_free(name);
	return rc;
}

/* Where the pending copy for (key, endpoint, mode) lives: <key>.json, unless that file is taken
 * by the same result bound for another endpoint; then <key>-<8 hex of the target>.json. */
static char *pending_name(const char *spool, const char *key, const char *endpoint,
			  ks_upload_mode mode)
{
	char *name = ks_asprintf("%s.json", key), *path = spool_path(spool, "pending", name);
	cJSON *rec = NULL;
	int taken = ks_fs_exists(path) && read_json_file(&rec, path) == 0 &&
		    !same_target(rec, endpoint, mode);
	cJSON_Delete(rec);
	if (taken) {
		char *t = ks_asprintf("%s\n%s", mode_name(mode), endpoint), hex[65];
		ks_sha256_hex(hex, t, strlen(t));
		ks_free(t);
		ks_free(path);
		ks_free(name);
		name = ks_asprintf("%s-%.8s.json", key, hex);
		path = spool_path(spool, "pending", name);
	}
	ks_free(name);
	return path;
}

/* Writes or updates a pending file. `prev` is the pending record being retried (NULL for a new
 * failure): its first failure time and attempts carry over. The token is not in here: it is read
 * again when the file is sent. */
static int pending_write(const char *path, const cJSON *prev, const cJSON *payload,
			 const char *key, const char *endpoint, ks_upload_mode mode,
			 const char *source, int attempts, long status, const char *error)
{
	cJSON *rec = cJSON_CreateObject();
	char now[32];
	const char *first = NULL, *src = source;
	int64_t before = 0;
	int rc;

	now_iso(now);
	if (prev) {
		ks_json_str(&first, prev, "first_failed", 0);
		ks_json_int(&before, prev, "attempts", 0);
		ks_json_str(&src, prev, "source", 0);
	}
	cJSON_AddStringToObject(rec, "schema", PENDING_SCHEMA);
	cJSON_AddStringToObject(rec, "key", key);
	cJSON_AddStringToObject(rec, "endpoint", endpoint);
	cJSON_AddStringToObject(rec, "mode", mode_name(mode));
	if (src)
		cJSON_AddStringToObject(rec, "source", src);
	else
		cJSON_AddNullToObject(rec, "source");
	cJSON_AddNumberToObject(rec, "attempts", (double)(before + attempts));
	cJSON_AddStringToObject(rec, "first_failed", first ? first : now);
	cJSON_AddStringToObject(rec, "last_failed", now);
	cJSON_AddNumberToObject(rec, "http_status", (double)status);
	cJSON_AddStringToObject(rec, "last_error", error ? error : "");
	cJSON_AddItemToObject(rec, "payload", cJSON_Duplicate(payload, 1));
	rc = ks_json_write_file(path, rec, 1);
	cJSON_Delete(rec);
	return rc;
}

/* Removes the pending copies of key bound for this endpoint and mode (after a success). */
static void pending_remove(const char *spool, const char *key, const char *endpoint,
			   ks_upload_mode mode)
{
	char *dir = ks_asprintf("%s/pending", spool), **names = NULL;
	size_t n = 0, i, kl = strlen(key);

	if (ks_fs_list(&names, &n, dir, 0) == 0) {
		for (i = 0; i < n; i++) {
			char *path;
			cJSON *rec = NULL;
			if (strncmp(names[i], key, kl) || (names[i][kl] != '.' && names[i][kl] != '-'))
				continue;
			path = ks_path_join(dir, names[i]);
			if (read_json_file(&rec, path) == 0 && same_target(rec, endpoint, mode))
				unlink(path);
			cJSON_Delete(rec);
			ks_free(path);
		}
		ks_free_strv(names, n);
	}
	ks_free(dir);
}

/* ------------------------------------------------------------------------------------------ */
/* uploads */

static void report_msg(ks_upload_report *rep, const char *token, const char *fmt, ...)
	KS_PRINTF(3, 4);
static void report_msg(ks_upload_report *rep, const char *token, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ks_free(rep->message);
	rep->message = scrub(ks_strdup(buf), token);
}

/* Sends one payload to (endpoint, mode) unless the spool says it was sent; records the result.
 * `prev` and `pending_path` are set when retrying a pending file. */
static int upload_one(ks_upload_report *rep, const resolved *r, const cJSON *payload,
		      const char *key, const char *endpoint, ks_upload_mode mode,
		      const cJSON *prev, const char *pending_path)
{
	const char *spool = r->spool, *tok = r->o.token;
	outcome o = { 0 };
	char when[32];
	char *path = NULL;
	int rc = 0, spool_ok;

	snprintf(rep->key, sizeof(rep->key), "%s", key);
	ks_free(rep->endpoint);
	rep->endpoint = ks_strdup(endpoint);
	spool_ok = spool_mkdir(spool, "pending") == 0;
	if (!spool_ok)
		logf_(&r->o, "warning: the spool is unusable (%s); a failed upload cannot be kept",
		      ks_error_msg());
	if (sent_has(when, spool, key, endpoint, mode)) {
		rep->status = KS_UPLOAD_ALREADY;
		report_msg(rep, tok, "already uploaded to %s at %s (key %.12s); not sent again",
			   endpoint, when, key);
		if (pending_path)
			unlink(pending_path);
		goto done;
	}
	send_with_retries(&o, &rep->attempts, r, endpoint, mode, payload, key);
	rep->http_status = o.status;
	if (o.ok) {
		rep->status = KS_UPLOAD_SENT;
		report_msg(rep, tok, "uploaded to %s (%s, HTTP %ld, %d attempt%s, key %.12s)",
			   endpoint, mode_name(mode), o.status, rep->attempts,
			   rep->attempts == 1 ? "" : "s", key);
		if (sent_add(spool, key, payload, endpoint, mode, o.status, rep->attempts) < 0)
			logf_(&r->o, "warning: uploaded, but the sent record could not be written: %s",
			      ks_error_msg());
		if (pending_path)
			unlink(pending_path);
		pending_remove(spool, key, endpoint, mode);
		goto done;
	}
	path = pending_path ? ks_strdup(pending_path) : pending_name(spool, key, endpoint, mode);
	if (spool_ok && pending_write(path, prev, payload, key, endpoint, mode, rep->source,
				      rep->attempts, o.status, o.msg) == 0) {
		rep->status = KS_UPLOAD_SPOOLED;
		rep->spooled = 1;
		rep->spool_path = ks_strdup(path);
		report_msg(rep, tok, "upload failed after %d attempt%s: %s; kept in %s (send it "
				     "later with `score upload --pending`)",
			   rep->attempts, rep->attempts == 1 ? "" : "s", o.msg, path);
	} else {
		rep->status = KS_UPLOAD_FAILED;
		rep->spooled = pending_path != NULL; /* the old pending file is still there */
		report_msg(rep, tok, "upload failed after %d attempt%s: %s; and it could not be "
				     "spooled: %s",
			   rep->attempts, rep->attempts == 1 ? "" : "s", o.msg, ks_error_msg());
	}
	rc = ks_error_set(KS_ERROR, "%s", rep->message);
done:
	ks_free(path);
	ks_free(o.msg);
	return rc;
}

int ks_upload_result_dir(ks_upload_report *out, const char *dir, const ks_upload_options *opts)
{
	resolved r = { 0 };
	cJSON *payload = NULL;
	char key[65] = "";
	char *endpoint = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	out->source = ks_strdup(dir);
	if ((rc = ks_upload_options_check(opts, 1)) < 0) {
		out->status = KS_UPLOAD_CONFIG;
		out->message = ks_strdup(ks_error_msg());
		return rc;
	}
	resolve(&r, opts);
	if ((rc = load_record(&payload, key, dir, r.o.team)) < 0) {
		out->status = KS_UPLOAD_INVALID;
		out->message = scrub(ks_strdup(ks_error_msg()), r.o.token);
		goto done;
	}
	/* one spelling per endpoint, so that the sent check matches */
	endpoint = ks_strdup(r.o.endpoint);
	if (r.o.mode == KS_UPLOAD_GRADIO) {
		size_t n = strlen(endpoint);
		while (n > 1 && endpoint[n - 1] == '/')
			endpoint[--n] = '\0';
	}
	rc = upload_one(out, &r, payload, key, endpoint, r.o.mode, NULL, NULL);
done:
	if (rc < 0)
		ks_error_set(rc, "%s", out->message);
	ks_free(endpoint);
	cJSON_Delete(payload);
	resolved_free(&r);
	return rc;
}

/* One pending file. */
static void pending_one(ks_upload_report *rep, const resolved *r, const char *path)
{
	cJSON *rec = NULL;
	const cJSON *payload;
	const char *key = NULL, *endpoint = NULL, *mode_s = NULL;
	ks_upload_mode mode;
	int loop;

	rep->source = ks_strdup(path);
	if (read_json_file(&rec, path) < 0)
		goto invalid;
	if (ks_json_str(&key, rec, "key", 1) < 0 || ks_json_str(&endpoint, rec, "endpoint", 1) < 0 ||
	    ks_json_str(&mode_s, rec, "mode", 1) < 0) {
		ks_error_wrap(KS_EINVALID, "%s", path);
		goto invalid;
	}
	payload = cJSON_GetObjectItemCaseSensitive(rec, "payload");
	if (!cJSON_IsObject(payload) || parse_mode(&mode, mode_s) < 0 || strlen(key) != 64) {
		ks_error_set(KS_EINVALID, "%s: not a pending upload (bad payload, mode or key)", path);
		goto invalid;
	}
	rep->endpoint = ks_strdup(endpoint);
	snprintf(rep->key, sizeof(rep->key), "%s", key);
	if (check_url(&loop, endpoint) < 0) {
		rep->status = KS_UPLOAD_CONFIG;
		rep->spooled = 1;
		report_msg(rep, r->o.token, "%s: %s", path, ks_error_msg());
		goto done;
	}
	if (mode == KS_UPLOAD_NATIVE && !r->o.token) {
		rep->status = KS_UPLOAD_CONFIG;
		rep->spooled = 1;
		report_msg(rep, NULL,
			   "%s: endpoint %s needs a token: give --token-file FILE or set $%s", path,
			   endpoint, r->o.token_env ? r->o.token_env : DEF_TOKEN_ENV);
		goto done;
	}
	upload_one(rep, r, payload, key, endpoint, mode, rec, path);
	goto done;
invalid:
	rep->status = KS_UPLOAD_INVALID;
	rep->spooled = 1;
	report_msg(rep, r->o.token, "%s", ks_error_msg());
done:
	cJSON_Delete(rec);
}

int ks_upload_pending(ks_upload_report **out, size_t *n, const ks_upload_options *opts)
{
	resolved r = { 0 };
	char *dir = NULL, *lock = NULL, **names = NULL;
	size_t cnt = 0, i, failed = 0;
	ks_upload_report *reps = NULL;
	int rc, fd = -1;

	*out = NULL;
	*n = 0;
	if ((rc = ks_upload_options_check(opts, 0)) < 0)
		return rc;
	resolve(&r, opts);
	dir = ks_asprintf("%s/pending", r.spool);
	rc = ks_fs_list(&names, &cnt, dir, 0);
	if (rc == KS_ENOTFOUND) {
		rc = 0;
		goto done;
	}
	if (rc < 0)
		goto done;
	/* two `--pending` runs at once would send each file twice (harmless with the idempotency key,
	 * but not in Gradio mode): the second one stops */
	lock = ks_asprintf("%s/.lock", r.spool);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc = ks_error_set(KS_EIO, "%s: %s", lock,
				  fd < 0 ? strerror(errno) : "another upload --pending is running");
		goto done;
	}
	reps = ks_calloc(cnt ? cnt : 1, sizeof(*reps));
	for (i = 0; i < cnt; i++) {
		char *path;
		size_t l = strlen(names[i]);
		if (l < 5 || strcmp(names[i] + l - 5, ".json"))
			continue;
		path = ks_path_join(dir, names[i]);
		pending_one(&reps[*n], &r, path);
		if (reps[*n].status != KS_UPLOAD_SENT && reps[*n].status != KS_UPLOAD_ALREADY)
			failed++;
		(*n)++;
		ks_free(path);
	}
	if (failed)
		rc = ks_error_set(KS_ERROR, "%zu of %zu pending uploads were not sent", failed, *n);
done:
	if (fd >= 0)
		close(fd); /* releases the lock */
	*out = reps;
	if (rc < 0 && rc != KS_ERROR) {
		ks_upload_reports_free(reps, *n);
		*out = NULL;
		*n = 0;
	}
	ks_free_strv(names, cnt);
	ks_free(dir);
	ks_free(lock);
	resolved_free(&r);
	return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* token */

static int token_chars_ok(const char *t)
{
	/* visible ASCII only: a CR or LF would let the token inject headers */
	for (; *t; t++)
		if ((unsigned char)*t <= 0x20 || (unsigned char)*t >= 0x7f)
			return 0;
	return 1;
}

int ks_upload_token_load(char **out, int *loose, const char *file, const char *env_name)
{
	char *text = NULL, *tok = NULL;
	size_t len = 0;
	int rc = 0, fd = -1;
	struct stat st;

	*out = NULL;
	*loose = 0;
	if (file) {
		fd = open(file, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			rc = ks_error_set(errno == ENOENT ? KS_ENOTFOUND : KS_EIO, "token file %s: %s",
					  file, strerror(errno));
			goto done;
		}
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			rc = ks_error_set(KS_EINVALID, "token file %s: not a regular file", file);
			goto done;
		}
		*loose = (st.st_mode & 077) != 0;
		if ((rc = ks_fs_read_fd(&text, &len, fd, TOKEN_FILE_MAX)) < 0) {
			rc = ks_error_set(rc, "token file %s: unreadable or over %u bytes", file,
					  TOKEN_FILE_MAX);
			goto done;
		}
		{
			/* the first line, trimmed */
			char *b = text, *e;
			while (*b == ' ' || *b == '\t' || *b == '\r' || *b == '\n')
				b++;
			e = b;
			while (*e && *e != '\n' && *e != '\r')
				e++;
			while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if (e == b) {
				rc = ks_error_set(KS_EINVALID, "token file %s is empty", file);
				goto done;
			}
			tok = ks_strndup(b, (size_t)(e - b));
		}
		if (!token_chars_ok(tok)) {
			rc = ks_error_set(KS_EINVALID,
					  "token file %s: the token holds spaces or control "
					  "characters and cannot go in an HTTP header",
					  file);
			goto done;
		}
	} else if (env_name && *env_name) {
		const char *v = getenv(env_name);
		if (v && *v) {
			tok = ks_strdup(v);
			if (!token_chars_ok(tok)) {
				rc = ks_error_set(KS_EINVALID,
						  "$%s: the token holds spaces or control characters "
						  "and cannot go in an HTTP header",
						  env_name);
				goto done;
			}
		}
	}
done:
	/* whatever happened, no child process started later inherits the variable */
	if (env_name && *env_name)
		unsetenv(env_name);
	if (fd >= 0)
		close(fd);
	if (text) {
		wipe(text, len);
		ks_free(text);
	}
	if (rc < 0)
		ks_upload_token_free(tok);
	else
		*out = tok;
	return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* setup: config file + command line */

struct ks_upload_setup {
	ks_upload_options opts;
	cJSON *config;
	char *config_path;
	char *token;
	char *token_file;  /* resolved against the config file's folder */
	char *ca_bundle;
	char *spool;
};

static char *find_default_config(void)
{
	static const char *const rel[] = { "../share/kscore/scoring/upload.json",
					   "../scoring/upload.json", "../../scoring/upload.json" };
	char *exe = ks_exe_dir();
	size_t i;
	if (!exe)
		return NULL;
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char *p = ks_path_join(exe, rel[i]);
		if (ks_fs_exists(p)) {
			ks_free(exe);
			return p;
		}
		ks_free(p);
	}
	ks_free(exe);
	return NULL;
}

/* A path from the config file is relative to the config file's folder. */
static char *config_relative(const char *cfg_path, const char *p)
{
	char *d, *r;
	if (p[0] == '/')
		return ks_strdup(p);
	d = ks_path_dirname(cfg_path);
	r = ks_path_join(d, p);
	ks_free(d);
	return r;
}

static int cfg_seconds(double *dst, const cJSON *v, const char *path, const char *key)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || v->valuedouble > MAX_SECONDS)
		return ks_error_set(KS_EINVALID, "%s: \"%s\" must be a number of seconds in (0, %.0f]",
				    path, key, MAX_SECONDS);
	if (*dst <= 0)
		*dst = v->valuedouble;
	return 0;
}

/* A string value or null; returns 1 when a string was found. */
static int cfg_string(const char **dst, const cJSON *v, const char *path, const char *key)
{
	if (cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !*v->valuestring)
		return ks_error_set(KS_EINVALID, "%s: \"%s\" must be a non-empty string or null", path,
				    key);
	*dst = v->valuestring;
	return 1;
}

/* Fills the unset fields of s->opts from the config file. */
static int config_apply(ks_upload_setup *s, const char *path)
{
	char *text = NULL;
	size_t len;
	const cJSON *v;
	int rc;

	if ((rc = ks_fs_read(&text, &len, path, CONFIG_MAX)) < 0)
		goto done;
	if ((rc = ks_json_parse(&s->config, text, len, 16, path)) < 0)
		goto done;
	if (!cJSON_IsObject(s->config)) {
		rc = ks_error_set(KS_EINVALID, "%s: the upload config must be a JSON object", path);
		goto done;
	}
	cJSON_ArrayForEach(v, s->config)
	{
		const char *k = v->string, *str = NULL;
		ks_upload_options *o = &s->opts;
		if (k[0] == '_')
			continue; /* "_comment" and friends */
		if (!strcmp(k, "schema")) {
			if (!cJSON_IsString(v) || strcmp(v->valuestring, CONFIG_SCHEMA))
				rc = ks_error_set(KS_EINVALID, "%s: \"schema\" must be \"%s\"", path,
						  CONFIG_SCHEMA);
		} else if (!strcmp(k, "endpoint")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->endpoint)
				o->endpoint = str;
		} else if (!strcmp(k, "mode")) {
			ks_upload_mode m;
			if (!cJSON_IsString(v) || parse_mode(&m, v->valuestring) < 0)
				rc = ks_error_set(KS_EINVALID,
						  "%s: \"mode\" must be \"native\" or \"gradio\"", path);
			else if (o->mode == KS_UPLOAD_MODE_UNSET)
				o->mode = m;
		} else if (!strcmp(k, "token_env")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->token_env)
				o->token_env = str;
		} else if (!strcmp(k, "token_file")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->token_file) {
				s->token_file = config_relative(path, str);
				o->token_file = s->token_file;
			}
		} else if (!strcmp(k, "ca_bundle")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->ca_bundle) {
				s->ca_bundle = config_relative(path, str);
				o->ca_bundle = s->ca_bundle;
			}
		} else if (!strcmp(k, "spool")) {
			if ((rc = cfg_string(&str, v, path, k)) > 0 && !o->spool_dir) {
				s->spool = config_relative(path, str);
				o->spool_dir = s->spool;
			}
		} else if (!strcmp(k, "connect_timeout")) {
			rc = cfg_seconds(&o->connect_timeout, v, path, k);
		} else if (!strcmp(k, "timeout")) {
			rc = cfg_seconds(&o->total_timeout, v, path, k);
		} else if (!strcmp(k, "backoff_initial")) {
			rc = cfg_seconds(&o->backoff_initial, v, path, k);
		} else if (!strcmp(k, "backoff_max")) {
			rc = cfg_seconds(&o->backoff_max, v, path, k);
		} else if (!strcmp(k, "retries")) {
			if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
			    v->valuedouble < 0 || v->valuedouble > MAX_RETRIES)
				rc = ks_error_set(KS_EINVALID,
						  "%s: \"retries\" must be an integer from 0 to %d", path,
						  MAX_RETRIES);
			else if (o->max_retries < 0)
				o->max_retries = (int)v->valuedouble;
		} else {
			rc = ks_error_set(KS_EINVALID,
					  "%s: unknown key \"%s\" (see docs/upload.md; keys starting "
					  "with _ are comments)",
					  path, k);
		}
		if (rc < 0)
			goto done;
		rc = 0;
	}
done:
	ks_free(text);
	return rc;
}

int ks_upload_setup_new(ks_upload_setup **out, const ks_upload_options *cli, const char *config_path,
			unsigned flags)
{
	ks_upload_setup *s = ks_calloc(1, sizeof(*s));
	int rc = 0, loose = 0;

	*out = NULL;
	s->opts = *cli;
	s->config_path = config_path ? ks_strdup(config_path) : find_default_config();
	if (s->config_path && (rc = config_apply(s, s->config_path)) < 0)
		goto done;
	if (!s->opts.token_env)
		s->opts.token_env = DEF_TOKEN_ENV;
	if (!s->opts.token) {
		rc = ks_upload_token_load(&s->token, &loose, s->opts.token_file, s->opts.token_env);
		if (rc < 0)
			goto done;
		s->opts.token = s->token;
		if (loose)
			logf_(&s->opts,
			      "warning: token file %s can be read by group or others; chmod 600 it",
			      s->opts.token_file);
	} else {
		unsetenv(s->opts.token_env);
	}
	rc = ks_upload_options_check(&s->opts, (flags & KS_UPLOAD_NEED_ENDPOINT) != 0);
done:
	if (rc < 0) {
		ks_upload_setup_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

const ks_upload_options *ks_upload_setup_options(const ks_upload_setup *s)
{
	return &s->opts;
}

void ks_upload_setup_free(ks_upload_setup *s)
{
	if (!s)
		return;
	ks_upload_token_free(s->token);
	cJSON_Delete(s->config);
	ks_free(s->config_path);
	ks_free(s->token_file);
	ks_free(s->ca_bundle);
	ks_free(s->spool);
	ks_free(s);
}

/* ------------------------------------------------------------------------------------------ */
/* score upload */

#define PROG "score upload"

static void cli_log(const char *line, void *payload)
{
	(void)payload;
	fprintf(stderr, PROG ": %s\n", line);
}

static void usage(FILE *f)
{
	fputs("Usage: score upload [OPTIONS] RESULT_DIR...\n"
	      "       score upload --pending [OPTIONS]\n"
	      "Uploads scored result folders (their score.json) to the leaderboard endpoint.\n"
	      "A failed upload is kept in the spool; --pending sends the kept ones.\n"
	      "\n"
	      "  --endpoint URL         where to upload (https; http only for loopback hosts)\n"
	      "  --mode native|gradio   the kscore.upload/1 payload, or a Gradio space\n"
	      "  --config FILE          upload config (JSON; default scoring/upload.json)\n"
	      "  --token-file FILE      read the bearer token from FILE's first line\n"
	      "  --token-env NAME       read it from $NAME instead (default KSCORE_UPLOAD_TOKEN)\n"
	      "  --ca-bundle FILE       trust the CAs in FILE (PEM) instead of the system's\n"
	      "  --team NAME            upload under this team name instead of the record's\n"
	      "  --spool DIR            the spool folder (default $XDG_STATE_HOME/kscore/spool)\n"
	      "  --retries N            retries after the first attempt (0-20, default 4)\n"
	      "  --timeout SEC          limit of each HTTP request (default 60)\n"
	      "  --connect-timeout SEC  limit of each connection attempt (default 10)\n"
	      "  --pending              send the uploads kept in the spool\n"
	      "  --json                 print a JSON summary on stdout\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "The token is never accepted on the command line. Exit status: 0 all uploaded (or\n"
	      "already uploaded), 1 some failed and were kept in the spool, 64 usage error,\n"
	      "65 a result folder unreadable or invalid, 78 configuration error.\n",
	      f);
}

static int usage_error(const char *fmt, ...) KS_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'score upload --help'.\n", stderr);
	return 64;
}

static int parse_seconds(double *out, const char *s)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > MAX_SECONDS)
		return -1;
	*out = v;
	return 0;
}

/* The worse of two exit codes: configuration, then invalid input, then failed uploads. */
static int worse(int a, int b)
{
	static const int order[] = { 0, 1, 65, 78 };
	int ra = 0, rb = 0, i;
	for (i = 0; i < 4; i++) {
		if (order[i] == a)
			ra = i;
		if (order[i] == b)
			rb = i;
	}
	return rb > ra ? b : a;
}

static cJSON *report_json(const ks_upload_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "source", r->source ? r->source : "");
	cJSON_AddStringToObject(o, "status", ks_upload_status_name(r->status));
	if (r->key[0])
		cJSON_AddStringToObject(o, "key", r->key);
	else
		cJSON_AddNullToObject(o, "key");
	if (r->endpoint)
		cJSON_AddStringToObject(o, "endpoint", r->endpoint);
	else
		cJSON_AddNullToObject(o, "endpoint");
	if (r->http_status)
		cJSON_AddNumberToObject(o, "http_status", (double)r->http_status);
	else
		cJSON_AddNullToObject(o, "http_status");
	cJSON_AddNumberToObject(o, "attempts", r->attempts);
	cJSON_AddBoolToObject(o, "spooled", r->spooled);
	if (r->spool_path)
		cJSON_AddStringToObject(o, "spool_path", r->spool_path);
	else
		cJSON_AddNullToObject(o, "spool_path");
	cJSON_AddStringToObject(o, "message", r->message ? r->message : "");
	return o;
}

int ks_upload_main(int argc, char **argv)
{
	enum {
		OPT_ENDPOINT = 256, OPT_MODE, OPT_CONFIG, OPT_TOKEN_FILE, OPT_TOKEN_ENV, OPT_CA,
		OPT_TEAM, OPT_SPOOL, OPT_RETRIES, OPT_TIMEOUT, OPT_CONNECT, OPT_PENDING, OPT_JSON
	};
	static const struct option longopts[] = {
		{ "endpoint", required_argument, NULL, OPT_ENDPOINT },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "token-env", required_argument, NULL, OPT_TOKEN_ENV },
		{ "ca-bundle", required_argument, NULL, OPT_CA },
		{ "team", required_argument, NULL, OPT_TEAM },
		{ "spool", required_argument, NULL, OPT_SPOOL },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "connect-timeout", required_argument, NULL, OPT_CONNECT },
		{ "pending", no_argument, NULL, OPT_PENDING },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	ks_upload_options cli = KS_UPLOAD_OPTIONS_INIT;
	ks_upload_setup *setup = NULL;
	ks_upload_report *reps = NULL, *pend = NULL;
	size_t nreps = 0, npend = 0, i, cap = 0;
	const char *config = NULL;
	int pending = 0, json = 0, c, code = 0, ndirs;
	FILE *human;

	optind = 0; /* GNU: start over, whatever parsed argv before us */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		char *end;
		long n;
		switch (c) {
		case OPT_ENDPOINT: cli.endpoint = optarg; break;
		case OPT_MODE:
			if (parse_mode(&cli.mode, optarg) < 0)
				return usage_error("--mode must be native or gradio, not \"%s\"",
						   optarg);
			break;
		case OPT_CONFIG: config = optarg; break;
		case OPT_TOKEN_FILE: cli.token_file = optarg; break;
		case OPT_TOKEN_ENV: cli.token_env = optarg; break;
		case OPT_CA: cli.ca_bundle = optarg; break;
		case OPT_TEAM: cli.team = optarg; break;
		case OPT_SPOOL: cli.spool_dir = optarg; break;
		case OPT_RETRIES:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 0 || n > MAX_RETRIES)
				return usage_error("--retries must be an integer from 0 to %d",
						   MAX_RETRIES);
			cli.max_retries = (int)n;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(&cli.total_timeout, optarg) < 0)
				return usage_error("--timeout must be a number of seconds in (0, %.0f]",
						   MAX_SECONDS);
			break;
		case OPT_CONNECT:
			if (parse_seconds(&cli.connect_timeout, optarg) < 0)
				return usage_error(
					"--connect-timeout must be a number of seconds in (0, %.0f]",
					MAX_SECONDS);
			break;
		case OPT_PENDING: pending = 1; break;
		case OPT_JSON: json = 1; break;
		case 'h': usage(stdout); return 0;
		case ':': return usage_error("option %s needs a value", argv[optind - 1]);
		default: return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	ndirs = argc - optind;
	if (!pending && ndirs <= 0)
		return usage_error("no RESULT_DIR given (or --pending)");
	human = json ? stderr : stdout;
	cli.log_fn = cli_log;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (ks_upload_setup_new(&setup, &cli, config, ndirs > 0 ? KS_UPLOAD_NEED_ENDPOINT : 0) < 0) {
		fprintf(stderr, PROG ": %s\n", ks_error_msg());
		code = 78;
		goto done;
	}
	if (pending) {
		int rc = ks_upload_pending(&pend, &npend, ks_upload_setup_options(setup));
		if (rc < 0 && rc != KS_ERROR) {
			fprintf(stderr, PROG ": %s\n", ks_error_msg());
			code = 1;
		} else if (npend == 0) {
			fprintf(stderr, PROG ": nothing pending\n");
		}
	}
	cap = npend + (size_t)(ndirs > 0 ? ndirs : 0);
	reps = ks_calloc(cap ? cap : 1, sizeof(*reps));
	for (i = 0; i < npend; i++) {
		reps[nreps++] = pend[i]; /* moved, not copied */
		memset(&pend[i], 0, sizeof(pend[i]));
	}
	for (; optind < argc; optind++)
		ks_upload_result_dir(&reps[nreps++], argv[optind], ks_upload_setup_options(setup));
	for (i = 0; i < nreps; i++) {
		fprintf(human, "%s: %s: %s\n", reps[i].source, ks_upload_status_name(reps[i].status),
			reps[i].message);
		code = worse(code, ks_upload_status_exit(reps[i].status));
	}
	if (json) {
		cJSON *o = cJSON_CreateObject(), *arr;
		char *s;
		cJSON_AddStringToObject(o, "schema", "kscore.upload-report/1");
		arr = cJSON_AddArrayToObject(o, "results");
		for (i = 0; i < nreps; i++)
			cJSON_AddItemToArray(arr, report_json(&reps[i]));
		cJSON_AddNumberToObject(o, "exit_code", code);
		s = cJSON_Print(o);
		if (s)
			printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(o);
	}
done:
	fflush(stdout);
	ks_upload_reports_free(reps, nreps);
	ks_upload_reports_free(pend, npend);
	ks_upload_setup_free(setup);
	curl_global_cleanup();
	return code;
}
