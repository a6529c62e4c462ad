#include "lang/cuda/compile.h"
#include "util/buf.h"
#include "lang/cuda/compat.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/version.h"
#include "util/hash.h"
#include "util/mem.h"
#include "util/sandbox.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef KS_CUDA_HOME
#define KS_CUDA_HOME "/usr/local/cuda"
#endif

#define KS_HELPER_NAME "kscore-compile"
#define KS_HELPER_STDERR (16u << 10)  /* kept of the helper's stderr, for crash reports */
#define KS_CRASH_STDERR 2048          /* of which this much goes into a job's log */
#define KS_VERSION_TIMEOUT_S 30.0
#define KS_CACHE_MAGIC "KSCC"
#define KS_CACHE_HEADER (4 + 4 + 64 + 64)

const char *ks_compile_status_name(ks_compile_status s)
{
	switch (s) {
	case KS_COMPILE_OK: return "ok";
	case KS_COMPILE_ERROR: return "compile error";
	case KS_COMPILE_TIMEOUT: return "compile timeout";
	case KS_COMPILE_LIMIT: return "compile limit exceeded";
	case KS_COMPILE_CRASH: return "compiler crash";
	case KS_COMPILE_NONAME: return "kernel name not found";
	case KS_COMPILE_SANDBOX: return "no compile sandbox";
	case KS_COMPILE_NOHEADER: return "missing header";
	}
	return "unknown";
}

/* ---- reply frames ---- */

static void put_u32(ks_buf *b, uint32_t v)
{
	unsigned char c[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };
	ks_buf_put(b, c, 4);
}

static int put_block(ks_buf *b, const void *data, size_t len)
{
	if (len > UINT32_MAX)
		return ks_error_set(KS_ELIMIT, "reply block of %zu bytes is too large", len);
	put_u32(b, (uint32_t)len);
	return ks_buf_put(b, data, len);
}

int ks_compile_reply_encode(char **out, size_t *len, const ks_compile_reply *r)
{
	ks_buf b = KS_BUF_INIT((size_t)UINT32_MAX);
	size_t i;
	int rc;

	ks_buf_put(&b, "KSCR", 4);
	put_u32(&b, KS_COMPILE_PROTO_VERSION);
	put_u32(&b, (uint32_t)r->status);
	if ((rc = put_block(&b, r->log, r->log ? r->log_len : 0)) < 0 ||
	    (rc = put_block(&b, r->cubin, r->cubin ? r->cubin_len : 0)) < 0)
		goto done;
	put_u32(&b, (uint32_t)r->nlowered);
	for (i = 0; i < r->nlowered; i++)
		if ((rc = put_block(&b, r->lowered[i], strlen(r->lowered[i]))) < 0)
			goto done;
	rc = ks_buf_put(&b, "KEND", 4);
done:
	if (rc < 0) {
		ks_buf_free(&b);
		return ks_error_wrap(rc, "encoding a compile reply");
	}
	*out = ks_buf_take(&b, len);
	return 0;
}

typedef struct {
	const unsigned char *p;
	size_t left;
} ks_reader;

static int get_u32(ks_reader *rd, uint32_t *v)
{
	if (rd->left < 4)
		return -1;
	*v = (uint32_t)rd->p[0] | (uint32_t)rd->p[1] << 8 | (uint32_t)rd->p[2] << 16 |
	     (uint32_t)rd->p[3] << 24;
	rd->p += 4;
	rd->left -= 4;
	return 0;
}

/* A length-prefixed block of at most max bytes, returned as a new NUL-terminated copy. */
static int get_block(ks_reader *rd, char **out, size_t *len, size_t max, const char *what)
{
	uint32_t n;

	if (get_u32(rd, &n) < 0)
		return ks_error_set(KS_EINVALID, "reply ends before the %s length", what);
	if (n > max)
		return ks_error_set(KS_EINVALID, "reply %s is %u bytes, over the limit of %zu", what,
				    n, max);
	if (n > rd->left)
		return ks_error_set(KS_EINVALID, "reply ends inside the %s", what);
	*out = ks_strndup((const char *)rd->p, n);
	*len = n;
	rd->p += n;
	rd->left -= n;
	return 0;
}

int ks_compile_reply_decode(ks_compile_reply *r, const void *data, size_t len, size_t max_log,
			    size_t nnames)
{
	ks_reader rd = { data, len };
	uint32_t version, status, count, i;
	size_t nlen;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (rd.left < 4 || memcmp(rd.p, "KSCR", 4) != 0)
		return ks_error_set(KS_EINVALID, "reply does not start with the KSCR magic");
	rd.p += 4;
	rd.left -= 4;
	if (get_u32(&rd, &version) < 0)
		return ks_error_set(KS_EINVALID, "reply ends before its version");
	if (version != KS_COMPILE_PROTO_VERSION)
		return ks_error_set(KS_EINVALID, "reply has protocol version %u, expected %u",
				    version, KS_COMPILE_PROTO_VERSION);
	if (get_u32(&rd, &status) < 0)
		return ks_error_set(KS_EINVALID, "reply ends before its status");
	switch (status) {
	case KS_COMPILE_OK: case KS_COMPILE_ERROR: case KS_COMPILE_LIMIT: case KS_COMPILE_CRASH:
	case KS_COMPILE_NONAME: case KS_COMPILE_SANDBOX: case KS_COMPILE_NOHEADER:
		break;
	default:
		return ks_error_set(KS_EINVALID, "reply has unknown status %u", status);
	}
	r->status = (ks_compile_status)status;

	if ((rc = get_block(&rd, &r->log, &r->log_len, max_log + KS_COMPILE_LOG_SLACK, "log")) < 0)
		return rc;
	if (strlen(r->log) != r->log_len)
		return ks_error_set(KS_EINVALID, "reply log contains a NUL byte");
	if ((rc = get_block(&rd, (char **)&r->cubin, &r->cubin_len, KS_COMPILE_MAX_CUBIN,
			    "CUBIN")) < 0)
		return rc;
	if (r->status == KS_COMPILE_OK &&
	    (r->cubin_len < 4 || memcmp(r->cubin, "\177ELF", 4) != 0))
		return ks_error_set(KS_EINVALID, "reply says ok but carries no ELF CUBIN");

	if (get_u32(&rd, &count) < 0)
		return ks_error_set(KS_EINVALID, "reply ends before the name count");
	if (count != (r->status == KS_COMPILE_OK ? nnames : 0))
		return ks_error_set(KS_EINVALID, "reply has %u lowered names, expected %zu", count,
				    r->status == KS_COMPILE_OK ? nnames : (size_t)0);
	r->lowered = ks_calloc(count ? count : 1, sizeof(char *));
	for (i = 0; i < count; i++) {
		if ((rc = get_block(&rd, &r->lowered[i], &nlen, KS_COMPILE_MAX_NAME,
				    "lowered name")) < 0)
			return rc;
		r->nlowered++;
		if (nlen == 0 || strlen(r->lowered[i]) != nlen)
			return ks_error_set(KS_EINVALID, "reply lowered name %u is empty or has a NUL",
					    i);
	}
	if (rd.left != 4 || memcmp(rd.p, "KEND", 4) != 0)
		return ks_error_set(KS_EINVALID, "reply does not end with KEND after its last field "
				    "(%zu bytes left)", rd.left);
	return 0;
}

void ks_compile_reply_clear(ks_compile_reply *r)
{
	if (!r)
		return;
	ks_free(r->log);
	ks_free(r->cubin);
	ks_free_strv(r->lowered, r->nlowered);
	memset(r, 0, sizeof(*r));
}

/* ---- options ---- */

int ks_compile_check_arch(const char *arch)
{
	const char *p;

	if (!arch || !*arch)
		return ks_error_set(KS_EINVALID, "no GPU architecture given");
	if (!strncmp(arch, "compute_", 8) || !strncmp(arch, "lto_", 4))
		return ks_error_set(KS_EINVALID, "architecture %.40s is virtual (PTX only); kscore "
				    "loads CUBIN only: use sm_%.20s", arch, strchr(arch, '_') + 1);
	if (strncmp(arch, "sm_", 3) != 0)
		return ks_error_set(KS_EINVALID, "architecture %.40s is not of the form sm_NN", arch);
	for (p = arch + 3; isdigit((unsigned char)*p); p++)
		;
	if (p - (arch + 3) < 2 || p - (arch + 3) > 4 || (*p && (!islower((unsigned char)*p) ||
								p[1])))
		return ks_error_set(KS_EINVALID, "architecture %.40s is not of the form sm_NN", arch);
	return 0;
}

void ks_compile_nvrtc_options(char ***opts, size_t *n, const char *arch, const char *compat_dir,
			      const char *const *include_dirs, size_t ninclude)
{
	char **v = ks_calloc(ninclude + 6, sizeof(char *));
	size_t k = 0, i;

	v[k++] = ks_asprintf("--gpu-architecture=%s", arch);
	v[k++] = ks_strdup("--std=c++17");
	/* What nvcc gives device code implicitly (docs/submission-format.md): functions written
	 * without __device__ are device functions, and kscore's headers come before CUDA's. */
	if (compat_dir) {
		v[k++] = ks_strdup("-default-device");
		v[k++] = ks_asprintf("-I%s", compat_dir);
	}
	for (i = 0; i < ninclude; i++)
		v[k++] = ks_asprintf("-I%s", include_dirs[i]);
	v[k++] = ks_strdup("-DKSCORE=1");
	if (compat_dir)
		v[k++] = ks_strdup("--pre-include=" KS_COMPAT_PRELUDE);
	*opts = v;
	*n = k;
}

/* ---- the batch ---- */

typedef struct {
	ks_compile_options o;
	char *helper;
	char *incdir[2];
	size_t nincdir;
	char **nvopts;
	size_t nnvopts;
	char *version;
	char *compat;          /* real path of the compatibility headers; NULL with no_compat */
	char compat_sha[65];
	char max_log_s[32], max_source_s[32];
} ks_ctx;

static void ctx_free(ks_ctx *c)
{
	ks_free(c->helper);
	ks_free(c->compat);
	ks_free(c->incdir[0]);
	ks_free(c->incdir[1]);
	ks_free_strv(c->nvopts, c->nnvopts);
	ks_free(c->version);
}

static char *find_helper(const ks_compile_options *o)
{
	const char *libexec = getenv("KSCORE_LIBEXEC");
	char *dir, *p;

	if (o->helper)
		return ks_strdup(o->helper);
	if (libexec && *libexec)
		return ks_path_join(libexec, KS_HELPER_NAME);
	/* Next to the running binary (a build tree), else the installed libexec layout. */
	dir = ks_exe_dir();
	p = ks_path_join(dir, KS_HELPER_NAME);
	if (access(p, X_OK) != 0) {
		ks_free(p);
		p = ks_asprintf("%s/../libexec/kscore/%s", dir, KS_HELPER_NAME);
	}
	if (access(p, X_OK) != 0) {
		ks_free(p);
		p = ks_path_join(KS_LIBEXECDIR, KS_HELPER_NAME);
	}
	ks_free(dir);
	return p;
}

static void helper_limits(ks_sandbox_limits *lim, const ks_compile_options *o)
{
	ks_sandbox_limits def = KS_SANDBOX_LIMITS_INIT;

	*lim = def;
	/* RLIMIT_CPU backs the wall clock up a little later, in case the parent is stopped. */
	lim->cpu_seconds = (unsigned)ceil(o->timeout_s) + 2;
	lim->address_space_mb = o->memory_mb;
	lim->file_size_mb = 0;
}

static int run_version(char **out, ks_ctx *c)
{
	const char *argv[] = { c->helper, "--version", NULL };
	ks_spawn_options so;
	ks_spawn_result sr;
	size_t len;
	int rc;

	memset(&so, 0, sizeof(so));
	so.argv = argv;
	so.max_stdout = 64;
	so.max_stderr = KS_HELPER_STDERR;
	so.timeout_s = KS_VERSION_TIMEOUT_S;
	helper_limits(&so.limits, &c->o);
	so.limits.cpu_seconds = (unsigned)KS_VERSION_TIMEOUT_S + 2;
	if ((rc = ks_spawn_run(&sr, &so)) < 0) {
		ks_spawn_result_clear(&sr);
		return ks_error_wrap(rc, "cannot run %s", c->helper);
	}
	len = strcspn(sr.out, "\n");
	if (!sr.exited || sr.exit_code != 0 || len == 0 || len > 16 ||
	    strspn(sr.out, "0123456789.") != len) {
		rc = ks_error_set(KS_ECHILD, "%s --version failed (%s %d): %.300s", c->helper,
				  sr.exited ? "exit status" : "signal",
				  sr.exited ? sr.exit_code : sr.signal, sr.err);
		ks_spawn_result_clear(&sr);
		return rc;
	}
	*out = ks_strndup(sr.out, len);
	ks_spawn_result_clear(&sr);
	return 0;
}

static int ctx_init(ks_ctx *c, const ks_compile_options *opts)
{
	ks_compile_options def = KS_COMPILE_OPTIONS_INIT;
	char real[PATH_MAX];
	const char *home;
	char *p;
	int rc;

	memset(c, 0, sizeof(*c));
	c->o = opts ? *opts : def;
	if ((rc = ks_compile_check_arch(c->o.arch)) < 0)
		return rc;
	if (!(c->o.timeout_s > 0) || c->o.timeout_s > 86400)
		return ks_error_set(KS_EINVALID, "compile timeout %g s is out of range (0, 86400]",
				    c->o.timeout_s);
	if (c->o.max_source == 0 || c->o.max_log > (256u << 20))
		return ks_error_set(KS_EINVALID, "max_source must be positive and max_log at most "
				    "256 MiB");
	if (c->o.jobs < 1)
		c->o.jobs = 1;
	snprintf(c->max_log_s, sizeof(c->max_log_s), "%zu", c->o.max_log);
	snprintf(c->max_source_s, sizeof(c->max_source_s), "%zu", c->o.max_source);

	/* The helper's Landlock view is exactly these directories, with symbolic links resolved. */
	home = c->o.cuda_home ? c->o.cuda_home : KS_CUDA_HOME;
	p = ks_path_join(home, "include");
	if (!realpath(p, real) || !ks_fs_is_dir(real)) {
		rc = ks_error_set(KS_ENOTFOUND, "CUDA headers not found at %s", p);
		ks_free(p);
		return rc;
	}
	ks_free(p);
	c->incdir[c->nincdir++] = ks_strdup(real);
	p = ks_path_join(home, "include/cccl");
	if (realpath(p, real) && ks_fs_is_dir(real))
		c->incdir[c->nincdir++] = ks_strdup(real);
	ks_free(p);
	if (!c->o.no_compat) {
		if (!(c->compat = ks_compat_find(c->o.compat_dir)))
			return KS_ENOTFOUND;
		if ((rc = ks_compat_hash(c->compat_sha, c->compat)) < 0)
			return rc;
	}
	ks_compile_nvrtc_options(&c->nvopts, &c->nnvopts, c->o.arch, c->compat,
				 (const char *const *)c->incdir, c->nincdir);

	c->helper = find_helper(&c->o);
	if (access(c->helper, X_OK) != 0)
		return ks_error_set(KS_ENOTFOUND, "compile helper %s is missing or not executable",
				    c->helper);
	return run_version(&c->version, c);
}

static void job_fail(ks_compile_job *j, ks_compile_status st, char *log)
{
	ks_compile_job_clear(j);
	j->status = st;
	j->log = log;
}

/* Names are given to NVRTC and matched in its log line by line: printable, one line, bounded. */
static int check_names(ks_compile_job *j)
{
	size_t i;

	if (j->nnames > KS_COMPILE_MAX_NAMES) {
		job_fail(j, KS_COMPILE_LIMIT, ks_asprintf("%zu kernel names requested, over the "
							  "limit of %d", j->nnames,
							  KS_COMPILE_MAX_NAMES));
		return -1;
	}
	for (i = 0; i < j->nnames; i++) {
		const unsigned char *s = (const unsigned char *)j->names[i];
		size_t k;
		if (!s || !*s || strlen((const char *)s) > KS_COMPILE_MAX_NAME) {
			job_fail(j, KS_COMPILE_ERROR, ks_asprintf("kernel name %zu is empty or longer "
								  "than %d bytes", i,
								  KS_COMPILE_MAX_NAME));
			return -1;
		}
		for (k = 0; s[k]; k++)
			if (s[k] < 0x20 || s[k] == 0x7f) {
				job_fail(j, KS_COMPILE_ERROR,
					 ks_asprintf("kernel name %zu contains a control character",
						     i));
				return -1;
			}
	}
	return 0;
}

static void make_key(char key[65], const ks_ctx *c, const ks_compile_job *j)
{
	ks_sha256 *h = ks_sha256_new();
	char tmp[64];
	size_t i;

	ks_sha256_update_str(h, "kscore-compile cache");
	snprintf(tmp, sizeof(tmp), "%d", KS_COMPILE_PROTO_VERSION);
	ks_sha256_update_str(h, tmp);
	ks_sha256_update_str(h, c->version);
	ks_sha256_update_str(h, KS_COMPAT_HELPER_REVISION);
	ks_sha256_update_str(h, c->o.arch);
	snprintf(tmp, sizeof(tmp), "%zu", c->nnvopts);
	ks_sha256_update_str(h, tmp);
	for (i = 0; i < c->nnvopts; i++)
		ks_sha256_update_str(h, c->nvopts[i]);
	/* The options name the compatibility headers' folder; their content is in the fingerprint. */
	ks_sha256_update_str(h, c->compat ? c->compat_sha : "no compat");
	/* The log is cut at max_log, so a cached log is only right for the same cap. */
	ks_sha256_update_str(h, c->max_log_s);
	snprintf(tmp, sizeof(tmp), "%zu", j->nnames);
	ks_sha256_update_str(h, tmp);
	for (i = 0; i < j->nnames; i++)
		ks_sha256_update_str(h, j->names[i]);
	ks_sha256_update_str(h, j->source);
	ks_sha256_final(h, key);
}

static char *cache_path(const ks_ctx *c, const char *key)
{
	return ks_asprintf("%s/%.2s/%s.kcc", c->o.cache_dir, key, key);
}

static int cacheable(ks_compile_status s)
{
	return s == KS_COMPILE_OK || s == KS_COMPILE_ERROR || s == KS_COMPILE_NONAME ||
	       s == KS_COMPILE_NOHEADER;
}

static void take_reply(ks_compile_job *j, ks_compile_reply *r)
{
	j->status = r->status;
	j->log = r->log;
	r->log = NULL;
	if (r->status == KS_COMPILE_OK) {
		j->cubin = r->cubin;
		j->cubin_len = r->cubin_len;
		j->lowered = r->lowered;
		r->cubin = NULL;
		r->lowered = NULL;
		r->nlowered = 0;
	}
	ks_compile_reply_clear(r);
}

/* A hit fills the job; anything unreadable, corrupt or for another key is a miss. */
static int cache_load(const ks_ctx *c, ks_compile_job *j)
{
	char *path, *data = NULL, hex[65];
	size_t len = 0, max = KS_CACHE_HEADER + 64 + c->o.max_log + KS_COMPILE_LOG_SLACK +
			      KS_COMPILE_MAX_CUBIN + j->nnames * (KS_COMPILE_MAX_NAME + 4);
	ks_compile_reply r;
	int hit = 0;

	if (!c->o.cache_dir)
		return 0;
	path = cache_path(c, j->key);
	if (ks_fs_read(&data, &len, path, max) < 0)
		goto done;
	if (len < KS_CACHE_HEADER || memcmp(data, KS_CACHE_MAGIC, 4) != 0 ||
	    (unsigned char)data[4] != KS_COMPILE_PROTO_VERSION || data[5] || data[6] || data[7] ||
	    memcmp(data + 8, j->key, 64) != 0)
		goto done;
	ks_sha256_hex(hex, data + KS_CACHE_HEADER, len - KS_CACHE_HEADER);
	if (memcmp(data + 8 + 64, hex, 64) != 0)
		goto done;
	if (ks_compile_reply_decode(&r, data + KS_CACHE_HEADER, len - KS_CACHE_HEADER,
				    c->o.max_log, j->nnames) < 0 || !cacheable(r.status)) {
		ks_compile_reply_clear(&r);
		goto done;
	}
	take_reply(j, &r);
	j->cached = 1;
	j->seconds = 0;
	hit = 1;
done:
	ks_error_clear();
	ks_free(data);
	ks_free(path);
	return hit;
}

/* Best effort: a cache that cannot be written only costs a recompile later. */
static void cache_store(const ks_ctx *c, const ks_compile_job *j)
{
	ks_compile_reply r;
	ks_buf b = KS_BUF_INIT((size_t)UINT32_MAX);
	char *frame = NULL, *path = NULL, *dir = NULL, hex[65];
	size_t flen;

	if (!c->o.cache_dir || !cacheable(j->status))
		return;
	memset(&r, 0, sizeof(r));
	r.status = j->status;
	r.log = j->log;
	r.log_len = strlen(j->log);
	if (j->status == KS_COMPILE_OK) {
		r.cubin = j->cubin;
		r.cubin_len = j->cubin_len;
		r.lowered = j->lowered;
		r.nlowered = j->nnames;
	}
	if (ks_compile_reply_encode(&frame, &flen, &r) < 0)
		goto done;
	ks_sha256_hex(hex, frame, flen);
	ks_buf_put(&b, KS_CACHE_MAGIC, 4);
	put_u32(&b, KS_COMPILE_PROTO_VERSION);
	ks_buf_put(&b, j->key, 64);
	ks_buf_put(&b, hex, 64);
	if (ks_buf_put(&b, frame, flen) < 0)
		goto done;
	path = cache_path(c, j->key);
	dir = ks_path_dirname(path);
	if (ks_fs_mkdir_p(dir, 0755) < 0)
		goto done;
	ks_fs_write_atomic(path, b.ptr, b.len);
done:
	ks_error_clear();
	ks_buf_free(&b);
	ks_free(frame);
	ks_free(path);
	ks_free(dir);
}

static void build_argv(const char ***argv_out, const ks_ctx *c, const ks_compile_job *j)
{
	const char **v = ks_calloc(20 + 2 * j->nnames, sizeof(char *));
	size_t k = 0, i;

	v[k++] = c->helper;
	v[k++] = "--arch";
	v[k++] = c->o.arch;
	if (c->compat) {
		v[k++] = "--compat";
		v[k++] = c->compat;
	}
	for (i = 0; i < c->nincdir; i++) {
		v[k++] = "--include";
		v[k++] = c->incdir[i];
	}
	v[k++] = "--max-log";
	v[k++] = c->max_log_s;
	v[k++] = "--max-source";
	v[k++] = c->max_source_s;
	if (c->o.allow_unsandboxed)
		v[k++] = "--allow-unsandboxed";
	for (i = 0; i < j->nnames; i++) {
		v[k++] = "--name";
		v[k++] = j->names[i];
	}
	v[k] = NULL;
	*argv_out = v;
}

static int stderr_says_oom(const char *err)
{
	return strstr(err, "bad_alloc") || strstr(err, "out of memory") ||
	       strstr(err, "Out of memory") || strstr(err, "Cannot allocate memory");
}

static char *with_stderr(char *msg, const ks_spawn_result *sr)
{
	char *s;
	if (!sr->err_len)
		return msg;
	s = ks_asprintf("%s\nhelper stderr:\n%.*s%s", msg, KS_CRASH_STDERR, sr->err,
			sr->err_len > KS_CRASH_STDERR ? "\n[stderr truncated]" : "");
	ks_free(msg);
	return s;
}

/* Turns what happened to the helper into the job's status and log. */
static void classify(ks_compile_job *j, const ks_ctx *c, ks_spawn_result *sr)
{
	unsigned cpu_limit = (unsigned)ceil(c->o.timeout_s) + 2;
	int near_limit = c->o.memory_mb &&
			 (size_t)sr->max_rss_kb * 2 >= c->o.memory_mb * 1024;
	ks_compile_reply r;

	j->seconds = sr->seconds;
	if (sr->timed_out) {
		job_fail(j, KS_COMPILE_TIMEOUT,
			 ks_asprintf("compile killed at the wall-clock limit of %g s", c->o.timeout_s));
		return;
	}
	if (sr->signaled && (sr->signal == SIGXCPU ||
			     (sr->signal == SIGKILL && sr->cpu_seconds + 0.5 >= cpu_limit))) {
		job_fail(j, KS_COMPILE_TIMEOUT,
			 ks_asprintf("compile killed at the CPU-time limit of %u s", cpu_limit));
		return;
	}
	if (sr->stdout_truncated) {
		job_fail(j, KS_COMPILE_CRASH,
			 with_stderr(ks_asprintf("compile helper wrote an oversized reply"), sr));
		return;
	}
	if (sr->out_len > 0) {
		if (ks_compile_reply_decode(&r, sr->out, sr->out_len, c->o.max_log, j->nnames) == 0) {
			/* The helper's own crash report: its stderr may say it was memory. */
			if (r.status == KS_COMPILE_CRASH && stderr_says_oom(sr->err))
				r.status = KS_COMPILE_LIMIT;
			take_reply(j, &r);
			if (j->status == KS_COMPILE_CRASH || j->status == KS_COMPILE_LIMIT)
				j->log = with_stderr(j->log, sr);
			return;
		}
		job_fail(j, KS_COMPILE_CRASH,
			 with_stderr(ks_asprintf("compile helper broke its protocol: %s",
						 ks_error_msg()), sr));
		ks_compile_reply_clear(&r);
		return;
	}
	if (sr->signaled && c->o.memory_mb &&
	    (sr->signal == SIGABRT || sr->signal == SIGSEGV || sr->signal == SIGBUS ||
	     sr->signal == SIGKILL) && (near_limit || stderr_says_oom(sr->err))) {
		job_fail(j, KS_COMPILE_LIMIT,
			 with_stderr(ks_asprintf("compile ran out of its memory limit of %zu MB "
						 "(died by signal %d, peak resident %ld MB)",
						 c->o.memory_mb, sr->signal,
						 sr->max_rss_kb / 1024), sr));
		return;
	}
	if (sr->signaled)
		job_fail(j, KS_COMPILE_CRASH,
			 with_stderr(ks_asprintf("compile helper died by signal %d (%s)", sr->signal,
						 strsignal(sr->signal)), sr));
	else
		job_fail(j, KS_COMPILE_CRASH,
			 with_stderr(ks_asprintf("compile helper exited with status %d and no reply",
						 sr->exit_code), sr));
}

static void copy_result(ks_compile_job *to, const ks_compile_job *from)
{
	size_t i;

	to->status = from->status;
	to->log = ks_strdup(from->log);
	if (from->cubin) {
		to->cubin = ks_malloc(from->cubin_len);
		memcpy(to->cubin, from->cubin, from->cubin_len);
		to->cubin_len = from->cubin_len;
	}
	if (from->lowered) {
		to->lowered = ks_calloc(to->nnames ? to->nnames : 1, sizeof(char *));
		for (i = 0; i < to->nnames; i++)
			to->lowered[i] = ks_strdup(from->lowered[i]);
	}
	to->cached = 1;
	to->seconds = 0;
}

static void reset_outputs(ks_compile_job *j)
{
	j->status = KS_COMPILE_CRASH;
	j->log = NULL;
	j->cubin = NULL;
	j->cubin_len = 0;
	j->lowered = NULL;
	j->seconds = 0;
	j->cached = 0;
	memset(j->key, 0, sizeof(j->key));
}

typedef struct {
	ks_compile_job *jobs;
	size_t n, *todo, *dup_of;
	ks_spawn_result *sr;
	ks_ctx *c;
	void (*done)(void *, size_t);
	void *ud;
} run_state;

/* A helper finished: its job, and every duplicate of it, are final. */
static void helper_done(void *ud, size_t k)
{
	run_state *rs = ud;
	size_t orig = rs->todo[k], i;
	ks_compile_job *j = &rs->jobs[orig];
	classify(j, rs->c, &rs->sr[k]);
	if (!j->log)
		j->log = ks_strdup("");
	cache_store(rs->c, j);
	for (i = 0; i < rs->n; i++)
		if (rs->dup_of[i] == orig) {
			copy_result(&rs->jobs[i], j);
			if (rs->done)
				rs->done(rs->ud, i);
		}
	if (rs->done)
		rs->done(rs->ud, orig);
}

int ks_compile_run(ks_compile_job *jobs, size_t n, const ks_compile_options *opts)
{
	return ks_compile_run_cb(jobs, n, opts, NULL, NULL);
}

int ks_compile_run_cb(ks_compile_job *jobs, size_t n, const ks_compile_options *opts,
		      void (*done)(void *ud, size_t i), void *ud)
{
	ks_ctx c;
	size_t *todo = NULL, ntodo = 0, *dup_of = NULL, i, k;
	ks_spawn_options *so = NULL;
	ks_spawn_result *sr = NULL;
	const char ***argvs = NULL;
	run_state rs;
	int rc;

	for (i = 0; i < n; i++)
		reset_outputs(&jobs[i]);
	if ((rc = ctx_init(&c, opts)) < 0) {
		ks_compile_status st = rc == KS_EINVALID ? KS_COMPILE_ERROR : KS_COMPILE_CRASH;
		for (i = 0; i < n; i++)
			job_fail(&jobs[i], st, ks_asprintf("cannot compile: %s", ks_error_msg()));
		goto done;
	}

	todo = ks_calloc(n ? n : 1, sizeof(*todo));
	dup_of = ks_calloc(n ? n : 1, sizeof(*dup_of));
	for (i = 0; i < n; i++) {
		ks_compile_job *j = &jobs[i];
		size_t len;

		dup_of[i] = SIZE_MAX;
		if (!j->source) {
			job_fail(j, KS_COMPILE_ERROR, ks_strdup("no source to compile"));
		} else if (check_names(j) < 0) {
			/* refused: status and log set */
		} else if ((len = strlen(j->source)) > c.o.max_source) {
			job_fail(j, KS_COMPILE_LIMIT,
				 ks_asprintf("source is %zu bytes, over the limit of %zu", len, c.o.max_source));
		} else {
			make_key(j->key, &c, j);
			if (!cache_load(&c, j)) {
				/* The same source and names twice in a batch are compiled once. */
				for (k = 0; k < ntodo; k++)
					if (!strcmp(jobs[todo[k]].key, j->key)) {
						dup_of[i] = todo[k];
						break;
					}
				if (dup_of[i] == SIZE_MAX)
					todo[ntodo++] = i;
				continue;
			}
		}
		if (!j->log)
			j->log = ks_strdup("");
		if (done)
			done(ud, i);
	}

	so = ks_calloc(ntodo ? ntodo : 1, sizeof(*so));
	sr = ks_calloc(ntodo ? ntodo : 1, sizeof(*sr));
	argvs = ks_calloc(ntodo ? ntodo : 1, sizeof(*argvs));
	for (k = 0; k < ntodo; k++) {
		ks_compile_job *j = &jobs[todo[k]];
		build_argv(&argvs[k], &c, j);
		so[k].argv = argvs[k];
		so[k].envp = NULL; /* empty: nothing secret to include from /proc/self/environ */
		so[k].stdin_data = j->source;
		so[k].stdin_len = strlen(j->source);
		so[k].max_stdout = 64 + c.o.max_log + KS_COMPILE_LOG_SLACK + KS_COMPILE_MAX_CUBIN +
				   j->nnames * (KS_COMPILE_MAX_NAME + 4);
		so[k].max_stderr = KS_HELPER_STDERR;
		so[k].timeout_s = c.o.timeout_s;
		helper_limits(&so[k].limits, &c.o);
	}
	rs.jobs = jobs;
	rs.n = n;
	rs.todo = todo;
	rs.dup_of = dup_of;
	rs.sr = sr;
	rs.c = &c;
	rs.done = done;
	rs.ud = ud;
	/* A child that cannot start is reported in its own result; the others still ran. */
	ks_spawn_run_many_cb(sr, so, ntodo, c.o.jobs, helper_done, &rs);
	rc = 0;
	for (k = 0; k < ntodo; k++) {
		ks_spawn_result_clear(&sr[k]);
		ks_free(argvs[k]);
	}
	goto out;
done:
	for (i = 0; i < n; i++) {
		if (!jobs[i].log)
			jobs[i].log = ks_strdup("");
		if (done)
			done(ud, i);
	}
out:
	ks_free(so);
	ks_free(sr);
	ks_free(argvs);
	ks_free(todo);
	ks_free(dup_of);
	ctx_free(&c);
	return rc;
}

void ks_compile_job_clear(ks_compile_job *job)
{
	if (!job)
		return;
	ks_free(job->log);
	ks_free(job->cubin);
	ks_free_strv(job->lowered, job->lowered ? job->nnames : 0);
	job->log = NULL;
	job->cubin = NULL;
	job->cubin_len = 0;
	job->lowered = NULL;
}

char *ks_compile_nvrtc_version(const ks_compile_options *opts)
{
	ks_compile_options def = KS_COMPILE_OPTIONS_INIT;
	ks_ctx c;
	char *v = NULL;

	memset(&c, 0, sizeof(c));
	c.o = opts ? *opts : def;
	c.helper = find_helper(&c.o);
	if (c.o.timeout_s <= 0)
		c.o.timeout_s = KS_VERSION_TIMEOUT_S;
	if (run_version(&v, &c) < 0)
		v = NULL;
	ctx_free(&c);
	return v;
}

int ks_compile_toolchain_get(ks_compile_toolchain *t, const ks_compile_options *opts)
{
	ks_compile_options def = KS_COMPILE_OPTIONS_INIT;
	const ks_compile_options *o = opts ? opts : &def;
	const char *const cuda[] = { "<cuda>/include", "<cuda>/include/cccl" };
	char **v = NULL, *compat = NULL, sha[65];
	size_t n = 0, i;
	ks_buf b = KS_BUF_INIT((size_t)1 << 20);
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (!o->no_compat) {
		if (!(compat = ks_compat_find(o->compat_dir)))
			return KS_ENOTFOUND;
		rc = ks_compat_hash(sha, compat);
		ks_free(compat);
		if (rc < 0)
			return rc;
		t->compat_sha256 = ks_strdup(sha);
	}
	ks_compile_nvrtc_options(&v, &n, o->arch, o->no_compat ? NULL : "<compat>", cuda, 2);
	for (i = 0; i < n; i++)
		ks_buf_printf(&b, "%s%s", i ? " " : "", v[i]);
	ks_free_strv(v, n);
	t->options = ks_buf_take(&b, NULL);
	return 0;
}

void ks_compile_toolchain_clear(ks_compile_toolchain *t)
{
	if (!t)
		return;
	ks_free(t->compat_sha256);
	ks_free(t->options);
	memset(t, 0, sizeof(*t));
}
