/* Tests of paths: where the reference problems and the cache are found. */
#include "ktest.h"
#include "load/paths.h"
#include "util/fsutil.h"
#include "util/mem.h"

static void test_refs_are_found_in_order(void)
{
	char *s;
	setenv("KSCORE_REFS", "/from/env", 1);
	s = ks_paths_find_refs("given");
	KT_EQ_STR(s, "given");
	ks_free(s);
	s = ks_paths_find_refs(NULL);
	KT_EQ_STR(s, "/from/env");
	ks_free(s);
	unsetenv("KSCORE_REFS");
	/* ./reference_tests of the working folder */
	KT_ASSERT(chdir(kt_tmpdir()) == 0);
	ks_fs_mkdir_p("reference_tests", 0755);
	s = ks_paths_find_refs(NULL);
	KT_EQ_STR(s, "reference_tests");
	ks_free(s);
	/* else beside the executable: build/test/test_paths finds the source tree's ../../ copy */
	KT_ASSERT(rmdir("reference_tests") == 0);
	s = ks_paths_find_refs(NULL);
	KT_ASSERT(s != NULL);
	KT_ASSERT(s[0] == '/');
	KT_ASSERT(ks_fs_is_dir(s));
	KT_CONTAINS(s, "/../../reference_tests");
	ks_free(s);
}

static void test_cache_folder(void)
{
	char *s;
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	s = ks_paths_default_cache();
	KT_EQ_STR(s, "/xdg/kscore");
	ks_free(s);
	setenv("XDG_CACHE_HOME", "", 1);
	setenv("HOME", "/home/u", 1);
	s = ks_paths_default_cache();
	KT_EQ_STR(s, "/home/u/.cache/kscore");
	ks_free(s);
	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	KT_ASSERT(ks_paths_default_cache() == NULL);
}

static const kt_test tests[] = {
	KT(test_refs_are_found_in_order),
	KT(test_cache_folder),
	{ NULL, NULL }
};

KT_MAIN("paths", tests)
