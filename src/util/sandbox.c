#include "util/sandbox.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- Landlock ----
 *
 * The system header may predate the kernel (Debian 12 ships the ABI 2 header while the kernel may
 * speak ABI 7), so the few constants and the ruleset layout used here are spelled out. The kernel
 * accepts a ruleset_attr as long as the size we pass matches an ABI it knows; we pass the size of
 * the fields that the running ABI understands. */

#define KS_LL_CREATE_RULESET_VERSION (1U << 0)
#define KS_LL_RULE_PATH_BENEATH 1

#define KS_LL_FS_EXECUTE (1ULL << 0)
#define KS_LL_FS_WRITE_FILE (1ULL << 1)
#define KS_LL_FS_READ_FILE (1ULL << 2)
#define KS_LL_FS_READ_DIR (1ULL << 3)
#define KS_LL_FS_REFER (1ULL << 13)     /* ABI 2 */
#define KS_LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define KS_LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define KS_LL_FS_ABI1 ((1ULL << 13) - 1) /* EXECUTE .. MAKE_SYM */

#define KS_LL_NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define KS_LL_NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */

#define KS_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define KS_LL_SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

struct ks_ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ks_ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

static int ll_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, (size_t)0,
			   (uint32_t)KS_LL_CREATE_RULESET_VERSION);
	return abi < 0 ? -1 : (int)abi;
}

int ks_sandbox_available(void)
{
	return ll_abi() >= 1;
}

int ks_sandbox_confine(const char *const *read_paths, size_t n)
{
	struct ks_ll_ruleset_attr attr;
	size_t attr_size;
	int abi = ll_abi(), ruleset = -1, rc = 0;
	size_t i;

	if (abi < 1)
		return ks_error_set(KS_EUNSUPPORTED,
				    "Landlock is not available on this kernel (%s)",
				    errno == ENOSYS ? "not built in" :
				    errno == EOPNOTSUPP ? "disabled at boot" : strerror(errno));

	/* Handle every access right the kernel knows, so that anything not granted below is denied:
	 * writes, execution, device ioctls, TCP, abstract sockets and signals outside the sandbox. */
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = KS_LL_FS_ABI1;
	attr_size = sizeof(attr.handled_access_fs);
	if (abi >= 2)
		attr.handled_access_fs |= KS_LL_FS_REFER;
	if (abi >= 3)
		attr.handled_access_fs |= KS_LL_FS_TRUNCATE;
	if (abi >= 4) {
		attr.handled_access_net = KS_LL_NET_BIND_TCP | KS_LL_NET_CONNECT_TCP;
		attr_size = offsetof(struct ks_ll_ruleset_attr, scoped);
	}
	if (abi >= 5)
		attr.handled_access_fs |= KS_LL_FS_IOCTL_DEV;
	if (abi >= 6) {
		attr.scoped = KS_LL_SCOPE_ABSTRACT_UNIX_SOCKET | KS_LL_SCOPE_SIGNAL;
		attr_size = sizeof(attr);
	}

	ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, attr_size, (uint32_t)0);
	if (ruleset < 0) {
		rc = ks_error_set(KS_ERROR, "cannot create a Landlock ruleset (ABI %d): %s", abi,
				  strerror(errno));
		goto done;
	}

	for (i = 0; i < n; i++) {
		struct ks_ll_path_beneath_attr pb;
		struct stat st;
		int fd = open(read_paths[i], O_PATH | O_CLOEXEC);

		if (fd < 0) {
			rc = ks_error_set(errno == ENOENT ? KS_ENOTFOUND : KS_EIO,
					  "sandbox path %s: %s", read_paths[i], strerror(errno));
			goto done;
		}
		if (fstat(fd, &st) < 0) {
			rc = ks_error_set(KS_EIO, "sandbox path %s: %s", read_paths[i],
					  strerror(errno));
			close(fd);
			goto done;
		}
		/* A rule on a file may only carry file rights; reading a directory needs READ_DIR. */
		pb.allowed_access = KS_LL_FS_READ_FILE | (S_ISDIR(st.st_mode) ? KS_LL_FS_READ_DIR : 0);
		pb.parent_fd = fd;
		if (syscall(SYS_landlock_add_rule, ruleset, KS_LL_RULE_PATH_BENEATH, &pb,
			    (uint32_t)0) < 0) {
			rc = ks_error_set(KS_ERROR, "cannot allow %s in the Landlock ruleset: %s",
					  read_paths[i], strerror(errno));
			close(fd);
			goto done;
		}
		close(fd);
	}

	/* Required for an unprivileged process to restrict itself; also keeps setuid binaries from
	 * regaining what the ruleset takes away. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		rc = ks_error_set(KS_ERROR, "PR_SET_NO_NEW_PRIVS failed: %s", strerror(errno));
		goto done;
	}
	if (syscall(SYS_landlock_restrict_self, ruleset, (uint32_t)0) < 0) {
		rc = ks_error_set(KS_ERROR, "landlock_restrict_self failed: %s", strerror(errno));
		goto done;
	}
done:
	if (ruleset >= 0)
		close(ruleset);
	return rc;
}

/* ---- child side ---- */

static int set_limit(int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit cur, want;

	if (getrlimit(resource, &cur) < 0)
		return -1;
	/* An unprivileged process cannot raise its hard limit: never ask for more than it has. */
	if (cur.rlim_max != RLIM_INFINITY) {
		if (hard == RLIM_INFINITY || hard > cur.rlim_max)
			hard = cur.rlim_max;
		if (soft == RLIM_INFINITY || soft > hard)
			soft = hard;
	}
	want.rlim_cur = soft;
	want.rlim_max = hard;
	return setrlimit(resource, &want);
}

static void close_from(int lowfd, int keep_fd)
{
	int fd, maxfd;

	if (keep_fd >= lowfd) {
		if (keep_fd > lowfd && syscall(SYS_close_range, (unsigned)lowfd,
					       (unsigned)keep_fd - 1, 0U) < 0)
			for (fd = lowfd; fd < keep_fd; fd++)
				close(fd);
		lowfd = keep_fd + 1;
	}
	if (syscall(SYS_close_range, (unsigned)lowfd, ~0U, 0U) == 0)
		return;
	/* Kernels before 5.9: close what the descriptor table can hold. */
	maxfd = (int)sysconf(_SC_OPEN_MAX);
	if (maxfd < 0 || maxfd > 1 << 20)
		maxfd = 1 << 20;
	for (fd = lowfd; fd < maxfd; fd++)
		close(fd);
}

int ks_sandbox_child_setup(const ks_sandbox_limits *lim, int keep_fd)
{
	const rlim_t mb = 1024 * 1024;
	struct sigaction sa;
	sigset_t none;
	int sig;

	/* Own process group, so that a timeout kills the helper and everything it started. */
	if (setpgid(0, 0) < 0)
		return -1;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;

	/* Dispositions and the mask survive execve: start the child from a clean slate. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	if (set_limit(RLIMIT_CORE, 0, 0) < 0)
		return -1;
	if (lim) {
		/* SIGXCPU at the soft limit, SIGKILL a second later at the hard one. */
		if (lim->cpu_seconds &&
		    set_limit(RLIMIT_CPU, lim->cpu_seconds, (rlim_t)lim->cpu_seconds + 1) < 0)
			return -1;
		if (lim->address_space_mb &&
		    set_limit(RLIMIT_AS, lim->address_space_mb * mb, lim->address_space_mb * mb) < 0)
			return -1;
		if (set_limit(RLIMIT_FSIZE, lim->file_size_mb * mb, lim->file_size_mb * mb) < 0)
			return -1;
		if (lim->max_files && set_limit(RLIMIT_NOFILE, lim->max_files, lim->max_files) < 0)
			return -1;
	}
	close_from(3, keep_fd);
	return 0;
}

/* ---- parent side ---- */

#define KS_DRAIN_GRACE_S 0.5 /* reading what a dead child's group left in its pipes */

typedef struct {
	int state;               /* 0 waiting, 1 running, 2 reaped and draining, 3 finished */
	pid_t pid;
	int pidfd;
	int in_fd, out_fd, err_fd;
	size_t in_off;
	ks_buf out, err;
	double start, deadline, reaped_at;
} ks_child;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* dup2 onto 0..2 clears close-on-exec, except when the descriptor already has that number. */
static int move_fd(int fd, int to)
{
	if (fd == to)
		return fcntl(fd, F_SETFD, 0);
	return dup2(fd, to) < 0 ? -1 : 0;
}

static void child_fail(int status_fd, int stage)
{
	int msg[2];
	msg[0] = stage;
	msg[1] = errno;
	if (write(status_fd, msg, sizeof(msg)) < 0) {
		/* nothing more to say */
	}
	_exit(127);
}

static int start_child(ks_child *c, const ks_spawn_options *o)
{
	static const char *const empty_env[] = { NULL };
	const char *const *envp = o->envp ? o->envp : empty_env;
	int in_sv[2] = { -1, -1 }, out_p[2] = { -1, -1 }, err_p[2] = { -1, -1 };
	int st_p[2] = { -1, -1 }, msg[2];
	pid_t parent = getpid();
	ssize_t got;
	int rc = 0;

	if (!o->argv || !o->argv[0]) {
		rc = ks_error_set(KS_EINVALID, "spawn: no program given");
		goto done;
	}
	/* stdin is a socket so that writing to a child that has quit gives EPIPE via MSG_NOSIGNAL,
	 * never a SIGPIPE in the parent. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in_sv) < 0 ||
	    pipe2(out_p, O_CLOEXEC) < 0 || pipe2(err_p, O_CLOEXEC) < 0 ||
	    pipe2(st_p, O_CLOEXEC) < 0) {
		rc = ks_error_set(KS_EIO, "spawn %s: cannot create pipes: %s", o->argv[0],
				  strerror(errno));
		goto done;
	}

	c->pid = fork();
	if (c->pid < 0) {
		rc = ks_error_set(KS_ERROR, "spawn %s: fork failed: %s", o->argv[0], strerror(errno));
		goto done;
	}
	if (c->pid == 0) {
		/* Only async-signal-safe calls from here to execve. */
		if (move_fd(in_sv[1], 0) < 0 || move_fd(out_p[1], 1) < 0 || move_fd(err_p[1], 2) < 0)
			child_fail(st_p[1], 1);
		if (ks_sandbox_child_setup(&o->limits, st_p[1]) < 0)
			child_fail(st_p[1], 1);
		/* The parent may have died before PR_SET_PDEATHSIG was armed. */
		if (getppid() != parent)
			_exit(127);
		execve(o->argv[0], (char *const *)o->argv, (char *const *)envp);
		child_fail(st_p[1], 2);
	}

	/* Also from this side, so that a timeout before the child's own setpgid still finds it. */
	setpgid(c->pid, c->pid);
	c->start = now_s();
	c->deadline = o->timeout_s > 0 ? c->start + o->timeout_s : 0;
	close_fd(&in_sv[1]);
	close_fd(&out_p[1]);
	close_fd(&err_p[1]);
	close_fd(&st_p[1]);

	/* The status pipe closes on a successful execve; a failure sends stage and errno. */
	do
		got = read(st_p[0], msg, sizeof(msg));
	while (got < 0 && errno == EINTR);
	if (got == (ssize_t)sizeof(msg)) {
		waitpid(c->pid, NULL, 0);
		c->pid = -1;
		rc = ks_error_set(KS_ECHILD, "spawn %s: %s failed: %s", o->argv[0],
				  msg[0] == 2 ? "execve" : "child setup", strerror(msg[1]));
		goto done;
	}

	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0U);
	if (c->pidfd >= 0)
		fcntl(c->pidfd, F_SETFD, FD_CLOEXEC);
	c->in_fd = in_sv[0];
	c->out_fd = out_p[0];
	c->err_fd = err_p[0];
	in_sv[0] = out_p[0] = err_p[0] = -1;
	set_nonblock(c->in_fd);
	set_nonblock(c->out_fd);
	set_nonblock(c->err_fd);
	if (o->stdin_len == 0)
		close_fd(&c->in_fd);
	c->state = 1;
done:
	close_fd(&in_sv[0]);
	close_fd(&in_sv[1]);
	close_fd(&out_p[0]);
	close_fd(&out_p[1]);
	close_fd(&err_p[0]);
	close_fd(&err_p[1]);
	close_fd(&st_p[0]);
	close_fd(&st_p[1]);
	return rc;
}

/* Reads what is available; output over the cap is read and dropped so the child never blocks. */
static void drain(int *fd, ks_buf *b, int *truncated)
{
	char chunk[65536];

	for (;;) {
		ssize_t n = read(*fd, chunk, sizeof(chunk));
		if (n > 0) {
			if (ks_buf_put_truncated(b, chunk, (size_t)n))
				*truncated = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		close_fd(fd); /* EOF or error */
		return;
	}
}

static void feed(ks_child *c, const ks_spawn_options *o)
{
	const char *data = o->stdin_data;

	while (c->in_fd >= 0 && c->in_off < o->stdin_len) {
		size_t want = o->stdin_len - c->in_off;
		ssize_t n = send(c->in_fd, data + c->in_off, want > 65536 ? 65536 : want, MSG_NOSIGNAL);
		if (n > 0) {
			c->in_off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		close_fd(&c->in_fd); /* the child stopped reading: it sees what it took */
		return;
	}
	close_fd(&c->in_fd);
}

/* Reaps a child that has exited, after killing what is left of its process group. The group is
 * killed before the leader is reaped, while its id cannot yet be reused. */
static int try_reap(ks_child *c, ks_spawn_result *r)
{
	siginfo_t si;
	struct rusage ru;
	int st = 0;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
		/* ECHILD: someone else reaped it (SIGCHLD ignored); its status is lost. */
		if (errno != ECHILD)
			return 0;
		kill(-c->pid, SIGKILL);
		r->seconds = now_s() - c->start;
		goto reaped;
	}
	if (si.si_pid == 0)
		return 0;
	kill(-c->pid, SIGKILL);
	memset(&ru, 0, sizeof(ru));
	while (wait4(c->pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	r->seconds = now_s() - c->start;
	r->cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	r->max_rss_kb = ru.ru_maxrss;
	if (WIFEXITED(st)) {
		r->exited = 1;
		r->exit_code = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		r->signaled = 1;
		r->signal = WTERMSIG(st);
	}
reaped:
	close_fd(&c->pidfd);
	close_fd(&c->in_fd);
	c->pid = -1;
	c->state = 2;
	c->reaped_at = now_s();
	return 1;
}

static void finish(ks_child *c, ks_spawn_result *r)
{
	close_fd(&c->out_fd);
	close_fd(&c->err_fd);
	r->out = ks_buf_take(&c->out, &r->out_len);
	r->err = ks_buf_take(&c->err, &r->err_len);
	c->state = 3;
}

int ks_spawn_run_many(ks_spawn_result *res, const ks_spawn_options *opts, size_t n, int parallel)
{
	return ks_spawn_run_many_cb(res, opts, n, parallel, NULL, NULL);
}

int ks_spawn_run_many_cb(ks_spawn_result *res, const ks_spawn_options *opts, size_t n, int parallel,
			 ks_spawn_done_fn done, void *ud)
{
	ks_child *kids = NULL;
	struct pollfd *pfd = NULL;
	ks_child **pown = NULL;
	size_t i, next = 0, finished = 0;
	int running = 0, rc = 0;

	if (parallel < 1)
		parallel = 1;
	kids = ks_calloc(n ? n : 1, sizeof(*kids));
	/* At most four descriptors per running child. */
	pfd = ks_calloc((size_t)parallel * 4, sizeof(*pfd));
	pown = ks_calloc((size_t)parallel * 4, sizeof(*pown));
	for (i = 0; i < n; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		kids[i].pid = -1;
		kids[i].pidfd = kids[i].in_fd = kids[i].out_fd = kids[i].err_fd = -1;
		ks_buf_init(&kids[i].out, opts[i].max_stdout);
		ks_buf_init(&kids[i].err, opts[i].max_stderr);
	}

	while (finished < n) {
		double now, wait_s = -1;
		size_t np = 0;
		int timeout_ms;

		while (running < parallel && next < n) {
			ks_child *c = &kids[next];
			int src = start_child(c, &opts[next]);
			if (src < 0) {
				/* Recorded as exit 127 with the reason on stderr; the batch goes on. */
				if (rc == 0)
					rc = src;
				res[next].exited = 1;
				res[next].exit_code = 127;
				ks_buf_put_truncated(&c->err, ks_error_msg(), strlen(ks_error_msg()));
				finish(c, &res[next]);
				finished++;
				if (done)
					done(ud, next);
			} else {
				running++;
			}
			next++;
		}
		if (finished == n)
			break;

		now = now_s();
		for (i = 0; i < n; i++) {
			ks_child *c = &kids[i];
			double left = -1;
			if (c->state == 1) {
				if (c->in_fd >= 0) {
					pfd[np] = (struct pollfd){ c->in_fd, POLLOUT, 0 };
					pown[np++] = c;
				}
				if (c->pidfd >= 0) {
					pfd[np] = (struct pollfd){ c->pidfd, POLLIN, 0 };
					pown[np++] = c;
				} else {
					left = 0.02; /* no pidfd: look for the exit now and then */
				}
				if (c->deadline > 0 && !res[i].timed_out) {
					double d = c->deadline - now;
					if (left < 0 || d < left)
						left = d;
				}
			} else if (c->state == 2) {
				left = c->reaped_at + KS_DRAIN_GRACE_S - now;
			} else {
				continue;
			}
			if (c->out_fd >= 0) {
				pfd[np] = (struct pollfd){ c->out_fd, POLLIN, 0 };
				pown[np++] = c;
			}
			if (c->err_fd >= 0) {
				pfd[np] = (struct pollfd){ c->err_fd, POLLIN, 0 };
				pown[np++] = c;
			}
			if (left >= 0 && (wait_s < 0 || left < wait_s))
				wait_s = left;
		}
		timeout_ms = wait_s < 0 ? -1 : (int)(wait_s * 1000.0) + 1;
		if (poll(pfd, (nfds_t)np, timeout_ms) < 0 && errno != EINTR) {
			rc = ks_error_set(KS_EIO, "spawn: poll failed: %s", strerror(errno));
			/* Fall through: the deadlines below still kill and reap everything. */
		}

		for (i = 0; i < np; i++) {
			ks_child *c = pown[i];
			ks_spawn_result *r = &res[c - kids];
			if (!pfd[i].revents)
				continue;
			if (pfd[i].fd == c->in_fd)
				feed(c, &opts[c - kids]);
			else if (pfd[i].fd == c->out_fd)
				drain(&c->out_fd, &c->out, &r->stdout_truncated);
			else if (pfd[i].fd == c->err_fd)
				drain(&c->err_fd, &c->err, &r->stderr_truncated);
		}

		now = now_s();
		for (i = 0; i < n; i++) {
			ks_child *c = &kids[i];
			if (c->state == 1 && !try_reap(c, &res[i]) && c->deadline > 0 &&
			    now >= c->deadline && !res[i].timed_out) {
				res[i].timed_out = 1;
				kill(-c->pid, SIGKILL);
				kill(c->pid, SIGKILL); /* in case it left its group */
			}
			if (c->state == 2) {
				if (c->out_fd >= 0)
					drain(&c->out_fd, &c->out, &res[i].stdout_truncated);
				if (c->err_fd >= 0)
					drain(&c->err_fd, &c->err, &res[i].stderr_truncated);
				/* Something that escaped the group may hold the pipes: stop waiting. */
				if ((c->out_fd < 0 && c->err_fd < 0) ||
				    now >= c->reaped_at + KS_DRAIN_GRACE_S) {
					finish(c, &res[i]);
					finished++;
					running--;
					if (done)
						done(ud, i);
				}
			}
		}
	}

	for (i = 0; i < n; i++) {
		ks_buf_free(&kids[i].out);
		ks_buf_free(&kids[i].err);
	}
	ks_free(kids);
	ks_free(pfd);
	ks_free(pown);
	return rc;
}

int ks_spawn_run(ks_spawn_result *res, const ks_spawn_options *opts)
{
	return ks_spawn_run_many(res, opts, 1, 1);
}

void ks_spawn_result_clear(ks_spawn_result *res)
{
	if (!res)
		return;
	ks_free(res->out);
	ks_free(res->err);
	memset(res, 0, sizeof(*res));
}
