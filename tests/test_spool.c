/* Tests of spool: upload's records of what it sent and what waits to be sent. */
#include "ktest.h"
#include "spool.h"
#include "errors.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"

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

static const kt_test tests[] = {
	KT(test_sent_records_list_each_target_once),
	KT(test_pending_files_per_target),
	KT(test_one_sender_at_a_time),
	KT(test_default_folder),
	{ NULL, NULL }
};

KT_MAIN("spool", tests)
