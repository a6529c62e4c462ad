#include "ktest.h"
#include "util/sandbox.h"
#include "util/errors.h"

#include <time.h>

static const char *const path_env[] = { "PATH=/usr/bin:/bin", NULL };

static void spawn_sh(ks_spawn_result *r, const char *script, double timeout_s)
{
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	ks_spawn_options o;

	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.envp = path_env;
	o.max_stdout = 1 << 20;
	o.max_stderr = 1 << 16;
	o.timeout_s = timeout_s;
	if (ks_spawn_run(r, &o) < 0)
		KT_FAIL("spawn failed: %s", ks_error_msg());
}

static void test_exit_codes_and_signals(void)
{
	ks_spawn_result r;

	spawn_sh(&r, "echo out; echo err >&2; exit 3", 10);
	KT_EQ_INT(r.exited, 1);
	KT_EQ_INT(r.exit_code, 3);
	KT_EQ_INT(r.signaled, 0);
	KT_EQ_INT(r.timed_out, 0);
	KT_EQ_STR(r.out, "out\n");
	KT_EQ_STR(r.err, "err\n");
	KT_ASSERT(r.seconds >= 0 && r.seconds < 5);
	ks_spawn_result_clear(&r);

	spawn_sh(&r, "kill -TERM $$; sleep 5", 10);
	KT_EQ_INT(r.signaled, 1);
	KT_EQ_INT(r.signal, SIGTERM);
	KT_EQ_INT(r.exited, 0);
	KT_EQ_INT(r.timed_out, 0);
	ks_spawn_result_clear(&r);
}

static void test_missing_program_is_an_error(void)
{
	const char *argv[] = { "/nonexistent/kscore-no-such-program", NULL };
	ks_spawn_options o;
	ks_spawn_result r;

	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.max_stdout = o.max_stderr = 1024;
	KT_ASSERT(ks_spawn_run(&r, &o) < 0);
	KT_CONTAINS(ks_error_msg(), "execve");
	KT_CONTAINS(ks_error_msg(), "No such file");
	KT_EQ_INT(r.exit_code, 127);
	ks_spawn_result_clear(&r);
}

/* Several MB through stdin and back out: only works if writes and reads are interleaved. */
static void test_stdin_delivered_without_deadlock(void)
{
	const char *argv[] = { "/bin/cat", NULL };
	size_t n = 4u << 20, i;
	char *data = malloc(n);
	ks_spawn_options o;
	ks_spawn_result r;

	for (i = 0; i < n; i++)
		data[i] = (char)('a' + (i * 7 + i / 4096) % 26);
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.stdin_data = data;
	o.stdin_len = n;
	o.max_stdout = n;
	o.max_stderr = 1024;
	o.timeout_s = 30;
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_EQ_INT(r.exited, 1);
	KT_EQ_INT(r.exit_code, 0);
	KT_EQ_INT(r.out_len, n);
	KT_EQ_INT(r.stdout_truncated, 0);
	KT_ASSERT(memcmp(r.out, data, n) == 0);
	ks_spawn_result_clear(&r);

	/* A child that never reads its stdin must not hang or kill the parent with SIGPIPE. */
	argv[0] = "/bin/true";
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_EQ_INT(r.exited, 1);
	KT_EQ_INT(r.exit_code, 0);
	KT_EQ_INT(r.timed_out, 0);
	ks_spawn_result_clear(&r);
	free(data);
}

static void test_output_caps_are_flagged(void)
{
	const char *argv[] = { "/bin/sh", "-c",
			       "head -c 300000 /dev/zero | tr '\\000' a; "
			       "head -c 5000 /dev/zero | tr '\\000' b >&2; echo done >&2", NULL };
	ks_spawn_options o;
	ks_spawn_result r;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.envp = path_env;
	o.max_stdout = 1000;
	o.max_stderr = 100;
	o.timeout_s = 10;
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_EQ_INT(r.exited, 1);
	KT_EQ_INT(r.exit_code, 0); /* the child was drained, not blocked or killed */
	KT_EQ_INT(r.out_len, 1000);
	KT_EQ_INT(r.err_len, 100);
	KT_EQ_INT(r.stdout_truncated, 1);
	KT_EQ_INT(r.stderr_truncated, 1);
	KT_EQ_INT(strlen(r.out), 1000);
	for (i = 0; i < r.out_len; i++)
		KT_ASSERT(r.out[i] == 'a');
	ks_spawn_result_clear(&r);

	spawn_sh(&r, "echo small", 10);
	KT_EQ_INT(r.stdout_truncated, 0);
	KT_EQ_INT(r.stderr_truncated, 0);
	ks_spawn_result_clear(&r);
}

static int process_gone(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;
	char *close_paren;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	/* Killed and waiting for its new parent to reap it also counts. */
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	close_paren = strrchr(buf, ')');
	return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

static void test_timeout_kills_the_process_group(void)
{
	ks_spawn_result r;
	long grandchild;
	int i;

	spawn_sh(&r, "sleep 100 & echo $!; sleep 100", 0.5);
	KT_EQ_INT(r.timed_out, 1);
	KT_EQ_INT(r.signaled, 1);
	KT_EQ_INT(r.signal, SIGKILL);
	KT_ASSERT_MSG(r.seconds >= 0.45 && r.seconds < 3, "took %.2f s", r.seconds);
	grandchild = atol(r.out);
	KT_ASSERT_MSG(grandchild > 1, "no grandchild pid in \"%s\"", r.out);
	for (i = 0; i < 100 && !process_gone((pid_t)grandchild); i++)
		usleep(10000);
	KT_ASSERT_MSG(process_gone((pid_t)grandchild), "grandchild %ld survived", grandchild);
	ks_spawn_result_clear(&r);
}

/* A grandchild left behind after a normal exit is killed too, and does not hold up the result. */
static void test_exit_kills_leftover_grandchildren(void)
{
	ks_spawn_result r;
	long grandchild;
	int i;

	spawn_sh(&r, "sleep 100 & echo $!", 20);
	KT_EQ_INT(r.exited, 1);
	KT_EQ_INT(r.timed_out, 0);
	KT_ASSERT_MSG(r.seconds < 3, "took %.2f s", r.seconds);
	grandchild = atol(r.out);
	KT_ASSERT(grandchild > 1);
	for (i = 0; i < 100 && !process_gone((pid_t)grandchild); i++)
		usleep(10000);
	KT_ASSERT_MSG(process_gone((pid_t)grandchild), "grandchild %ld survived", grandchild);
	ks_spawn_result_clear(&r);
}

static void test_child_sees_exact_environment(void)
{
	const char *argv[] = { "/bin/cat", "/proc/self/environ", NULL };
	const char *const one[] = { "ONLY=1", NULL };
	ks_spawn_options o;
	ks_spawn_result r;

	/* Something secret in our own environment must not reach the child. */
	setenv("KSCORE_TEST_SECRET", "do-not-leak", 1);
	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.envp = NULL;
	o.max_stdout = o.max_stderr = 4096;
	o.timeout_s = 10;
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_EQ_INT(r.exit_code, 0);
	KT_EQ_INT(r.out_len, 0);
	ks_spawn_result_clear(&r);

	o.envp = one;
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_EQ_INT(r.out_len, 7);
	KT_ASSERT(memcmp(r.out, "ONLY=1\0", 7) == 0);
	ks_spawn_result_clear(&r);
}

static void test_limits_are_applied(void)
{
	const char *argv[] = { "/bin/cat", "/proc/self/limits", NULL };
	ks_spawn_options o;
	ks_spawn_result r;

	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.max_stdout = o.max_stderr = 1 << 16;
	o.timeout_s = 10;
	o.limits.cpu_seconds = 7;
	o.limits.address_space_mb = 256;
	o.limits.file_size_mb = 0;
	o.limits.max_files = 32;
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_EQ_INT(r.exit_code, 0);
	KT_CONTAINS(r.out, "Max cpu time              7                    8");
	KT_CONTAINS(r.out, "Max file size             0                    0");
	KT_CONTAINS(r.out, "Max core file size        0                    0");
	KT_CONTAINS(r.out, "Max open files            32                   32");
	KT_CONTAINS(r.out, "Max address space         268435456            268435456");
	ks_spawn_result_clear(&r);
}

/* dd allocates its block size up front: 512 MiB does not fit in a 256 MiB address space. */
static void test_address_space_limit_is_enforced(void)
{
	const char *argv[] = { "/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=512M", "count=1",
			       NULL };
	ks_spawn_options o;
	ks_spawn_result r;

	memset(&o, 0, sizeof(o));
	o.argv = argv;
	o.max_stdout = o.max_stderr = 4096;
	o.timeout_s = 30;
	o.limits.address_space_mb = 256;
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_ASSERT_MSG(r.exited && r.exit_code != 0, "dd should fail: exit %d signal %d",
		      r.exit_code, r.signal);
	KT_CONTAINS(r.err, "memory exhausted");
	ks_spawn_result_clear(&r);

	o.limits.address_space_mb = 0;
	KT_ASSERT(ks_spawn_run(&r, &o) == 0);
	KT_EQ_INT(r.exit_code, 0);
	ks_spawn_result_clear(&r);
}

static void test_file_size_limit_stops_writes(void)
{
	char script[4400];
	ks_spawn_result r;

	snprintf(script, sizeof(script), "echo data > '%s/f'", kt_tmpdir());
	spawn_sh(&r, script, 10);
	/* SIGXFSZ kills the shell on its first write to a regular file. */
	KT_ASSERT_MSG(!(r.exited && r.exit_code == 0), "writing a file should fail");
	ks_spawn_result_clear(&r);
}

static void test_confine_blocks_outside_paths(void)
{
	char allowed[4200], denied[4200];
	pid_t pid;
	int st = 0, fd;

	if (!ks_sandbox_available())
		KT_SKIP("Landlock is not available on this kernel");
	snprintf(allowed, sizeof(allowed), "%s/allowed", kt_tmpdir());
	snprintf(denied, sizeof(denied), "%s/denied", kt_tmpdir());
	KT_ASSERT(mkdir(allowed, 0700) == 0);
	KT_ASSERT(mkdir(denied, 0700) == 0);
	kt_write("allowed/in.txt", "visible", 7);
	kt_write("denied/out.txt", "hidden", 6);
	fd = open("/etc/passwd", O_RDONLY);
	KT_ASSERT_MSG(fd >= 0, "the test needs a readable /etc/passwd");
	close(fd);

	pid = fork();
	if (pid == 0) {
		const char *paths[] = { allowed };
		char p[4300], buf[16] = { 0 };
		int bad = 0;
		if (ks_sandbox_confine(paths, 1) < 0)
			_exit(100);
		snprintf(p, sizeof(p), "%s/in.txt", allowed);
		fd = open(p, O_RDONLY);
		if (fd < 0 || read(fd, buf, sizeof(buf) - 1) != 7 || strcmp(buf, "visible"))
			bad |= 1;
		if (fd >= 0)
			close(fd);
		if (open(p, O_WRONLY | O_APPEND) >= 0 || errno != EACCES)
			bad |= 2; /* read-only */
		if (open("/etc/passwd", O_RDONLY) >= 0 || errno != EACCES)
			bad |= 4;
		snprintf(p, sizeof(p), "%s/out.txt", denied);
		if (open(p, O_RDONLY) >= 0 || errno != EACCES)
			bad |= 8;
		if (open("/proc/self/environ", O_RDONLY) >= 0)
			bad |= 16;
		snprintf(p, sizeof(p), "%s/new.txt", allowed);
		if (open(p, O_WRONLY | O_CREAT, 0600) >= 0)
			bad |= 32;
		_exit(bad);
	}
	KT_ASSERT(pid > 0);
	KT_ASSERT(waitpid(pid, &st, 0) == pid);
	KT_ASSERT_MSG(WIFEXITED(st), "confined child died");
	KT_ASSERT_MSG(WEXITSTATUS(st) == 0, "confined child reported failures 0x%x",
		      WEXITSTATUS(st));
	/* The parent is not affected. */
	fd = open("/etc/passwd", O_RDONLY);
	KT_ASSERT(fd >= 0);
	close(fd);
}

static void test_confine_missing_path_fails(void)
{
	pid_t pid;
	int st = 0;

	if (!ks_sandbox_available())
		KT_SKIP("Landlock is not available on this kernel");
	pid = fork();
	if (pid == 0) {
		const char *paths[] = { "/nonexistent/kscore-dir" };
		int rc = ks_sandbox_confine(paths, 1);
		_exit(rc == KS_ENOTFOUND && strstr(ks_error_msg(), "/nonexistent") ? 0 : 1);
	}
	KT_ASSERT(waitpid(pid, &st, 0) == pid);
	KT_ASSERT(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void test_run_many_more_jobs_than_slots(void)
{
	enum { N = 6 };
	char scripts[N][64];
	const char *argvs[N][4];
	ks_spawn_options o[N];
	ks_spawn_result r[N];
	struct timespec t0, t1;
	double elapsed;
	int i;

	memset(o, 0, sizeof(o));
	for (i = 0; i < N; i++) {
		snprintf(scripts[i], sizeof(scripts[i]), "read x; echo \"$x-%d\"; sleep 0.3", i);
		argvs[i][0] = "/bin/sh";
		argvs[i][1] = "-c";
		argvs[i][2] = scripts[i];
		argvs[i][3] = NULL;
		o[i].argv = argvs[i];
		o[i].envp = path_env;
		o[i].stdin_data = "job\n";
		o[i].stdin_len = 4;
		o[i].max_stdout = o[i].max_stderr = 1024;
		o[i].timeout_s = 20;
	}
	/* The last one times out in its slot without holding up the others. */
	argvs[N - 1][2] = "sleep 100";
	o[N - 1].timeout_s = 0.5;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	KT_ASSERT(ks_spawn_run_many(r, o, N, 2) == 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < N - 1; i++) {
		char want[32];
		snprintf(want, sizeof(want), "job-%d\n", i);
		KT_EQ_INT(r[i].exited, 1);
		KT_EQ_INT(r[i].exit_code, 0);
		KT_EQ_STR(r[i].out, want);
	}
	KT_EQ_INT(r[N - 1].timed_out, 1);
	/* Two slots: three waves of 0.3 s at least, far less than six in a row plus the sleep. */
	KT_ASSERT_MSG(elapsed >= 0.85 && elapsed < 10, "took %.2f s", elapsed);
	for (i = 0; i < N; i++)
		ks_spawn_result_clear(&r[i]);
}

static const kt_test tests[] = {
	KT(test_exit_codes_and_signals),
	KT(test_missing_program_is_an_error),
	KT(test_stdin_delivered_without_deadlock),
	KT(test_output_caps_are_flagged),
	KT(test_timeout_kills_the_process_group),
	KT(test_exit_kills_leftover_grandchildren),
	KT(test_child_sees_exact_environment),
	KT(test_limits_are_applied),
	KT(test_address_space_limit_is_enforced),
	KT(test_file_size_limit_stops_writes),
	KT(test_confine_blocks_outside_paths),
	KT(test_confine_missing_path_fails),
	KT(test_run_many_more_jobs_than_slots),
	{ NULL, NULL }
};

KT_MAIN("sandbox", tests)
