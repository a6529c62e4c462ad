/* kscore-compile: compiles one untrusted CUDA source to CUBIN with NVRTC and writes one reply frame
 * (compile.h) to stdout. It is exec'd by ks_compile_run with an empty environment and rlimits; it
 * reads all of its input, loads everything NVRTC will need, and then confines itself with Landlock
 * to read-only access to CUDA's include directories and kscore's compatibility headers before
 * NVRTC sees the source. */
#include "util/buf.h"
#include "lang/cuda/compat.h"
#include "lang/cuda/compile.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "util/sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <nvrtc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define KS_MAX_INCLUDES 8
#define KS_SOURCE_NAME "submission.cu"

typedef struct {
	const char *arch;
	const char *compat;
	const char *include[KS_MAX_INCLUDES];
	size_t ninclude;
	const char *names[KS_COMPILE_MAX_NAMES];
	size_t nnames;
	size_t max_log, max_source;
	int allow_unsandboxed;
	int version;
} ks_args;

static void usage(const char *msg)
{
	fprintf(stderr, "kscore-compile: %s\n"
		"usage: kscore-compile --version\n"
		"       kscore-compile --arch sm_NN [--compat DIR] [--include DIR]... [--name EXPR]...\n"
		"                      --max-log BYTES --max-source BYTES [--allow-unsandboxed]"
		" < source.cu\n", msg);
	exit(2);
}

static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > (256ull << 20))
		usage("a size argument is not a number up to 256 MiB");
	return (size_t)v;
}

static void parse_args(ks_args *a, int argc, char **argv)
{
	int i, have_log = 0, have_source = 0;

	memset(a, 0, sizeof(*a));
	for (i = 1; i < argc; i++) {
		const char *opt = argv[i];
		if (!strcmp(opt, "--version")) {
			a->version = 1;
			continue;
		}
		if (!strcmp(opt, "--allow-unsandboxed")) {
			a->allow_unsandboxed = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage("an option lacks its value");
		if (!strcmp(opt, "--arch")) {
			a->arch = argv[++i];
		} else if (!strcmp(opt, "--compat")) {
			a->compat = argv[++i];
		} else if (!strcmp(opt, "--include")) {
			if (a->ninclude == KS_MAX_INCLUDES)
				usage("too many --include directories");
			a->include[a->ninclude++] = argv[++i];
		} else if (!strcmp(opt, "--name")) {
			if (a->nnames == KS_COMPILE_MAX_NAMES)
				usage("too many --name expressions");
			a->names[a->nnames++] = argv[++i];
		} else if (!strcmp(opt, "--max-log")) {
			a->max_log = parse_size(argv[++i]);
			have_log = 1;
		} else if (!strcmp(opt, "--max-source")) {
			a->max_source = parse_size(argv[++i]);
			have_source = 1;
		} else {
			usage("unknown option");
		}
	}
	if (!a->version && (!a->arch || !have_log || !have_source))
		usage("--arch, --max-log and --max-source are required");
}

/* ---- crash reports ----
 *
 * Under RLIMIT_AS, NVRTC's front end usually reports "out of memory" as a compile error, but the
 * back end may throw std::bad_alloc (abort) or fault. The handler turns such a death into a reply,
 * saying whether the address space was close to its limit, with async-signal-safe calls only.
 * /proc/self/status is opened before confinement: an open descriptor stays readable after it. */

static int g_status_fd = -1;
static volatile sig_atomic_t g_replying;
static char g_altstack[1 << 16];

static char *put_str(char *p, const char *end, const char *s)
{
	while (*s && p < end)
		*p++ = *s++;
	return p;
}

static char *put_num(char *p, const char *end, unsigned long long v)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < (int)sizeof(tmp));
	while (n && p < end)
		*p++ = tmp[--n];
	return p;
}

static char *put_le32(char *p, uint32_t v)
{
	p[0] = (char)(v & 0xff);
	p[1] = (char)((v >> 8) & 0xff);
	p[2] = (char)((v >> 16) & 0xff);
	p[3] = (char)((v >> 24) & 0xff);
	return p + 4;
}

/* VmPeak in kB from /proc/self/status, or 0. */
static unsigned long long vm_peak_kb(void)
{
	static char buf[4096];
	const char *key = "VmPeak:";
	ssize_t n;
	char *p;
	unsigned long long v = 0;

	if (g_status_fd < 0)
		return 0;
	n = pread(g_status_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (p = buf; *p; p++) {
		size_t k = 0;
		while (key[k] && p[k] == key[k])
			k++;
		if (key[k])
			continue;
		p += k;
		while (*p == ' ' || *p == '\t')
			p++;
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (unsigned long long)(*p++ - '0');
		break;
	}
	return v;
}

static void crash_handler(int sig)
{
	static char msg[512], frame[600];
	const char *end = msg + sizeof(msg);
	unsigned long long peak = vm_peak_kb() / 1024, limit = 0;
	struct rlimit rl;
	uint32_t status = KS_COMPILE_CRASH;
	char *p = msg, *f = frame;
	size_t len, off = 0;

	if (g_replying)
		_exit(70);
	if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		limit = (unsigned long long)rl.rlim_cur / (1024 * 1024);
	/* A failed allocation can be large, so "close" is generous: half the limit. */
	if (limit && peak * 2 >= limit)
		status = KS_COMPILE_LIMIT;
	p = put_str(p, end, "compile helper died by signal ");
	p = put_num(p, end, (unsigned long long)sig);
	p = put_str(p, end, sig == SIGABRT ? " (abort)" : sig == SIGSEGV ? " (segfault)" : "");
	p = put_str(p, end, "; address space peak ");
	p = put_num(p, end, peak);
	p = put_str(p, end, " MB");
	if (limit) {
		p = put_str(p, end, " of a ");
		p = put_num(p, end, limit);
		p = put_str(p, end, " MB limit");
	}
	if (status == KS_COMPILE_LIMIT)
		p = put_str(p, end, ": out of memory");
	len = (size_t)(p - msg);

	memcpy(f, "KSCR", 4);
	f = put_le32(f + 4, KS_COMPILE_PROTO_VERSION);
	f = put_le32(f, status);
	f = put_le32(f, (uint32_t)len);
	memcpy(f, msg, len);
	f = put_le32(f + len, 0); /* no CUBIN */
	f = put_le32(f, 0);       /* no names */
	memcpy(f, "KEND", 4);
	f += 4;
	while (off < (size_t)(f - frame)) {
		ssize_t n = write(1, frame + off, (size_t)(f - frame) - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	_exit(70);
}

static void install_crash_handlers(void)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE };
	struct sigaction sa;
	stack_t ss;
	size_t i;

	g_status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ss.ss_sp = g_altstack;
	ss.ss_size = sizeof(g_altstack);
	ss.ss_flags = 0;
	sigaltstack(&ss, NULL); /* a stack overflow must still find a stack to report on */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = crash_handler;
	sa.sa_flags = SA_ONSTACK | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* ---- the log ---- */

/* Keeps at most max bytes of text (cut at a UTF-8 boundary, NUL bytes dropped) and says so at the
 * end when it had to cut. */
static char *cap_log(const char *text, size_t len, size_t max, size_t *out_len)
{
	ks_buf b = KS_BUF_INIT(max + KS_COMPILE_LOG_SLACK);
	size_t i, kept = 0;
	int cut = 0;

	for (i = 0; i < len; i++) {
		if (text[i] == '\0')
			continue;
		if (kept == max) {
			cut = 1;
			break;
		}
		kept++;
	}
	if (!cut) {
		for (i = 0; i < len; i++)
			if (text[i])
				ks_buf_put(&b, &text[i], 1);
		return ks_buf_take(&b, out_len);
	}
	for (i = 0; b.len < max && i < len; i++)
		if (text[i])
			ks_buf_put(&b, &text[i], 1);
	/* Do not end inside a multi-byte character. */
	while (b.len > 0 && ((unsigned char)b.ptr[b.len - 1] & 0xC0) == 0x80)
		b.len--;
	if (b.len > 0 && ((unsigned char)b.ptr[b.len - 1] & 0xC0) == 0xC0)
		b.len--;
	if (b.ptr)
		b.ptr[b.len] = '\0';
	ks_buf_printf(&b, "%s[log truncated at %zu bytes]\n",
		      b.len && b.ptr[b.len - 1] != '\n' ? "\n" : "", max);
	return ks_buf_take(&b, out_len);
}

/* Calls fn(line, len, ctx) for each line of the log; stops when fn returns nonzero. */
static int each_line(const char *log, int (*fn)(const char *, size_t, void *), void *ctx)
{
	const char *p = log;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int r = fn(p, len, ctx);
		if (r)
			return r;
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

static int line_has(const char *line, size_t len, const char *needle)
{
	size_t n = strlen(needle), i;
	for (i = 0; i + n <= len; i++)
		if (!memcmp(line + i, needle, n))
			return 1;
	return 0;
}

/* A diagnostic line starts at column 0 ("file(line): error: ..."); echoed source lines and
 * instantiation contexts are indented, so the submission cannot forge one by its text. */
static int is_oom_line(const char *line, size_t len, void *ctx)
{
	(void)ctx;
	return len && line[0] != ' ' && line[0] != '\t' &&
	       line_has(line, len, "): catastrophic error: out of memory");
}

typedef struct {
	int errors, name_errors;
} ks_err_count;

static int count_errors(const char *line, size_t len, void *ctx)
{
	ks_err_count *c = ctx;
	if (!len || line[0] == ' ' || line[0] == '\t')
		return 0;
	if (line_has(line, len, ": error: ") || line_has(line, len, ": catastrophic error: ") ||
	    (len >= 7 && !memcmp(line, "error: ", 7))) {
		c->errors++;
		if (len > 14 && !memcmp(line, "__nv_name_map(", 14))
			c->name_errors++;
	}
	return 0;
}

typedef struct {
	const char *name;
	int found;
} ks_name_probe;

/* NVRTC echoes each failing name expression as "  #pragma nv_mangled_name EXPR". */
static int find_name_echo(const char *line, size_t len, void *ctx)
{
	ks_name_probe *p = ctx;
	static const char pre[] = "#pragma nv_mangled_name ";
	size_t n = strlen(p->name);

	while (len && (*line == ' ' || *line == '\t')) {
		line++;
		len--;
	}
	if (len == sizeof(pre) - 1 + n && !memcmp(line, pre, sizeof(pre) - 1) &&
	    !memcmp(line + sizeof(pre) - 1, p->name, n)) {
		p->found = 1;
		return 1;
	}
	return 0;
}

/* ---- compiling ---- */

typedef struct {
	ks_compile_status status;
	ks_buf text;          /* our own lines, before the NVRTC log */
	char *nvlog;          /* NVRTC's log */
	size_t nvlog_len;
	void *cubin;
	size_t cubin_len;
	char **lowered;
	size_t nlowered;
} ks_outcome;

static void say(ks_outcome *o, ks_compile_status st, const char *fmt, ...) KS_PRINTF(3, 4);

static void outcome_init(ks_outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->status = KS_COMPILE_OK;
	ks_buf_init(&o->text, 16u << 10);
}

static void outcome_clear(ks_outcome *o)
{
	ks_buf_free(&o->text);
	ks_free(o->nvlog);
	ks_free(o->cubin);
	ks_free_strv(o->lowered, o->nlowered);
	memset(o, 0, sizeof(*o));
}

static void say(ks_outcome *o, ks_compile_status st, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	o->status = st;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ks_buf_put_truncated(&o->text, line, strlen(line));
	ks_buf_put_truncated(&o->text, "\n", 1);
}

/* Loads NVRTC's builtins library now: once confined, NVRTC could no longer open it. It sits next
 * to libnvrtc, whose path the dynamic linker knows. */
static int preload_builtins(ks_outcome *o)
{
	char name[64], *dir = NULL, *path = NULL;
	int major = 0, minor = 0;
	Dl_info info;
	void *h;

	if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) {
		say(o, KS_COMPILE_CRASH, "nvrtcVersion failed");
		return -1;
	}
	snprintf(name, sizeof(name), "libnvrtc-builtins.so.%d.%d", major, minor);
	if (dladdr((void *)nvrtcCompileProgram, &info) && info.dli_fname &&
	    strchr(info.dli_fname, '/')) {
		dir = ks_path_dirname(info.dli_fname);
		path = ks_path_join(dir, name);
	}
	h = path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
	if (!h)
		h = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
	ks_free(dir);
	ks_free(path);
	if (!h) {
		say(o, KS_COMPILE_CRASH, "cannot load %s: %s", name, dlerror());
		return -1;
	}
	return 0; /* kept loaded for the life of the process */
}

static void nvrtc_failed(ks_outcome *o, const char *what, nvrtcResult r)
{
	say(o, r == NVRTC_ERROR_OUT_OF_MEMORY ? KS_COMPILE_LIMIT : KS_COMPILE_CRASH, "%s: %s", what,
	    nvrtcGetErrorString(r));
}

static void run_nvrtc(ks_outcome *o, const ks_args *a, const char *src, const char *compat,
		      char *const *real);

static void compile(ks_outcome *o, const ks_args *a)
{
	char *src = NULL, *real[KS_MAX_INCLUDES] = { NULL }, *compat = NULL;
	const char *roots[KS_MAX_INCLUDES + 1];
	size_t len = 0, i, nroots = 0;
	int rc;

	if (ks_compile_check_arch(a->arch) < 0) {
		say(o, KS_COMPILE_ERROR, "%s", ks_error_msg());
		goto done;
	}
	/* All input is read before confinement, and before anything looks at it. */
	rc = ks_fs_read_fd(&src, &len, 0, a->max_source);
	if (rc == KS_ELIMIT) {
		say(o, KS_COMPILE_LIMIT, "source is over the limit of %zu bytes", a->max_source);
		goto done;
	} else if (rc < 0) {
		say(o, KS_COMPILE_CRASH, "reading the source: %s", ks_error_msg());
		goto done;
	}
	/* Nothing the preprocessor could reach through /proc/self/fd/0 later. */
	rc = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (rc >= 0) {
		dup2(rc, 0);
		close(rc);
	}
	if (strlen(src) != len) {
		say(o, KS_COMPILE_ERROR, "source contains a NUL byte");
		goto done;
	}
	if (preload_builtins(o) < 0)
		goto done;
	for (i = 0; i < a->ninclude; i++) {
		char buf[PATH_MAX];
		if (!realpath(a->include[i], buf)) {
			say(o, KS_COMPILE_CRASH, "include directory %s: %s", a->include[i],
			    strerror(errno));
			goto done;
		}
		real[i] = ks_strdup(buf);
	}
	/* kscore's own headers are read-only inside the sandbox, like CUDA's. */
	if (a->compat) {
		char buf[PATH_MAX];
		if (!realpath(a->compat, buf)) {
			say(o, KS_COMPILE_CRASH, "compatibility headers %s: %s", a->compat,
			    strerror(errno));
			goto done;
		}
		compat = ks_strdup(buf);
		roots[nroots++] = compat;
	}
	for (i = 0; i < a->ninclude; i++)
		roots[nroots++] = real[i];

	rc = ks_sandbox_confine(roots, nroots);
	if (rc < 0 && !a->allow_unsandboxed) {
		say(o, KS_COMPILE_SANDBOX, "refusing to compile untrusted source without a sandbox: "
		    "%s", ks_error_msg());
		goto done;
	}

	{
		/* what nvcc ignores with a warning and NVRTC refuses (ks_compat_fix_source) */
		size_t line = 0;
		char *fixed = compat ? ks_compat_fix_source(src, &line) : NULL;
		run_nvrtc(o, a, fixed ? fixed : src, compat, real);
		if (line)
			say(o, o->status, "note: %s line %zu: `inline` on a __shared__ variable is ignored, as "
			    "nvcc ignores it (with a warning: \"inline\" is not allowed)", KS_SOURCE_NAME, line);
		ks_free(fixed);
	}
	/* kscore never compiles less than NVRTC alone: a source that conflicts with the
	 * compatibility headers (its own `typedef long int64_t`, say) compiles without them. */
	if (compat && o->status == KS_COMPILE_ERROR) {
		ks_outcome plain;
		outcome_init(&plain);
		run_nvrtc(&plain, a, src, NULL, real);
		if (plain.status == KS_COMPILE_OK) {
			const char *e = o->nvlog ? strstr(o->nvlog, "error") : NULL;
			say(&plain, KS_COMPILE_OK, "note: compiled without kscore's compatibility headers, "
			    "which this source conflicts with (%.*s)", e ? (int)strcspn(e, "\n") : 0,
			    e ? e : "");
			outcome_clear(o);
			*o = plain;
		} else {
			outcome_clear(&plain);
		}
	}
done:
	for (i = 0; i < a->ninclude; i++)
		ks_free(real[i]);
	ks_free(compat);
	ks_free(src);
}

/* The log with the headers' folders written as names, never as this host's paths: kscore's
 * headers as <kscore-compat>, CUDA's include folder as <cuda>/include (the notation of score.json's
 * compile_options), a folder inside it as <cuda>/include/<rest>. Caller frees. */
static char *hide_paths(const char *log, const char *compat, char *const *real, size_t ninclude)
{
	const char *dirs[KS_MAX_INCLUDES + 1];
	char *names[KS_MAX_INCLUDES + 1], *out;
	size_t n = 0, i, base = ninclude ? strlen(real[0]) : 0;

	if (compat) {
		dirs[n] = compat;
		names[n++] = ks_strdup(KS_COMPAT_LOG_NAME);
	}
	for (i = 0; i < ninclude; i++) {
		dirs[n] = real[i];
		if (i == 0 || (!strncmp(real[i], real[0], base) && real[i][base] == '/'))
			names[n++] = ks_asprintf("<cuda>/include%s", real[i] + (i ? base : strlen(real[i])));
		else
			names[n++] = ks_asprintf("<include %zu>", i);
	}
	out = ks_compat_hide_paths(log, dirs, (const char *const *)names, n);
	for (i = 0; i < n; i++)
		ks_free(names[i]);
	return out;
}

static void run_nvrtc(ks_outcome *o, const ks_args *a, const char *src, const char *compat,
		      char *const *real)
{
	char **opts = NULL, *norm, *hname = NULL, *where = NULL;
	size_t nopts = 0, i, loglen = 0;
	nvrtcProgram prog = NULL;
	nvrtcResult r;

	if ((r = nvrtcCreateProgram(&prog, src, KS_SOURCE_NAME, 0, NULL, NULL)) != NVRTC_SUCCESS) {
		nvrtc_failed(o, "nvrtcCreateProgram", r);
		goto done;
	}
	for (i = 0; i < a->nnames; i++)
		if ((r = nvrtcAddNameExpression(prog, a->names[i])) != NVRTC_SUCCESS) {
			nvrtc_failed(o, "nvrtcAddNameExpression", r);
			goto done;
		}
	ks_compile_nvrtc_options(&opts, &nopts, a->arch, compat, (const char *const *)real,
				 a->ninclude);
	r = nvrtcCompileProgram(prog, (int)nopts, (const char *const *)opts);

	if (nvrtcGetProgramLogSize(prog, &loglen) == NVRTC_SUCCESS && loglen > 1) {
		o->nvlog = ks_malloc(loglen);
		if (nvrtcGetProgramLog(prog, o->nvlog) != NVRTC_SUCCESS)
			o->nvlog[0] = '\0';
		o->nvlog[loglen - 1] = '\0';
		/* The same log whether a header the sandbox hides exists or not. */
		norm = ks_compat_normalise_log(o->nvlog);
		ks_free(o->nvlog);
		o->nvlog = hide_paths(norm, compat, real, a->ninclude);
		ks_free(norm);
		o->nvlog_len = strlen(o->nvlog);
	}

	if (r == NVRTC_ERROR_COMPILATION) {
		ks_err_count ec = { 0, 0 };
		if (o->nvlog && each_line(o->nvlog, is_oom_line, NULL)) {
			say(o, KS_COMPILE_LIMIT, "compile ran out of memory");
			goto done;
		}
		if (o->nvlog && ks_compat_missing_header(&hname, &where, o->nvlog)) {
			char *advice = ks_compat_header_advice(hname, (const char *const *)real,
							      a->ninclude);
			say(o, KS_COMPILE_NOHEADER, "missing header \"%s\" (included from %s): %s",
			    hname, where, advice);
			ks_free(advice);
			goto done;
		}
		if (o->nvlog)
			each_line(o->nvlog, count_errors, &ec);
		/* Only the name expressions failed: the source compiles but lacks a kernel. */
		if (a->nnames && ec.errors > 0 && ec.errors == ec.name_errors) {
			int named = 0;
			for (i = 0; i < a->nnames; i++) {
				ks_name_probe p = { a->names[i], 0 };
				each_line(o->nvlog, find_name_echo, &p);
				if (p.found) {
					say(o, KS_COMPILE_NONAME, "kernel name \"%s\" not found in the "
					    "source", a->names[i]);
					named = 1;
				}
			}
			if (!named)
				say(o, KS_COMPILE_NONAME, "a requested kernel name was not found in "
				    "the source");
			goto done;
		}
		o->status = KS_COMPILE_ERROR;
		if (compat)
			ks_compat_notes(&o->text, src, o->nvlog);
		goto done;
	}
	if (r != NVRTC_SUCCESS) {
		nvrtc_failed(o, "nvrtcCompileProgram", r);
		goto done;
	}

	o->lowered = ks_calloc(a->nnames ? a->nnames : 1, sizeof(char *));
	for (i = 0; i < a->nnames; i++) {
		const char *low = NULL;
		if (nvrtcGetLoweredName(prog, a->names[i], &low) != NVRTC_SUCCESS || !low || !*low) {
			say(o, KS_COMPILE_NONAME, "kernel name \"%s\" not found in the source",
			    a->names[i]);
			continue;
		}
		if (strlen(low) > KS_COMPILE_MAX_NAME) {
			say(o, KS_COMPILE_LIMIT, "lowered name of \"%s\" is longer than %d bytes",
			    a->names[i], KS_COMPILE_MAX_NAME);
			continue;
		}
		o->lowered[o->nlowered++] = ks_strdup(low);
	}
	if (o->status != KS_COMPILE_OK)
		goto done;

	if ((r = nvrtcGetCUBINSize(prog, &o->cubin_len)) != NVRTC_SUCCESS) {
		nvrtc_failed(o, "nvrtcGetCUBINSize", r);
		goto done;
	}
	if (o->cubin_len == 0) {
		say(o, KS_COMPILE_ERROR, "NVRTC produced no CUBIN for %s", a->arch);
		goto done;
	}
	if (o->cubin_len > KS_COMPILE_MAX_CUBIN) {
		say(o, KS_COMPILE_LIMIT, "CUBIN is %zu bytes, over the limit of %u", o->cubin_len,
		    KS_COMPILE_MAX_CUBIN);
		o->cubin_len = 0;
		goto done;
	}
	o->cubin = ks_malloc(o->cubin_len);
	if ((r = nvrtcGetCUBIN(prog, o->cubin)) != NVRTC_SUCCESS)
		nvrtc_failed(o, "nvrtcGetCUBIN", r);
done:
	if (prog)
		nvrtcDestroyProgram(&prog);
	ks_free_strv(opts, nopts);
	ks_free(hname);
	ks_free(where);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int reply(ks_outcome *o, const ks_args *a)
{
	ks_compile_reply r;
	ks_buf all = KS_BUF_INIT((size_t)-1 / 2);
	char *frame = NULL;
	size_t flen;
	int rc = 1;

	ks_buf_put(&all, o->text.ptr ? o->text.ptr : "", o->text.len);
	if (o->nvlog)
		ks_buf_put(&all, o->nvlog, o->nvlog_len);

	memset(&r, 0, sizeof(r));
	r.status = o->status;
	r.log = cap_log(all.ptr ? all.ptr : "", all.len, a->max_log, &r.log_len);
	if (o->status == KS_COMPILE_OK) {
		r.cubin = o->cubin;
		r.cubin_len = o->cubin_len;
		r.lowered = o->lowered;
		r.nlowered = o->nlowered;
	}
	if (ks_compile_reply_encode(&frame, &flen, &r) == 0) {
		g_replying = 1;
		rc = write_all(1, frame, flen) < 0 ? 1 : 0;
	}
	ks_free(r.log);
	ks_free(frame);
	ks_buf_free(&all);
	return rc;
}

int main(int argc, char **argv)
{
	ks_outcome o;
	ks_args a;
	int rc;

	parse_args(&a, argc, argv);
	if (a.version) {
		int major = 0, minor = 0;
		if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) {
			fprintf(stderr, "kscore-compile: nvrtcVersion failed\n");
			return 1;
		}
		printf("%d.%d\n", major, minor);
		return fflush(stdout) == 0 ? 0 : 1;
	}

	install_crash_handlers();
	outcome_init(&o);
	compile(&o, &a);
	rc = reply(&o, &a);
	outcome_clear(&o);
	return rc;
}
