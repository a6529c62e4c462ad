/* fsutil tests: atomic writes from several threads of one process (lane threads writing one cache
 * entry at once) never leave a mixed or truncated file and never fail; rm -rf stays in its tree. */
#include "ktest.h"
#include "util/fsutil.h"
#include "util/errors.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define BIG (1u << 20)

typedef struct {
	const char *path;
	char fill;
	int failures;
} writer;

static void *write_many(void *arg)
{
	writer *w = arg;
	char *buf = ks_malloc(BIG);
	int i;
	memset(buf, w->fill, BIG);
	for (i = 0; i < 40; i++)
		if (ks_fs_write_atomic(w->path, buf, BIG) < 0)
			w->failures++;
	ks_free(buf);
	return NULL;
}

static void test_atomic_writes_from_two_threads_never_mix(void)
{
	char path[4200], *text = NULL;
	writer a = { NULL, 'a', 0 }, b = { NULL, 'b', 0 };
	pthread_t ta, tb;
	size_t len = 0, i;
	snprintf(path, sizeof(path), "%s/entry", kt_tmpdir());
	a.path = b.path = path;
	KT_EQ_INT(pthread_create(&ta, NULL, write_many, &a), 0);
	KT_EQ_INT(pthread_create(&tb, NULL, write_many, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	KT_EQ_INT(a.failures + b.failures, 0);
	KT_EQ_INT(ks_fs_read(&text, &len, path, 2 * BIG), 0);
	KT_EQ_INT(len, BIG);
	for (i = 1; i < len; i++)
		KT_ASSERT_MSG(text[i] == text[0], "byte %zu is %c, byte 0 is %c: two writes mixed", i, text[i], text[0]);
	ks_free(text);
}

/* rm -rf of a tree a confined helper wrote (the Triton trace's private folder): links inside it,
 * to a folder and to a file outside, are removed themselves, and what they point to stays. */
static void test_rm_rf_never_follows_links_out_of_the_tree(void)
{
	char tree[4200], outside[4200], p[4400], q[4400];
	snprintf(tree, sizeof(tree), "%s/tree", kt_tmpdir());
	snprintf(outside, sizeof(outside), "%s/outside", kt_tmpdir());
	snprintf(p, sizeof(p), "%s/a/b/c", tree);
	KT_EQ_INT(ks_fs_mkdir_p(p, 0700), 0);
	KT_EQ_INT(ks_fs_mkdir_p(outside, 0700), 0);
	snprintf(q, sizeof(q), "%s/keep.txt", outside);
	KT_EQ_INT(ks_fs_write_atomic(q, "keep", 4), 0);
	snprintf(p, sizeof(p), "%s/a/b/c/file", tree);
	KT_EQ_INT(ks_fs_write_atomic(p, "x", 1), 0);
	snprintf(p, sizeof(p), "%s/a/to-dir", tree);
	KT_EQ_INT(symlink(outside, p), 0);
	snprintf(p, sizeof(p), "%s/a/b/to-file", tree);
	KT_EQ_INT(symlink(q, p), 0);
	KT_EQ_INT(ks_fs_rm_rf(tree), 0);
	KT_ASSERT(!ks_fs_exists(tree));
	KT_ASSERT(ks_fs_exists(q));
	/* a link given as the path is removed, not followed */
	snprintf(p, sizeof(p), "%s/link", kt_tmpdir());
	KT_EQ_INT(symlink(outside, p), 0);
	KT_EQ_INT(ks_fs_rm_rf(p), 0);
	KT_ASSERT(ks_fs_exists(q));
	KT_EQ_INT(ks_fs_rm_rf(outside), 0);
	KT_ASSERT(!ks_fs_exists(outside));
}

static const kt_test tests[] = {
	KT(test_atomic_writes_from_two_threads_never_mix),
	KT(test_rm_rf_never_follows_links_out_of_the_tree),
	{ 0 }
};
KT_MAIN("fsutil", tests)
