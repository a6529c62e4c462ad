/* score_example: scores one submission file through libkscore's public API alone (include/kscore.h),
 * the way a leaderboard service or an organizer's own tool embeds the scorer.
 *
 *     score_example SUBMISSION OUT_DIR [REFS]
 *
 * It opens a session (the GPU when there is one, else compile-only), scores the file into OUT_DIR,
 * reads the result folder back and prints one line per kernel. Exit status: 0 scored, 1 the
 * submission or the result could not be read or written, 2 usage. Built and run by `make test`
 * (tests/install.sh) against the installed header and `pkg-config --cflags --libs kscore`. */
#include <kscore.h>

#include <stdio.h>

int main(int argc, char **argv)
{
	kscore_session_options so = KSCORE_SESSION_OPTIONS_INIT;
	kscore_summary sum = KSCORE_SUMMARY_INIT;
	kscore_session *session = NULL;
	kscore_result *result = NULL;
	size_t i;
	int rc = 1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: score_example SUBMISSION OUT_DIR [REFS]\n");
		return 2;
	}
	printf("libkscore %s (header %s)\n", kscore_version(), KSCORE_VERSION);
	so.refs = argc == 4 ? argv[3] : NULL;
	so.quiet = 1;
	if (kscore_session_open(&session, &so) < 0) {
		fprintf(stderr, "score_example: %s\n", kscore_error_message());
		goto done;
	}
	if (kscore_session_score(&sum, session, argv[1], "example", argv[2]) < 0) {
		fprintf(stderr, "score_example: %s: %s\n", argv[1], kscore_error_message());
		goto done;
	}
	printf("%s: %zu kernels, %zu correct, compile accuracy %.2f, mode %s\n", argv[1], sum.kernels, sum.correct,
	       sum.compile_accuracy, kscore_session_has_gpu(session) ? "gpu" : "compile-only");
	if (kscore_result_open(&result, argv[2]) < 0) {
		fprintf(stderr, "score_example: %s\n", kscore_error_message());
		goto done;
	}
	for (i = 0; i < kscore_result_kernels(result); i++) {
		kscore_kernel k;
		if (kscore_result_kernel(&k, result, i) == 0)
			printf("  %-24s %-7s compiled=%d exec=%d %s\n", k.problem, k.language, k.compiled, k.exec,
			       k.reason);
	}
	rc = 0;
done:
	kscore_result_free(result);
	kscore_session_close(session);
	return rc;
}
