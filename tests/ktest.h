/* ktest: the project's minimal unit-test runner. Each test runs in its own forked child with a
 * time limit and a fresh temporary directory, so a crash or hang in one test is reported as that
 * test's failure and the others still run. A test binary ends with the line
 *     <binary>: N passed, N failed, N skipped
 * and tests/run.sh adds the lines of all binaries into the suite's final line. */
#ifndef KTEST_H
#define KTEST_H


#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
	const char *name;
	void (*fn)(void);
} kt_test;

#define KT(fn) { #fn, fn }
#define KT_SKIP_CODE 77

static char kt__tmp[4096];
static const char *kt__name;

/* A fresh empty directory owned by the running test (removed afterwards). */
static inline const char *kt_tmpdir(void)
{
	return kt__tmp;
}

#define KT_FAIL(...)                                                                         \
	do {                                                                                 \
		fprintf(stderr, "FAIL %s: %s:%d: ", kt__name, __FILE__, __LINE__);           \
		fprintf(stderr, __VA_ARGS__);                                                \
		fprintf(stderr, "\n");                                                       \
		exit(1);                                                                     \
	} while (0)

#define KT_ASSERT(c)                                                                         \
	do {                                                                                 \
		if (!(c))                                                                    \
			KT_FAIL("assertion failed: %s", #c);                                 \
	} while (0)

#define KT_ASSERT_MSG(c, ...)                                                                \
	do {                                                                                 \
		if (!(c))                                                                    \
			KT_FAIL(__VA_ARGS__);                                                \
	} while (0)

#define KT_EQ_INT(a, b)                                                                      \
	do {                                                                                 \
		long long kt_a = (long long)(a), kt_b = (long long)(b);                      \
		if (kt_a != kt_b)                                                            \
			KT_FAIL("%s == %lld, expected %s == %lld", #a, kt_a, #b, kt_b);     \
	} while (0)

#define KT_EQ_STR(a, b)                                                                      \
	do {                                                                                 \
		const char *kt_a = (a), *kt_b = (b);                                         \
		if (!kt_a || !kt_b || strcmp(kt_a, kt_b) != 0)                               \
			KT_FAIL("%s == \"%s\", expected \"%s\"", #a, kt_a ? kt_a : "(null)", \
				kt_b ? kt_b : "(null)");                                     \
	} while (0)

#define KT_NEAR(a, b, tol)                                                                   \
	do {                                                                                 \
		double kt_a = (a), kt_b = (b);                                               \
		if (!(fabs(kt_a - kt_b) <= (tol)))                                           \
			KT_FAIL("%s == %.12g, expected %.12g (tolerance %g)", #a, kt_a, kt_b, \
				(double)(tol));                                              \
	} while (0)

#define KT_CONTAINS(hay, needle)                                                             \
	do {                                                                                 \
		const char *kt_h = (hay), *kt_n = (needle);                                  \
		if (!kt_h || !strstr(kt_h, kt_n))                                            \
			KT_FAIL("%s does not contain \"%s\" (it is: \"%.400s\")", #hay, kt_n,   \
				kt_h ? kt_h : "(null)");                                     \
	} while (0)

#define KT_NOT_CONTAINS(hay, needle)                                                         \
	do {                                                                                 \
		const char *kt_h = (hay), *kt_n = (needle);                                  \
		if (kt_h && strstr(kt_h, kt_n))                                              \
			KT_FAIL("%s contains \"%s\"", #hay, kt_n);                            \
	} while (0)

/* Ends the current test as skipped, with the reason printed by name. */
#define KT_SKIP(...)                                                                         \
	do {                                                                                 \
		fprintf(stderr, "SKIP %s: ", kt__name);                                      \
		fprintf(stderr, __VA_ARGS__);                                                \
		fprintf(stderr, "\n");                                                       \
		exit(KT_SKIP_CODE);                                                          \
	} while (0)

static inline void kt__rm(const char *dir)
{
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", dir);
}

static inline int kt_run(const char *binary, const kt_test *tests, int argc, char **argv)
{
	int passed = 0, failed = 0, skipped = 0;
	const char *only = argc > 1 ? argv[1] : NULL;
	const char *tl = getenv("KT_TIMEOUT");
	int timeout = tl ? atoi(tl) : 120;
	const kt_test *t;

	for (t = tests; t->name; t++) {
		pid_t pid;
		int st = 0;
		if (only && !strstr(t->name, only))
			continue;
		snprintf(kt__tmp, sizeof(kt__tmp), "/tmp/ktest-%s-XXXXXX", binary);
		if (!mkdtemp(kt__tmp)) {
			perror("mkdtemp");
			return 2;
		}
		kt__name = t->name;
		fflush(stdout);
		fflush(stderr);
		pid = fork();
		if (pid == 0) {
			setpgid(0, 0);
			alarm((unsigned)timeout);
			t->fn();
			exit(0);
		}
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		kill(-pid, SIGKILL);
		kt__rm(kt__tmp);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			passed++;
			fprintf(stderr, "PASS %s\n", t->name);
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == KT_SKIP_CODE) {
			skipped++;
		} else {
			failed++;
			if (WIFSIGNALED(st))
				fprintf(stderr, "FAIL %s: killed by signal %d%s\n", t->name,
					WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
			else if (WIFEXITED(st) && WEXITSTATUS(st) != 1)
				fprintf(stderr, "FAIL %s: exit status %d\n", t->name, WEXITSTATUS(st));
		}
	}
	printf("%s: %d passed, %d failed, %d skipped\n", binary, passed, failed, skipped);
	return failed ? 1 : 0;
}

#define KT_MAIN(binary, table)                                                               \
	int main(int argc, char **argv)                                                      \
	{                                                                                    \
		return kt_run(binary, table, argc, argv);                                    \
	}

/* Writes a small fixture file in the test's temporary directory; returns its path (static). */
static inline const char *kt_write(const char *name, const void *data, size_t len)
{
	static char path[4096 + 256];
	FILE *f;
	snprintf(path, sizeof(path), "%s/%s", kt__tmp, name);
	f = fopen(path, "wb");
	if (!f)
		KT_FAIL("cannot write %s", path);
	if (len && fwrite(data, 1, len, f) != len)
		KT_FAIL("short write %s", path);
	fclose(f);
	return path;
}

/* A process id that no longer exists: a child that has exited and been waited for (for what a
 * killed process leaves behind). */
static inline long kt_dead_pid(void)
{
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	if (p < 0 || waitpid(p, NULL, 0) != p)
		KT_FAIL("fork");
	return (long)p;
}

#endif
