#include "lang/triton/tracer.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/linechild.h"
#include "util/mem.h"
#include "util/sandbox.h"
#include "util/utf8.h"
#include "util/version.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct ks_tracer {
	ks_tracer_options o;
	char *python, *helper, *dir, *visible;
	ks_linechild proc;        /* the server: its pipes, the bytes read past the last line */
	uint64_t next_id;
	int ready;                /* the running server has answered: its imports are over */
	char *versions;           /* its protocol, Python, torch and Triton versions (compact JSON) */
};

char *ks_tracer_find_python(const char *given)
{
	return ks_linechild_python(given);
}

static void stop_server(ks_tracer *t)
{
	ks_linechild_stop(&t->proc);
	t->ready = 0;
}

/* Starts python -I <helper> <mode> with the helper's environment and limits; stdin and stdout are
 * pipes, stderr goes to <dir>/<mode>.log. */
static int spawn(ks_tracer *t, const char *mode)
{
	/* the CUDA driver needs an unlimited address space; the helper writes its Triton cache and
	 * its log (a file-size cap), and its children write nothing outside the private folder */
	ks_sandbox_limits lim = KS_SANDBOX_LIMITS_INIT;
	char *log = ks_asprintf("%s/%s.log", t->dir, mode);
	const char *argv[] = { t->python, "-I", "-B", t->helper, mode, NULL };
	char **env = ks_linechild_env(t->dir, t->visible);
	int rc;
	lim.file_size_mb = 1024;
	lim.max_files = 4096;
	rc = ks_linechild_spawn(&t->proc, argv, (const char *const *)env, log, &lim);
	ks_linechild_env_free(env);
	ks_free(log);
	return rc;
}

int ks_tracer_start(ks_tracer **out, const ks_tracer_options *o)
{
	ks_tracer *t = ks_calloc(1, sizeof(*t));
	const char *tmp = getenv("TMPDIR");
	char *tmpl;
	int rc = 0;
	t->o = *o;
	t->visible = o->visible_devices ? ks_strdup(o->visible_devices) : NULL;
	t->o.visible_devices = t->visible;
	ks_linechild_init(&t->proc, KS_TRACER_MAX_RESPONSE);
	*out = NULL;
	if (!(t->python = ks_tracer_find_python(o->python)) ||
	    !(t->helper = o->helper ? ks_strdup(o->helper) : ks_fs_find_helper("kscore-triton"))) {
		rc = KS_ENOTFOUND;
		goto done;
	}
	tmpl = ks_asprintf("%s/kscore-triton-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		rc = ks_error_set(KS_EIO, "cannot make the Triton helper's folder %s: %s", tmpl, strerror(errno));
		ks_free(tmpl);
		goto done;
	}
	t->dir = tmpl;
	/* searchable by the unprivileged user a trace child started as root becomes (its private
	 * folder lies beneath); not listable */
	if (chmod(t->dir, 0711) < 0) {
		rc = ks_error_set(KS_EIO, "cannot open the Triton helper's folder %s: %s", t->dir, strerror(errno));
		goto done;
	}
	rc = spawn(t, "serve");
done:
	if (rc < 0)
		ks_tracer_free(t);
	else
		*out = t;
	return rc;
}

void ks_tracer_free(ks_tracer *t)
{
	if (!t)
		return;
	if (t->proc.in >= 0) {
		static const char quit[] = "{\"op\": \"quit\"}";
		(void)ks_linechild_send(&t->proc, quit, sizeof(quit) - 1); /* one that is gone is stopped all the same */
	}
	ks_linechild_free(&t->proc);
	if (t->dir)
		ks_fs_rm_rf(t->dir); /* the folder ks_tracer_start made, and only that */
	ks_free(t->dir);
	ks_free(t->python);
	ks_free(t->helper);
	ks_free(t->versions);
	ks_free(t->visible);
	ks_free(t);
}

/* KSCORE_TRITON_KEEP=DIR keeps a copy of every request and response (<problem>-<n>.request.json,
 * .response.json), for measuring and debugging on a GPU host (tests/gpu/triton.sh); never on by
 * default. Best effort. */
static void keep(const char *problem, unsigned long n, const char *kind, const char *text)
{
	const char *dir = getenv("KSCORE_TRITON_KEEP");
	char *path;
	if (!dir || !*dir || !text)
		return;
	path = ks_asprintf("%s/%s-%lu.%s.json", dir, problem, n, kind);
	if (ks_fs_write_atomic(path, text, strlen(text)) < 0)
		ks_error_clear();
	ks_free(path);
}

/* The tail of a log the helper wrote in its folder, for a message (caller frees), or NULL. */
static char *log_tail(const char *dir, const char *mode)
{
	char *path = ks_asprintf("%s/%s.log", dir, mode), *text = NULL, *tail = NULL;
	size_t n = 0;
	if (ks_fs_read(&text, &n, path, 1u << 20) == 0 && n) {
		size_t from = n > 600 ? n - 600 : 0;
		while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
			text[--n] = 0;
		tail = ks_utf8_printable(text + from, strlen(text + from));
	}
	ks_error_clear();
	ks_free(text);
	ks_free(path);
	return tail;
}

static void fail_trace(ks_trace *out, const ks_problem *p, ks_trace_status st, const char *msg)
{
	ks_trace_clear(out);
	memset(out, 0, sizeof(*out));
	out->status = st;
	out->message = ks_strdup(msg);
	out->ncorrectness = out->nperf = 0;
	(void)p;
}

int ks_tracer_measures(const char *source)
{
	return source && (strstr(source, "autotune") || strstr(source, "do_bench"));
}

int ks_tracer_ready(ks_tracer *t)
{
	static const char version[] = "{\"op\": \"version\", \"id\": 0}";
	char *line = NULL;
	int rc;
	if (t->ready && t->proc.pid > 0)
		return 0;
	if (t->proc.pid < 0 && (rc = spawn(t, "serve")) < 0)
		return rc;
	if (ks_linechild_send(&t->proc, version, sizeof(version) - 1) < 0 ||
	    (rc = ks_linechild_recv(&t->proc, &line, ks_linechild_now() + t->o.start_timeout_s + t->o.grace_s, "the Triton helper")) < 0) {
		rc = ks_error_set(KS_ECHILD, "the Triton helper did not start: %s", ks_error_msg());
		stop_server(t); /* the next trace starts a fresh one and says what is wrong */
		return rc;
	}
	{
		/* what a cached trace depends on (ks_tracer_trace_cached); never the start-up costs */
		cJSON *v = NULL, *keep = cJSON_CreateObject();
		if (ks_json_parse(&v, line, strlen(line), 16, "the Triton helper's version") == 0) {
			const cJSON *x = cJSON_GetObjectItemCaseSensitive(v, "versions");
			const cJSON *proto = cJSON_GetObjectItemCaseSensitive(v, "protocol");
			if (x)
				cJSON_AddItemToObject(keep, "versions", cJSON_Duplicate(x, 1));
			if (proto)
				cJSON_AddItemToObject(keep, "protocol", cJSON_Duplicate(proto, 1));
		} else
			ks_error_clear();
		ks_free(t->versions);
		t->versions = ks_json_print(keep, 0);
		cJSON_Delete(v);
		cJSON_Delete(keep);
	}
	ks_free(line);
	t->ready = 1;
	return 0;
}

static atomic_ulong kept_seq; /* numbers the kept files of all lanes */

/* ks_tracer_trace, and with keep the response line as the helper sent it (caller frees). */
static int trace_impl(ks_tracer *t, ks_trace *out, const ks_problem *p, const cJSON *entry, const char *source,
		      const ks_plan_limits *lim, char **keep_line)
{
	cJSON *req = NULL, *resp = NULL;
	unsigned long kept = 0;
	char *text = NULL, *line = NULL;
	double deadline;
	int rc = 0, e;

	memset(out, 0, sizeof(*out));
	if (strlen(source) > KS_TRACER_MAX_SOURCE) {
		fail_trace(out, p, KS_TRACE_REFUSED, "the answer is over 1 MiB of Python");
		return 0;
	}
	if ((rc = ks_trace_request(&req, p, entry, source, t->o.device, t->o.timeout_s, ++t->next_id, lim)) < 0) {
		fail_trace(out, p, KS_TRACE_BROKEN, ks_error_msg());
		return rc;
	}
	if (t->proc.pid < 0 && spawn(t, "serve") < 0) {
		fail_trace(out, p, KS_TRACE_UNAVAILABLE, ks_error_msg());
		goto done;
	}
	text = cJSON_PrintUnformatted(req);
	kept = atomic_fetch_add(&kept_seq, 1);
	keep(p->name, kept, "request", text);
	/* the first answer of a server also waits for its imports */
	/* the helper's own limit on the whole trace (the cases' limits within it are its to keep) */
	deadline = ks_linechild_now() + ks_json_num_or(req, "timeout_s", t->o.timeout_s) + t->o.grace_s +
		   (t->next_id == 1 ? t->o.start_timeout_s : 0);
	if (ks_linechild_send(&t->proc, text, strlen(text)) < 0) {
		char *tail = log_tail(t->dir, "serve"), *msg;
		msg = ks_asprintf("the Triton helper is not running%s%s", tail ? ": " : "", tail ? tail : "");
		fail_trace(out, p, KS_TRACE_UNAVAILABLE, msg);
		ks_free(msg);
		ks_free(tail);
		stop_server(t);
		goto done;
	}
	if ((e = ks_linechild_recv(&t->proc, &line, deadline, "the Triton helper")) < 0) {
		char *tail = e == KS_ECHILD ? log_tail(t->dir, "serve") : NULL, *msg;
		msg = ks_asprintf("%s%s%s", ks_error_msg(), tail ? ": " : "", tail ? tail : "");
		fail_trace(out, p, e == KS_ETIMEOUT ? KS_TRACE_TIMEOUT : e == KS_ECHILD ? KS_TRACE_UNAVAILABLE
										       : KS_TRACE_BROKEN, msg);
		ks_free(msg);
		ks_free(tail);
		stop_server(t); /* a fresh one for the next answer */
		goto done;
	}
	keep(p->name, kept, "response", line);
	t->ready = 1;
	if (ks_json_parse(&resp, line, strlen(line), 64, "the Triton helper's response") < 0) {
		fail_trace(out, p, KS_TRACE_BROKEN, ks_error_msg());
		ks_error_clear();
		stop_server(t);
		goto done;
	}
	ks_trace_read(out, resp, p, lim);
	if (keep_line) {
		*keep_line = line;
		line = NULL;
	}
done:
	ks_free(line);
	free(text);
	cJSON_Delete(req);
	cJSON_Delete(resp);
	return 0;
}

int ks_tracer_trace(ks_tracer *t, ks_trace *out, const ks_problem *p, const cJSON *entry, const char *source,
		    const ks_plan_limits *lim)
{
	return trace_impl(t, out, p, entry, source, lim, NULL);
}

int ks_tracer_trace_cached(ks_tracer *t, ks_trace *out, int *hit, const ks_problem *p, const cJSON *entry,
			   const char *source, const ks_plan_limits *lim, const char *cache_dir, const char *salt)
{
	cJSON *req = NULL, *resp = NULL;
	char *text = NULL, *path = NULL, *cached = NULL, *line = NULL, hex[65];
	ks_sha256 *h;
	int rc;

	*hit = 0;
	if (!cache_dir || strlen(source) > KS_TRACER_MAX_SOURCE || ks_tracer_ready(t) < 0) {
		ks_error_clear();
		return ks_tracer_trace(t, out, p, entry, source, lim);
	}
	/* the key: everything the trace is a function of (the request but its id: the source, the
	 * cases' shapes and values, the limits), the helper's versions, kscore's, and the caller's
	 * salt (the GPU model: an autotuner's pick depends on it) */
	if (ks_trace_request(&req, p, entry, source, t->o.device, t->o.timeout_s, 0, lim) < 0) {
		ks_error_clear();
		return ks_tracer_trace(t, out, p, entry, source, lim);
	}
	cJSON_DeleteItemFromObject(req, "id");
	text = ks_json_print(req, 0);
	h = ks_sha256_new();
	ks_sha256_update_str(h, "kscore-trace-cache/1\n" KS_VERSION "\n");
	ks_sha256_update_str(h, salt ? salt : "");
	ks_sha256_update_str(h, "\n");
	ks_sha256_update_str(h, t->versions ? t->versions : "");
	ks_sha256_update_str(h, "\n");
	ks_sha256_update_str(h, text);
	ks_sha256_final(h, hex);
	path = ks_asprintf("%s/traces/%s.json", cache_dir, hex);
	memset(out, 0, sizeof(*out));
	if (ks_fs_read(&cached, NULL, path, KS_TRACER_MAX_RESPONSE) == 0 &&
	    ks_json_parse(&resp, cached, strlen(cached), 64, path) == 0) {
		ks_trace_read(out, resp, p, lim);
		if (out->status == KS_TRACE_OK) {
			*hit = out->cached = 1;
			rc = 0;
			goto done;
		}
		ks_trace_clear(out); /* a stale or damaged entry: traced again, and replaced */
	}
	ks_error_clear();
	rc = trace_impl(t, out, p, entry, source, lim, &line);
	if (out->status == KS_TRACE_OK && line) {
		char *dir = ks_asprintf("%s/traces", cache_dir);
		/* only what traced: a failure may be the host's (a busy GPU, a timeout) */
		if (ks_fs_mkdir_p(dir, 0755) < 0 || ks_fs_write_atomic(path, line, strlen(line)) < 0)
			ks_error_clear(); /* no cache: the next run traces again */
		ks_free(dir);
	}
done:
	cJSON_Delete(req);
	cJSON_Delete(resp);
	ks_free(text);
	ks_free(path);
	ks_free(cached);
	ks_free(line);
	return rc;
}

int ks_tracer_check(int *ok, char **reason, int *line, const ks_tracer_options *o, const char *source)
{
	ks_spawn_options so;
	ks_spawn_result sr;
	char *python = NULL, *helper = NULL, *dir = NULL, **env = NULL, *req = NULL, *nl;
	const char *argv[6], *tmp = getenv("TMPDIR");
	cJSON *rj = NULL, *resp = NULL;
	const char *st = NULL;
	double l = 0;
	int rc = 0;

	*ok = 0;
	*reason = NULL;
	*line = 0;
	memset(&sr, 0, sizeof(sr));
	if (!(python = ks_tracer_find_python(o->python)) ||
	    !(helper = o->helper ? ks_strdup(o->helper) : ks_fs_find_helper("kscore-triton"))) {
		rc = KS_ENOTFOUND;
		goto done;
	}
	dir = ks_asprintf("%s/kscore-triton-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		rc = ks_error_set(KS_EIO, "cannot make a folder for the Triton check: %s", strerror(errno));
		ks_free(dir);
		dir = NULL;
		goto done;
	}
	rj = cJSON_CreateObject();
	ks_json_add_str(rj, "op", "check");
	cJSON_AddNumberToObject(rj, "id", 1);
	ks_json_add_str(rj, "source", source);
	req = cJSON_PrintUnformatted(rj);
	env = ks_linechild_env(dir, NULL);
	argv[0] = python;
	argv[1] = "-I";
	argv[2] = "-B";
	argv[3] = helper;
	argv[4] = "check";
	argv[5] = NULL;
	memset(&so, 0, sizeof(so));
	so.argv = argv;
	so.envp = (const char *const *)env;
	so.stdin_data = req;
	so.stdin_len = strlen(req);
	so.max_stdout = 1u << 20;
	so.max_stderr = 64u << 10;
	so.timeout_s = 60;
	so.limits = (ks_sandbox_limits)KS_SANDBOX_LIMITS_INIT;
	so.limits.cpu_seconds = 60;
	so.limits.address_space_mb = 4096;
	so.limits.file_size_mb = 64; /* Python probes its temporary folder by writing to it */
	if ((rc = ks_spawn_run(&sr, &so)) < 0)
		goto done;
	nl = sr.out ? strchr(sr.out, '\n') : NULL;
	if (nl)
		*nl = 0;
	if (!sr.exited || !sr.out || ks_json_parse(&resp, sr.out, strlen(sr.out), 16, "the Triton check") < 0 ||
	    ks_json_str(&st, resp, "status", 1) < 0) {
		/* the end of what it wrote says why (a traceback ends with the exception) */
		size_t n = sr.err ? strlen(sr.err) : 0;
		while (n && (sr.err[n - 1] == '\n' || sr.err[n - 1] == ' '))
			sr.err[--n] = 0;
		rc = ks_error_set(KS_ERROR, "the Triton static check did not answer%s%s", n ? ": " : "",
				  n > 300 ? sr.err + n - 300 : n ? sr.err : "");
		goto done;
	}
	*ok = strcmp(st, "ok") == 0;
	if (!*ok) {
		*reason = ks_json_strdup(resp, "reason");
		if (!*reason)
			*reason = ks_strdup(st);
		else {
			char *clean = ks_utf8_printable(*reason, strlen(*reason));
			ks_free(*reason);
			*reason = clean;
		}
		if (ks_json_num(&l, resp, "line", 0) == 0 && l > 0 && l < 1e9)
			*line = (int)l;
	}
	ks_error_clear();
done:
	ks_spawn_result_clear(&sr);
	cJSON_Delete(rj);
	cJSON_Delete(resp);
	free(req);
	ks_linechild_env_free(env);
	if (dir) {
		ks_fs_rm_rf(dir);
		ks_free(dir);
	}
	ks_free(python);
	ks_free(helper);
	return rc;
}
