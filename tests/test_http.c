/* Tests of http, the HTTP client under upload: statuses, retries and their waits, caps and
 * timeouts, the Gradio event stream (SSE), the endpoint rules and TLS verification. They run
 * through ks_upload_result_dir against the loopback server of httptest.h. */
#include "httptest.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>

/* ---- statuses, retries, caps and timeouts ---- */

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

/* ---- endpoint rules and TLS ---- */

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

static const kt_test tests[] = {
	KT(test_500_is_retried_with_the_same_key),
	KT(test_429_retry_after_is_honoured_and_capped),
	KT(test_retry_after_as_http_date),
	KT(test_401_fails_at_once_and_the_token_appears_nowhere),
	KT(test_400_fails_at_once_naming_endpoint_status_and_body),
	KT(test_large_reply_is_capped),
	KT(test_stall_hits_the_total_timeout),
	KT(test_refused_connection_is_retried_with_backoff),
	KT(test_gradio_complete),
	KT(test_gradio_error_and_unfinished_stream_fail),
	KT(test_gradio_post_without_event_id_fails),
	KT(test_endpoint_rules),
	KT(test_https_verification_is_always_on),
	{ NULL, NULL }
};

KT_MAIN("http", tests)
