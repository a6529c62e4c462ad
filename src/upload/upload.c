/* upload: see src/upload/upload.h and docs/upload.md. The HTTP client is http.c, the record on disk
 * spool.c, the token secret.c, the merged options upload_setup.c, the `score upload` command
 * cmd_upload.c. */
#include "upload/upload.h"
#include "util/exitcode.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "upload/http.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/secret.h"
#include "upload/spool.h"

#include <curl/curl.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PAYLOAD_SCHEMA "kscore.upload/1"
#define RECORD_SCHEMA "kscore.score/1"

#define DEF_CONNECT KS_UPLOAD_DEFAULT_CONNECT_TIMEOUT_S
#define DEF_TOTAL KS_UPLOAD_DEFAULT_TOTAL_TIMEOUT_S
#define DEF_RETRIES KS_UPLOAD_DEFAULT_RETRIES
#define DEF_BACKOFF_INITIAL KS_UPLOAD_DEFAULT_BACKOFF_INITIAL_S
#define DEF_BACKOFF_MAX KS_UPLOAD_DEFAULT_BACKOFF_MAX_S
#define DEF_TOKEN_ENV KS_UPLOAD_DEFAULT_TOKEN_ENV

#define RECORD_MAX (64u << 20)     /* score.json holds every case of every kernel */
#define TEAM_MAX 128
#define EVENT_ID_MAX 128
#define GRADIO_CALL "/gradio_api/call/submit_results"

/* ------------------------------------------------------------------------------------------ */
/* small helpers */

const char *ks_upload_mode_name(ks_upload_mode m)
{
	return m == KS_UPLOAD_GRADIO ? "gradio" : "native";
}

int ks_upload_mode_parse(ks_upload_mode *out, const char *s)
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
	case KS_UPLOAD_INVALID: return KS_EXIT_DATAERR;
	case KS_UPLOAD_CONFIG: return KS_EXIT_CONFIG;
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

void ks_upload_log(const ks_upload_options *o, const char *fmt, ...)
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

/* ------------------------------------------------------------------------------------------ */
/* options: defaults and checks */

/* Options with every default filled in; what the senders use. */
typedef struct {
	ks_upload_options o;
	ks_http_options http; /* the same, for the HTTP client */
	char *spool;          /* owned */
} resolved;

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
	r->spool = o->spool_dir ? ks_strdup(o->spool_dir) : ks_spool_default_dir();
	r->o.spool_dir = r->spool;
	r->http = (ks_http_options){ .token = r->o.token,
				     .ca_bundle = r->o.ca_bundle,
				     .connect_timeout = r->o.connect_timeout,
				     .total_timeout = r->o.total_timeout,
				     .max_retries = r->o.max_retries,
				     .backoff_initial = r->o.backoff_initial,
				     .backoff_max = r->o.backoff_max,
				     .sleep_fn = r->o.sleep_fn,
				     .sleep_payload = r->o.sleep_payload,
				     .log_fn = r->o.log_fn,
				     .log_payload = r->o.log_payload };
}

static void resolved_free(resolved *r)
{
	ks_free(r->spool);
	r->spool = NULL;
}

static int check_seconds(double v, const char *what)
{
	/* 0 means unset; negative values and NaN are mistakes */
	if (!(v >= 0) || v > KS_UPLOAD_MAX_SECONDS)
		return ks_error_set(KS_EINVALID, "%s must be between 0 and %.0f seconds", what,
				    KS_UPLOAD_MAX_SECONDS);
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
	if (o->max_retries > KS_UPLOAD_MAX_RETRIES)
		return ks_error_set(KS_EINVALID, "retries must be between 0 and %d",
				    KS_UPLOAD_MAX_RETRIES);
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
	if (ks_http_check_url(&loop, o->endpoint) < 0)
		return KS_EINVALID;
	if (o->mode != KS_UPLOAD_GRADIO && !o->token)
		return ks_error_set(KS_EINVALID,
				    "endpoint %s needs a token: give --token-file FILE or set $%s",
				    o->endpoint, o->token_env ? o->token_env : DEF_TOKEN_ENV);
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* attempts and retries */

static char *join_url(const char *base, const char *path)
{
	size_t n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	return ks_asprintf("%.*s%s", (int)n, base, path);
}

/* What one attempt sends. */
typedef struct {
	const resolved *r;
	const char *endpoint;
	const char *body;
	const char *key;
} attempt_args;

static void attempt_native(ks_http_outcome *o, void *payload)
{
	const attempt_args *a = payload;
	ks_http_call hc;
	char *idem = ks_asprintf("Idempotency-Key: %s", a->key);
	const char *const h[] = { "Content-Type: application/json", "Accept: application/json",
				  "Expect:" /* no 100-continue round trip */, idem, NULL };

	ks_http_call_init(&hc, 0);
	ks_http_request(&hc, &a->r->http, "POST", a->endpoint, a->body, h);
	ks_http_classify(o, &hc, a->endpoint, a->r->o.token);
	ks_free(idem);
	ks_http_call_free(&hc);
}

/* Gradio's two-step call: the POST queues the function and returns an event id; the GET streams
 * the queue's events for it. Only `complete` means the space ran submit_results. */
static void attempt_gradio(ks_http_outcome *o, void *payload)
{
	static const char *const post_h[] = { "Content-Type: application/json", "Expect:", NULL };
	static const char *const get_h[] = { "Accept: text/event-stream", NULL };
	const attempt_args *a = payload;
	const char *tok = a->r->o.token;
	ks_http_call post, get;
	char *url = join_url(a->endpoint, GRADIO_CALL), *get_url = NULL;
	cJSON *reply = NULL;
	const char *event_id = NULL;
	size_t i;

	ks_http_call_init(&post, 0);
	ks_http_call_init(&get, 1);
	ks_http_request(&post, &a->r->http, "POST", url, a->body, post_h);
	ks_http_classify(o, &post, url, tok);
	if (!o->ok)
		goto done;
	o->ok = 0;
	if (ks_json_parse(&reply, post.body.ptr ? post.body.ptr : "", post.body.len, 8, url) < 0 ||
	    !cJSON_IsObject(reply) || ks_json_str(&event_id, reply, "event_id", 1) < 0) {
		char *ex = ks_http_excerpt(post.body.ptr ? post.body.ptr : "", post.body.len, tok);
		ks_http_fail(o, 0, tok, "%s answered HTTP %ld without an event id: %s", url,
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
		ks_http_fail(o, 0, tok, "%s returned a malformed event id", url);
		goto done;
	}
	get_url = ks_asprintf("%s/%s", url, event_id);
	/* as the SSE specification says, an event not ended by a blank line is discarded */
	ks_http_request(&get, &a->r->http, "GET", get_url, NULL, get_h);
	if (get.sse_st.outcome) {
		/* we stopped the transfer ourselves once the answer was in; that is no error */
		char *ex = ks_http_excerpt(get.sse_st.result, strlen(get.sse_st.result), tok);
		o->status = get.status;
		if (get.sse_st.outcome > 0)
			o->ok = 1;
		else
			ks_http_fail(o, 1, tok, "%s: the space reported an error event (data: %s)",
				     get_url, *ex ? ex : "none");
		ks_free(ex);
		goto done;
	}
	ks_http_classify(o, &get, get_url, tok);
	if (o->ok)
		ks_http_fail(o, 1, tok, "%s: the event stream ended without a complete event",
			     get_url);
done:
	cJSON_Delete(reply);
	ks_free(url);
	ks_free(get_url);
	ks_http_call_free(&post);
	ks_http_call_free(&get);
}

/* Sends until success, a failure not worth retrying, or the retries are spent. */
static void send_with_retries(ks_http_outcome *o, int *attempts, const resolved *r,
			      const char *endpoint, ks_upload_mode mode, const cJSON *payload,
			      const char *key)
{
	attempt_args a = { .r = r, .endpoint = endpoint, .key = key };
	char *body = NULL;

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
		ks_http_fail(o, 0, NULL, "cannot serialise the payload");
		return;
	}
	a.body = body;
	ks_http_retry(o, attempts, &r->http, mode == KS_UPLOAD_GRADIO ? attempt_gradio : attempt_native,
		      &a);
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

/* Copies src[skey] (src may be NULL) to dst[dkey] when it has the JSON type `type`: cJSON_String,
 * cJSON_Number or cJSON_True (meaning a bool). A missing value, JSON null, another type or a
 * non-finite number becomes null, so the payload carries every key whatever the record lacks. */
static void copy_field(cJSON *dst, const char *dkey, const cJSON *src, const char *skey, int type)
{
	const cJSON *v = src ? cJSON_GetObjectItemCaseSensitive(src, skey) : NULL;
	if (type == cJSON_String && cJSON_IsString(v))
		cJSON_AddStringToObject(dst, dkey, v->valuestring);
	else if (type == cJSON_Number && cJSON_IsNumber(v))
		ks_json_add_num(dst, dkey, v->valuedouble);
	else if (type == cJSON_True && cJSON_IsBool(v))
		cJSON_AddBoolToObject(dst, dkey, cJSON_IsTrue(v));
	else
		cJSON_AddNullToObject(dst, dkey);
}

static void copy_str(cJSON *dst, const char *dkey, const cJSON *src, const char *skey)
{
	copy_field(dst, dkey, src, skey, cJSON_String);
}

static void copy_num(cJSON *dst, const char *key, const cJSON *src)
{
	copy_field(dst, key, src, key, cJSON_Number);
}

static void copy_bool(cJSON *dst, const char *key, const cJSON *src)
{
	copy_field(dst, key, src, key, cJSON_True);
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
	/* timings of lanes that shared a GPU (--devices 0,0) are not clean: the leaderboard must know */
	cJSON_AddBoolToObject(o, "shared_gpu", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(summary, "shared_gpu")));
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
		cJSON_AddBoolToObject(e, "shared_gpu", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(k, "shared_gpu")));
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
	rep->message = ks_secret_scrub(ks_strdup(buf), token);
}

/* Sends one payload to (endpoint, mode) unless the spool says it was sent; records the result.
 * `prev` and `pending_path` are set when retrying a pending file. */
static int upload_one(ks_upload_report *rep, const resolved *r, const cJSON *payload,
		      const char *key, const char *endpoint, ks_upload_mode mode,
		      const cJSON *prev, const char *pending_path)
{
	const char *spool = r->spool, *tok = r->o.token, *mname = ks_upload_mode_name(mode);
	ks_http_outcome o = { 0 };
	char when[32];
	char *path = NULL;
	int rc = 0, spool_ok;

	snprintf(rep->key, sizeof(rep->key), "%s", key);
	ks_free(rep->endpoint);
	rep->endpoint = ks_strdup(endpoint);
	spool_ok = ks_spool_mkdir(spool, "pending") == 0;
	if (!spool_ok)
		ks_upload_log(&r->o, "warning: the spool is unusable (%s); a failed upload cannot be kept",
		      ks_error_msg());
	if (ks_spool_sent_find(when, spool, key, endpoint, mname)) {
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
			   endpoint, mname, o.status, rep->attempts,
			   rep->attempts == 1 ? "" : "s", key);
		if (ks_spool_sent_add(spool, key, payload, endpoint, mname, o.status,
				      rep->attempts) < 0)
			ks_upload_log(&r->o, "warning: uploaded, but the sent record could not be written: %s",
			      ks_error_msg());
		if (pending_path)
			unlink(pending_path);
		ks_spool_pending_remove(spool, key, endpoint, mname);
		goto done;
	}
	path = pending_path ? ks_strdup(pending_path)
			    : ks_spool_pending_path(spool, key, endpoint, mname);
	if (spool_ok && ks_spool_pending_write(path, prev, payload, key, endpoint, mname,
					       rep->source, rep->attempts, o.status, o.msg) == 0) {
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
		out->message = ks_secret_scrub(ks_strdup(ks_error_msg()), r.o.token);
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
	if (ks_spool_read(&rec, path) < 0)
		goto invalid;
	if (ks_json_str(&key, rec, "key", 1) < 0 || ks_json_str(&endpoint, rec, "endpoint", 1) < 0 ||
	    ks_json_str(&mode_s, rec, "mode", 1) < 0) {
		ks_error_wrap(KS_EINVALID, "%s", path);
		goto invalid;
	}
	payload = cJSON_GetObjectItemCaseSensitive(rec, "payload");
	if (!cJSON_IsObject(payload) || ks_upload_mode_parse(&mode, mode_s) < 0 ||
	    strlen(key) != 64) {
		ks_error_set(KS_EINVALID, "%s: not a pending upload (bad payload, mode or key)", path);
		goto invalid;
	}
	rep->endpoint = ks_strdup(endpoint);
	snprintf(rep->key, sizeof(rep->key), "%s", key);
	if (ks_http_check_url(&loop, endpoint) < 0) {
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
	char *dir = NULL, **names = NULL;
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
	if ((rc = ks_spool_lock(&fd, r.spool)) < 0)
		goto done;
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
	resolved_free(&r);
	return rc;
}
