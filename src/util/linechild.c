#include "util/linechild.h"
#include "util/errors.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
