/* Upload tests against a real HTTP(S) server on loopback (tests/upload_server.py), scripted per
 * test, which records every request it gets. Retries use an injected sleep that records the delays
 * instead of waiting. */
#include "ktest.h"
#include "upload.h"
#include "cmd.h"
#include "errors.h"
#include "fsutil.h"
#include "mem.h"

#include <cJSON.h>
#include <curl/curl.h>
#include <dirent.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

#define TOKEN "tok-S3CRET-7f1e9a0c4b2d8e6f"
#define FIX "tests/fixtures/upload"
#define SUB_SHA "5d41402abc4b2a76b9719d911017c592ae3b7d4e2a9f4c1e0a1b2c3d4e5f6a7b"
#define DEV_UUID "GPU-8c3a6e0e-1d2b-4c5d-9e8f-0a1b2c3d4e5f"

/* ---- helpers ---- */

static char *fixture(const char *name)
{
	const char *root = getenv("KSCORE_ROOT");
	return ks_asprintf("%s/" FIX "/%s", root && *root ? root : ".", name);
}

static char *tmp(const char *name)
{
	return ks_asprintf("%s/%s", kt_tmpdir(), name);
}

static char *slurp(const char *path)
{
	char *s = NULL;
	size_t n;
	if (ks_fs_read(&s, &n, path, 64u << 20) < 0)
		KT_FAIL("cannot read %s: %s", path, ks_error_msg());
	return s;
}

static void put(const char *path, const char *text)
{
	if (ks_fs_write_atomic(path, text, strlen(text)) < 0)
		KT_FAIL("cannot write %s: %s", path, ks_error_msg());
}

/* A result folder <tmp>/<name>/score.json holding the fixture `fix`, optionally edited. */
static char *result_dir(const char *name, const char *fix, void (*edit)(cJSON *))
{
	char *dir = tmp(name), *src = fixture(fix), *text = slurp(src), *dst;
	cJSON *rec = cJSON_Parse(text);
	KT_ASSERT(rec != NULL);
	if (edit)
		edit(rec);
	ks_fs_mkdir_p(dir, 0755);
	dst = ks_path_join(dir, "score.json");
	{
		char *s = cJSON_Print(rec);
		put(dst, s);
		cJSON_free(s);
	}
	cJSON_Delete(rec);
	ks_free(dst);
	ks_free(text);
	ks_free(src);
	return dir;
}

typedef struct {
	pid_t pid;
	int port;
	char *record;
	char url[128];
} server;

static int g_servers;

/* Starts tests/upload_server.py with the given script; its files live in <tmp>/server so that the
 * scan for the token can leave them out (the script holds the echo body, the record holds the
 * Authorization header). */
static void server_start(server *s, const char *script, int tls)
{
	char *sdir = tmp("server"), *spath, *py = fixture("../../upload_server.py");
	char *cert = fixture("server.pem"), *key = fixture("server.key");
	int fds[2], st;
	char line[64];
	ssize_t n, got = 0;

	ks_fs_mkdir_p(sdir, 0755);
	spath = ks_asprintf("%s/script-%d.json", sdir, g_servers);
	s->record = ks_asprintf("%s/record-%d.jsonl", sdir, g_servers);
	g_servers++;
	put(spath, script);
	if (pipe(fds) < 0)
		KT_FAIL("pipe");
	s->pid = fork();
	if (s->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		if (tls)
			execlp("python3", "python3", py, "--script", spath, "--record", s->record,
			       "--cert", cert, "--key", key, (char *)NULL);
		else
			execlp("python3", "python3", py, "--script", spath, "--record", s->record,
			       (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (got < (ssize_t)sizeof(line) - 1 &&
	       (n = read(fds[0], line + got, sizeof(line) - 1 - (size_t)got)) > 0) {
		got += n;
		if (memchr(line, '\n', (size_t)got))
			break;
	}
	close(fds[0]);
	line[got > 0 ? got : 0] = '\0';
	s->port = atoi(line);
	if (s->port <= 0) {
		waitpid(s->pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
			KT_SKIP("python3 is not installed: the upload tests need it for their server");
		KT_FAIL("the test server did not start");
	}
	snprintf(s->url, sizeof(s->url), "%s://127.0.0.1:%d", tls ? "https" : "http", s->port);
	ks_free(sdir);
	ks_free(spath);
	ks_free(py);
	ks_free(cert);
	ks_free(key);
}

static void server_stop(server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	ks_free(s->record);
	s->pid = 0;
	s->record = NULL;
}

/* The recorded requests, as a JSON array. */
static cJSON *requests(const server *s)
{
	cJSON *arr = cJSON_CreateArray();
	char *text, *line, *save = NULL;
	if (!ks_fs_exists(s->record))
		return arr;
	text = slurp(s->record);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		KT_ASSERT(r != NULL);
		cJSON_AddItemToArray(arr, r);
	}
	ks_free(text);
	return arr;
}

static const char *rq_str(const cJSON *arr, int i, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetArrayItem(arr, i), key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const char *rq_header(const cJSON *arr, int i, const char *name)
{
	const cJSON *h = cJSON_GetObjectItem(cJSON_GetArrayItem(arr, i), "headers");
	const cJSON *v = cJSON_GetObjectItem(h, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

typedef struct {
	int n;
	double d[32];
} sleeps;

static void rec_sleep(double seconds, void *p)
{
	sleeps *z = p;
	if (z->n < 32)
		z->d[z->n++] = seconds;
}

typedef struct {
	char text[8192];
} logs;

static void rec_log(const char *line, void *p)
{
	logs *l = p;
	size_t n = strlen(l->text);
	snprintf(l->text + n, sizeof(l->text) - n, "%s\n", line);
}

static char *g_spool;

static void base_opts(ks_upload_options *o, const char *url, sleeps *z)
{
	ks_upload_options init = KS_UPLOAD_OPTIONS_INIT;
	*o = init;
	if (!g_spool)
		g_spool = tmp("spool");
	o->endpoint = url;
	o->token = TOKEN;
	o->spool_dir = g_spool;
	o->max_retries = 2;
	o->backoff_initial = 1;
	o->backoff_max = 8;
	o->connect_timeout = 3;
	o->total_timeout = 10;
	o->sleep_fn = rec_sleep;
	o->sleep_payload = z;
}

/* Idempotency keys of the fixture, computed independently (Python's hashlib) from the documented
 * recipe: SHA-256 over each of team, submission sha256, scorer version, device uuid as an 8-byte
 * little-endian length and the bytes. */
#define KEY_FOO "85c7d464ec5332357b274a0aa536f9a74309606ec5f38a2dc2e879190c2ebc6a"
#define KEY_BAR "0d785d87c77b9e341c91e63610baf029bb10d6a252c47c9485bd1cf48227f85c"
#define KEY_FOO_NO_DEVICE "ec4044d7378fa0d1ce5d4445bc6081bf64e977655614f70af549b1d0b1c5641d"

static int file_has(const char *path, const char *needle)
{
	char *s = NULL;
	size_t n;
	int hit;
	if (ks_fs_read(&s, &n, path, 64u << 20) < 0)
		return 0;
	hit = memmem(s, n, needle, strlen(needle)) != NULL;
	ks_free(s);
	return hit;
}

/* Fails if any file under dir (but the server's own files) holds the token. */
static void assert_token_nowhere(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char *p;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "server"))
			continue;
		p = ks_path_join(dir, e->d_name);
		if (ks_fs_is_dir(p))
			assert_token_nowhere(p);
		else if (file_has(p, TOKEN))
			KT_FAIL("the token appears in %s", p);
		ks_free(p);
	}
	closedir(d);
}

/* The token may appear in the server's record only as the Authorization header's value. */
static void assert_token_only_in_auth(const cJSON *reqs)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, reqs)
	{
		cJSON *c = cJSON_Duplicate(r, 1);
		char *s;
		cJSON_DeleteItemFromObject(cJSON_GetObjectItem(c, "headers"), "authorization");
		s = cJSON_PrintUnformatted(c);
		KT_NOT_CONTAINS(s, TOKEN);
		cJSON_free(s);
		cJSON_Delete(c);
	}
}

static char *pending_file(const char *key)
{
	return ks_asprintf("%s/pending/%s.json", g_spool, key);
}

static char *sent_file(const char *key)
{
	return ks_asprintf("%s/sent/%s.json", g_spool, key);
}

/* ---- native mode ---- */

static void test_native_payload_fields_and_key(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char key[65];
	char *dir = result_dir("r1", "score.json", NULL), *sent;
	cJSON *reqs, *p, *v, *k0, *k1;

	server_start(&s, "{\"responses\": [{\"status\": 201, \"json\": {\"ok\": true}}]}", 0);
	base_opts(&o, s.url, &z);
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SENT);
	KT_EQ_INT(rep.http_status, 201);
	KT_EQ_INT(rep.attempts, 1);
	KT_EQ_INT(rep.spooled, 0);
	KT_CONTAINS(rep.message, s.url);
	snprintf(key, sizeof(key), "%s", KEY_FOO);
	KT_EQ_STR(rep.key, key);

	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 1);
	KT_EQ_STR(rq_str(reqs, 0, "method"), "POST");
	KT_EQ_STR(rq_str(reqs, 0, "path"), "/");
	KT_EQ_STR(rq_header(reqs, 0, "authorization"), "Bearer " TOKEN);
	KT_EQ_STR(rq_header(reqs, 0, "idempotency-key"), key);
	KT_EQ_STR(rq_header(reqs, 0, "content-type"), "application/json");
	KT_CONTAINS(rq_header(reqs, 0, "user-agent"), "kscore/");
	p = cJSON_Parse(rq_str(reqs, 0, "body"));
	KT_ASSERT(p != NULL);
	KT_EQ_STR(cJSON_GetObjectItem(p, "schema")->valuestring, "kscore.upload/1");
	KT_EQ_STR(cJSON_GetObjectItem(p, "idempotency_key")->valuestring, key);
	KT_EQ_STR(cJSON_GetObjectItem(p, "team")->valuestring, "foo");
	KT_EQ_STR(cJSON_GetObjectItem(p, "created")->valuestring, "2026-11-22T10:00:00Z");
	v = cJSON_GetObjectItem(p, "scorer");
	KT_EQ_STR(cJSON_GetObjectItem(v, "version")->valuestring, "0.1.0");
	KT_EQ_STR(cJSON_GetObjectItem(v, "name")->valuestring, "kscore");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "submission"), "sha256")->valuestring,
		  SUB_SHA);
	v = cJSON_GetObjectItem(p, "device");
	KT_EQ_STR(cJSON_GetObjectItem(v, "name")->valuestring, "NVIDIA H100 80GB HBM3");
	KT_EQ_STR(cJSON_GetObjectItem(v, "uuid")->valuestring, DEV_UUID);
	KT_EQ_STR(cJSON_GetObjectItem(v, "driver_version")->valuestring, "580.159.04");
	KT_EQ_STR(cJSON_GetObjectItem(v, "cuda_version")->valuestring, "13.0");
	KT_EQ_STR(cJSON_GetObjectItem(v, "arch")->valuestring, "sm_90a");
	KT_ASSERT(!cJSON_GetObjectItem(v, "clocks")); /* only the documented fields */
	v = cJSON_GetObjectItem(p, "summary");
	KT_NEAR(cJSON_GetObjectItem(v, "score")->valuedouble, 12.34, 1e-12);
	KT_NEAR(cJSON_GetObjectItem(v, "call_accuracy")->valuedouble, 0.7, 1e-12);
	KT_NEAR(cJSON_GetObjectItem(v, "exec_accuracy")->valuedouble, 0.6, 1e-12);
	KT_NEAR(cJSON_GetObjectItem(v, "geomean_speedup")->valuedouble, 1.2, 1e-12);
	KT_NEAR(cJSON_GetObjectItem(v, "fast_1")->valuedouble, 0.3, 1e-12);
	KT_NEAR(cJSON_GetObjectItem(v, "fast_2")->valuedouble, 0.1, 1e-12);
	v = cJSON_GetObjectItem(p, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(v), 2);
	k0 = cJSON_GetArrayItem(v, 0);
	k1 = cJSON_GetArrayItem(v, 1);
	KT_EQ_STR(cJSON_GetObjectItem(k0, "problem")->valuestring, "sin_kernel");
	KT_EQ_INT(cJSON_GetObjectItem(k0, "pass")->valueint, 0);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(k0, "call")));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(k0, "exec")));
	KT_NEAR(cJSON_GetObjectItem(k0, "speedup")->valuedouble, 1.23, 1e-12);
	KT_NEAR(cJSON_GetObjectItem(k0, "score")->valuedouble, 1.23, 1e-12);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(k0, "suspicious")));
	KT_ASSERT(!cJSON_GetObjectItem(k0, "cases"));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(k1, "exec")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(k1, "speedup")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(k1, "score")));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(k1, "suspicious")));
	v = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "suspicious"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(v, "problem")->valuestring, "cos_kernel");
	KT_EQ_STR(cJSON_GetObjectItem(v, "why")->valuestring, "faster than the memory roofline");

	/* the success is recorded */
	sent = sent_file(key);
	KT_ASSERT(ks_fs_exists(sent));
	KT_ASSERT(file_has(sent, s.url));
	KT_ASSERT(file_has(sent, "\"http_status\":\t201"));
	KT_EQ_INT(z.n, 0);
	assert_token_nowhere(kt_tmpdir());
	assert_token_only_in_auth(reqs);

	ks_free(sent);
	cJSON_Delete(p);
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_team_override_changes_the_key(void)
{
	ks_upload_report rep;
	ks_upload_options o;
	sleeps z = { 0 };
	server s;
	char *dir = result_dir("r1", "score.json", NULL);
	cJSON *reqs, *p;

	server_start(&s, "{}", 0);
	base_opts(&o, s.url, &z);
	o.team = "bar"; /* the override wins over the record's team */
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_STR(rep.key, KEY_BAR);
	reqs = requests(&s);
	p = cJSON_Parse(rq_str(reqs, 0, "body"));
	KT_EQ_STR(cJSON_GetObjectItem(p, "team")->valuestring, "bar");
	KT_EQ_STR(cJSON_GetObjectItem(p, "idempotency_key")->valuestring, KEY_BAR);
	KT_EQ_STR(rq_header(reqs, 0, "idempotency-key"), KEY_BAR);
	cJSON_Delete(p);
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_500_is_retried_with_the_same_key(void)
{
	server s;
	sleeps z = { 0 };
	logs lg = { { 0 } };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL);
	cJSON *reqs;

	server_start(&s,
		     "{\"responses\": [{\"status\": 500, \"body\": \"oops\"},"
		     " {\"status\": 502, \"body\": \"bad gateway\"}]}",
		     0);
	base_opts(&o, s.url, &z);
	o.log_fn = rec_log;
	o.log_payload = &lg;
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SENT);
	KT_EQ_INT(rep.attempts, 3);
	KT_EQ_INT(rep.http_status, 200);
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 3);
	KT_EQ_STR(rq_header(reqs, 1, "idempotency-key"), rep.key);
	KT_EQ_STR(rq_header(reqs, 2, "idempotency-key"), rep.key);
	KT_EQ_STR(rq_str(reqs, 0, "body"), rq_str(reqs, 2, "body"));
	/* full jitter: uniform in [0, initial * 2^(n-1)] */
	KT_EQ_INT(z.n, 2);
	KT_ASSERT(z.d[0] >= 0 && z.d[0] <= 1.0);
	KT_ASSERT(z.d[1] >= 0 && z.d[1] <= 2.0);
	KT_CONTAINS(lg.text, "attempt 1 of 3 failed");
	KT_CONTAINS(lg.text, "HTTP 500");
	KT_CONTAINS(lg.text, "HTTP 502");
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_429_retry_after_is_honoured_and_capped(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL);
	cJSON *reqs;

	server_start(&s,
		     "{\"responses\": ["
		     "{\"status\": 429, \"headers\": {\"Retry-After\": \"3\"}, \"body\": \"slow down\"},"
		     "{\"status\": 503, \"headers\": {\"Retry-After\": \"1000\"}, \"body\": \"busy\"}]}",
		     0);
	base_opts(&o, s.url, &z);
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(rep.attempts, 3);
	KT_EQ_INT(z.n, 2);
	KT_NEAR(z.d[0], 3.0, 1e-9); /* Retry-After: 3 */
	KT_NEAR(z.d[1], 8.0, 1e-9); /* Retry-After: 1000, capped by backoff_max */
	reqs = requests(&s);
	KT_EQ_STR(rq_header(reqs, 0, "idempotency-key"), rq_header(reqs, 2, "idempotency-key"));
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_retry_after_as_http_date(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL), date[64], *script;
	time_t t = time(NULL) + 5;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	script = ks_asprintf("{\"responses\": [{\"status\": 429, \"headers\": {\"Retry-After\": "
			     "\"%s\"}}]}",
			     date);
	server_start(&s, script, 0);
	base_opts(&o, s.url, &z);
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(z.n, 1);
	KT_ASSERT_MSG(z.d[0] >= 3.0 && z.d[0] <= 5.0, "waited %g s for a date 5 s ahead", z.d[0]);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(script);
	ks_free(dir);
}

static void test_401_fails_at_once_and_the_token_appears_nowhere(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL), *pend;
	cJSON *reqs;

	/* a careless server that echoes the header it rejected */
	server_start(&s,
		     "{\"responses\": [{\"status\": 401, \"body\": \"invalid token " TOKEN "\"}]}", 0);
	base_opts(&o, s.url, &z);
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(rep.attempts, 1);
	KT_EQ_INT(rep.http_status, 401);
	KT_EQ_INT(z.n, 0);
	KT_CONTAINS(rep.message, "HTTP 401");
	KT_CONTAINS(rep.message, "token was rejected");
	KT_CONTAINS(rep.message, s.url);
	KT_CONTAINS(rep.message, "[token]");
	KT_NOT_CONTAINS(rep.message, TOKEN);
	KT_NOT_CONTAINS(ks_error_msg(), TOKEN);
	pend = pending_file(rep.key);
	KT_ASSERT(ks_fs_exists(pend));
	KT_ASSERT(file_has(pend, "HTTP 401"));
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 1);
	assert_token_only_in_auth(reqs);
	assert_token_nowhere(kt_tmpdir());
	cJSON_Delete(reqs);
	ks_free(pend);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_400_fails_at_once_naming_endpoint_status_and_body(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL);

	server_start(&s,
		     "{\"responses\": [{\"status\": 400, \"body\": \"field \\\"team\\\" is not "
		     "registered\\n\\u0007for this event\"}]}",
		     0);
	base_opts(&o, s.url, &z);
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(rep.attempts, 1);
	KT_EQ_INT(z.n, 0);
	KT_CONTAINS(rep.message, s.url);
	KT_CONTAINS(rep.message, "HTTP 400");
	/* the excerpt is one printable line */
	KT_CONTAINS(rep.message, "field \"team\" is not registered for this event");
	KT_CONTAINS(ks_error_msg(), "HTTP 400");
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_large_reply_is_capped(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL), *big, *script;

	big = ks_malloc(300001);
	memset(big, 'x', 300000);
	big[300000] = '\0';
	script = ks_asprintf("{\"responses\": [{\"status\": 500, \"body\": \"%s\"}, {\"status\": "
			     "200, \"body\": \"%s\"}]}",
			     big, big);
	server_start(&s, script, 0);
	base_opts(&o, s.url, &z);
	o.max_retries = 1;
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(rep.attempts, 2);
	KT_EQ_INT(rep.status, KS_UPLOAD_SENT);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(script);
	ks_free(big);
	ks_free(dir);
}

static void test_stall_hits_the_total_timeout(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL);
	struct timespec t0, t1;
	double took;

	server_start(&s, "{\"default\": {\"stall\": 60}}", 0);
	base_opts(&o, s.url, &z);
	o.max_retries = 1;
	o.total_timeout = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	KT_EQ_INT(rep.status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(rep.attempts, 2);
	KT_EQ_INT(rep.http_status, 0);
	KT_EQ_INT(z.n, 1);
	KT_CONTAINS(rep.message, "imed out");
	KT_ASSERT_MSG(took < 10, "two 1-second attempts took %g s", took);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_refused_connection_is_retried_with_backoff(void)
{
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL), url[64];
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	/* a port that was free a moment ago: nothing listens there */
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	KT_ASSERT(bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0);
	KT_ASSERT(getsockname(fd, (struct sockaddr *)&a, &al) == 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/submit", ntohs(a.sin_port));

	base_opts(&o, url, &z);
	o.max_retries = 3;
	o.backoff_initial = 2;
	o.backoff_max = 5;
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(rep.attempts, 4);
	KT_EQ_INT(z.n, 3);
	KT_ASSERT(z.d[0] >= 0 && z.d[0] <= 2);
	KT_ASSERT(z.d[1] >= 0 && z.d[1] <= 4);
	KT_ASSERT(z.d[2] >= 0 && z.d[2] <= 5); /* 8, capped */
	KT_CONTAINS(rep.message, url);
	KT_CONTAINS(rep.message, "after 4 attempts");
	ks_upload_report_clear(&rep);
	ks_free(dir);
}

/* ---- the spool ---- */

static void test_failed_upload_is_spooled_then_sent_by_pending_then_skipped(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o, po;
	ks_upload_report rep, *reps = NULL;
	size_t n = 0;
	char *dir = result_dir("r1", "score.json", NULL), *pend, *sent, *text;
	cJSON *rec, *reqs;
	char **names = NULL;
	size_t nn = 0;

	server_start(&s,
		     "{\"responses\": [{\"status\": 503, \"body\": \"down for maintenance\"},"
		     " {\"status\": 503, \"body\": \"down for maintenance\"}]}",
		     0);
	base_opts(&o, s.url, &z);
	o.max_retries = 1;
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(rep.spooled, 1);
	pend = pending_file(rep.key);
	KT_EQ_STR(rep.spool_path, pend);
	KT_CONTAINS(rep.message, "--pending");
	text = slurp(pend);
	KT_NOT_CONTAINS(text, TOKEN);
	rec = cJSON_Parse(text);
	KT_EQ_STR(cJSON_GetObjectItem(rec, "schema")->valuestring, "kscore.upload-pending/1");
	KT_EQ_STR(cJSON_GetObjectItem(rec, "key")->valuestring, rep.key);
	KT_EQ_STR(cJSON_GetObjectItem(rec, "endpoint")->valuestring, s.url);
	KT_EQ_STR(cJSON_GetObjectItem(rec, "mode")->valuestring, "native");
	KT_EQ_STR(cJSON_GetObjectItem(rec, "source")->valuestring, dir);
	KT_EQ_INT(cJSON_GetObjectItem(rec, "attempts")->valueint, 2);
	KT_EQ_INT(cJSON_GetObjectItem(rec, "http_status")->valueint, 503);
	KT_CONTAINS(cJSON_GetObjectItem(rec, "last_error")->valuestring, "down for maintenance");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(rec, "payload"), "team")->valuestring,
		  "foo");
	cJSON_Delete(rec);
	ks_free(text);

	/* --pending: the endpoint comes from the file, not from the options */
	base_opts(&po, NULL, &z);
	KT_EQ_INT(ks_upload_pending(&reps, &n, &po), 0);
	KT_EQ_INT(n, 1);
	KT_EQ_INT(reps[0].status, KS_UPLOAD_SENT);
	KT_EQ_STR(reps[0].source, pend);
	KT_ASSERT(!ks_fs_exists(pend));
	sent = sent_file(rep.key);
	KT_ASSERT(ks_fs_exists(sent));
	KT_ASSERT(file_has(sent, s.url));
	KT_ASSERT(file_has(sent, "\"http_status\":\t200"));
	{
		char *pdir = ks_path_dirname(pend);
		KT_EQ_INT(ks_fs_list(&names, &nn, pdir, 0), 0);
		KT_EQ_INT(nn, 0); /* nothing left pending */
		ks_free(pdir);
	}
	ks_upload_reports_free(reps, n);

	/* the same result again: skipped, nothing sent */
	ks_upload_report_clear(&rep);
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_ALREADY);
	KT_CONTAINS(rep.message, "already uploaded");
	KT_EQ_INT(rep.attempts, 0);
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 3);
	KT_EQ_STR(rq_header(reqs, 2, "idempotency-key"), rep.key);
	/* ... but a different endpoint is a different leaderboard */
	ks_upload_report_clear(&rep);
	{
		char other[160];
		snprintf(other, sizeof(other), "%s/v2", s.url);
		o.endpoint = other;
		KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
		KT_EQ_INT(rep.status, KS_UPLOAD_SENT);
		KT_ASSERT(file_has(sent, other));
	}
	assert_token_nowhere(kt_tmpdir());

	ks_free_strv(names, nn);
	cJSON_Delete(reqs);
	ks_free(sent);
	ks_free(pend);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_pending_failure_updates_the_file(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep, *reps = NULL;
	size_t n = 0;
	char *dir = result_dir("r1", "score.json", NULL), *pend;
	cJSON *rec;
	char *text;

	server_start(&s, "{\"default\": {\"status\": 500, \"body\": \"still down\"}}", 0);
	base_opts(&o, s.url, &z);
	o.max_retries = 0;
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	pend = pending_file(rep.key);
	o.max_retries = 1;
	KT_EQ_INT(ks_upload_pending(&reps, &n, &o), KS_ERROR);
	KT_EQ_INT(n, 1);
	KT_EQ_INT(reps[0].status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(reps[0].attempts, 2);
	text = slurp(pend);
	rec = cJSON_Parse(text);
	KT_EQ_INT(cJSON_GetObjectItem(rec, "attempts")->valueint, 3);
	KT_CONTAINS(cJSON_GetObjectItem(rec, "last_error")->valuestring, "still down");
	cJSON_Delete(rec);
	ks_free(text);
	ks_upload_reports_free(reps, n);
	/* a pending file that is not one is reported, and left alone */
	{
		char *bad = ks_asprintf("%s/pending/zz-broken.json", g_spool);
		put(bad, "{\"key\": 1}");
		KT_EQ_INT(ks_upload_pending(&reps, &n, &o), KS_ERROR);
		KT_EQ_INT(n, 2);
		KT_EQ_INT(reps[1].status, KS_UPLOAD_INVALID);
		KT_CONTAINS(reps[1].message, "zz-broken.json");
		KT_ASSERT(ks_fs_exists(bad));
		ks_upload_reports_free(reps, n);
		ks_free(bad);
	}
	ks_free(pend);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

/* ---- Gradio mode ---- */

static void test_gradio_complete(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL), ep[160];
	cJSON *reqs, *body;

	server_start(&s,
		     "{\"responses\": [{\"json\": {\"event_id\": \"ev_42-a\"}},"
		     " {\"sse\": [[\"heartbeat\", \"null\"], [\"generating\", \"[1]\"],"
		     " [\"complete\", \"[\\\"Submitted\\\"]\"]]}]}",
		     0);
	snprintf(ep, sizeof(ep), "%s/", s.url); /* a trailing slash is fine */
	base_opts(&o, ep, &z);
	o.mode = KS_UPLOAD_GRADIO;
	o.token = NULL; /* a public space needs none */
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SENT);
	KT_EQ_INT(rep.attempts, 1);
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 2);
	KT_EQ_STR(rq_str(reqs, 0, "method"), "POST");
	KT_EQ_STR(rq_str(reqs, 0, "path"), "/gradio_api/call/submit_results");
	KT_ASSERT(rq_header(reqs, 0, "authorization") == NULL);
	body = cJSON_Parse(rq_str(reqs, 0, "body"));
	KT_ASSERT(cJSON_IsArray(cJSON_GetObjectItem(body, "data")));
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(body, "data")), 2);
	KT_EQ_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(body, "data"), 0)->valuestring, "foo");
	KT_NEAR(cJSON_GetArrayItem(cJSON_GetObjectItem(body, "data"), 1)->valuedouble, 12.34, 1e-12);
	KT_EQ_STR(rq_str(reqs, 1, "method"), "GET");
	KT_EQ_STR(rq_str(reqs, 1, "path"), "/gradio_api/call/submit_results/ev_42-a");
	cJSON_Delete(body);
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_gradio_error_and_unfinished_stream_fail(void)
{
	server s;
	sleeps z = { 0 };
	logs lg = { { 0 } };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL);
	cJSON *reqs;

	server_start(&s,
		     "{\"responses\": [{\"json\": {\"event_id\": \"e1\"}},"
		     " {\"sse\": [[\"error\", \"\\\"leaderboard dataset is locked\\\"\"]]},"
		     " {\"json\": {\"event_id\": \"e2\"}},"
		     " {\"sse\": [[\"generating\", \"[0]\"]]}]}",
		     0);
	base_opts(&o, s.url, &z);
	o.mode = KS_UPLOAD_GRADIO;
	o.token = TOKEN; /* a private space: the token goes along */
	o.max_retries = 1;
	o.log_fn = rec_log;
	o.log_payload = &lg;
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(rep.attempts, 2);
	KT_EQ_INT(z.n, 1);
	KT_CONTAINS(lg.text, "error event");
	KT_CONTAINS(lg.text, "leaderboard dataset is locked");
	KT_CONTAINS(rep.message, "ended without a complete event");
	KT_CONTAINS(rep.message, "/gradio_api/call/submit_results/e2");
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 4);
	KT_EQ_STR(rq_header(reqs, 0, "authorization"), "Bearer " TOKEN);
	KT_EQ_STR(rq_header(reqs, 1, "authorization"), "Bearer " TOKEN);
	/* the spooled copy knows it is for a Gradio space */
	{
		char *pend = pending_file(rep.key);
		KT_ASSERT(file_has(pend, "\"mode\":\t\"gradio\""));
		ks_free(pend);
	}
	assert_token_nowhere(kt_tmpdir());
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void test_gradio_post_without_event_id_fails(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL);

	server_start(&s, "{\"responses\": [{\"json\": {\"event_id\": \"../../admin\"}}]}", 0);
	base_opts(&o, s.url, &z);
	o.mode = KS_UPLOAD_GRADIO;
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.attempts, 1);
	KT_CONTAINS(rep.message, "malformed event id");
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

/* ---- refusals ---- */

static void drop_score(cJSON *r)
{
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(r, "summary"), "score");
}
static void drop_version(cJSON *r)
{
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(r, "scorer"), "version");
}
static void drop_kernels(cJSON *r)
{
	cJSON_DeleteItemFromObject(r, "kernels");
}
static void null_team(cJSON *r)
{
	cJSON_ReplaceItemInObject(r, "team", cJSON_CreateNull());
}
static void drop_optional(cJSON *r)
{
	cJSON_DeleteItemFromObject(r, "device");
	cJSON_DeleteItemFromObject(r, "suspicious");
	cJSON_DeleteItemFromObject(r, "created");
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(r, "summary"), "fast_2");
}

static void expect_invalid(const char *name, const char *fix, void (*edit)(cJSON *),
			   const char *what)
{
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir(name, fix, edit);
	base_opts(&o, "http://127.0.0.1:9/never-contacted", &z);
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), KS_EINVALID);
	KT_EQ_INT(rep.status, KS_UPLOAD_INVALID);
	KT_EQ_INT(rep.attempts, 0);
	KT_CONTAINS(rep.message, "score.json");
	KT_CONTAINS(rep.message, what);
	KT_EQ_INT(ks_upload_status_exit(rep.status), 65);
	ks_upload_report_clear(&rep);
	ks_free(dir);
}

static void test_bad_records_are_refused_naming_file_and_field(void)
{
	expect_invalid("c", "compile-only.json", NULL, "compile-only");
	expect_invalid("s", "score.json", drop_score, "\"summary.score\"");
	expect_invalid("v", "score.json", drop_version, "\"scorer.version\"");
	expect_invalid("k", "score.json", drop_kernels, "\"kernels\"");
	expect_invalid("t", "score.json", null_team, "--team");
	{
		char *d = tmp("empty");
		ks_upload_options o;
		ks_upload_report rep;
		sleeps z = { 0 };
		ks_fs_mkdir_p(d, 0755);
		base_opts(&o, "http://127.0.0.1:9/x", &z);
		KT_ASSERT(ks_upload_result_dir(&rep, d, &o) < 0);
		KT_EQ_INT(rep.status, KS_UPLOAD_INVALID);
		KT_CONTAINS(rep.message, "no such file");
		ks_upload_report_clear(&rep);
		ks_free(d);
	}
	/* nothing was written to the spool */
	KT_ASSERT(!ks_fs_exists(g_spool));
}

static void test_optional_fields_may_be_missing(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", drop_optional);
	cJSON *reqs, *p;

	server_start(&s, "{}", 0);
	base_opts(&o, s.url, &z);
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_STR(rep.key, KEY_FOO_NO_DEVICE);
	reqs = requests(&s);
	p = cJSON_Parse(rq_str(reqs, 0, "body"));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(p, "device")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(p, "created")));
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(p, "suspicious")), 0);
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "summary"), "fast_2")));
	cJSON_Delete(p);
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(dir);
}

static void mark_shared(cJSON *r)
{
	cJSON_AddBoolToObject(cJSON_GetObjectItem(r, "summary"), "shared_gpu", 1);
	cJSON_AddBoolToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0), "shared_gpu", 1);
}

static void other_team(cJSON *r)
{
	cJSON_ReplaceItemInObject(r, "team", cJSON_CreateString("bar"));
}

/* Timings from two lanes on one GPU (--devices 0,0) are never published as clean; a record
 * without the flag (one lane) is clean. */
static void test_shared_gpu_timings_are_flagged_in_the_payload(void)
{
	sleeps z = { 0 };
	server s;
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", mark_shared), *clean = result_dir("r2", "score.json", other_team);
	cJSON *reqs, *p;

	server_start(&s, "{}", 0);
	base_opts(&o, s.url, &z);
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	ks_upload_report_clear(&rep);
	KT_EQ_INT(ks_upload_result_dir(&rep, clean, &o), 0);
	ks_upload_report_clear(&rep);
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 2);
	p = cJSON_Parse(rq_str(reqs, 0, "body"));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "summary"), "shared_gpu")));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "kernels"), 0), "shared_gpu")));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "kernels"), 1), "shared_gpu")));
	cJSON_Delete(p);
	p = cJSON_Parse(rq_str(reqs, 1, "body"));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "summary"), "shared_gpu")));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(p, "kernels"), 0), "shared_gpu")));
	cJSON_Delete(p);
	cJSON_Delete(reqs);
	server_stop(&s);
	ks_free(dir);
	ks_free(clean);
}

static const char *check_msg(const char *endpoint, ks_upload_mode mode, const char *token)
{
	ks_upload_options o = KS_UPLOAD_OPTIONS_INIT;
	o.endpoint = endpoint;
	o.mode = mode;
	o.token = token;
	if (ks_upload_options_check(&o, 1) == 0)
		return NULL;
	return ks_error_msg();
}

static void test_endpoint_rules(void)
{
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL);

	KT_CONTAINS(check_msg("http://example.com/submit", KS_UPLOAD_NATIVE, TOKEN), "loopback");
	KT_CONTAINS(check_msg("http://10.0.0.1/submit", KS_UPLOAD_NATIVE, TOKEN), "loopback");
	KT_CONTAINS(check_msg("ftp://example.com/x", KS_UPLOAD_NATIVE, TOKEN), "scheme");
	KT_CONTAINS(check_msg("example.com/x", KS_UPLOAD_NATIVE, TOKEN), "not a valid");
	KT_CONTAINS(check_msg(NULL, KS_UPLOAD_NATIVE, TOKEN), "no upload endpoint");
	KT_NOT_CONTAINS(check_msg("https://u:hunter2@example.com/x", KS_UPLOAD_NATIVE, TOKEN),
			"hunter2");
	KT_CONTAINS(check_msg("https://u:hunter2@example.com/x", KS_UPLOAD_NATIVE, TOKEN),
		    "user name or password");
	KT_CONTAINS(check_msg("https://lb.example.com/x", KS_UPLOAD_NATIVE, NULL), "needs a token");
	KT_ASSERT(check_msg("https://lb.example.com/x", KS_UPLOAD_NATIVE, TOKEN) == NULL);
	KT_ASSERT(check_msg("https://x.hf.space", KS_UPLOAD_GRADIO, NULL) == NULL);
	KT_ASSERT(check_msg("http://localhost:8000/x", KS_UPLOAD_NATIVE, TOKEN) == NULL);
	KT_ASSERT(check_msg("http://[::1]:8000/x", KS_UPLOAD_NATIVE, TOKEN) == NULL);

	/* refused before anything is sent or spooled */
	base_opts(&o, "http://example.com/submit", &z);
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_CONFIG);
	KT_EQ_INT(rep.attempts, 0);
	KT_EQ_INT(ks_upload_status_exit(rep.status), 78);
	KT_ASSERT(!ks_fs_exists(g_spool));
	ks_upload_report_clear(&rep);
	ks_free(dir);
}

static void test_https_verification_is_always_on(void)
{
	server s;
	sleeps z = { 0 };
	ks_upload_options o;
	ks_upload_report rep;
	char *dir = result_dir("r1", "score.json", NULL), *ca = fixture("ca.pem");
	cJSON *reqs;

	server_start(&s, "{}", 1);
	base_opts(&o, s.url, &z);
	/* the test CA is in no system store: verification must fail, and not be retried */
	KT_ASSERT(ks_upload_result_dir(&rep, dir, &o) < 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SPOOLED);
	KT_EQ_INT(rep.attempts, 1);
	KT_CONTAINS(rep.message, "TLS verification failed");
	KT_CONTAINS(rep.message, "--ca-bundle");
	ks_upload_report_clear(&rep);
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 0); /* no request got through */
	cJSON_Delete(reqs);

	o.ca_bundle = ca;
	KT_EQ_INT(ks_upload_result_dir(&rep, dir, &o), 0);
	KT_EQ_INT(rep.status, KS_UPLOAD_SENT);
	reqs = requests(&s);
	KT_EQ_INT(cJSON_GetArraySize(reqs), 1);
	KT_EQ_STR(rq_header(reqs, 0, "authorization"), "Bearer " TOKEN);
	/* the first failure had been spooled; the success removed it */
	{
		char *pend = pending_file(rep.key);
		KT_ASSERT(!ks_fs_exists(pend));
		ks_free(pend);
	}
	cJSON_Delete(reqs);
	ks_upload_report_clear(&rep);
	server_stop(&s);
	ks_free(ca);
	ks_free(dir);
}

/* ---- token and config ---- */

static void test_setup_merges_config_and_command_line(void)
{
	char *cfgdir = tmp("cfg"), *cfg, *tf, *envout;
	ks_upload_options cli = KS_UPLOAD_OPTIONS_INIT;
	ks_upload_setup *s = NULL;
	const ks_upload_options *o;
	logs lg = { { 0 } };

	ks_fs_mkdir_p(cfgdir, 0755);
	cfg = ks_path_join(cfgdir, "upload.json");
	tf = ks_path_join(cfgdir, "tok");
	put(tf, TOKEN "\n");
	chmod(tf, 0640);
	put(cfg, "{\"schema\": \"kscore.upload-config/1\", \"_comment\": \"test\",\n"
		 " \"endpoint\": \"https://config.example.com/submit\", \"mode\": \"gradio\",\n"
		 " \"token_file\": \"tok\", \"retries\": 3, \"timeout\": 7, \"connect_timeout\": 2,\n"
		 " \"backoff_initial\": 0.5, \"backoff_max\": 30, \"spool\": \"sp\",\n"
		 " \"token_env\": \"KS_TEST_TOKEN_VAR\", \"ca_bundle\": null}\n");
	cli.endpoint = "https://cli.example.com/submit";
	cli.total_timeout = 9;
	cli.log_fn = rec_log;
	cli.log_payload = &lg;
	setenv("KS_TEST_TOKEN_VAR", "other-secret", 1);
	KT_EQ_INT(ks_upload_setup_new(&s, &cli, cfg, KS_UPLOAD_NEED_ENDPOINT), 0);
	o = ks_upload_setup_options(s);
	KT_EQ_STR(o->endpoint, "https://cli.example.com/submit"); /* the command line wins */
	KT_EQ_INT(o->mode, KS_UPLOAD_GRADIO);
	KT_EQ_INT(o->max_retries, 3);
	KT_NEAR(o->total_timeout, 9, 0);
	KT_NEAR(o->connect_timeout, 2, 0);
	KT_NEAR(o->backoff_initial, 0.5, 0);
	KT_NEAR(o->backoff_max, 30, 0);
	KT_EQ_STR(o->token, TOKEN); /* from the file named relative to the config */
	KT_CONTAINS(o->spool_dir, "cfg/sp");
	KT_CONTAINS(lg.text, "can be read by group or others");
	KT_NOT_CONTAINS(lg.text, TOKEN);
	/* no child process inherits the variable */
	KT_ASSERT(getenv("KS_TEST_TOKEN_VAR") == NULL);
	envout = tmp("child-env");
	{
		char *cmd = ks_asprintf("env > '%s'", envout);
		KT_EQ_INT(system(cmd), 0);
		ks_free(cmd);
	}
	KT_ASSERT(!file_has(envout, "other-secret"));
	KT_ASSERT(!file_has(envout, "KS_TEST_TOKEN_VAR"));
	ks_upload_setup_free(s);
	ks_free(envout);

	/* config mistakes name the file and the key */
	put(cfg, "{\"endpont\": \"https://x\"}");
	KT_EQ_INT(ks_upload_setup_new(&s, &cli, cfg, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "upload.json");
	KT_CONTAINS(ks_error_msg(), "unknown key \"endpont\"");
	put(cfg, "{\"mode\": \"grpc\"}");
	KT_EQ_INT(ks_upload_setup_new(&s, &cli, cfg, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "\"mode\"");
	put(cfg, "{\"retries\": 2.5}");
	KT_EQ_INT(ks_upload_setup_new(&s, &cli, cfg, 0), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "\"retries\"");
	put(cfg, "{\"timeout\": -1}");
	KT_EQ_INT(ks_upload_setup_new(&s, &cli, cfg, 0), KS_EINVALID);
	put(cfg, "{\"endpoint\": ");
	KT_ASSERT(ks_upload_setup_new(&s, &cli, cfg, 0) < 0);
	KT_CONTAINS(ks_error_msg(), "upload.json:1");
	KT_EQ_INT(ks_upload_setup_new(&s, &cli, "/nonexistent/upload.json", 0), KS_ENOTFOUND);
	/* native mode with no token anywhere */
	put(cfg, "{\"endpoint\": \"https://lb.example.com/x\", \"token_env\": \"KS_TEST_NONE\"}");
	cli.endpoint = NULL;
	KT_EQ_INT(ks_upload_setup_new(&s, &cli, cfg, KS_UPLOAD_NEED_ENDPOINT), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "$KS_TEST_NONE");
	KT_ASSERT(s == NULL);

	/* the shipped default config is valid and names no endpoint */
	{
		char *def = fixture("../../../scoring/upload.json");
		ks_upload_options none = KS_UPLOAD_OPTIONS_INIT;
		KT_EQ_INT(ks_upload_setup_new(&s, &none, def, 0), 0);
		KT_ASSERT(ks_upload_setup_options(s)->endpoint == NULL);
		KT_EQ_STR(ks_upload_setup_options(s)->token_env, "KSCORE_UPLOAD_TOKEN");
		ks_upload_setup_free(s);
		ks_free(def);
	}
	ks_free(tf);
	ks_free(cfg);
	ks_free(cfgdir);
}

/* ---- the subcommand ---- */

/* Runs `score upload ARGS` in a child with its output in <tmp>/cli/<n>.out / .err and the token in
 * its environment; returns the exit code. */
static int g_cli;
static char g_out[4200], g_err[4200];

static int cli(const char *const *args)
{
	char *cdir = tmp("cli");
	const char *argv[40];
	int argc = 0, st;
	pid_t pid;

	ks_fs_mkdir_p(cdir, 0755);
	snprintf(g_out, sizeof(g_out), "%s/%d.out", cdir, g_cli);
	snprintf(g_err, sizeof(g_err), "%s/%d.err", cdir, g_cli);
	g_cli++;
	argv[argc++] = "upload";
	while (*args && argc < 39)
		argv[argc++] = *args++;
	argv[argc] = NULL;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		int o = open(g_out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(g_err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(o, 1);
		dup2(e, 2);
		setenv("KSCORE_UPLOAD_TOKEN", TOKEN, 1);
		exit(ks_upload_main(argc, (char **)argv));
	}
	waitpid(pid, &st, 0);
	ks_free(cdir);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void test_cli_exit_codes_and_outputs(void)
{
	server s;
	char *good = result_dir("good", "score.json", NULL);
	char *co = result_dir("co", "compile-only.json", NULL);
	char *spool = tmp("clispool"), *empty = tmp("empty.json"), *text;
	cJSON *j;

	put(empty, "{}");
	server_start(&s, "{\"responses\": [{\"status\": 503}], \"default\": {\"status\": 200}}", 0);

	{
		const char *a[] = { NULL };
		KT_EQ_INT(cli(a), 64);
		KT_ASSERT(file_has(g_err, "no RESULT_DIR"));
	}
	{
		const char *a[] = { "--token", TOKEN, good, NULL };
		KT_EQ_INT(cli(a), 64); /* there is no way to put the token in argv */
	}
	{
		const char *a[] = { "--retries", "many", good, NULL };
		KT_EQ_INT(cli(a), 64);
	}
	{
		const char *a[] = { "--help", NULL };
		KT_EQ_INT(cli(a), 0);
		KT_ASSERT(file_has(g_out, "--pending"));
	}
	{
		const char *a[] = { "--upload-config", empty, "--spool", spool, good, NULL };
		KT_EQ_INT(cli(a), 78);
		KT_ASSERT(file_has(g_err, "no upload endpoint"));
	}
	{
		const char *a[] = { "--config", empty, "--endpoint", "http://example.com/x", good, NULL };
		KT_EQ_INT(cli(a), 78);
	}
	{
		const char *a[] = { "--config", empty, "--endpoint", s.url, "--spool", spool, co, NULL };
		KT_EQ_INT(cli(a), 65);
		KT_ASSERT(file_has(g_out, "compile-only"));
	}
	{
		/* the first request gets 503 and no retries are allowed: spooled */
		const char *a[] = { "--config", empty, "--endpoint", s.url, "--spool", spool,
				    "--retries", "0", "--json", good, NULL };
		KT_EQ_INT(cli(a), 1);
		text = slurp(g_out);
		j = cJSON_Parse(text);
		KT_ASSERT(j != NULL);
		KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "results"), 0),
					      "status")->valuestring,
			  "spooled");
		KT_EQ_INT(cJSON_GetObjectItem(j, "exit_code")->valueint, 1);
		cJSON_Delete(j);
		ks_free(text);
	}
	{
		const char *a[] = { "--config", empty, "--spool", spool, "--pending", "--json", NULL };
		KT_EQ_INT(cli(a), 0);
		text = slurp(g_out);
		j = cJSON_Parse(text);
		KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "results"), 0),
					      "status")->valuestring,
			  "sent");
		cJSON_Delete(j);
		ks_free(text);
	}
	{
		const char *a[] = { "--config", empty, "--endpoint", s.url, "--spool", spool, good,
				    co, NULL };
		KT_EQ_INT(cli(a), 65); /* the good one was already sent, the other is invalid */
		KT_ASSERT(file_has(g_out, "already uploaded"));
	}
	{
		const char *a[] = { "--config", empty, "--spool", spool, "--pending", NULL };
		KT_EQ_INT(cli(a), 0);
		KT_ASSERT(file_has(g_err, "nothing pending"));
	}
	{
		/* gradio mode needs no token; --team overrides */
		const char *a[] = { "--upload-config", empty, "--endpoint", s.url, "--spool", spool,
				    "--upload-mode", "gradio", "--team", "baz", good, NULL };
		int rc = cli(a);
		/* the default reply has no event id: a failure, spooled */
		KT_EQ_INT(rc, 1);
		KT_ASSERT(file_has(g_out, "without an event id"));
	}
	assert_token_nowhere(kt_tmpdir());
	{
		cJSON *reqs = requests(&s);
		assert_token_only_in_auth(reqs);
		cJSON_Delete(reqs);
	}
	server_stop(&s);
	ks_free(empty);
	ks_free(spool);
	ks_free(co);
	ks_free(good);
}

/* `score upload` takes the upload options under the names `score` gives them (--upload-config,
 * --upload-mode); the first release's --config and --mode still work. */
static void test_cli_takes_the_upload_option_names_of_score(void)
{
	server s;
	char *good = result_dir("good", "score.json", NULL), *spool = tmp("clispool2");
	char *cfg = tmp("upload.json"), *text;

	server_start(&s, "{\"default\": {\"status\": 200}}", 0);
	text = ks_asprintf("{\"endpoint\": \"%s/submit\", \"spool\": \"%s\"}", s.url, spool);
	put(cfg, text);
	ks_free(text);
	{
		/* the endpoint and spool come only from the config file */
		const char *a[] = { "--upload-config", cfg, "--upload-mode", "native", good, NULL };
		KT_EQ_INT(cli(a), 0);
		KT_ASSERT(file_has(g_out, "uploaded to"));
		KT_ASSERT(file_has(g_out, "/submit"));
	}
	{
		const char *a[] = { "--config", cfg, "--mode", "native", good, NULL };
		KT_EQ_INT(cli(a), 0);
		KT_ASSERT(file_has(g_out, "already uploaded"));
	}
	{
		const char *a[] = { "--upload-config", cfg, "--upload-mode", "grpc", good, NULL };
		KT_EQ_INT(cli(a), 64);
		KT_ASSERT(file_has(g_err, "--upload-mode must be native or gradio"));
	}
	{
		const char *a[] = { "--help", NULL };
		KT_EQ_INT(cli(a), 0);
		KT_ASSERT(file_has(g_out, "--upload-config FILE"));
		KT_ASSERT(file_has(g_out, "--upload-mode MODE"));
	}
	server_stop(&s);
	ks_free(cfg);
	ks_free(spool);
	ks_free(good);
}

static const kt_test tests[] = {
	KT(test_native_payload_fields_and_key),
	KT(test_team_override_changes_the_key),
	KT(test_500_is_retried_with_the_same_key),
	KT(test_429_retry_after_is_honoured_and_capped),
	KT(test_retry_after_as_http_date),
	KT(test_401_fails_at_once_and_the_token_appears_nowhere),
	KT(test_400_fails_at_once_naming_endpoint_status_and_body),
	KT(test_large_reply_is_capped),
	KT(test_stall_hits_the_total_timeout),
	KT(test_refused_connection_is_retried_with_backoff),
	KT(test_failed_upload_is_spooled_then_sent_by_pending_then_skipped),
	KT(test_pending_failure_updates_the_file),
	KT(test_gradio_complete),
	KT(test_gradio_error_and_unfinished_stream_fail),
	KT(test_gradio_post_without_event_id_fails),
	KT(test_bad_records_are_refused_naming_file_and_field),
	KT(test_optional_fields_may_be_missing),
	KT(test_shared_gpu_timings_are_flagged_in_the_payload),
	KT(test_endpoint_rules),
	KT(test_https_verification_is_always_on),
	KT(test_setup_merges_config_and_command_line),
	KT(test_cli_exit_codes_and_outputs),
	KT(test_cli_takes_the_upload_option_names_of_score),
	{ NULL, NULL }
};

KT_MAIN("upload", tests)
