#include "run/worker.h"
#include "util/errors.h"
#include "util/tracelog.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "run/proto.h"
#include "util/sandbox.h"
#include "run/harness.h"
#include "run/workerenv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ks_worker {
	pid_t pid;
	int fd;
	int alive;
	int exit_status;         /* wait status once reaped by end_worker; -1 when killed or unknown */
	int out_fd;              /* reading end of the worker's stdout and stderr (-1 once closed) */
	ks_proto_capture out;    /* what it wrote there, kept up to KS_WORKER_OUTPUT_KEEP bytes */
	ks_worker_options opts;
	char role[32];
	int hello_sent;          /* HELLO is on its way (sent by ks_worker_spawn) */
	int init_done;           /* its first reply is read (ks_worker_init) */
	char devarg[2][16];      /* argv: the device HELLO will name, and its ordinal */
	int wrapped;             /* started under a tool (opts.wrapper, which is not kept) */
};

/* Most of a worker's output read after it is gone or has replied: what its pipe holds then. */
#define OUTPUT_TAIL (4u << 20)

const char *ks_run_status_name(ks_run_status s)
{
	static const char *n[] = { "ok", "error", "fault", "timeout", "crash" };
	return s <= KS_RUN_CRASH ? n[s] : "?";
}

static void kill_worker(ks_worker *w)
{
	if (w->pid > 0) {
		kill(-w->pid, SIGKILL);
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		w->pid = -1;
		w->exit_status = -1;
	}
	if (w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (w->out_fd >= 0) {
		/* what the worker wrote before it died belongs to the request it died in */
		ks_proto_capture_drain(&w->out, w->out_fd, OUTPUT_TAIL);
		close(w->out_fd);
		w->out_fd = -1;
	}
	w->alive = 0;
}

static double mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* The worker is done (a sticky fault, QUIT, a broken reply): a wrapped worker's tool gets
 * exit_grace_s to write its log and exit once the worker has seen its socket close; then, or at
 * once for a plain worker, whatever is left of the process group is killed. The exit is detected
 * without reaping (WNOWAIT), so the group id cannot be reused before the group is killed. */
static void end_worker(ks_worker *w)
{
	if (w->fd >= 0) {
		close(w->fd);
		w->fd = -1;
	}
	if (w->pid > 0 && w->wrapped && w->opts.exit_grace_s > 0) {
		double end = mono_ms() + w->opts.exit_grace_s * 1e3;
		for (;;) {
			siginfo_t si;
			struct timespec nap = { 0, 10 * 1000 * 1000 };
			int st = 0;
			memset(&si, 0, sizeof(si));
			if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == w->pid) {
				kill(-w->pid, SIGKILL);
				while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
					;
				w->pid = -1;
				w->exit_status = st;
				break;
			}
			if (mono_ms() >= end)
				break;
			nanosleep(&nap, NULL);
		}
	}
	kill_worker(w);
}

/* The worker's argv, after the wrapper's when there is one. */
static char **worker_argv(const ks_worker *w)
{
	size_t n = 0, i;
	char **argv;
	while (w->opts.wrapper && w->opts.wrapper[n])
		n++;
	argv = ks_calloc(n + 5, sizeof(char *));
	for (i = 0; i < n; i++)
		argv[i] = (char *)w->opts.wrapper[i];
	argv[n] = (char *)w->opts.exe;
	argv[n + 1] = (char *)w->role;
	argv[n + 2] = (char *)w->devarg[0];
	argv[n + 3] = (char *)w->devarg[1];
	return argv;
}

/* Closes *fd when it is open and marks it closed, so one cleanup serves every path. */
static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The device HELLO names: a worker that sees only its own GPU knows it as device 0; the ordinal is
 * for its messages. */
static int hello_device(const ks_worker *w)
{
	return w->opts.own_device ? 0 : w->opts.device;
}

static int spawn(ks_worker *w)
{
	int sv[2] = { -1, -1 }, out = -1, op[2] = { -1, -1 }, rc = 0;
	pid_t pid;
	char **envp = ks_workerenv_new(w->opts.device, w->opts.own_device), **argv = worker_argv(w);
	size_t n = 0, i;

	if (w->opts.wrapper) {
		const char *of = w->opts.wrapper_output ? w->opts.wrapper_output : "/dev/null";
		for (n = 0; envp[n]; n++)
			;
		for (i = 0; w->opts.wrapper_env && w->opts.wrapper_env[i]; i++)
			;
		envp = ks_realloc(envp, (n + i + 1) * sizeof(char *));
		for (i = 0; w->opts.wrapper_env && w->opts.wrapper_env[i]; i++)
			envp[n++] = ks_strdup(w->opts.wrapper_env[i]);
		envp[n] = NULL;
		if ((out = open(of, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
			rc = ks_error_set(KS_EIO, "cannot open %s: %s", of, strerror(errno));
			goto done;
		}
	}
	/* A plain worker's stdout and stderr are a pipe of their own, never the scorer's: device
	 * printf would otherwise land in `score --json` output, or kill the worker (SIGXFSZ) when
	 * the scorer's stdout is a file (the worker may write no file). A worker under a tool writes
	 * the tool's console to its file instead. */
	if (!w->opts.wrapper && pipe2(op, O_CLOEXEC) < 0) {
		op[0] = op[1] = -1;
		rc = ks_error_set(KS_EIO, "pipe: %s", strerror(errno));
		goto done;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		sv[0] = sv[1] = -1;
		rc = ks_error_set(KS_EIO, "socketpair: %s", strerror(errno));
		goto done;
	}
	pid = fork();
	if (pid < 0) {
		rc = ks_error_set(KS_EIO, "fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0) {
		/* The CUDA driver needs a large address space: no RLIMIT_AS here (research §0.5). A
		 * plain worker writes no file at all; a tool writes its log (and its temporary files),
		 * so a wrapped worker gets a file-size cap instead, and more descriptors. */
		ks_sandbox_limits lim = KS_SANDBOX_LIMITS_INIT;
		/* stdout and stderr: the capture pipe, or the tool's file; stdin: nothing */
		int wout = out >= 0 ? out : op[1];
		int s3 = fcntl(sv[1], F_DUPFD, 10), o12 = fcntl(wout, F_DUPFD, 10);
		int nul = open("/dev/null", O_RDONLY);
		lim.file_size_mb = w->opts.wrapper ? 1024 : 0;
		lim.max_files = w->opts.wrapper ? 4096 : 1024;
		/* either descriptor may be 3 (or, with closed standard streams, 0, 1 or 2): move them
		 * out of the way before placing them */
		if (s3 < 0 || o12 < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(o12, 1) < 0 || dup2(o12, 2) < 0 ||
		    dup2(s3, 3) < 0)
			_exit(127);
		if (ks_sandbox_child_setup(&lim, 3) < 0)
			_exit(127);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	/* both ends non-blocking: the protocol waits with poll and drains the output meanwhile */
	fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
	if (op[0] >= 0)
		fcntl(op[0], F_SETFL, fcntl(op[0], F_GETFL) | O_NONBLOCK);
	w->pid = pid;
	w->fd = sv[0];
	w->out_fd = op[0];
	w->alive = 1;
	sv[0] = op[0] = -1; /* the worker's now, not this function's to close */
	signal(SIGPIPE, SIG_IGN);
done:
	/* the child's ends always close here; the parent's ends too when the spawn failed */
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	close_fd(&out);
	close_fd(&op[0]);
	close_fd(&op[1]);
	ks_workerenv_free(envp);
	ks_free(argv);
	return rc;
}

static ks_run_status send_only(ks_worker *w, uint32_t type, const cJSON *req, const void *blob, uint64_t len,
			       char **why)
{
	if (!w->alive) {
		*why = ks_asprintf("the %s worker is not running", w->role);
		return KS_RUN_CRASH;
	}
	if (ks_proto_send_capture(w->fd, type, req, blob, len, w->out_fd, &w->out) < 0) {
		*why = ks_asprintf("the %s worker died (%s)", w->role, ks_error_msg());
		end_worker(w);
		return KS_RUN_CRASH;
	}
	return KS_RUN_OK;
}

static ks_run_status recv_only(ks_worker *w, ks_msg *reply, double timeout_s, char **why)
{
	int rc;
	memset(reply, 0, sizeof(*reply));
	if (!w->alive) {
		*why = ks_asprintf("the %s worker is not running", w->role);
		return KS_RUN_CRASH;
	}
	rc = ks_proto_recv_capture(w->fd, reply, timeout_s, w->opts.max_reply, w->out_fd, &w->out);
	if (rc == KS_ETIMEOUT) {
		*why = ks_asprintf("no result after %.1f s: the kernel was killed", timeout_s);
		kill_worker(w);
		return KS_RUN_TIMEOUT;
	}
	if (rc < 0) {
		int st = 0, gone = 0;
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", ks_error_msg());
		if (w->wrapped) {
			end_worker(w);
			st = w->exit_status;
			gone = st != -1;
		} else if (w->pid > 0 && waitpid(w->pid, &st, WNOHANG) == w->pid) {
			w->pid = -1;
			w->exit_status = st;
			gone = 1;
		}
		if (gone) {
			if (WIFSIGNALED(st))
				*why = ks_asprintf("the %s worker was killed by signal %d (%s)", w->role,
						   WTERMSIG(st), strsignal(WTERMSIG(st)));
			else
				*why = ks_asprintf("the %s worker exited with status %d", w->role,
						   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		} else
			*why = ks_asprintf("the %s worker broke the protocol: %s", w->role, msg);
		kill_worker(w);
		return KS_RUN_CRASH;
	}
	/* The worker flushes its output before it replies: the rest of what this request printed
	 * is in the pipe now, and is this request's. */
	if (w->out_fd >= 0)
		ks_proto_capture_drain(&w->out, w->out_fd, OUTPUT_TAIL);
	return KS_RUN_OK;
}

static ks_run_status call_once(ks_worker *w, ks_msg *reply, uint32_t type, const cJSON *req,
			       const void *blob, uint64_t len, double timeout_s, char **why)
{
	ks_run_status st;
	memset(reply, 0, sizeof(*reply));
	if ((st = send_only(w, type, req, blob, len, why)) != KS_RUN_OK)
		return st;
	return recv_only(w, reply, timeout_s, why);
}

/* Sends a request and waits for the reply; on any transport failure the worker is killed and the
 * returned status says why. */
static ks_run_status call(ks_worker *w, ks_msg *reply, uint32_t type, const cJSON *req,
			  const void *blob, uint64_t len, double timeout_s, char **why)
{
	const ks_worker_gate *g = w->opts.gate;
	int ex = w->opts.alone || type == KS_MSG_TIME_RUN || type == KS_MSG_TIME_VERIFY || type == KS_MSG_CALIBRATE;
	double tg = ks_tracelog_on() ? ks_tracelog_ms() : 0, t0 = 0;
	ks_run_status st;
	int pid = (int)w->pid;
	if (g)
		g->enter(g->ud, ex);
	if (ks_tracelog_on())
		t0 = ks_tracelog_ms();
	st = call_once(w, reply, type, req, blob, len, timeout_s, why);
	/* KSCORE_TRACE=1 (util/tracelog.h): one line per request (role, message type, ms from send to
	 * reply, bytes sent and received); the worker's pid tells the workers of several lanes
	 * apart; the last figure is the time the request waited for its GPU (the gate) */
	if (ks_tracelog_on())
		fprintf(stderr, "kscore-trace: %.3f %s %u %.3f %llu %llu %d %.3f\n", t0, w->role, (unsigned)type,
			ks_tracelog_ms() - t0, (unsigned long long)len, (unsigned long long)reply->blob_len, pid,
			t0 - tg);
	if (g)
		g->leave(g->ud, ex);
	return st;
}

/* Turns an {ok:false} reply into a status; sticky errors mean the worker exited. */
static ks_run_status reply_status(ks_worker *w, const cJSON *j, ks_run_result *res)
{
	int ok = 0, sticky = 0;
	const char *s = NULL;
	double code = 0;
	ks_json_bool(&ok, j, "ok", 0);
	if (ok)
		return KS_RUN_OK;
	ks_json_bool(&sticky, j, "sticky", 0);
	ks_json_num(&code, j, "code", 0);
	res->cuda_code = (int)code;
	res->message = ks_strdup(ks_json_str(&s, j, "error", 0) == 0 ? s : "unknown error");
	res->stage = ks_strdup(ks_json_str(&s, j, "stage", 0) == 0 ? s : "?");
	if (sticky) {
		end_worker(w);
		return KS_RUN_FAULT;
	}
	return KS_RUN_ERROR;
}

static int get_int(const cJSON *j, const char *k)
{
	return (int)ks_json_num_or(j, k, 0);
}

/* Starts the process; it loads and initialises the driver, then replies once (worker_main.c). */
static int spawn_only(ks_worker **out, const ks_worker_options *opts)
{
	ks_worker *w = ks_calloc(1, sizeof(*w));
	int rc;

	*out = NULL;
	w->opts = *opts;
	w->fd = -1;
	w->pid = -1;
	w->exit_status = -1;
	w->out_fd = -1;
	ks_buf_init(&w->out.kept, KS_WORKER_OUTPUT_KEEP);
	snprintf(w->role, sizeof(w->role), "%s", opts->role ? opts->role : "worker");
	snprintf(w->devarg[0], sizeof(w->devarg[0]), "%d", hello_device(w));
	snprintf(w->devarg[1], sizeof(w->devarg[1]), "%d", opts->device);
	w->wrapped = opts->wrapper != NULL;
	rc = spawn(w);
	/* what only the start reads is the caller's again (worker.h) */
	w->opts.exe = NULL;
	w->opts.wrapper = w->opts.wrapper_env = NULL;
	w->opts.wrapper_output = NULL;
	if (rc < 0) {
		ks_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

/* HELLO, which has the worker create its context. `early`: sent right after the start, when a
 * worker that could not initialise may have exited already: a failed send is then no error (its
 * first reply, still in the socket, says why) and is tried again after that reply. */
static int send_hello(ks_worker *w, int early)
{
	cJSON *req = cJSON_CreateObject();
	char *why = NULL;
	int rc = 0;
	cJSON_AddNumberToObject(req, "device", hello_device(w));
	cJSON_AddNumberToObject(req, "ordinal", w->opts.device);
	if (early)
		w->hello_sent = ks_proto_send(w->fd, KS_MSG_HELLO, req, NULL, 0) == 0;
	else if (send_only(w, KS_MSG_HELLO, req, NULL, 0, &why) != KS_RUN_OK)
		rc = ks_error_set(KS_EUNSUPPORTED, "GPU worker could not start: %s", why);
	else
		w->hello_sent = 1;
	cJSON_Delete(req);
	ks_free(why);
	return rc;
}

/* The worker's first reply: its driver is initialised, or why not (it exits then). With info, a
 * description of the device in it goes there: 1 when there was one. */
static int recv_init(ks_worker *w, ks_device_info *info)
{
	ks_run_result res;
	ks_msg reply;
	char *why = NULL;
	int rc = 0;

	memset(&res, 0, sizeof(res));
	if (recv_only(w, &reply, w->opts.start_timeout_s, &why) != KS_RUN_OK)
		rc = ks_error_set(KS_EUNSUPPORTED, "GPU worker could not start: %s", why);
	else {
		if (reply_status(w, reply.json, &res) != KS_RUN_OK)
			rc = ks_error_set(KS_EUNSUPPORTED, "%s", res.message);
		else if (info && cJSON_GetObjectItemCaseSensitive(reply.json, "name")) {
			ks_device_parse(info, reply.json);
			rc = 1;
		}
		ks_msg_clear(&reply);
	}
	ks_free(why);
	ks_run_result_clear(&res);
	w->init_done = 1;
	if (rc < 0)
		end_worker(w); /* a tool's log may say why the worker could not start */
	return rc;
}

int ks_worker_spawn(ks_worker **out, const ks_worker_options *opts)
{
	ks_worker *w;
	int rc;

	*out = NULL;
	if ((rc = spawn_only(&w, opts)) < 0)
		return rc;
	/* read after the worker's own first reply, which ks_worker_ready takes first */
	send_hello(w, 1);
	*out = w;
	return 0;
}

static int recv_hello(ks_worker *w, ks_device_info *info);

int ks_worker_init(ks_worker *w, ks_device_info *info)
{
	if (w->init_done)
		return ks_error_set(KS_EINVALID, "the %s worker's first reply was read already", w->role);
	return recv_init(w, info);
}

int ks_worker_ready(ks_worker *w, ks_device_info *info)
{
	int rc;
	if (!w->init_done && (rc = recv_init(w, NULL)) < 0)
		return rc;
	if (!w->alive)
		return ks_error_set(KS_EUNSUPPORTED, "GPU worker could not start: the %s worker is not running",
				    w->role);
	if (!w->hello_sent && (rc = send_hello(w, 0)) < 0)
		return rc;
	return recv_hello(w, info);
}

static int recv_hello(ks_worker *w, ks_device_info *info)
{
	ks_run_result res;
	ks_msg reply;
	char *why = NULL;
	int rc;

	memset(&res, 0, sizeof(res));
	if (recv_only(w, &reply, w->opts.start_timeout_s, &why) != KS_RUN_OK) {
		rc = ks_error_set(KS_EUNSUPPORTED, "GPU worker could not start: %s", why);
		goto fail;
	}
	if (reply_status(w, reply.json, &res) != KS_RUN_OK) {
		rc = ks_error_set(KS_EUNSUPPORTED, "%s", res.message);
		ks_msg_clear(&reply);
		goto fail;
	}
	ks_device_parse(info, reply.json);
	ks_msg_clear(&reply);
	ks_free(why);
	return 0;
fail:
	ks_free(why);
	ks_run_result_clear(&res);
	end_worker(w); /* a tool's log may say why the worker could not start */
	return rc;
}

int ks_worker_start(ks_worker **out, ks_device_info *info, const ks_worker_options *opts)
{
	ks_worker *w = NULL;
	int rc;
	double t0 = ks_tracelog_ms(), t1;
	*out = NULL;
	/* The process's start and its driver's initialisation touch no GPU, and under a sanitizer
	 * they are most of the start: they happen while a sibling may be timed. Creating the context
	 * is GPU work: not during a timed request of a sibling (the gate). */
	if ((rc = spawn_only(&w, opts)) == 0)
		rc = recv_init(w, NULL);
	t1 = ks_tracelog_ms();
	ks_tracelog_span("worker-init", opts->role, t0);
	if (rc == 0) {
		if (opts->gate)
			opts->gate->enter(opts->gate->ud, 0);
		if ((rc = send_hello(w, 0)) == 0)
			rc = recv_hello(w, info);
		if (opts->gate)
			opts->gate->leave(opts->gate->ud, 0);
		ks_tracelog_span("worker-context", opts->role, t1);
	}
	if (rc == 0)
		*out = w;
	else if (w)
		ks_worker_free(w);
	return rc;
}

static cJSON *names_json(char *const *names, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(names[i] ? names[i] : ""));
	return a;
}

int ks_worker_harness(ks_worker *w, const void *cubin, size_t len, char *const *lowered)
{
	cJSON *req = cJSON_CreateObject();
	ks_run_result res;
	ks_msg reply;
	char *why = NULL;
	ks_run_status st;
	int rc = 0;

	memset(&res, 0, sizeof(res));
	cJSON_AddItemToObject(req, "funcs", names_json(lowered, KS_HK_COUNT));
	st = call(w, &reply, KS_MSG_HARNESS, req, cubin, len, w->opts.start_timeout_s, &why);
	cJSON_Delete(req);
	if (st != KS_RUN_OK)
		rc = ks_error_set(KS_ECHILD, "loading the harness: %s", why);
	else if (reply_status(w, reply.json, &res) != KS_RUN_OK)
		rc = ks_error_set(KS_ECHILD, "loading the harness: %s", res.message);
	ks_msg_clear(&reply);
	ks_run_result_clear(&res);
	ks_free(why);
	return rc;
}

void ks_worker_load(ks_worker *w, ks_run_result *res, int *module, ks_func_info *funcs,
		    const void *cubin, size_t len, char *const *lowered, size_t n, double timeout_s)
{
	cJSON *req = cJSON_CreateObject();
	const cJSON *fa, *f;
	ks_msg reply;
	char *why = NULL;
	size_t i = 0;

	memset(res, 0, sizeof(*res));
	cJSON_AddItemToObject(req, "funcs", names_json(lowered, n));
	res->status = call(w, &reply, KS_MSG_LOAD, req, cubin, len, timeout_s, &why);
	cJSON_Delete(req);
	if (res->status != KS_RUN_OK) {
		res->message = why;
		res->stage = ks_strdup("load");
		return;
	}
	if ((res->status = reply_status(w, reply.json, res)) != KS_RUN_OK) {
		ks_msg_clear(&reply);
		return;
	}
	*module = get_int(reply.json, "module");
	fa = cJSON_GetObjectItemCaseSensitive(reply.json, "funcs");
	cJSON_ArrayForEach(f, fa)
	{
		const cJSON *ps = cJSON_GetObjectItemCaseSensitive(f, "params"), *p;
		ks_func_info *fi;
		if (i >= n)
			break;
		fi = &funcs[i++];
		memset(fi, 0, sizeof(*fi));
		fi->registers = get_int(f, "registers");
		fi->shared_static = get_int(f, "shared_static");
		fi->local_bytes = get_int(f, "local_bytes");
		fi->const_bytes = get_int(f, "const_bytes");
		fi->max_threads = get_int(f, "max_threads");
		fi->nparams = -1;
		if (cJSON_IsArray(ps)) {
			fi->nparams = 0;
			cJSON_ArrayForEach(p, ps)
			{
				if (fi->nparams < KS_MAX_PARAMS)
					fi->param_sizes[fi->nparams] = (int)p->valuedouble;
				fi->nparams++;
			}
		}
	}
	ks_msg_clear(&reply);
}

void ks_worker_unload(ks_worker *w, int module)
{
	cJSON *req;
	ks_msg reply;
	char *why = NULL;
	if (!w || !w->alive)
		return;
	req = cJSON_CreateObject();
	cJSON_AddNumberToObject(req, "module", module);
	if (call(w, &reply, KS_MSG_UNLOAD, req, NULL, 0, w->opts.start_timeout_s, &why) == KS_RUN_OK)
		ks_msg_clear(&reply);
	cJSON_Delete(req);
	ks_free(why);
}

/* Sends a request and turns every failure into res; on success *reply holds the answer. */
static int request(ks_worker *w, ks_run_result *res, ks_msg *reply, uint32_t type, const cJSON *req,
		   const void *blob, uint64_t len, double timeout_s)
{
	char *why = NULL;
	memset(res, 0, sizeof(*res));
	res->status = call(w, reply, type, req, blob, len, timeout_s, &why);
	if (res->status != KS_RUN_OK) {
		res->message = why;
		res->stage = ks_strdup("run");
		return -1;
	}
	if ((res->status = reply_status(w, reply->json, res)) != KS_RUN_OK) {
		ks_msg_clear(reply);
		return -1;
	}
	return 0;
}

/* Takes the buffer layout and blob of a run-like reply into res, checking it against the plan. */
static void take_buffers(ks_worker *w, ks_run_result *res, ks_msg *reply, const ks_plan *plan,
			 const ks_fetch_mode *fetch)
{
	const cJSON *ba, *b;
	size_t i = 0;

	ks_json_num(&res->ms, reply->json, "ms", 0);
	ba = cJSON_GetObjectItemCaseSensitive(reply->json, "bufs");
	res->bufs = ks_calloc(plan->nbufs + 1, sizeof(ks_fetched));
	cJSON_ArrayForEach(b, ba)
	{
		const char *cs = NULL;
		double d = 0;
		if (i >= plan->nbufs)
			break;
		ks_json_num(&d, b, "off", 0);
		res->bufs[i].off = (uint64_t)d;
		ks_json_num(&d, b, "total", 0);
		res->bufs[i].total = (uint64_t)d;
		if (ks_json_str(&cs, b, "checksum", 0) == 0) {
			res->bufs[i].checksum = strtoull(cs, NULL, 10);
			res->bufs[i].has_checksum = 1;
		}
		d = fetch[i];
		ks_json_num(&d, b, "mode", 0);
		res->bufs[i].mode = (ks_fetch_mode)d;
		d = 0;
		ks_json_num(&d, b, "sampled", 0);
		res->bufs[i].sampled = (uint64_t)d;
		i++;
	}
	res->nbufs = i;
	/* Validate the layout the worker claims against the blob before anyone reads it. */
	for (i = 0; i < res->nbufs; i++) {
		ks_fetch_mode md = res->bufs[i].mode;
		uint64_t band = res->bufs[i].total - plan->bufs[i].bytes;
		uint64_t need = md == KS_FETCH_FULL ? res->bufs[i].total
				: md == KS_FETCH_GUARDS ? band
				: md == KS_FETCH_SAMPLE ? band + res->bufs[i].sampled * ks_dtype_size(plan->bufs[i].dtype)
							: 0;
		if (md != fetch[i] && !(fetch[i] == KS_FETCH_SAMPLE && md == KS_FETCH_FULL))
			break;
		if (md == KS_FETCH_SAMPLE && (res->bufs[i].sampled < 2 * KS_SAMPLE_EDGE ||
					      res->bufs[i].sampled >= plan->bufs[i].count))
			break;
		if (res->bufs[i].total < plan->bufs[i].bytes + 2ull * plan->guard ||
		    res->bufs[i].off > reply->blob_len || need > reply->blob_len - res->bufs[i].off)
			break;
	}
	if (i < res->nbufs || res->nbufs != plan->nbufs) {
		res->status = KS_RUN_CRASH;
		res->message = ks_asprintf("the %s worker sent an inconsistent reply", w->role);
		ks_msg_clear(reply);
		kill_worker(w);
		return;
	}
	res->blob = reply->blob;
	res->blob_len = reply->blob_len;
	reply->blob = NULL;
	ks_msg_clear(reply);
}

static cJSON *fetch_json(const ks_fetch_mode *fetch, size_t n)
{
	cJSON *fa = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(fa, cJSON_CreateNumber(fetch[i]));
	return fa;
}

static void add_sample(cJSON *req, uint64_t k, uint64_t seed)
{
	char s[32];
	snprintf(s, sizeof(s), "%llu", (unsigned long long)seed);
	cJSON_AddNumberToObject(req, "sample_k", (double)k);
	cJSON_AddStringToObject(req, "sample_seed", s);
}

void ks_worker_run(ks_worker *w, ks_run_result *res, int module, const ks_plan *plan,
		   const ks_fetch_mode *fetch, uint64_t sample_k, uint64_t sample_seed, double timeout_s)
{
	cJSON *req = cJSON_CreateObject();
	ks_msg reply;
	int rc;

	add_sample(req, sample_k, sample_seed);
	cJSON_AddNumberToObject(req, "module", module);
	cJSON_AddItemToObject(req, "plan", ks_plan_to_json(plan));
	cJSON_AddItemToObject(req, "fetch", fetch_json(fetch, plan->nbufs));
	rc = request(w, res, &reply, KS_MSG_RUN, req, NULL, 0, timeout_s);
	cJSON_Delete(req);
	if (rc == 0)
		take_buffers(w, res, &reply, plan, fetch);
}

void ks_worker_time_start(ks_worker *w, ks_run_result *res, int module, const ks_plan *plan,
			  const uint64_t *seeds, size_t nsets, uint64_t flush_bytes, double timeout_s)
{
	ks_worker_time_start_checked(w, res, module, plan, seeds, nsets, flush_bytes, 0, NULL, timeout_s);
}

void ks_worker_time_start_checked(ks_worker *w, ks_run_result *res, int module, const ks_plan *plan,
				  const uint64_t *seeds, size_t nsets, uint64_t flush_bytes, uint64_t check_k,
				  int *runs, double timeout_s)
{
	cJSON *req = cJSON_CreateObject(), *sa;
	ks_msg reply;
	size_t i;

	cJSON_AddNumberToObject(req, "module", module);
	cJSON_AddItemToObject(req, "plan", ks_plan_to_json(plan));
	sa = cJSON_AddArrayToObject(req, "seeds");
	for (i = 0; i < nsets; i++) {
		char s[32];
		snprintf(s, sizeof(s), "%llu", (unsigned long long)seeds[i]);
		cJSON_AddItemToArray(sa, cJSON_CreateString(s));
	}
	cJSON_AddNumberToObject(req, "flush_bytes", (double)flush_bytes);
	if (runs && *runs > 0) {
		cJSON_AddNumberToObject(req, "check_k", (double)check_k);
		cJSON_AddNumberToObject(req, "check_runs", *runs);
	}
	if (request(w, res, &reply, KS_MSG_TIME_START, req, NULL, 0, timeout_s) == 0) {
		if (runs && *runs > 0) {
			double kept = 0;
			ks_json_num(&kept, reply.json, "check_runs", 0);
			if (!(kept >= 1 && kept <= *runs)) {
				res->status = KS_RUN_CRASH;
				res->message = ks_asprintf("the %s worker kept no runs to check", w->role);
				kill_worker(w);
			} else
				*runs = (int)kept;
		}
		ks_msg_clear(&reply);
	}
	cJSON_Delete(req);
}

/* KSCORE_TRACE=1: one line per timed batch with the GPU time of its runs and of the steps around
 * them (the reply's phase_ms: docs/benchmarks.md, "Where the wall time goes"). */
static void trace_phases(const ks_worker *w, const cJSON *reply, size_t n)
{
	const cJSON *ph = cJSON_GetObjectItemCaseSensitive(reply, "phase_ms"), *x;
	double runs = 0;
	cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(reply, "ms"))
	{
		if (cJSON_IsNumber(x))
			runs += x->valuedouble;
	}
	fprintf(stderr, "kscore-timed: %s %d %zu %.3f %.3f %.3f %.3f %.3f %.3f\n", w->role, (int)w->pid, n, runs,
		ks_json_num_or(reply, "span_ms", 0), ks_json_num_or(ph, "redraw", 0), ks_json_num_or(ph, "fill", 0),
		ks_json_num_or(ph, "flush", 0), ks_json_num_or(ph, "keep", 0));
}

void ks_worker_time_run(ks_worker *w, ks_run_result *res, const int *sets, const uint64_t *versions, size_t n,
			double *ms, double *span_ms, double timeout_s)
{
	cJSON *req = cJSON_CreateObject(), *ra = cJSON_AddArrayToObject(req, "runs");
	cJSON *va = versions ? cJSON_AddArrayToObject(req, "versions") : NULL;
	const cJSON *a, *x;
	ks_msg reply;
	size_t i = 0;

	for (i = 0; i < n; i++) {
		cJSON_AddItemToArray(ra, cJSON_CreateNumber(sets[i]));
		if (va)
			cJSON_AddItemToArray(va, cJSON_CreateNumber((double)versions[i]));
	}
	cJSON_AddBoolToObject(req, "flush", 1);
	if (ks_tracelog_on())
		cJSON_AddBoolToObject(req, "phases", 1);
	if (request(w, res, &reply, KS_MSG_TIME_RUN, req, NULL, 0, timeout_s) == 0) {
		if (ks_tracelog_on())
			trace_phases(w, reply.json, n);
		a = cJSON_GetObjectItemCaseSensitive(reply.json, "ms");
		if (span_ms)
			*span_ms = ks_json_num_or(reply.json, "span_ms", 0);
		i = 0;
		cJSON_ArrayForEach(x, a)
		{
			if (i < n && cJSON_IsNumber(x))
				ms[i++] = x->valuedouble;
		}
		if (i != n) {
			res->status = KS_RUN_CRASH;
			res->message = ks_asprintf("the %s worker sent %zu timings for %zu runs", w->role, i, n);
			kill_worker(w);
		}
		ks_msg_clear(&reply);
	}
	cJSON_Delete(req);
}

void ks_worker_time_verify(ks_worker *w, ks_run_result *res, const ks_plan *plan, int set, uint64_t seed,
			   const ks_fetch_mode *fetch, uint64_t sample_k, double timeout_s)
{
	cJSON *req = cJSON_CreateObject();
	ks_msg reply;
	char s[32];
	int rc;

	add_sample(req, sample_k, seed);
	snprintf(s, sizeof(s), "%llu", (unsigned long long)seed);
	cJSON_AddNumberToObject(req, "set", set);
	cJSON_AddStringToObject(req, "seed", s);
	cJSON_AddItemToObject(req, "fetch", fetch_json(fetch, plan->nbufs));
	rc = request(w, res, &reply, KS_MSG_TIME_VERIFY, req, NULL, 0, timeout_s);
	cJSON_Delete(req);
	if (rc == 0)
		take_buffers(w, res, &reply, plan, fetch);
}

void ks_worker_time_check(ks_worker *w, ks_run_result *res, const ks_plan *plan, int run,
			  const ks_fetch_mode *fetch, double timeout_s)
{
	cJSON *req = cJSON_CreateObject();
	ks_msg reply;
	int rc;

	cJSON_AddNumberToObject(req, "run", run);
	cJSON_AddItemToObject(req, "fetch", fetch_json(fetch, plan->nbufs));
	rc = request(w, res, &reply, KS_MSG_TIME_CHECK, req, NULL, 0, timeout_s);
	cJSON_Delete(req);
	if (rc == 0)
		take_buffers(w, res, &reply, plan, fetch);
}

void ks_worker_time_end(ks_worker *w)
{
	ks_run_result res;
	ks_msg reply;
	if (!w || !w->alive)
		return;
	if (request(w, &res, &reply, KS_MSG_TIME_END, NULL, NULL, 0, w->opts.start_timeout_s) == 0)
		ks_msg_clear(&reply);
	ks_run_result_clear(&res);
}

void ks_worker_calibrate(ks_worker *w, ks_run_result *res, cJSON **out, const void *cubin, size_t len,
			 char *const *names, size_t n, double timeout_s)
{
	cJSON *req = cJSON_CreateObject();
	ks_msg reply;
	*out = NULL;
	cJSON_AddItemToObject(req, "funcs", names_json(names, n));
	if (request(w, res, &reply, KS_MSG_CALIBRATE, req, cubin, len, timeout_s) == 0) {
		*out = reply.json;
		reply.json = NULL;
		ks_msg_clear(&reply);
	}
	cJSON_Delete(req);
}

cJSON *ks_worker_status(ks_worker *w)
{
	ks_run_result res;
	ks_msg reply;
	cJSON *out = NULL;
	if (!w || !w->alive)
		return NULL;
	if (request(w, &res, &reply, KS_MSG_STATUS, NULL, NULL, 0, w->opts.start_timeout_s) == 0) {
		out = reply.json;
		reply.json = NULL;
		ks_msg_clear(&reply);
	}
	ks_run_result_clear(&res);
	return out;
}

int ks_worker_alive(const ks_worker *w)
{
	return w && w->alive;
}

/* How long a worker may take to release its context and answer QUIT: past that it is ended as
 * before QUIT was answered (its context goes with its process). Short for a plain worker, which
 * answers at once; a tool's worker may take longer (the tool tears down what it attached). */
static double quit_reply_s(const ks_worker *w)
{
	double cap = w->wrapped ? 10.0 : 1.0;
	return w->opts.exit_grace_s > 0 && w->opts.exit_grace_s < cap ? w->opts.exit_grace_s : cap;
}

void ks_worker_set_exit_grace(ks_worker *w, double s)
{
	if (w)
		w->opts.exit_grace_s = s;
}

int ks_worker_close(ks_worker *w)
{
	const ks_worker_gate *g;
	double t0 = ks_tracelog_ms();
	int was_alive;
	if (!w)
		return -1;
	was_alive = w->alive;
	/* a context torn down is GPU work too (a dead worker's is gone already; never nested in a
	 * request, whose failures kill the worker themselves): the gate is held until the worker says
	 * its context is released, not while the process (a sanitizer writing its report) exits */
	if ((g = w->alive ? w->opts.gate : NULL))
		g->enter(g->ud, 0);
	if (w->alive) {
		/* a worker that has exited already makes this fail: that must not replace the message
		 * of the error the caller is cleaning up after */
		char *msg = ks_strdup(ks_error_msg());
		ks_msg reply;
		/* no answer in time: nothing is killed here; end_worker gives a tool its grace as before */
		memset(&reply, 0, sizeof(reply));
		if (ks_proto_send(w->fd, KS_MSG_QUIT, NULL, NULL, 0) < 0 ||
		    ks_proto_recv_capture(w->fd, &reply, quit_reply_s(w), w->opts.max_reply, w->out_fd, &w->out) < 0)
			ks_error_set(KS_ERROR, "%s", msg);
		ks_msg_clear(&reply);
		ks_free(msg);
	}
	if (g)
		g->leave(g->ud, 0);
	end_worker(w);
	if (was_alive)
		ks_tracelog_span("worker-close", w->role, t0);
	return w->exit_status;
}

void ks_worker_free(ks_worker *w)
{
	if (!w)
		return;
	ks_worker_close(w);
	ks_proto_capture_free(&w->out);
	ks_free(w);
}

char *ks_worker_take_output(ks_worker *w, size_t *len, uint64_t *total)
{
	if (w->out_fd >= 0)
		ks_proto_capture_drain(&w->out, w->out_fd, OUTPUT_TAIL);
	return ks_proto_capture_take(&w->out, len, total);
}

void ks_run_result_clear(ks_run_result *res)
{
	ks_free(res->stage);
	ks_free(res->message);
	ks_free(res->blob);
	ks_free(res->bufs);
	memset(res, 0, sizeof(*res));
}
