/* toolrun: the parts of a run under a tool that need no GPU: its private folder, and reading a
 * tool's log from where the kernel before it left off (a kept worker's log grows across kernels).
 * The runs themselves are in the GPU suite (test_gpu.c, the sanitizer tests). */
#include "ktest.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "nvtool/toolrun.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void test_toolrun_reads_a_log_from_an_offset(void)
{
	char *p = ks_path_join(kt_tmpdir(), "log"), *t;
	const char *text = "========= COMPUTE-SANITIZER\n========= Invalid __global__ write\n";
	size_t len = 99;
	KT_ASSERT(ks_fs_write_atomic(p, text, strlen(text)) == 0);
	t = ks_toolrun_read_from(p, 0, 1024, &len);
	KT_EQ_STR(t, text);
	KT_ASSERT(len == strlen(text));
	ks_free(t);
	t = ks_toolrun_read_from(p, 28, 1024, &len);
	KT_EQ_STR(t, "========= Invalid __global__ write\n");
	ks_free(t);
	/* capped: a kernel cannot make kscore read a log without end */
	t = ks_toolrun_read_from(p, 28, 9, &len);
	KT_ASSERT(len == 9);
	KT_EQ_STR(t, "=========");
	ks_free(t);
	/* past the end, and a log the tool never wrote: nothing */
	t = ks_toolrun_read_from(p, 4096, 1024, &len);
	KT_EQ_STR(t, "");
	KT_ASSERT(len == 0);
	ks_free(t);
	ks_free(p);
	p = ks_path_join(kt_tmpdir(), "absent");
	t = ks_toolrun_read_from(p, 0, 1024, &len);
	KT_EQ_STR(t, "");
	KT_ASSERT(len == 0);
	ks_free(t);
	ks_free(p);
}

static void test_toolrun_scratch_is_private_and_under_tmpdir(void)
{
	char *old = getenv("TMPDIR") ? ks_strdup(getenv("TMPDIR")) : NULL, *d;
	struct stat st;
	setenv("TMPDIR", kt_tmpdir(), 1);
	d = ks_toolrun_scratch();
	KT_ASSERT(d != NULL);
	KT_ASSERT(!strncmp(d, kt_tmpdir(), strlen(kt_tmpdir())));
	KT_ASSERT(stat(d, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 077) == 0);
	KT_ASSERT(ks_fs_rm_rf(d) == 0);
	ks_free(d);
	/* a TMPDIR the tools would misread in --log-file ('%') or a relative one: /tmp instead */
	setenv("TMPDIR", "rel/dir", 1);
	d = ks_toolrun_scratch();
	KT_ASSERT(d && !strncmp(d, "/tmp/kscore-nvtool-", 19));
	ks_fs_rm_rf(d);
	ks_free(d);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	ks_free(old);
}

static const kt_test tests[] = {
	KT(test_toolrun_reads_a_log_from_an_offset),
	KT(test_toolrun_scratch_is_private_and_under_tmpdir),
	{ 0 }
};

KT_MAIN("toolrun", tests)
