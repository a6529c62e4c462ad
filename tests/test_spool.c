/* Tests of spool: upload's records of what it sent and what waits to be sent. */
#include "ktest.h"
#include "httptest.h"
#include "upload/spool.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#define KEY "85c7d464ec5332357b274a0aa536f9a74309606ec5f38a2dc2e879190c2ebc6a"
#define EP1 "https://lb.example.com/submit"
#define EP2 "https://other.example.com/submit"

static cJSON *payload(void)
{
	cJSON *p = cJSON_CreateObject(), *s;
	cJSON_AddStringToObject(p, "team", "foo");
	s = cJSON_AddObjectToObject(p, "submission");
	cJSON_AddStringToObject(s, "sha256", "abc");
	return p;
}

static void test_sent_records_list_each_target_once(void)
{
	char *spool = ks_asprintf("%s/spool", kt_tmpdir()), when[32] = "", *path;
	cJSON *p = payload(), *rec = NULL;

	KT_EQ_INT(ks_spool_sent_find(when, spool, KEY, EP1, "native"), 0);
	KT_EQ_INT(ks_spool_sent_add(spool, KEY, p, EP1, "native", 201, 2), 0);
	KT_EQ_INT(ks_spool_sent_find(when, spool, KEY, EP1, "native"), 1);
	KT_EQ_INT(strlen(when), 20); /* 2026-01-01T00:00:00Z */
	KT_EQ_INT(ks_spool_sent_find(when, spool, KEY, EP1, "gradio"), 0); /* another mode */
	KT_EQ_INT(ks_spool_sent_find(when, spool, KEY, EP2, "native"), 0);
	KT_EQ_INT(ks_spool_sent_add(spool, KEY, p, EP2, "native", 200, 1), 0);
	path = ks_asprintf("%s/sent/%s.json", spool, KEY);
	KT_EQ_INT(ks_spool_read(&rec, path), 0);
	KT_EQ_STR(cJSON_GetObjectItem(rec, "schema")->valuestring, "kscore.upload-sent/1");
	KT_EQ_STR(cJSON_GetObjectItem(rec, "team")->valuestring, "foo");
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(rec, "uploads")), 2);
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(rec, "uploads"), 0),
				      "attempts")->valueint, 2);
	cJSON_Delete(rec);
	cJSON_Delete(p);
	ks_free(path);
	ks_free(spool);
}

static void test_pending_files_per_target(void)
{
	char *spool = ks_asprintf("%s/spool", kt_tmpdir()), *p1, *p2, *again;
	cJSON *p = payload(), *rec = NULL;

	KT_EQ_INT(ks_spool_mkdir(spool, "pending"), 0);
	p1 = ks_spool_pending_path(spool, KEY, EP1, "native");
	KT_CONTAINS(p1, "/pending/" KEY ".json");
	KT_EQ_INT(ks_spool_pending_write(p1, NULL, p, KEY, EP1, "native", "res/dir", 3, 503, "busy"), 0);
	/* the same result bound elsewhere gets a name of its own; the same target reuses the file */
	p2 = ks_spool_pending_path(spool, KEY, EP2, "native");
	KT_ASSERT(strcmp(p1, p2));
	KT_CONTAINS(p2, "/pending/" KEY "-");
	again = ks_spool_pending_path(spool, KEY, EP1, "native");
	KT_EQ_STR(again, p1);
	KT_EQ_INT(ks_spool_pending_write(p2, NULL, p, KEY, EP2, "native", "res/dir", 1, 0, "refused"), 0);
	/* a retry adds its attempts and keeps the first failure's time and source */
	KT_EQ_INT(ks_spool_read(&rec, p1), 0);
	KT_EQ_INT(ks_spool_pending_write(p1, rec, p, KEY, EP1, "native", "elsewhere", 2, 500, "again"), 0);
	cJSON_Delete(rec);
	rec = NULL;
	KT_EQ_INT(ks_spool_read(&rec, p1), 0);
	KT_EQ_STR(cJSON_GetObjectItem(rec, "schema")->valuestring, "kscore.upload-pending/1");
	KT_EQ_INT(cJSON_GetObjectItem(rec, "attempts")->valueint, 5);
	KT_EQ_STR(cJSON_GetObjectItem(rec, "source")->valuestring, "res/dir");
	KT_EQ_STR(cJSON_GetObjectItem(rec, "last_error")->valuestring, "again");
	KT_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(rec, "payload")));
	cJSON_Delete(rec);
	/* a success removes only that target's copy */
	ks_spool_pending_remove(spool, KEY, EP1, "native");
	KT_ASSERT(!ks_fs_exists(p1));
	KT_ASSERT(ks_fs_exists(p2));
	cJSON_Delete(p);
	ks_free(again);
	ks_free(p1);
	ks_free(p2);
	ks_free(spool);
}

static void test_one_sender_at_a_time(void)
{
	char *spool = ks_asprintf("%s/spool", kt_tmpdir());
	int a = -1, b = -1;
	ks_fs_mkdir_p(spool, 0700);
	KT_EQ_INT(ks_spool_lock(&a, spool), 0);
	KT_ASSERT(a >= 0);
	/* flock locks belong to the open file: a second open in this process is refused too */
	KT_EQ_INT(ks_spool_lock(&b, spool), KS_EIO);
	KT_CONTAINS(ks_error_msg(), "another upload --pending is running");
	KT_EQ_INT(b, -1);
	close(a);
	KT_EQ_INT(ks_spool_lock(&b, spool), 0);
	close(b);
	ks_free(spool);
}

static void test_default_folder(void)
{
	char *d;
	setenv("XDG_STATE_HOME", "/state", 1);
	d = ks_spool_default_dir();
	KT_EQ_STR(d, "/state/kscore/spool");
	ks_free(d);
	setenv("XDG_STATE_HOME", "relative", 1); /* XDG: ignored */
	setenv("HOME", "/home/u", 1);
	d = ks_spool_default_dir();
	KT_EQ_STR(d, "/home/u/.local/state/kscore/spool");
	ks_free(d);
}

/* ---- through upload: a failed upload is spooled, --pending sends it (httptest.h's server) ---- */

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

static const kt_test tests[] = {
	KT(test_sent_records_list_each_target_once),
	KT(test_pending_files_per_target),
	KT(test_one_sender_at_a_time),
	KT(test_default_folder),
	KT(test_failed_upload_is_spooled_then_sent_by_pending_then_skipped),
	KT(test_pending_failure_updates_the_file),
	{ NULL, NULL }
};

KT_MAIN("spool", tests)
