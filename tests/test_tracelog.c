/* tracelog: the KSCORE_TRACE=1 span lines that bench/trace-report.py reads (start, duration,
 * thread, what, detail), and nothing when it is off. */
#include "ktest.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "util/tracelog.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What ks_tracelog_span wrote on stderr, which goes to a file meanwhile. */
static char *spans_written(void)
{
	char *path = ks_path_join(kt_tmpdir(), "stderr"), *text = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(2);
	double t0 = ks_tracelog_ms();
	KT_ASSERT(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	ks_tracelog_span("harness-compile", "sm_90a", t0 - 250.0);
	ks_tracelog_span("lanes", NULL, t0);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	KT_EQ_INT(ks_fs_read(&text, NULL, path, 1 << 16), 0);
	ks_free(path);
	return text;
}

/* On: one line per span, in the format trace-report.py splits. In a child, since the setting is
 * read once per process. */
static void test_tracelog_lines_when_on(void)
{
	char *path = ks_path_join(kt_tmpdir(), "on.txt"), *t = NULL, *second;
	double start, dur;
	long tid;
	char what[64], detail[64];
	int st = 0;
	pid_t pid = fork();
	KT_ASSERT(pid >= 0);
	if (pid == 0) {
		char *text;
		FILE *f;
		setenv("KSCORE_TRACE", "1", 1);
		text = spans_written();
		f = fopen(path, "w");
		if (!f || fputs(text, f) < 0 || fclose(f) != 0)
			_exit(3);
		_exit(0);
	}
	KT_EQ_INT(waitpid(pid, &st, 0), pid);
	KT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 16), 0);
	KT_EQ_INT(sscanf(t, "kscore-span: %lf %lf %ld %63s %63s", &start, &dur, &tid, what, detail), 5);
	KT_EQ_STR(what, "harness-compile");
	KT_EQ_STR(detail, "sm_90a");
	KT_ASSERT(dur >= 250.0 && dur < 10000.0);
	KT_ASSERT(tid > 0);
	second = strchr(t, '\n');
	KT_ASSERT(second != NULL);
	KT_EQ_INT(sscanf(second + 1, "kscore-span: %lf %lf %ld %63s %63s", &start, &dur, &tid, what, detail), 5);
	KT_EQ_STR(what, "lanes");
	KT_EQ_STR(detail, "-"); /* no detail is a dash, so every line has five fields */
	ks_free(t);
	ks_free(path);
}

/* Off ("0", or unset): nothing is written. */
static void test_tracelog_off_writes_nothing(void)
{
	char *t;
	setenv("KSCORE_TRACE", "0", 1);
	KT_EQ_INT(ks_tracelog_on(), 0);
	t = spans_written();
	KT_EQ_STR(t, "");
	ks_free(t);
}

static void test_tracelog_clock_moves_forward(void)
{
	double a = ks_tracelog_ms(), b;
	usleep(2000);
	b = ks_tracelog_ms();
	KT_ASSERT(b - a >= 1.9 && b - a < 5000);
}

static const kt_test tests[] = {
	KT(test_tracelog_lines_when_on),
	KT(test_tracelog_off_writes_nothing),
	KT(test_tracelog_clock_moves_forward),
	{ 0 }
};
KT_MAIN("tracelog", tests)
