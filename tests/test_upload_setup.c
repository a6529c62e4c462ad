/* Tests of upload_setup: the upload config file merged with the command line, its mistakes named
 * by file and key, and the token read without leaking to child processes. */
#include "httptest.h"
#include "upload/upload_setup.h"

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

static const kt_test tests[] = {
	KT(test_setup_merges_config_and_command_line),
	{ NULL, NULL }
};

KT_MAIN("upload_setup", tests)
