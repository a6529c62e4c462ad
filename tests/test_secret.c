/* Tests of secret: loading a token, scrubbing it from messages, wiping it. */
#include "ktest.h"
#include "util/secret.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#define TOKEN "tok-S3CRET-7f1e9a0c4b2d8e6f"

static char *tmp(const char *name)
{
	return ks_asprintf("%s/%s", kt_tmpdir(), name);
}

static void put(const char *path, const char *text)
{
	if (ks_fs_write_atomic(path, text, strlen(text)) < 0)
		KT_FAIL("cannot write %s: %s", path, ks_error_msg());
}

static void test_load_from_file_and_environment(void)
{
	char *tok = NULL, *f = tmp("token");
	int loose = -1;

	put(f, "  " TOKEN "  \r\nsecond line\n");
	chmod(f, 0600);
	KT_EQ_INT(ks_secret_load(&tok, &loose, f, NULL), 0);
	KT_EQ_STR(tok, TOKEN);
	KT_EQ_INT(loose, 0);
	ks_secret_free(tok);

	chmod(f, 0644);
	KT_EQ_INT(ks_secret_load(&tok, &loose, f, NULL), 0);
	KT_EQ_INT(loose, 1);
	ks_secret_free(tok);

	put(f, "\n\n");
	KT_EQ_INT(ks_secret_load(&tok, &loose, f, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "empty");

	put(f, "tok en\n");
	KT_EQ_INT(ks_secret_load(&tok, &loose, f, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "cannot go in an HTTP header");
	KT_NOT_CONTAINS(ks_error_msg(), "tok en");

	KT_EQ_INT(ks_secret_load(&tok, &loose, "/nonexistent/token", NULL), KS_ENOTFOUND);

	/* from the environment: read once, then gone */
	setenv("KS_TEST_SECRET", TOKEN, 1);
	KT_EQ_INT(ks_secret_load(&tok, &loose, NULL, "KS_TEST_SECRET"), 0);
	KT_EQ_STR(tok, TOKEN);
	KT_ASSERT(getenv("KS_TEST_SECRET") == NULL);
	ks_secret_free(tok);

	/* a file wins over the variable, and the variable is removed all the same */
	put(f, "from-file\n");
	setenv("KS_TEST_SECRET", TOKEN, 1);
	KT_EQ_INT(ks_secret_load(&tok, &loose, f, "KS_TEST_SECRET"), 0);
	KT_EQ_STR(tok, "from-file");
	KT_ASSERT(getenv("KS_TEST_SECRET") == NULL);
	ks_secret_free(tok);

	KT_EQ_INT(ks_secret_load(&tok, &loose, NULL, "KS_TEST_SECRET"), 0);
	KT_ASSERT(tok == NULL);
	ks_free(f);
}

static void test_scrub_replaces_every_occurrence_with_one_marker(void)
{
	char *m = ks_secret_scrub(ks_strdup("Bearer " TOKEN " rejected; " TOKEN "!"), TOKEN);
	KT_EQ_STR(m, "Bearer " KS_SECRET_MARKER " rejected; " KS_SECRET_MARKER "!");
	ks_free(m);
	/* the marker is the same for upload's token and for the user information of a git URL */
	m = ks_secret_scrub(ks_strdup("fetch https://x-access:ghp_abcd@host/r.git failed"),
			    "x-access:ghp_abcd@");
	KT_EQ_STR(m, "fetch https://[token]host/r.git failed");
	ks_free(m);
	m = ks_secret_scrub(ks_strdup(TOKEN), TOKEN);
	KT_EQ_STR(m, "[token]");
	ks_free(m);
}

static void test_scrub_without_a_secret_keeps_the_message(void)
{
	char *in = ks_strdup("nothing to hide"), *m;
	KT_ASSERT(ks_secret_scrub(in, NULL) == in);
	KT_ASSERT(ks_secret_scrub(in, "") == in);
	m = ks_secret_scrub(in, "absent");
	KT_ASSERT(m == in);
	KT_EQ_STR(m, "nothing to hide");
	ks_free(m);
	KT_ASSERT(ks_secret_scrub(NULL, TOKEN) == NULL);
}

static void test_wipe_clears_the_bytes(void)
{
	char b[8] = "secret!";
	size_t i;
	ks_secret_wipe(b, sizeof(b));
	for (i = 0; i < sizeof(b); i++)
		KT_EQ_INT(b[i], 0);
	ks_secret_wipe(NULL, 0);
	ks_secret_free(NULL);
}

static const kt_test tests[] = {
	KT(test_load_from_file_and_environment),
	KT(test_scrub_replaces_every_occurrence_with_one_marker),
	KT(test_scrub_without_a_secret_keeps_the_message),
	KT(test_wipe_clears_the_bytes),
	{ NULL, NULL }
};

KT_MAIN("secret", tests)
