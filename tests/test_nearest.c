#include "ktest.h"
#include "util/nearest.h"

#include <stdint.h>
#include <string.h>

static void test_distance(void)
{
	char longer[KS_NEAREST_MAX_LEN + 2];
	KT_EQ_INT(ks_nearest_distance("", ""), 0);
	KT_EQ_INT(ks_nearest_distance("", "abc"), 3);
	KT_EQ_INT(ks_nearest_distance("abc", ""), 3);
	KT_EQ_INT(ks_nearest_distance("export", "export"), 0);
	KT_EQ_INT(ks_nearest_distance("exprot", "export"), 1);   /* a swap counts once */
	KT_EQ_INT(ks_nearest_distance("kitten", "sitting"), 3);
	KT_EQ_INT(ks_nearest_distance("Batch", "batch"), 0);     /* case is no difference */
	KT_EQ_INT(ks_nearest_distance("softmx", "softmax"), 1);
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	KT_ASSERT(ks_nearest_distance(longer, "a") == SIZE_MAX);
}

static void test_nearest_name(void)
{
	static const char *const cmds[] = { "baseline", "batch", "calibrate", "check-refs", "export",
					    "problems", "upload", NULL };
	const size_t n = sizeof(cmds) / sizeof(cmds[0]);
	KT_EQ_STR(ks_nearest_name("exprot", cmds, n), "export");
	KT_EQ_STR(ks_nearest_name("bacth", cmds, n), "batch");
	KT_EQ_STR(ks_nearest_name("problem", cmds, n), "problems");
	KT_EQ_STR(ks_nearest_name("uplod", cmds, n), "upload");
	/* too far to be a slip, or the name itself */
	KT_ASSERT(ks_nearest_name("team7", cmds, n) == NULL);
	KT_ASSERT(ks_nearest_name("x", cmds, n) == NULL);
	KT_ASSERT(ks_nearest_name("export", cmds, n) == NULL);
	KT_ASSERT(ks_nearest_name("reflexion_oneshot_tritonbench_4", cmds, n) == NULL);
}

static const kt_test tests[] = { KT(test_distance), KT(test_nearest_name), { 0 } };
KT_MAIN("nearest", tests)
