#include "lang/cuda/compat.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/version.h"
#include "util/hash.h"
#include "util/mem.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KS_COMPAT_MAX_FILES 4096
#define KS_COMPAT_MAX_FILE (1u << 20)
#define KS_COMPAT_MAX_DEPTH 16
#define KS_COMPAT_MAX_NOTED 8 /* stand-ins named in one note */

static const char g_open_msg[] = "cannot open source file \"";

char *ks_compat_find(const char *given)
{
	static const char *const rel[] = { "../share/kscore/compat/include", "../compat/include",
					   "../../compat/include" };
	const char *libexec = getenv("KSCORE_LIBEXEC");
	char real[PATH_MAX], *exe, *p, *found = NULL;
	size_t i;

	if (given) {
		if (!realpath(given, real) || !ks_fs_is_dir(real)) {
			ks_error_set(KS_ENOTFOUND, "kscore's compatibility headers are not at %s", given);
			return NULL;
		}
		return ks_strdup(real);
	}
	exe = ks_exe_dir();
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]) && !found; i++) {
		p = ks_path_join(exe, rel[i]);
		if (realpath(p, real) && ks_fs_is_dir(real))
			found = ks_strdup(real);
		ks_free(p);
	}
	/* a program that embeds libkscore lies anywhere: beside the helpers it was pointed to (an
	 * installed tree, staged or not), then where `make install` put them */
	if (!found && libexec && *libexec) {
		p = ks_path_join(libexec, "../../share/kscore/compat/include");
		if (realpath(p, real) && ks_fs_is_dir(real))
			found = ks_strdup(real);
		ks_free(p);
	}
	if (!found && realpath(KS_DATADIR "/compat/include", real) && ks_fs_is_dir(real))
		found = ks_strdup(real);
	if (!found)
		ks_error_set(KS_ENOTFOUND, "kscore's compatibility headers are not installed (looked "
			     "for share/kscore/compat/include and compat/include next to %s, and "
			     KS_DATADIR "/compat/include)", exe);
	ks_free(exe);
	return found;
}

/* ---- the fingerprint ---- */

typedef struct {
	char **paths; /* relative to the root */
	size_t n, cap;
} ks_file_list;

static int collect(ks_file_list *fl, const char *root, const char *rel, int depth)
{
	char *dir = rel ? ks_path_join(root, rel) : ks_strdup(root), **names = NULL;
	size_t n = 0, i;
	int rc;

	if (depth > KS_COMPAT_MAX_DEPTH) {
		rc = ks_error_set(KS_ELIMIT, "%s: folders nested deeper than %d", dir,
				  KS_COMPAT_MAX_DEPTH);
		goto done;
	}
	if ((rc = ks_fs_list(&names, &n, dir, 1)) < 0)
		goto done;
	for (i = 0; i < n; i++) {
		char *sub = rel ? ks_path_join(rel, names[i]) : ks_strdup(names[i]);
		char *full = ks_path_join(root, sub);
		struct stat st;

		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			rc = collect(fl, root, sub, depth + 1);
			ks_free(sub);
		} else if (lstat(full, &st) == 0 && S_ISREG(st.st_mode)) {
			if (fl->n == KS_COMPAT_MAX_FILES)
				rc = ks_error_set(KS_ELIMIT, "%s: more than %d files", root,
						  KS_COMPAT_MAX_FILES);
			else {
				fl->paths = ks_grow(fl->paths, sizeof(char *), &fl->cap, fl->n + 1);
				fl->paths[fl->n++] = sub;
			}
			if (rc < 0)
				ks_free(sub);
		} else {
			ks_free(sub);
		}
		ks_free(full);
		if (rc < 0)
			goto done;
	}
done:
	ks_free_strv(names, n);
	ks_free(dir);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int ks_compat_hash(char out[65], const char *dir)
{
	ks_file_list fl = { NULL, 0, 0 };
	ks_sha256 *h = NULL;
	size_t i;
	int rc;

	if ((rc = collect(&fl, dir, NULL, 0)) < 0)
		goto done;
	/* Directory order is not sorted across levels: sort the whole relative paths. */
	qsort(fl.paths, fl.n, sizeof(char *), cmp_str);
	h = ks_sha256_new();
	ks_sha256_update_str(h, "kscore compat");
	for (i = 0; i < fl.n; i++) {
		char *path = ks_path_join(dir, fl.paths[i]), *data = NULL;
		size_t len = 0;
		rc = ks_fs_read(&data, &len, path, KS_COMPAT_MAX_FILE);
		ks_free(path);
		if (rc < 0)
			goto done;
		ks_sha256_update_str(h, fl.paths[i]);
		ks_sha256_update_str(h, data);
		ks_free(data);
	}
	ks_sha256_final(h, out);
	h = NULL;
done:
	if (h) {
		char tmp[65];
		ks_sha256_final(h, tmp);
	}
	if (rc < 0)
		ks_error_wrap(rc, "fingerprinting kscore's compatibility headers");
	ks_free_strv(fl.paths, fl.n);
	return rc;
}

/* ---- the log ---- */

/* A diagnostic starts in column 0 ("file(line): error: ..."); echoed source lines are indented,
 * so a submission's text cannot make one. */
static const char *open_diagnostic(const char *line, size_t len)
{
	size_t k = sizeof(g_open_msg) - 1, i;

	if (!len || line[0] == ' ' || line[0] == '\t')
		return NULL;
	for (i = 0; i + k <= len; i++)
		if (!memcmp(line + i, g_open_msg, k))
			return line + i + k;
	return NULL;
}

/* The closing quote of the file name: the last one on the line (a name may contain quotes; the
 * reason NVRTC appends never does). NULL when the line holds no closing quote. */
static const char *closing_quote(const char *name, const char *end)
{
	const char *q = NULL, *p;
	for (p = name; p < end; p++)
		if (*p == '"')
			q = p;
	return q;
}

char *ks_compat_normalise_log(const char *log)
{
	const char *p = log ? log : "";
	ks_buf b = KS_BUF_INIT(strlen(p) + 1); /* the result is never longer */

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *name = open_diagnostic(p, len), *q;

		if (name && (q = closing_quote(name, p + len)) != NULL)
			ks_buf_put(&b, p, (size_t)(q + 1 - p));
		else
			ks_buf_put(&b, p, len);
		if (nl)
			ks_buf_put(&b, "\n", 1);
		p += len + (nl ? 1 : 0);
	}
	return ks_buf_take(&b, NULL);
}

/* ---- the source ---- */

#define KS_FIX_MAX_MARKS 64  /* `inline`s remembered in one declaration */
#define KS_FIX_MAX_DEPTH 256 /* braces whose kind is remembered; deeper ones are blocks */

static int ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int ident_byte(char c)
{
	return ident_start(c) || (c >= '0' && c <= '9');
}

/* The end of a literal opened by quote q at p[0] (escapes skipped; a line end closes it). */
static const char *skip_literal(const char *p, char q)
{
	for (p++; *p && *p != q && *p != '\n'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p == q ? p + 1 : p;
}

/* p at the '"' of a raw string R"delim(...)delim": its end. */
static const char *skip_raw(const char *p)
{
	const char *open = p + 1, *paren = open;
	while (*paren && *paren != '(' && paren - open <= 16 && !strchr(" )\\\t\n", *paren))
		paren++;
	if (*paren != '(')
		return skip_literal(p, '"');
	for (p = paren + 1; *p; p++)
		if (*p == ')' && !strncmp(p + 1, open, (size_t)(paren - open)) && p[1 + (paren - open)] == '"')
			return p + 2 + (paren - open);
	return p;
}

/* An identifier that prefixes a literal: L'x', u8"x", R"(x)", LR"(x)", ... */
static int literal_prefix(const char *s, size_t n, int *raw)
{
	*raw = n && s[n - 1] == 'R';
	if (*raw)
		n--;
	return (n == 0 && *raw) || (n == 1 && strchr("LuU", s[0])) || (n == 2 && !strncmp(s, "u8", 2));
}

char *ks_compat_fix_source(const char *src, size_t *line)
{
	char *out = ks_strdup(src ? src : ""), *p = out;
	struct {
		char *at;
		size_t len, line;
	} marks[KS_FIX_MAX_MARKS];
	unsigned char ns[KS_FIX_MAX_DEPTH]; /* per open brace: 1 a namespace's or extern "C"'s */
	size_t nmarks = 0, i, ln = 1, depth = 0, idents = 0;
	int shared = 0, space = 0, ext = 0;

	*line = 0;
	while (1) {
		char c = *p;
		/* a declaration's specifiers lie between two of these */
		if (!c || strchr(";{}()=[", c)) {
			/* in a function only: at namespace scope nvcc refuses it too */
			int block = depth > 0 && (depth > KS_FIX_MAX_DEPTH || !ns[depth - 1]);
			for (i = 0; shared && block && i < nmarks; i++) {
				memset(marks[i].at, ' ', marks[i].len);
				if (!*line)
					*line = marks[i].line;
			}
			if (c == '{') {
				if (depth < KS_FIX_MAX_DEPTH)
					ns[depth] = space || (ext && idents == 1);
				depth++;
			} else if (c == '}' && depth) {
				depth--;
			}
			nmarks = idents = 0;
			shared = space = ext = 0;
			if (!c)
				break;
			p++;
		} else if (c == '\n') {
			ln++;
			p++;
		} else if (c == '/' && p[1] == '/') {
			p += strcspn(p, "\n");
		} else if (c == '/' && p[1] == '*') {
			char *e = strstr(p + 2, "*/");
			for (e = e ? e + 2 : p + strlen(p); p < e; p++)
				ln += *p == '\n';
		} else if (c == '"' || c == '\'') {
			p = (char *)skip_literal(p, c);
		} else if (ident_start(c)) {
			char *s = p;
			size_t n;
			int raw;
			while (ident_byte(*p))
				p++;
			n = (size_t)(p - s);
			if ((*p == '"' || *p == '\'') && literal_prefix(s, n, &raw)) {
				const char *e = raw && *p == '"' ? skip_raw(p) : skip_literal(p, *p);
				for (; p < e; p++)
					ln += *p == '\n';
			} else if (++idents && n == 10 && !strncmp(s, "__shared__", n)) {
				shared = 1;
			} else if (n == 9 && !strncmp(s, "namespace", n)) {
				space = 1;
			} else if (n == 6 && !strncmp(s, "extern", n)) {
				ext = 1;
			} else if (((n == 6 && !strncmp(s, "inline", n)) || (n == 8 && !strncmp(s, "__inline", n)) ||
				    (n == 10 && !strncmp(s, "__inline__", n))) && nmarks < KS_FIX_MAX_MARKS) {
				marks[nmarks].at = s;
				marks[nmarks].len = n;
				marks[nmarks++].line = ln;
			}
		} else if (c >= '0' && c <= '9') {
			/* a number, its digit separators (1'000) included */
			while (ident_byte(*p) || *p == '.' || (*p == '\'' && ident_byte(p[1])))
				p++;
		} else {
			p++;
		}
	}
	return out;
}

/* A byte that may continue a file name: a directory matched before one of these is only the
 * start of a longer name ("/opt/cuda/include2"), not the directory. */
static int name_byte(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
	       c == '_' || c == '-' || c == '+' || (unsigned char)c >= 0x80;
}

char *ks_compat_hide_paths(const char *log, const char *const *dirs, const char *const *names, size_t n)
{
	const char *p = log ? log : "";
	size_t *order = ks_calloc(n + 1, sizeof(*order)), i, j, len = strlen(p), longest = 0;
	ks_buf b;

	/* longest first: a folder inside another (CUDA's include/cccl) keeps its own name */
	for (i = 0; i < n; i++) {
		order[i] = i;
		if (strlen(names[i]) > longest)
			longest = strlen(names[i]);
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strlen(dirs[order[j]]) > strlen(dirs[order[j - 1]]); j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	/* at most one name per two bytes of the log: the bound every replacement stays within */
	ks_buf_init(&b, len + (len / 2 + 1) * longest + 1);
	while (*p) {
		size_t k = 0;
		for (i = 0; i < n; i++) {
			const char *d = dirs[order[i]];
			k = d ? strlen(d) : 0;
			if (k >= 2 && !strncmp(p, d, k) && !name_byte(p[k]))
				break;
		}
		if (i < n) {
			ks_buf_puts(&b, names[order[i]]);
			p += k;
		} else {
			ks_buf_put(&b, p, 1);
			p++;
		}
	}
	ks_free(order);
	return ks_buf_take(&b, NULL);
}

int ks_compat_missing_header(char **name, char **where, const char *log)
{
	const char *p = log ? log : "";

	*name = NULL;
	*where = NULL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *n = open_diagnostic(p, len), *q, *paren, *close;

		if (n && (q = closing_quote(n, p + len)) != NULL && q > n) {
			*name = ks_strndup(n, (size_t)(q - n));
			/* "file(line): catastrophic error: ..." */
			close = strstr(p, "): ");
			for (paren = close; paren && paren > p && *paren != '('; paren--)
				;
			if (close && close < n && paren && paren > p && *paren == '(')
				*where = ks_asprintf("%.*s line %.*s", (int)(paren - p), p,
						     (int)(close - paren - 1), paren + 1);
			else
				*where = ks_strdup("the source");
			return 1;
		}
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

/* ---- advice ---- */

#define KS_TORCH_ADVICE                                                                          \
	"PyTorch, pybind11 and Python headers belong to an extension's host wrapper; kscore compiles " \
	"the kernels alone and calls them with raw device pointers: remove the include and take "    \
	"float*, __half*, ... arguments as in the problem's signature"
#define KS_OS_ADVICE "an operating-system header; device code cannot use it: remove the include"
#define KS_HOSTLIB_ADVICE                                                                        \
	"a host library header; kscore compiles device code only (NVRTC): remove the include"
#define KS_CUTLASS_ADVICE                                                                        \
	"CUTLASS and CuTe are not part of kscore's toolchain: use WMMA (<mma.h>), inline PTX, "     \
	"<cuda/barrier> and <cuda/pipeline>"

static const struct {
	const char *name;
	int prefix;
	const char *advice;
} g_advice[] = {
	{ "torch/", 1, KS_TORCH_ADVICE },
	{ "ATen/", 1, KS_TORCH_ADVICE },
	{ "c10/", 1, KS_TORCH_ADVICE },
	{ "caffe2/", 1, KS_TORCH_ADVICE },
	{ "pybind11/", 1, KS_TORCH_ADVICE },
	{ "Python.h", 0, KS_TORCH_ADVICE },
	{ "cutlass/", 1, KS_CUTLASS_ADVICE },
	{ "cute/", 1, KS_CUTLASS_ADVICE },
	{ "thrust/", 1, "this thrust header does not compile under NVRTC; thrust's device-side "
		"headers do (<thrust/tuple.h>, <thrust/pair.h>, <thrust/functional.h>, "
		"<thrust/complex.h>, <thrust/random.h>, <thrust/iterator/...>)" },
	{ "cub/", 1, "this CUB header does not compile under NVRTC: include <cub/cub.cuh> or the "
		"block-, warp- and thread-level headers (<cub/block/...>, <cub/warp/...>)" },
	{ "sys/", 1, KS_OS_ADVICE },
	{ "unistd.h", 0, KS_OS_ADVICE },
	{ "pthread.h", 0, KS_OS_ADVICE },
	{ "omp.h", 0, KS_OS_ADVICE },
	{ "windows.h", 0, KS_OS_ADVICE },
	{ "dlfcn.h", 0, KS_OS_ADVICE },
	{ "fcntl.h", 0, KS_OS_ADVICE },
	{ "signal.h", 0, KS_OS_ADVICE },
	{ "csignal", 0, KS_OS_ADVICE },
	{ "time.h", 0, "host time functions; device code reads its clock with clock64() or "
		"globaltimer (no include needed)" },
	{ "ctime", 0, "host time functions; device code reads its clock with clock64() or "
		"globaltimer (no include needed)" },
	{ "nccl.h", 0, KS_HOSTLIB_ADVICE },
	{ "nvml.h", 0, KS_HOSTLIB_ADVICE },
	{ "npp", 1, KS_HOSTLIB_ADVICE },
	{ "nvjpeg", 1, KS_HOSTLIB_ADVICE },
	{ "cutensor", 1, KS_HOSTLIB_ADVICE },
	{ "cudnn", 1, KS_HOSTLIB_ADVICE },
	{ "cusolver", 1, KS_HOSTLIB_ADVICE },
	{ "cusparseLt", 1, KS_HOSTLIB_ADVICE },
	{ "nvrtc.h", 0, KS_HOSTLIB_ADVICE },
	{ "nvJitLink.h", 0, KS_HOSTLIB_ADVICE },
};

static int name_matches(const char *name, const char *pat, int prefix)
{
	return prefix ? !strncmp(name, pat, strlen(pat)) : !strcmp(name, pat);
}

/* A name that reaches out of the include directories: absolute, or climbing with "..". */
static int outside(const char *name)
{
	const char *p;
	if (name[0] == '/')
		return 1;
	for (p = name; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == name || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return 1;
	return 0;
}

char *ks_compat_header_advice(const char *name, const char *const *include_dirs, size_t n)
{
	size_t i;

	if (outside(name))
		return ks_strdup("a submission is one file: it can include CUDA's headers and "
				 "kscore's, nothing else on the machine");
	for (i = 0; i < sizeof(g_advice) / sizeof(g_advice[0]); i++)
		if (name_matches(name, g_advice[i].name, g_advice[i].prefix))
			return ks_strdup(g_advice[i].advice);
	/* A standard header kscore does not provide, that libcu++ has a device version of. The
	 * include directories are CUDA's own, readable inside the sandbox too. */
	if (!strchr(name, '/') && !strchr(name, '.')) {
		for (i = 0; i < n; i++) {
			char *p = ks_asprintf("%s/cuda/std/%s", include_dirs[i], name);
			int there = ks_fs_exists(p) && !ks_fs_is_dir(p);
			ks_free(p);
			if (there)
				return ks_asprintf("kscore does not provide the host's <%s>; libcu++ has "
						   "a device version: include <cuda/std/%s> and use "
						   "cuda::std::", name, name);
		}
		return ks_asprintf("<%s> is a host C++ library header that kscore does not provide; "
				   "device code cannot use it: remove the include", name);
	}
	return ks_strdup("not among the headers kscore compiles with: CUDA's, CCCL's (cuda/std, "
			 "cub, thrust's device side) and the device-usable standard headers kscore "
			 "provides (docs/submission-format.md)");
}

/* Headers whose kscore version is a stand-in: it compiles, but declares nothing usable. */
static const struct {
	const char *name;
	int prefix;
} g_stand_ins[] = {
	{ "vector", 0 }, { "string", 0 }, { "iostream", 0 }, { "ostream", 0 }, { "istream", 0 },
	{ "sstream", 0 }, { "fstream", 0 }, { "iomanip", 0 }, { "map", 0 }, { "unordered_map", 0 },
	{ "set", 0 }, { "unordered_set", 0 }, { "list", 0 }, { "deque", 0 }, { "queue", 0 },
	{ "stack", 0 }, { "stdexcept", 0 }, { "exception", 0 }, { "memory", 0 }, { "mutex", 0 },
	{ "thread", 0 }, { "random", 0 }, { "chrono", 0 },
	{ "torch/", 1 }, { "ATen/", 1 }, { "c10/", 1 }, { "pybind11/", 1 }, { "Python.h", 0 },
	{ "cublas_v2.h", 0 }, { "cublas_api.h", 0 }, { "cublas.h", 0 }, { "cublasLt.h", 0 },
	{ "cuda_profiler_api.h", 0 }, { "nvToolsExt.h", 0 }, { "nvtx3/nvToolsExt.h", 0 },
	{ "cub/device/", 1 },
};

/* thrust's host side: every thrust header kscore replaces except complex.h (a real one). */
static const char *const g_thrust_host[] = {
	"adjacent_difference", "allocate_unique", "binary_search", "copy", "count",
	"device_allocator", "device_delete", "device_free", "device_make_unique", "device_malloc",
	"device_malloc_allocator", "device_new", "device_new_allocator", "device_ptr",
	"device_reference", "device_vector", "equal", "execution_policy", "extrema", "fill", "find",
	"for_each", "gather", "generate", "host_vector", "inner_product", "logical", "memory",
	"merge", "mismatch", "partition", "per_device_resource", "reduce", "remove", "replace",
	"reverse", "scan", "scatter", "sequence", "set_operations", "shuffle", "sort", "swap",
	"system_error", "tabulate", "transform", "transform_reduce", "transform_scan",
	"uninitialized_copy", "uninitialized_fill", "unique", "universal_allocator", "universal_ptr",
	"universal_vector",
};

int ks_compat_is_stand_in(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(g_stand_ins) / sizeof(g_stand_ins[0]); i++)
		if (name_matches(name, g_stand_ins[i].name, g_stand_ins[i].prefix))
			return 1;
	if (!strncmp(name, "thrust/", 7)) {
		const char *base = name + 7;
		size_t len = strlen(base);
		if (len < 3 || strcmp(base + len - 2, ".h"))
			return 0;
		for (i = 0; i < sizeof(g_thrust_host) / sizeof(g_thrust_host[0]); i++)
			if (strlen(g_thrust_host[i]) == len - 2 && !strncmp(base, g_thrust_host[i], len - 2))
				return 1;
	}
	return 0;
}

/* ---- notes for a failed compile ---- */

/* The header named by an #include directive on this line, if any. */
static char *include_name(const char *line, size_t len)
{
	const char *p = line, *end = line + len, *q;
	char close;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p++ != '#')
		return NULL;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 7 || memcmp(p, "include", 7))
		return NULL;
	p += 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || (*p != '<' && *p != '"'))
		return NULL;
	close = *p == '<' ? '>' : '"';
	for (q = ++p; q < end && *q != close; q++)
		;
	return q < end && q > p && q - p < 256 ? ks_strndup(p, (size_t)(q - p)) : NULL;
}

static int is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether the source names a PyTorch namespace (torch::, at::, c10::) as a whole word. */
static int uses_torch(const char *src)
{
	static const char *const ns[] = { "torch::", "at::", "c10::" };
	size_t i;

	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		const char *p = src;
		while ((p = strstr(p, ns[i])) != NULL) {
			if (p == src || !is_ident(p[-1]))
				return 1;
			p++;
		}
	}
	return 0;
}

void ks_compat_notes(ks_buf *out, const char *source, const char *log)
{
	const char *p = source ? source : "";
	char *noted[KS_COMPAT_MAX_NOTED];
	size_t nnoted = 0, i, k;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *name = include_name(p, len);
		int dup = 0;

		if (name && ks_compat_is_stand_in(name) && nnoted < KS_COMPAT_MAX_NOTED) {
			for (k = 0; k < nnoted; k++)
				dup |= !strcmp(noted[k], name);
			if (!dup) {
				noted[nnoted++] = name;
				name = NULL;
			}
		}
		ks_free(name);
		p += len + (nl ? 1 : 0);
	}
	if (nnoted) {
		ks_buf_puts(out, "note: host-only headers included:");
		for (i = 0; i < nnoted; i++) {
			ks_buf_printf(out, "%s <%s>", i ? "," : "", noted[i]);
			ks_free(noted[i]);
		}
		ks_buf_puts(out, ". kscore compiles device code only (NVRTC) and gives these headers "
			    "empty stand-ins: an unused include compiles, but their types and functions "
			    "cannot be used in device code\n");
	}
	if (source && uses_torch(source))
		ks_buf_puts(out, "note: the source names PyTorch (torch::, at::, c10::), whose types "
			    "and functions are host-only: kscore calls the kernels with raw device "
			    "pointers (float*, __half*, ...) as in the problem's signature\n");
	if (log && strstr(log, "explicitly marked as a __host__ function is not allowed"))
		ks_buf_puts(out, "note: NVRTC compiles device code only and refuses a function marked "
			    "__host__ alone; under kscore an unmarked function is a device function "
			    "(-default-device), and __host__ __device__ works too\n");
}
