/* fuzz.h: what the libFuzzer targets under fuzz/ share (docs/fuzzing.md).
 *
 * Each target feeds one input to one parser of untrusted data, then checks the parser's documented
 * contract (an error has a message, an accepted value survives a round trip, ...). A broken
 * contract aborts, so libFuzzer reports it like a crash and keeps the input. Targets never spawn
 * processes and never touch the network; the problem-spec target writes one small folder under
 * $TMPDIR, nothing else touches the filesystem. */
#ifndef KS_FUZZ_H
#define KS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/errors.h"
#include "load/launch.h"
#include "util/mem.h"
#include "load/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A broken contract: say which and abort (libFuzzer saves the input as a crash). */
#define FZ_CHECK(cond, ...)                                                                    \
	do {                                                                                   \
		if (!(cond)) {                                                                 \
			fprintf(stderr, "fuzz contract broken at %s:%d: %s: ", __FILE__,       \
				__LINE__, #cond);                                              \
			fprintf(stderr, __VA_ARGS__);                                          \
			fprintf(stderr, "\n");                                                 \
			abort();                                                               \
		}                                                                              \
	} while (0)

/* The input as a C string (cut at its first NUL, as a C caller would see it). Caller frees. */
static inline char *fz_cstr(const uint8_t *data, size_t size)
{
	char *s = ks_malloc(size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A failing call must leave a message that says why (errors.h). With KSCORE_FUZZ_VERBOSE=1 the
 * message is printed, to see where an input stops when triaging it. */
static inline void fz_check_error(int rc)
{
	const char *v = getenv("KSCORE_FUZZ_VERBOSE");
	FZ_CHECK(rc <= 0, "return value %d", rc);
	if (rc < 0) {
		FZ_CHECK(*ks_error_msg(), "error %d without a message", rc);
		if (v && *v && strcmp(v, "0"))
			fprintf(stderr, "fuzz: error %d: %s\n", rc, ks_error_msg());
	}
}

/* The repository root the targets read reference problems from: $KSCORE_ROOT, else the working
 * directory (the make rules run targets from the root). */
static inline const char *fz_root(void)
{
	const char *r = getenv("KSCORE_ROOT");
	return r && *r ? r : ".";
}

/* common.c: checks shared by several targets */

/* A parsed launch plan survives ks_launch_to_json -> text -> ks_launch_parse_text unchanged (the
 * plan a result records must read back as the plan that ran), and ks_launch_copy is exact. */
void fz_check_launch_roundtrip(const ks_launch *l);

/* Known bugs, reported but not yet fixed, would stop every run at the same place. Each is detected
 * at start-up with a probe and then let pass, so that fuzzing goes on past it; once the fix is
 * merged the probe finds nothing and the target is strict again by itself. With
 * KSCORE_FUZZ_STRICT=1 in the environment no probe finds anything (fuzz/run.sh replays the
 * reproducers of open bugs, fuzz/regress/<target>/open-*, that way). Each probe prints one line
 * when it finds its bug. */
int fz_strict(void);

/* The evaluator raises a power by repeated multiplication, so "1 ** 9223372036854775807" never
 * returns (issue 9, item 2). While it does, fz_skip_pow() is true for inputs holding "**". */
int fz_pow_hangs(void);
int fz_skip_pow(const uint8_t *data, size_t size);

/* A built plan is consistent (indices in range, sizes as counted) and survives
 * ks_plan_to_json -> ks_plan_from_json unchanged, as it does on its way to a GPU worker. */
void fz_check_plan(const ks_plan *plan, const ks_launch *l);

/* Builds launch plan l of problem p for case c (env from ks_problem_env; input seed 7, poison
 * variant `variant`); a failure must carry a message (fz_check_error), a plan that builds must
 * pass fz_check_plan. Owns nothing it is given. */
void fz_build_and_check_plan(const ks_problem *p, const ks_launch *l, const ks_case *c,
			     const ks_env *env, int variant);

#endif
