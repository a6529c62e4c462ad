/* Tests of upload: the payload and its idempotency key, the records it refuses and the `score
 * upload` command, against the loopback server of httptest.h. The HTTP client's own behaviour
 * (retries, statuses, SSE, TLS) is tested in test_http.c, the spool's in test_spool.c, the
 * config's in test_upload_setup.c. */
#include "httptest.h"
#include "cli/cmd.h"

#define SUB_SHA "5d41402abc4b2a76b9719d911017c592ae3b7d4e2a9f4c1e0a1b2c3d4e5f6a7b"
#define DEV_UUID "GPU-8c3a6e0e-1d2b-4c5d-9e8f-0a1b2c3d4e5f"

/* Idempotency keys of the fixture, computed independently (Python's hashlib) from the documented
 * recipe: SHA-256 over each of team, submission sha256, scorer version, device uuid as an 8-byte
 * little-endian length and the bytes. */
#define KEY_FOO "85c7d464ec5332357b274a0aa536f9a74309606ec5f38a2dc2e879190c2ebc6a"
#define KEY_BAR "0d785d87c77b9e341c91e63610baf029bb10d6a252c47c9485bd1cf48227f85c"
#define KEY_FOO_NO_DEVICE "ec4044d7378fa0d1ce5d4445bc6081bf64e977655614f70af549b1d0b1c5641d"

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
	KT(test_bad_records_are_refused_naming_file_and_field),
	KT(test_optional_fields_may_be_missing),
	KT(test_shared_gpu_timings_are_flagged_in_the_payload),
	KT(test_cli_exit_codes_and_outputs),
	KT(test_cli_takes_the_upload_option_names_of_score),
	{ NULL, NULL }
};

KT_MAIN("upload", tests)
