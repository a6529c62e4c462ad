/* compiletest: the freshly built compile helper for the tests that compile (test_compat.c,
 * test_cubin.c, test_compile.c). Static functions: include once per test file. */
#ifndef KS_COMPILETEST_H
#define KS_COMPILETEST_H

#include "ktest.h"
#include "lang/cuda/compile.h"
#include "util/sandbox.h"

#include <unistd.h>

/* $KSCORE_LIBEXEC/kscore-compile, once kt_helper_opts has run */
static char g_helper[4200];

/* Options with the freshly built helper, timeout_s seconds, 4 GiB and 2 jobs. Skips the test where
 * the helper is not built, and, with need_landlock, where Landlock is missing (the helper then
 * refuses untrusted sources). */
static inline ks_compile_options kt_helper_opts(int timeout_s, int need_landlock)
{
	ks_compile_options o = KS_COMPILE_OPTIONS_INIT;
	const char *dir = getenv("KSCORE_LIBEXEC");

	if (!dir)
		KT_SKIP("KSCORE_LIBEXEC is not set (run through tests/run.sh)");
	snprintf(g_helper, sizeof(g_helper), "%s/kscore-compile", dir);
	if (access(g_helper, X_OK) != 0)
		KT_SKIP("%s is not built", g_helper);
	if (need_landlock && !ks_sandbox_available())
		KT_SKIP("Landlock is not available: compiles are refused");
	o.helper = g_helper;
	o.timeout_s = timeout_s;
	o.memory_mb = 4096;
	o.jobs = 2;
	return o;
}

#endif
