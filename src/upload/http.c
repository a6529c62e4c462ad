/* http: see src/upload/http.h. */
#include "upload/http.h"
#include "util/errors.h"
#include "util/mem.h"
#include "util/secret.h"
#include "util/version.h"

#include <curl/curl.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define SSE_LINE_MAX (64u << 10)

_Static_assert(sizeof(((ks_http_call *)0)->errbuf) >= CURL_ERROR_SIZE,
	       "ks_http_call.errbuf must hold libcurl's error message");

/* ---- URLs ---- */

static int is_loopback(const char *host)
{
	return !strcasecmp(host, "localhost") || !strcmp(host, "127.0.0.1") ||
	       !strcmp(host, "[::1]") || !strcmp(host, "::1");
}

int ks_http_check_url(int *loopback, const char *url)
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

/* ---- one request ---- */

static void sse_dispatch(ks_http_sse *s)
{
	if (!strcmp(s->event, "complete") || !strcmp(s->event, "error")) {
		s->outcome = !strcmp(s->event, "complete") ? 1 : -1;
		s->result = ks_strdup(s->data.ptr ? s->data.ptr : "");
	}
	s->event[0] = '\0';
	ks_buf_reset(&s->data);
}

static void sse_line(ks_http_sse *s, char *l, size_t n)
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
static int sse_feed(ks_http_sse *s, const char *p, size_t n)
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
	ks_http_call *hc = ud;
	size_t n = size * nmemb;
	if (hc->sse) {
		hc->stream_bytes += n;
		if (hc->stream_bytes > KS_HTTP_STREAM_MAX) {
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
	ks_http_call *hc = ud;
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

void ks_http_call_init(ks_http_call *hc, int sse)
{
	memset(hc, 0, sizeof(*hc));
	hc->sse = sse;
	hc->retry_after = -1;
	ks_buf_init(&hc->body, KS_HTTP_RESPONSE_MAX);
	ks_buf_init(&hc->sse_st.line, SSE_LINE_MAX);
	ks_buf_init(&hc->sse_st.data, KS_HTTP_RESPONSE_MAX);
}

void ks_http_call_free(ks_http_call *hc)
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
			ks_secret_wipe(p->data, strlen(p->data));
	curl_slist_free_all(h);
}

/* The header lines, then "Authorization: Bearer <token>" without leaving a copy of it behind.
 * Returns -1 when libcurl cannot allocate. */
static int headers_build(struct curl_slist **out, const char *const *lines, const char *token)
{
	struct curl_slist *h = NULL, *n;
	char *auth;

	*out = NULL;
	for (; lines && *lines; lines++) {
		if (!(n = curl_slist_append(h, *lines)))
			goto fail;
		h = n;
	}
	if (token) {
		auth = ks_asprintf("Authorization: Bearer %s", token);
		n = curl_slist_append(h, auth);
		ks_secret_free(auth);
		if (!n)
			goto fail;
		h = n;
	}
	*out = h;
	return 0;
fail:
	headers_free(h);
	return -1;
}

void ks_http_request(ks_http_call *hc, const ks_http_options *o, const char *method,
		     const char *url, const char *body, const char *const *header_lines)
{
	struct curl_slist *headers = NULL;
	CURL *h = curl_easy_init();
	int loop = 0;
	long low_time;

	if (!h) {
		hc->cc = CURLE_FAILED_INIT;
		snprintf(hc->errbuf, sizeof(hc->errbuf), "cannot start libcurl");
		return;
	}
	if (ks_http_check_url(&loop, url) < 0) {
		hc->cc = CURLE_UNSUPPORTED_PROTOCOL;
		snprintf(hc->errbuf, sizeof(hc->errbuf), "%s", ks_error_msg());
		curl_easy_cleanup(h);
		return;
	}
	if (headers_build(&headers, header_lines, o->token) < 0) {
		hc->cc = CURLE_OUT_OF_MEMORY;
		snprintf(hc->errbuf, sizeof(hc->errbuf), "cannot build the request headers");
		curl_easy_cleanup(h);
		return;
	}
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, loop ? "http,https" : "https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->ca_bundle)
		curl_easy_setopt(h, CURLOPT_CAINFO, o->ca_bundle);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_timeout * 1000));
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(o->total_timeout * 1000));
	/* a connection that delivers nothing for this long is dead even if the total is not spent */
	low_time = (long)ceil(o->total_timeout < 30 ? o->total_timeout : 30);
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
	headers_free(headers);
}

/* ---- outcomes ---- */

void ks_http_fail(ks_http_outcome *o, int retryable, const char *token, const char *fmt, ...)
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
	o->msg = ks_secret_scrub(m, token);
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

void ks_http_classify(ks_http_outcome *o, const ks_http_call *hc, const char *url,
		      const char *token)
{
	const char *tok = token;
	char *ex;

	o->status = hc->status;
	o->retry_after = hc->retry_after;
	if (hc->too_big && hc->sse) {
		ks_http_fail(o, 0, tok, "%s: the event stream is larger than the %u-byte limit", url,
			    KS_HTTP_STREAM_MAX);
		return;
	}
	/* an oversized reply was cut at its cap after the status line arrived: judge the status */
	if (hc->cc != CURLE_OK && !hc->too_big) {
		const char *why = hc->errbuf[0] ? hc->errbuf : curl_easy_strerror(hc->cc);
		if (hc->cc == CURLE_PEER_FAILED_VERIFICATION || hc->cc == CURLE_SSL_CACERT_BADFILE)
			ks_http_fail(o, 0, tok,
				    "%s: TLS verification failed (%s); for a private CA give "
				    "--ca-bundle FILE",
				    url, why);
		else
			ks_http_fail(o, transient_curl(hc->cc), tok, "%s: %s", url, why);
		return;
	}
	if (hc->status >= 200 && hc->status < 300) {
		o->ok = 1;
		return;
	}
	ex = ks_http_excerpt(hc->body.ptr ? hc->body.ptr : "", hc->body.len, tok);
	if (hc->status == 401 || hc->status == 403)
		ks_http_fail(o, 0, tok,
			    "%s answered HTTP %ld: the token was rejected (check the token file or "
			    "variable)%s%s",
			    url, hc->status, *ex ? ": " : "", ex);
	else if (hc->status >= 300 && hc->status < 400)
		ks_http_fail(o, 0, tok,
			    "%s answered HTTP %ld (a redirect, not followed: configure the final "
			    "URL)",
			    url, hc->status);
	else
		ks_http_fail(o, transient_status(hc->status), tok, "%s answered HTTP %ld%s%s", url,
			    hc->status, *ex ? ": " : "", ex);
	ks_free(ex);
}

char *ks_http_excerpt(const char *data, size_t len, const char *token)
{
	ks_buf b = KS_BUF_INIT(KS_HTTP_EXCERPT_MAX + 8);
	size_t i;
	int space = 1, cut = 0;
	for (i = 0; i < len; i++) {
		char c = data[i];
		if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
			c = ' ';
		if (c == ' ' && space)
			continue;
		space = c == ' ';
		if (b.len >= KS_HTTP_EXCERPT_MAX) {
			cut = 1;
			break;
		}
		ks_buf_put(&b, &c, 1);
	}
	while (b.len && b.ptr[b.len - 1] == ' ')
		b.ptr[--b.len] = '\0';
	if (cut)
		ks_buf_puts(&b, "...");
	return ks_secret_scrub(ks_buf_take(&b, NULL), token);
}

/* ---- retries ---- */

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

/* The wait before retry number `retry` (1-based); see ks_http_retry. */
static double backoff(const ks_http_options *o, int retry, double retry_after)
{
	double cap = o->backoff_initial * ldexp(1.0, retry - 1);
	if (cap > o->backoff_max)
		cap = o->backoff_max;
	if (retry_after >= 0)
		return retry_after < o->backoff_max ? retry_after : o->backoff_max;
	return rand01() * cap;
}

void ks_http_retry(ks_http_outcome *o, int *attempts, const ks_http_options *opts,
		   ks_http_attempt_fn attempt, void *payload)
{
	int n;

	for (n = 1;; n++) {
		double wait;
		ks_free(o->msg);
		memset(o, 0, sizeof(*o));
		o->retry_after = -1;
		attempt(o, payload);
		*attempts = n;
		if (o->ok || !o->retryable || n > opts->max_retries)
			break;
		wait = backoff(opts, n, o->retry_after);
		if (opts->log_fn) {
			char line[1024];
			snprintf(line, sizeof(line), "attempt %d of %d failed (%s); retrying in %.1f s",
				 n, opts->max_retries + 1, o->msg, wait);
			opts->log_fn(line, opts->log_payload);
		}
		(opts->sleep_fn ? opts->sleep_fn : real_sleep)(wait, opts->sleep_payload);
	}
}
