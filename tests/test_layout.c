/* Tests of the source tree's layout rules (docs/architecture.md, "The tree"): which folder may
 * include which, no cycle between files (neither through includes nor through calls), no source
 * file over 1,000 lines, argument parsing only in the command files, the worker process apart from
 * the checker. They read the tree found through KSCORE_ROOT. */
#include "ktest.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_FILES 1024
#define MAX_NAMES 8192

typedef struct {
	char path[512]; /* relative to the root */
	char *text;
} src_file;

static src_file files[MAX_FILES];
static size_t nfiles;

static int has_suffix(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Reads every .c and .h file below dir (relative to the root), recursively. */
static void load_dir(const char *dir)
{
	const char *root = getenv("KSCORE_ROOT");
	char full[2048];
	DIR *dh;
	struct dirent *e;
	KT_ASSERT_MSG(root && *root, "KSCORE_ROOT is not set");
	snprintf(full, sizeof(full), "%s/%s", root, dir);
	KT_ASSERT_MSG((dh = opendir(full)) != NULL, "cannot open %s", full);
	while ((e = readdir(dh)) != NULL) {
		char rel[512];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", dir, e->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, rel);
		if (stat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (strcmp(e->d_name, "fixtures") != 0)
				load_dir(rel);
			continue;
		}
		if (!has_suffix(e->d_name, ".c") && !has_suffix(e->d_name, ".h"))
			continue;
		KT_ASSERT(nfiles < MAX_FILES);
		snprintf(files[nfiles].path, sizeof(files[nfiles].path), "%s", rel);
		KT_ASSERT_MSG(ks_fs_read(&files[nfiles].text, NULL, full, 8u << 20) == 0, "cannot read %s", full);
		nfiles++;
	}
	closedir(dh);
}

static void load(const char *const *dirs)
{
	size_t d;
	nfiles = 0;
	for (d = 0; dirs[d]; d++)
		load_dir(dirs[d]);
	KT_ASSERT(nfiles > 0);
}

static void unload(void)
{
	size_t i;
	for (i = 0; i < nfiles; i++)
		ks_free(files[i].text);
	nfiles = 0;
}

/* The library's sources: the stages below src/ and the site writer, a top-level part of its own. */
static const char *const src_only[] = { "src", "web_export", NULL };

static void test_no_source_file_is_over_1000_lines(void)
{
	static const char *const dirs[] = { "src", "web_export", "include", "examples", "tests", "fuzz", "scripts", NULL };
	size_t i, over = 0;
	load(dirs);
	for (i = 0; i < nfiles; i++) {
		size_t lines = 0;
		const char *p;
		for (p = files[i].text; *p; p++)
			lines += *p == '\n';
		if (lines > 1000) {
			fprintf(stderr, "  %s: %zu lines\n", files[i].path, lines);
			over++;
		}
	}
	unload();
	KT_ASSERT_MSG(over == 0, "%zu source files are over 1,000 lines", over);
}

/* The stage modules never see argv: getopt_long is called in the command files alone. */
static void test_only_command_files_parse_arguments(void)
{
	size_t i, bad = 0;
	load(src_only);
	for (i = 0; i < nfiles; i++) {
		const char *base = strrchr(files[i].path, '/') + 1;
		int command = strncmp(files[i].path, "src/cli/", 8) == 0 &&
			      ((strncmp(base, "cmd_", 4) == 0 && has_suffix(base, ".c")) || strcmp(base, "cli.c") == 0);
		if (!command && strstr(files[i].text, "getopt_long(")) {
			fprintf(stderr, "  %s calls getopt_long\n", files[i].path);
			bad++;
		}
	}
	unload();
	KT_ASSERT_MSG(bad == 0, "%zu files outside the command layer parse arguments", bad);
}

/* ---- folders: the order of the parts (docs/architecture.md). A folder may include itself, the
 * folders before it and util/; util/ includes nothing of kscore; cli/ may include anything. The
 * site writer is web_export/ at the top of the tree (its includes name it: "web_export/model.h");
 * only the commands and the public API (src/api/) come after it. */

static const struct {
	const char *dir;
	int rank;
} parts[] = {
	{ "util", 0 }, { "load", 1 }, { "load/sets", 1 }, { "lang", 2 }, { "lang/cuda", 2 }, { "lang/triton", 2 },
	{ "trace", 2 }, { "trace/cupti", 2 }, { "run", 3 }, { "worker", 4 }, { "time", 5 }, { "judge", 6 }, { "nvtool", 7 },
	{ "report", 8 }, { "upload", 9 }, { "session", 10 }, { "refs", 11 }, { "batch", 12 },
	{ "web_export", 13 }, { "api", 14 }, { "cli", 15 },
};

/* The headers of run/ that the worker process may include: plain data shared by both sides of the
 * worker protocol. The checker (compare.h), the runner and the checks are not among them: the
 * process that runs candidates never includes the code that judges them. */
static const char *const worker_may_include[] = { "run/proto.h", "run/harness.h", "run/device.h", NULL };

/* folder of a path below src/ ("src/lang/cuda/compile.c" -> "lang/cuda") or of a top-level part
 * ("web_export/model.c" -> "web_export"), into out */
static void folder_of(char *out, size_t n, const char *path)
{
	const char *p = strncmp(path, "src/", 4) == 0 ? path + 4 : path;
	const char *slash = strrchr(p, '/');
	size_t len = slash ? (size_t)(slash - p) : 0;
	if (len >= n)
		len = n - 1;
	memcpy(out, p, len);
	out[len] = 0;
}

static int rank_of(const char *folder)
{
	size_t i;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (strcmp(parts[i].dir, folder) == 0)
			return parts[i].rank;
	return -1;
}

/* The next quoted include of text after *pos (a directive at the start of a line, so not one a
 * comment quotes): its name in name[], 0 at the end. */
static int next_include(const char **pos, char *name, size_t n, const char *text)
{
	const char *p;
	while ((p = strstr(*pos, "#include \"")) != NULL) {
		const char *q = p + 10, *e = strchr(q, '"');
		*pos = q;
		if (p != text && p[-1] != '\n')
			continue;
		if (!e || (size_t)(e - q) >= n)
			continue;
		memcpy(name, q, (size_t)(e - q));
		name[e - q] = 0;
		return 1;
	}
	return 0;
}

/* Whether a file of folder `from` may include header `name` (a path below src/). */
static int may_include(const char *from, const char *name, char *why, size_t n)
{
	char to[128];
	int rf = rank_of(from), rt;
	size_t i;
	folder_of(to, sizeof(to), name);
	rt = rank_of(to);
	if (rf < 0 || rt < 0) {
		snprintf(why, n, "%s is not a part of the tree", rf < 0 ? from : to);
		return 0;
	}
	if (strcmp(from, to) == 0 || strcmp(from, "cli") == 0)
		return 1;
	if (strcmp(to, "cli") == 0) {
		snprintf(why, n, "nothing includes the commands");
		return 0;
	}
	if (strcmp(from, "util") == 0) {
		snprintf(why, n, "util/ includes nothing of kscore");
		return 0;
	}
	if (strncmp(from, "lang/", 5) == 0 && strncmp(to, "lang/", 5) == 0) {
		snprintf(why, n, "one language front-end never includes another");
		return 0;
	}
	if (strcmp(from, "worker") == 0 && strcmp(to, "run") == 0) {
		for (i = 0; worker_may_include[i]; i++)
			if (strcmp(worker_may_include[i], name) == 0)
				return 1;
		snprintf(why, n, "the worker process includes only the shared data headers of run/");
		return 0;
	}
	if (rt <= rf)
		return 1;
	snprintf(why, n, "%s/ comes after %s/", to, from);
	return 0;
}

/* Where an include's file lies, relative to the root: a top-level part's own path, else below src/. */
static void include_path(char *out, size_t n, const char *name)
{
	if (strncmp(name, "web_export/", 11) == 0)
		snprintf(out, n, "%s", name);
	else
		snprintf(out, n, "src/%s", name);
}

static int is_public_header(const char *name)
{
	return strcmp(name, "kscore.h") == 0 || strncmp(name, "kscore/", 7) == 0;
}

static void test_folders_include_only_earlier_folders(void)
{
	const char *root = getenv("KSCORE_ROOT");
	size_t i, bad = 0;
	load(src_only);
	for (i = 0; i < nfiles; i++) {
		char from[128], name[256], why[512], full[1024];
		const char *p = files[i].text;
		struct stat st;
		folder_of(from, sizeof(from), files[i].path);
		while (next_include(&p, name, sizeof(name), files[i].text)) {
			char rel[300];
			include_path(rel, sizeof(rel), name);
			snprintf(full, sizeof(full), "%s/%s", root, rel);
			if (is_public_header(name)) {
				/* the public API is implemented over the stages, never used by them */
				if (strcmp(from, "api") != 0) {
					fprintf(stderr, "  %s includes the public header %s: only src/api/ does\n",
						files[i].path, name);
					bad++;
				}
			} else if (strchr(name, '/') == NULL || stat(full, &st) != 0) {
				/* every include is written from src/ (or names its top-level part), so the folder
				 * shows in it */
				fprintf(stderr, "  %s: #include \"%s\" is not a path below src/\n", files[i].path, name);
				bad++;
			} else if (!may_include(from, name, why, sizeof(why))) {
				fprintf(stderr, "  %s includes %s: %s\n", files[i].path, name, why);
				bad++;
			}
		}
	}
	unload();
	KT_ASSERT_MSG(bad == 0, "%zu includes break the folder rules", bad);
}

/* The rule itself: a few verdicts that must hold whatever the tree holds. */
static void test_folder_rules(void)
{
	char why[512];
	KT_ASSERT(may_include("run", "util/mem.h", why, sizeof(why)));
	KT_ASSERT(may_include("run", "lang/cuda/compile.h", why, sizeof(why)));
	KT_ASSERT(!may_include("lang/cuda", "run/runner.h", why, sizeof(why)));
	KT_ASSERT(!may_include("util", "load/problem.h", why, sizeof(why)));
	KT_ASSERT(!may_include("lang/cuda", "lang/triton/trace.h", why, sizeof(why)));
	KT_ASSERT(may_include("worker", "run/proto.h", why, sizeof(why)));
	KT_ASSERT(!may_include("worker", "run/compare.h", why, sizeof(why)));
	KT_ASSERT(!may_include("batch", "web_export/export.h", why, sizeof(why)));
	KT_ASSERT(!may_include("session", "web_export/model.h", why, sizeof(why)));
	KT_ASSERT(may_include("web_export", "report/report.h", why, sizeof(why)));
	KT_ASSERT(!may_include("batch", "cli/cli.h", why, sizeof(why)));
	KT_ASSERT(may_include("cli", "web_export/export.h", why, sizeof(why)));
	KT_ASSERT(may_include("api", "web_export/export.h", why, sizeof(why)));
	KT_ASSERT(may_include("api", "session/pipeline.h", why, sizeof(why)));
	KT_ASSERT(!may_include("api", "cli/cli.h", why, sizeof(why)));
	KT_ASSERT(!may_include("web_export", "api/api.h", why, sizeof(why)));
	KT_ASSERT(!may_include("nowhere", "util/mem.h", why, sizeof(why)));
}

/* ---- cycles between files, through includes and through calls. A file's node is its module: the
 * path without the extension, so a header and its source are one node, and a module's _int.h
 * belongs to it. */

static char names[MAX_NAMES][96];
static size_t nnames;
static unsigned char edge[MAX_FILES][MAX_FILES];
static int state[MAX_FILES], via[MAX_FILES];
static char nodes[MAX_FILES][512];
static size_t nnodes;

static int node_of(const char *path)
{
	char n[512];
	size_t i, len = strcspn(path, ".");
	snprintf(n, sizeof(n), "%.*s", (int)len, path);
	if (has_suffix(n, "_int"))
		n[strlen(n) - 4] = 0;
	for (i = 0; i < nnodes; i++)
		if (strcmp(nodes[i], n) == 0)
			return (int)i;
	KT_ASSERT(nnodes < MAX_FILES);
	snprintf(nodes[nnodes], sizeof(nodes[nnodes]), "%s", n);
	return (int)nnodes++;
}

static int cycle_from(int m, const char *what)
{
	int d;
	state[m] = 1;
	for (d = 0; d < (int)nnodes; d++) {
		if (!edge[m][d])
			continue;
		if (state[d] == 1) {
			int x = m;
			fprintf(stderr, "  %s cycle: %s", what, nodes[d]);
			while (x != d && x >= 0) {
				fprintf(stderr, " <- %s", nodes[x]);
				x = via[x];
			}
			fprintf(stderr, " <- %s\n", nodes[d]);
			return 1;
		}
		if (state[d] == 0) {
			via[d] = m;
			if (cycle_from(d, what))
				return 1;
		}
	}
	state[m] = 2;
	return 0;
}

static int find_cycle(const char *what)
{
	int m, found = 0;
	memset(state, 0, sizeof(state));
	for (m = 0; m < (int)nnodes && !found; m++) {
		via[m] = -1;
		if (state[m] == 0)
			found = cycle_from(m, what);
	}
	return found;
}

static void graph_reset(void)
{
	memset(edge, 0, sizeof(edge));
	nnodes = 0;
}

static void test_no_include_cycle_between_files(void)
{
	size_t i;
	load(src_only);
	graph_reset();
	for (i = 0; i < nfiles; i++) {
		char name[256], dep[300];
		const char *p = files[i].text;
		int m = node_of(files[i].path);
		while (next_include(&p, name, sizeof(name), files[i].text)) {
			int d;
			if (is_public_header(name))
				snprintf(dep, sizeof(dep), "include/%s", name);
			else
				include_path(dep, sizeof(dep), name);
			d = node_of(dep);
			if (d != m)
				edge[m][d] = 1;
		}
	}
	unload();
	KT_ASSERT_MSG(!find_cycle("include"), "files include each other (see the cycle above)");
}

/* Copies text without comments and string or character literals (they become spaces), so only
 * code is scanned for definitions and calls. */
static char *code_only(const char *text)
{
	size_t n = strlen(text), i, o = 0;
	char *out = ks_malloc(n + 1);
	for (i = 0; i < n; i++) {
		if (text[i] == '/' && text[i + 1] == '*') {
			const char *e = strstr(text + i + 2, "*/");
			size_t end = e ? (size_t)(e - text) + 2 : n;
			for (; i < end; i++)
				out[o++] = text[i] == '\n' ? '\n' : ' ';
			i--;
		} else if (text[i] == '/' && text[i + 1] == '/') {
			for (; i < n && text[i] != '\n'; i++)
				out[o++] = ' ';
			i--;
		} else if (text[i] == '"' || text[i] == '\'') {
			char q = text[i];
			out[o++] = ' ';
			for (i++; i < n && text[i] != q; i++) {
				if (text[i] == '\\' && i + 1 < n)
					i++, out[o++] = ' ';
				out[o++] = text[i] == '\n' ? '\n' : ' ';
			}
			out[o++] = ' ';
		} else {
			out[o++] = text[i];
		}
	}
	out[o] = 0;
	return out;
}

/* The functions a file defines with external linkage: at the start of a line, not static, a name
 * followed by a parameter list and a body. Fills names[] with "<file index>:<name>". */
static void collect_definitions(size_t fi, const char *code)
{
	const char *line = code;
	while (line && *line) {
		const char *nl = strchr(line, '\n'), *paren, *p;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len && (isalpha((unsigned char)line[0]) || line[0] == '_') && strncmp(line, "static", 6) != 0 &&
		    strncmp(line, "typedef", 7) != 0 && (paren = memchr(line, '(', len)) != NULL) {
			const char *after = paren, *e;
			int depth = 0;
			for (; *after; after++) {
				depth += *after == '(';
				depth -= *after == ')';
				if (depth == 0)
					break;
			}
			for (e = *after ? after + 1 : after; *e == ' ' || *e == '\t' || *e == '\n'; e++)
				;
			if (*e == '{') {
				for (p = paren; p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_'); p--)
					;
				if (paren > p && nnames < MAX_NAMES && (size_t)(paren - p) < 80 &&
				    strncmp(p, "main", (size_t)(paren - p)) != 0)
					snprintf(names[nnames++], sizeof(names[0]), "%zu:%.*s", fi, (int)(paren - p), p);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

static void test_no_call_cycle_between_files(void)
{
	char **code;
	size_t i, k;
	load(src_only);
	graph_reset();
	nnames = 0;
	code = ks_calloc(nfiles, sizeof(*code));
	for (i = 0; i < nfiles; i++) {
		code[i] = code_only(files[i].text);
		node_of(files[i].path); /* the nodes are indexed like the files */
		if (has_suffix(files[i].path, ".c"))
			collect_definitions(i, code[i]);
	}
	KT_ASSERT(nnames > 100); /* the scan finds the definitions at all */
	for (i = 0; i < nfiles; i++) {
		int m = node_of(files[i].path);
		if (!has_suffix(files[i].path, ".c"))
			continue; /* a header declares, it does not call */
		for (k = 0; k < nnames; k++) {
			size_t fi = strtoul(names[k], NULL, 10);
			const char *fn = strchr(names[k], ':') + 1, *p = code[i];
			size_t fl = strlen(fn);
			int d = node_of(files[fi].path);
			if (d == m || edge[m][d])
				continue;
			while ((p = strstr(p, fn)) != NULL) {
				const char *a = p + fl;
				int starts = p == code[i] || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
				while (*a == ' ')
					a++;
				if (starts && *a == '(') {
					edge[m][d] = 1;
					break;
				}
				p += fl;
			}
		}
	}
	for (i = 0; i < nfiles; i++)
		ks_free(code[i]);
	ks_free(code);
	unload();
	KT_ASSERT_MSG(!find_cycle("call"), "files call each other (see the cycle above)");
}

/* include/ is the public API: its headers include system headers alone (never a header of the
 * tree), and every name they declare is kscore's (kscore_ functions and types, KSCORE_ macros). */
static void test_public_headers_are_apart_and_prefixed(void)
{
	static const char *const inc[] = { "include", NULL };
	size_t i, bad = 0;
	load(inc);
	for (i = 0; i < nfiles; i++) {
		char *code = code_only(files[i].text);
		const char *p = files[i].text, *line;
		char name[256];
		while (next_include(&p, name, sizeof(name), files[i].text)) {
			fprintf(stderr, "  %s includes \"%s\": the public API includes system headers only\n",
				files[i].path, name);
			bad++;
		}
		for (line = code; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			const char *q = line, *id;
			size_t len;
			if (strncmp(q, "#define ", 8) == 0) {
				id = q + 8;
				len = strcspn(id, " (\t\n");
				if (strncmp(id, "KSCORE_", 7) != 0 && strncmp(id, "KSCORE_H", 8) != 0) {
					fprintf(stderr, "  %s: macro %.*s is not KSCORE_\n", files[i].path, (int)len, id);
					bad++;
				}
				continue;
			}
			/* a declaration at the start of a line: the identifier before its '(' or its ';' */
			if (!isalpha((unsigned char)*q) || strncmp(q, "extern", 6) == 0 || strncmp(q, "enum", 4) == 0)
				continue;
			id = strchr(q, '(');
			if (id && id < strchr(q, '\n')) {
				const char *e = id;
				while (id > q && (isalnum((unsigned char)id[-1]) || id[-1] == '_'))
					id--;
				if (strncmp(id, "kscore_", 7) != 0) {
					fprintf(stderr, "  %s: function %.*s is not kscore_\n", files[i].path, (int)(e - id), id);
					bad++;
				}
			} else if (strncmp(q, "typedef struct ", 15) == 0 && strncmp(q + 15, "kscore_", 7) != 0 &&
				   q[15] != '{') {
				fprintf(stderr, "  %s: type %.*s is not kscore_\n", files[i].path, 40, q + 15);
				bad++;
			} else if (strncmp(q, "} ", 2) == 0 && strncmp(q + 2, "kscore_", 7) != 0) {
				fprintf(stderr, "  %s: type %.*s is not kscore_\n", files[i].path, 40, q + 2);
				bad++;
			}
		}
		ks_free(code);
	}
	unload();
	KT_ASSERT_MSG(bad == 0, "%zu names or includes of the public API break its rules", bad);
}

static const kt_test tests[] = {
	KT(test_public_headers_are_apart_and_prefixed),
	KT(test_no_source_file_is_over_1000_lines),
	KT(test_only_command_files_parse_arguments),
	KT(test_folder_rules),
	KT(test_folders_include_only_earlier_folders),
	KT(test_no_include_cycle_between_files),
	KT(test_no_call_cycle_between_files),
	{ NULL, NULL }
};

KT_MAIN("layout", tests)
