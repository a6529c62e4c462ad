#include "util/linechild.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *ks_linechild_python(const char *given)
{
	const char *env = getenv("KSCORE_PYTHON"), *path = getenv("PATH");
	char *dup, *tok, *save = NULL, *found = NULL;
	if (given && *given)
		return access(given, X_OK) == 0 ? ks_strdup(given)
						: (ks_error_set(KS_ENOTFOUND, "Python %s is not an executable", given), NULL);
	if (env && *env) {
		if (access(env, X_OK) == 0)
			return ks_strdup(env);
		ks_error_set(KS_ENOTFOUND, "KSCORE_PYTHON=%s is not an executable", env);
		return NULL;
	}
	dup = ks_strdup(path && *path ? path : "/usr/bin:/bin");
	for (tok = strtok_r(dup, ":", &save); tok && !found; tok = strtok_r(NULL, ":", &save)) {
		char *c = ks_path_join(*tok ? tok : ".", "python3");
		if (access(c, X_OK) == 0)
			found = c;
		else
			ks_free(c);
	}
	ks_free(dup);
	if (!found)
		ks_error_set(KS_ENOTFOUND, "no python3 on PATH (Triton answers and imported problem sets need the "
			     "host's Python with torch and triton; set KSCORE_PYTHON to use another)");
	return found;
}

/* 1 when the comma-separated list names `name`. */
static int names(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;
	while (p && *p) {
		if (!strncmp(p, name, n) && (p[n] == ',' || p[n] == 0))
			return 1;
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

/* The helper's environment: nothing of kscore's (tokens, paths) but CUDA_VISIBLE_DEVICES (`visible`,
 * else the run's own) and what KSCORE_TRITON_ENV names (comma-separated: for a host whose driver or
 * Python needs a variable); its home, temporary folder and Triton cache in its private folder; one
 * hardware queue per CUDA context (an answer runs on one stream, and a context with the driver's
 * default of eight is made and released about three times slower, under a lock the driver holds
 * for the whole host: docs/benchmarks.md, "Contexts"), unless KSCORE_TRITON_ENV passes the
 * variable. */
char **ks_linechild_env(const char *dir, const char *visible)
{
	const char *pass = getenv("KSCORE_TRITON_ENV"), *cvd = visible ? visible : getenv("CUDA_VISIBLE_DEVICES");
	char **env = ks_calloc(16 + 64, sizeof(char *));
	size_t n = 0;
	env[n++] = ks_asprintf("HOME=%s", dir);
	env[n++] = ks_asprintf("TMPDIR=%s", dir);
	env[n++] = ks_asprintf("TRITON_CACHE_DIR=%s/triton-cache", dir);
	env[n++] = ks_strdup("PATH=/usr/local/bin:/usr/bin:/bin");
	env[n++] = ks_strdup("LANG=C.UTF-8");
	env[n++] = ks_strdup("PYTHONDONTWRITEBYTECODE=1");
	env[n++] = ks_strdup("PYTHONUNBUFFERED=1");
	if (cvd)
		env[n++] = ks_asprintf("CUDA_VISIBLE_DEVICES=%s", cvd);
	if (!names(pass, "CUDA_DEVICE_MAX_CONNECTIONS") || !getenv("CUDA_DEVICE_MAX_CONNECTIONS"))
		env[n++] = ks_strdup("CUDA_DEVICE_MAX_CONNECTIONS=1");
	if (pass && *pass) {
		char *dup = ks_strdup(pass), *tok, *save = NULL;
		for (tok = strtok_r(dup, ",", &save); tok && n < 16 + 63; tok = strtok_r(NULL, ",", &save)) {
			const char *v = getenv(tok);
			if (v && strcmp(tok, "CUDA_VISIBLE_DEVICES") != 0)
				env[n++] = ks_asprintf("%s=%s", tok, v);
		}
		ks_free(dup);
	}
	env[n] = NULL;
	return env;
}

void ks_linechild_env_free(char **v)
{
	size_t i;
	for (i = 0; v && v[i]; i++)
		ks_free(v[i]);
	ks_free(v);
}


double ks_linechild_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void ks_linechild_init(ks_linechild *c, size_t max_line)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->in = c->out = -1;
	c->max_line = max_line;
	ks_buf_init(&c->pending, max_line + 1);
}

int ks_linechild_spawn(ks_linechild *c, const char *const *argv, const char *const *envp, const char *log,
		       const ks_sandbox_limits *lim)
{
	int ip[2] = { -1, -1 }, op[2] = { -1, -1 }, rc = 0;
	pid_t pid;
	if (pipe2(ip, O_CLOEXEC) < 0 || pipe2(op, O_CLOEXEC) < 0) {
		rc = ks_error_set(KS_EIO, "pipe: %s", strerror(errno));
		goto done;
	}
	pid = fork();
	if (pid < 0) {
		rc = ks_error_set(KS_EIO, "fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0) {
		int err = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (err < 0 || dup2(ip[0], 0) < 0 || dup2(op[1], 1) < 0 || dup2(err, 2) < 0)
			_exit(127);
		if (ks_sandbox_child_setup(lim, -1) < 0)
			_exit(127);
		execve(argv[0], (char *const *)argv, (char *const *)envp);
		_exit(127);
	}
	c->pid = pid;
	c->in = ip[1];
	c->out = op[0];
	ip[1] = op[0] = -1;
	fcntl(c->out, F_SETFL, fcntl(c->out, F_GETFL) | O_NONBLOCK);
	ks_buf_reset(&c->pending);
	signal(SIGPIPE, SIG_IGN);
done:
	if (ip[0] >= 0)
		close(ip[0]);
	if (ip[1] >= 0)
		close(ip[1]);
	if (op[0] >= 0)
		close(op[0]);
	if (op[1] >= 0)
		close(op[1]);
	return rc;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

int ks_linechild_send(ks_linechild *c, const char *line, size_t n)
{
	if (c->in < 0 || write_all(c->in, line, n) < 0 || write_all(c->in, "\n", 1) < 0)
		return -1;
	return 0;
}

int ks_linechild_recv(ks_linechild *c, char **line, double deadline, const char *who)
{
	char chunk[65536];
	*line = NULL;
	for (;;) {
		char *nl = c->pending.len ? memchr(c->pending.ptr, '\n', c->pending.len) : NULL;
		struct pollfd pf = { c->out, POLLIN, 0 };
		double left;
		ssize_t r;
		if (nl) {
			size_t n = (size_t)(nl - c->pending.ptr);
			*line = ks_strndup(c->pending.ptr, n);
			memmove(c->pending.ptr, nl + 1, c->pending.len - n - 1);
			c->pending.len -= n + 1;
			return 0;
		}
		if (c->pending.len > c->max_line)
			return ks_error_set(KS_ELIMIT, "%s's response passes %zu bytes", who, c->max_line);
		if (c->out < 0)
			return ks_error_set(KS_ECHILD, "%s is not running", who);
		left = deadline - ks_linechild_now();
		if (left <= 0)
			return ks_error_set(KS_ETIMEOUT, "%s did not answer in time", who);
		if (poll(&pf, 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1) < 0 && errno != EINTR)
			return ks_error_set(KS_EIO, "poll: %s", strerror(errno));
		r = read(c->out, chunk, sizeof(chunk));
		if (r == 0)
			return ks_error_set(KS_ECHILD, "%s exited", who);
		if (r < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return ks_error_set(KS_EIO, "reading %s: %s", who, strerror(errno));
		}
		if (ks_buf_put(&c->pending, chunk, (size_t)r) < 0)
			return ks_error_set(KS_ELIMIT, "%s's response passes %zu bytes", who, c->max_line);
	}
}

void ks_linechild_stop(ks_linechild *c)
{
	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	c->in = c->out = -1;
	if (c->pid > 0) {
		kill(-c->pid, SIGKILL);
		kill(c->pid, SIGKILL);
		while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	c->pid = -1;
	ks_buf_reset(&c->pending);
}

void ks_linechild_free(ks_linechild *c)
{
	ks_linechild_stop(c);
	ks_buf_free(&c->pending);
}
