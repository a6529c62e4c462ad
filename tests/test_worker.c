/* worker: the scoring process's side of a GPU worker, against fake workers (shell scripts that
 * answer the protocol with canned replies), so what does not need a GPU is tested here: a worker's
 * stdout and stderr are captured, capped and credited to the request that printed them, never
 * written to the scorer's own output. */
#include "ktest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "run/worker.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

/* One reply frame: header (magic "KSW1", type 100, 11 bytes of JSON, no blob) and {"ok":true}. */
#define FRAME "printf 'KSW1d\\000\\000\\000\\013\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000{\"ok\":true}' >&3\n"
/* Waits for the next request (reads a piece of it; the fake never looks at its content). */
#define NEXT "dd bs=64 count=1 <&3 >/dev/null 2>&1\n"

static const char *fake(const char *body)
{
	/* every worker's first reply, unasked: its driver is initialised (worker_main.c) */
	char *text = ks_asprintf("#!/bin/sh\nPATH=/usr/bin:/bin\n" FRAME "%s", body);
	const char *path = kt_write("fake-worker", text, strlen(text));
	ks_free(text);
	KT_EQ_INT(chmod(path, 0755), 0);
	return path;
}

/* The test's own stdout goes to a file, to see that nothing of the worker's lands there. */
static const char *stdout_to_file(void)
{
	static char path[4200];
	int fd;
	snprintf(path, sizeof(path), "%s/score-stdout", kt_tmpdir());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	KT_ASSERT(fd >= 0);
	KT_ASSERT(dup2(fd, 1) == 1);
	close(fd);
	return path;
}

static size_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (size_t)st.st_size : (size_t)-1;
}

static void test_a_flood_of_output_is_drained_capped_and_kept_off_stdout(void)
{
	ks_worker_options o = KS_WORKER_OPTIONS_INIT;
	const char *out = stdout_to_file();
	ks_device_info info;
	ks_worker *w = NULL;
	size_t len;
	uint64_t total;
	char *text;

	/* 3 MB before the first reply: far more than a pipe holds, so an undrained worker would
	 * block and miss the deadline; a worker writing to a file would die of its zero file size */
	o.exe = fake(NEXT "echo 'device says hello'\n"
		     "yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 3000000\n"
		     "echo 'and on stderr' >&2\n" FRAME "exec sleep 60\n");
	o.role = "candidate";
	o.start_timeout_s = 20;
	KT_ASSERT_MSG(ks_worker_start(&w, &info, &o) == 0, "%s", ks_error_msg());
	text = ks_worker_take_output(w, &len, &total);
	KT_EQ_INT(len, KS_WORKER_OUTPUT_KEEP);
	KT_EQ_INT(strlen(text), KS_WORKER_OUTPUT_KEEP);
	KT_EQ_INT(total, 18 + 3000000 + 14);
	KT_ASSERT(!strncmp(text, "device says hello\nxxxx", 22));
	ks_free(text);
	fflush(stdout);
	KT_EQ_INT(file_size(out), 0);
	ks_worker_free(w);
}

static void test_output_is_credited_to_the_request_that_printed_it(void)
{
	ks_worker_options o = KS_WORKER_OPTIONS_INIT;
	ks_device_info info;
	ks_worker *w = NULL;
	size_t len;
	uint64_t total;
	char *text;

	stdout_to_file();
	o.exe = fake(NEXT "echo first\n" FRAME NEXT "printf 'second\\n' >&2\n" FRAME "exec sleep 60\n");
	o.start_timeout_s = 20;
	KT_ASSERT_MSG(ks_worker_start(&w, &info, &o) == 0, "%s", ks_error_msg());
	text = ks_worker_take_output(w, &len, &total);
	KT_EQ_STR(text, "first\n");
	KT_EQ_INT(total, 6);
	ks_free(text);
	ks_worker_unload(w, 3);
	KT_ASSERT(ks_worker_alive(w));
	text = ks_worker_take_output(w, &len, &total);
	KT_EQ_STR(text, "second\n");
	KT_EQ_INT(len, 7);
	ks_free(text);
	ks_worker_free(w);
}

/* A worker killed for missing its deadline: what it printed before is still its request's. */
static void test_output_of_a_killed_worker_is_kept(void)
{
	ks_worker_options o = KS_WORKER_OPTIONS_INIT;
	ks_device_info info;
	ks_worker *w = NULL;
	size_t len;
	uint64_t total;
	char *text;

	stdout_to_file();
	o.exe = fake(NEXT FRAME NEXT "echo 'last words'\nexec sleep 60\n");
	o.start_timeout_s = 1;
	KT_ASSERT_MSG(ks_worker_start(&w, &info, &o) == 0, "%s", ks_error_msg());
	ks_free(ks_worker_take_output(w, &len, &total));
	ks_worker_unload(w, 0); /* no reply: killed after start_timeout_s */
	KT_ASSERT(!ks_worker_alive(w));
	text = ks_worker_take_output(w, &len, &total);
	KT_EQ_STR(text, "last words\n");
	ks_free(text);
	ks_worker_free(w);
}

/* Freeing a worker whose process has gone (its QUIT cannot be sent) keeps the message of the
 * error being cleaned up after: "no CUDA driver", not "write failed: Broken pipe". */
static void test_freeing_a_dead_worker_keeps_the_error_message(void)
{
	ks_worker_options o = KS_WORKER_OPTIONS_INIT;
	ks_device_info info;
	ks_worker *w = NULL;
	stdout_to_file();
	o.exe = fake(NEXT FRAME "exit 0\n");
	o.start_timeout_s = 20;
	KT_ASSERT_MSG(ks_worker_start(&w, &info, &o) == 0, "%s", ks_error_msg());
	usleep(300 * 1000); /* the fake has exited: its end of the socket is closed */
	ks_error_set(KS_EUNSUPPORTED, "the error the caller reports");
	ks_worker_free(w);
	KT_EQ_STR(ks_error_msg(), "the error the caller reports");
}

/* A gate that writes down what passes it: "s" or "x" (shared, exclusive) on entry, "." on leave. */
static char g_gate_log[64];

static void gate_note(char c)
{
	size_t n = strlen(g_gate_log);
	if (n + 1 < sizeof(g_gate_log)) {
		g_gate_log[n] = c;
		g_gate_log[n + 1] = 0;
	}
}

static void gate_enter(void *ud, int exclusive)
{
	(void)ud;
	gate_note(exclusive ? 'x' : 's');
}

static void gate_leave(void *ud, int exclusive)
{
	(void)ud;
	(void)exclusive;
	gate_note('.');
}

/* Every GPU step of a worker passes its lane's gate (lanes.h): its start, each request, and its
 * close, which the sanitizer's and profiler's workers wait for (their tools finish their logs
 * then). An untimed request is shared; with `alone` (a profiler) every request is exclusive. */
static void test_start_requests_and_close_pass_the_gate(void)
{
	ks_worker_gate gate = { gate_enter, gate_leave, NULL };
	int alone;
	for (alone = 0; alone < 2; alone++) {
		ks_worker_options o = KS_WORKER_OPTIONS_INIT;
		ks_device_info info;
		ks_worker *w = NULL;
		stdout_to_file();
		g_gate_log[0] = 0;
		o.exe = fake(NEXT FRAME NEXT FRAME NEXT "exit 0\n");
		o.start_timeout_s = 20;
		o.gate = &gate;
		o.alone = alone;
		KT_ASSERT_MSG(ks_worker_start(&w, &info, &o) == 0, "%s", ks_error_msg());
		KT_EQ_STR(g_gate_log, "s.");
		ks_worker_unload(w, 3);
		KT_ASSERT(ks_worker_alive(w));
		KT_EQ_STR(g_gate_log, alone ? "s.x." : "s.s.");
		KT_ASSERT(ks_worker_close(w) >= -1);
		KT_EQ_STR(g_gate_log, alone ? "s.x.s." : "s.s.s.");
		ks_worker_free(w); /* closed already: no GPU work left, the gate is not asked again */
		KT_EQ_STR(g_gate_log, alone ? "s.x.s." : "s.s.s.");
	}
}

/* A gate that adds up how long it was held. */
static double g_held, g_since;

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void timed_enter(void *ud, int exclusive)
{
	(void)ud;
	(void)exclusive;
	g_since = now_s();
}

static void timed_leave(void *ud, int exclusive)
{
	(void)ud;
	(void)exclusive;
	g_held += now_s() - g_since;
}

/* What touches no GPU is done outside the gate, so a sibling's timed runs go on meanwhile: a
 * worker's process start and driver initialisation (most of a start under compute-sanitizer) come
 * before it, and the wait for a wrapped worker's tool to exit after the worker has released its
 * context comes after it. Here both take 0.6 s; the gate is held only for the context's creation
 * and release. */
static void test_a_start_and_an_exit_hold_the_gate_only_for_the_context(void)
{
	ks_worker_gate gate = { timed_enter, timed_leave, NULL };
	const char *wrap[] = { "/bin/sh", "-c", "\"$@\"; sleep 0.6", "sh", NULL };
	ks_worker_options o = KS_WORKER_OPTIONS_INIT;
	ks_device_info info;
	ks_worker *w = NULL;
	double t0;
	char *text = ks_asprintf("#!/bin/sh\nPATH=/usr/bin:/bin\nsleep 0.6\n" FRAME NEXT FRAME NEXT FRAME "exit 0\n");
	const char *path = kt_write("slow-worker", text, strlen(text));
	ks_free(text);
	KT_EQ_INT(chmod(path, 0755), 0);
	stdout_to_file();
	o.exe = path;
	o.start_timeout_s = 20;
	o.gate = &gate;
	o.wrapper = wrap;
	o.exit_grace_s = 10;
	g_held = 0;
	t0 = now_s();
	KT_ASSERT_MSG(ks_worker_start(&w, &info, &o) == 0, "%s", ks_error_msg());
	ks_worker_close(w);
	ks_worker_free(w);
	KT_ASSERT_MSG(now_s() - t0 >= 1.2, "start and close took %.2f s", now_s() - t0);
	KT_ASSERT_MSG(g_held < 0.5, "the gate was held %.2f s of the %.2f s", g_held, now_s() - t0);
}

/* A reply frame holding json (header: magic, type 100, the JSON's length, no blob) in a file of
 * the test folder, for a fake to send with cat. Caller frees the path. */
static char *frame_file(const char *name, const char *json)
{
	unsigned char hdr[24] = { 'K', 'S', 'W', '1', 100, 0, 0, 0 };
	uint64_t n = strlen(json);
	char *buf = ks_malloc(sizeof(hdr) + n);
	const char *path;
	int i;
	for (i = 0; i < 8; i++)
		hdr[8 + i] = (unsigned char)(n >> (8 * i));
	memcpy(buf, hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), json, n);
	path = kt_write(name, buf, sizeof(hdr) + n);
	ks_free(buf);
	return ks_strdup(path);
}

/* KSCORE_TRACE=1: a timed batch asks its worker for the GPU time of the steps around its runs and
 * prints them in a kscore-timed line (bench/trace-report.py). In a child, since the setting is
 * read once per process. */
static void test_a_traced_timed_batch_prints_its_phases(void)
{
	char *reply = frame_file("timed.frame", "{\"ok\":true,\"ms\":[1.5,2.5],\"span_ms\":9,"
						      "\"phase_ms\":{\"redraw\":1,\"fill\":2,\"flush\":0.5,\"keep\":1.25}}");
	char *refuse = frame_file("refuse.frame", "{\"ok\":false,\"error\":\"no phases asked for\"}");
	char *err = ks_path_join(kt_tmpdir(), "trace");
	/* the fake cannot write files (a worker's file size limit is 0): it answers according to
	 * whether the request asked for the phases */
	char *body = ks_asprintf(NEXT FRAME "sleep 0.3\n"
				 "req=$(dd bs=65536 count=1 <&3 2>/dev/null | tr -d '\\000')\n"
				 "case \"$req\" in\n*'\"phases\":true'*) cat '%s' >&3 ;;\n*) cat '%s' >&3 ;;\nesac\n"
				 "exec sleep 60\n", reply, refuse);
	char *text = NULL, line[256];
	int st = 0, n;
	pid_t pid;

	stdout_to_file();
	pid = fork();
	KT_ASSERT(pid >= 0);
	if (pid == 0) {
		ks_worker_options o = KS_WORKER_OPTIONS_INIT;
		ks_device_info info;
		ks_worker *w = NULL;
		ks_run_result res;
		int sets[2] = { 0, 1 }, fd;
		uint64_t vers[2] = { 1, 2 };
		double ms[2] = { 0, 0 }, span = 0;
		setenv("KSCORE_TRACE", "1", 1);
		fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || dup2(fd, 2) != 2)
			_exit(2);
		o.exe = fake(body);
		o.role = "candidate";
		o.start_timeout_s = 20;
		if (ks_worker_start(&w, &info, &o) != 0)
			_exit(3);
		ks_worker_time_run(w, &res, sets, vers, 2, ms, &span, 20);
		if (res.status != KS_RUN_OK || ms[0] != 1.5 || ms[1] != 2.5 || span != 9) {
			fprintf(stderr, "status %d (%s), ms %g %g, span %g\n", (int)res.status,
				res.message ? res.message : "-", ms[0], ms[1], span);
			_exit(4);
		}
		ks_run_result_clear(&res);
		ks_worker_free(w);
		_exit(0);
	}
	KT_EQ_INT(waitpid(pid, &st, 0), pid);
	KT_EQ_INT(ks_fs_read(&text, NULL, err, 1 << 20), 0);
	KT_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child exited with %d: %s", st, text);
	KT_ASSERT_MSG(strstr(text, "kscore-timed: ") != NULL, "no kscore-timed line in: %s", text);
	n = sscanf(strstr(text, "kscore-timed: "), "kscore-timed: %255[^\n]", line);
	KT_EQ_INT(n, 1);
	/* role, pid, runs, the runs' ms, the batch's, then redraw, fill, flush, keep */
	KT_ASSERT_MSG(strstr(line, "candidate ") == line, "%s", line);
	KT_CONTAINS(line, " 2 4.000 9.000 1.000 2.000 0.500 1.250");
	ks_free(text);
	ks_free(body);
	ks_free(err);
	ks_free(reply);
	ks_free(refuse);
}

static const kt_test tests[] = { KT(test_freeing_a_dead_worker_keeps_the_error_message),
				 KT(test_a_start_and_an_exit_hold_the_gate_only_for_the_context), KT(test_a_flood_of_output_is_drained_capped_and_kept_off_stdout),
				 KT(test_output_is_credited_to_the_request_that_printed_it),
				 KT(test_output_of_a_killed_worker_is_kept),
				 KT(test_start_requests_and_close_pass_the_gate),
				 KT(test_a_traced_timed_batch_prints_its_phases), { 0 } };
KT_MAIN("worker", tests)
