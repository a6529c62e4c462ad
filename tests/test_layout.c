/* Tests of the source tree's layout rules (docs/architecture.md): no source file over 1,000
 * lines, argument parsing only in the command files, and no include cycle between modules, so
 * data flows one way. They read the tree found through KSCORE_ROOT. */
#include "ktest.h"
#include "fsutil.h"
#include "mem.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 1024
#define MAX_MODULES 512

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

/* Reads every .c and .h file of the given folders (not recursive) below the root. */
static void load(const char *const *dirs)
{
	const char *root = getenv("KSCORE_ROOT");
	size_t d;
	KT_ASSERT_MSG(root && *root, "KSCORE_ROOT is not set");
	nfiles = 0;
	for (d = 0; dirs[d]; d++) {
		char dir[1024];
		DIR *dh;
		struct dirent *e;
		snprintf(dir, sizeof(dir), "%s/%s", root, dirs[d]);
		KT_ASSERT_MSG((dh = opendir(dir)) != NULL, "cannot open %s", dir);
		while ((e = readdir(dh)) != NULL) {
			char full[2048];
			if (!has_suffix(e->d_name, ".c") && !has_suffix(e->d_name, ".h"))
				continue;
			KT_ASSERT(nfiles < MAX_FILES);
			snprintf(files[nfiles].path, sizeof(files[nfiles].path), "%s/%s", dirs[d], e->d_name);
			snprintf(full, sizeof(full), "%s/%s", root, files[nfiles].path);
			KT_ASSERT_MSG(ks_fs_read(&files[nfiles].text, NULL, full, 8u << 20) == 0, "cannot read %s", full);
			nfiles++;
		}
		closedir(dh);
	}
	KT_ASSERT(nfiles > 0);
}

static void unload(void)
{
	size_t i;
	for (i = 0; i < nfiles; i++)
		ks_free(files[i].text);
	nfiles = 0;
}

static void test_no_source_file_is_over_1000_lines(void)
{
	static const char *const dirs[] = { "src", "include", "web_export", "web_export/tests", "tests",
					    "fuzz", "scripts", NULL };
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
	static const char *const dirs[] = { "src", "include", "web_export", NULL };
	size_t i, bad = 0;
	load(dirs);
	for (i = 0; i < nfiles; i++) {
		const char *base = strrchr(files[i].path, '/') + 1;
		int command = (strncmp(base, "cmd_", 4) == 0 && has_suffix(base, ".c")) || strcmp(base, "cli.c") == 0;
		if (!command && strstr(files[i].text, "getopt_long(")) {
			fprintf(stderr, "  %s calls getopt_long\n", files[i].path);
			bad++;
		}
	}
	unload();
	KT_ASSERT_MSG(bad == 0, "%zu files outside the command layer parse arguments", bad);
}

/* module name of a file: its base name without the extension and without an _int suffix (a
 * module's private header belongs to it) */
static void module_of(char *out, size_t n, const char *path)
{
	const char *b = strrchr(path, '/');
	size_t len;
	b = b ? b + 1 : path;
	len = strcspn(b, ".");
	if (len >= n)
		len = n - 1;
	memcpy(out, b, len);
	out[len] = 0;
	if (has_suffix(out, "_int"))
		out[strlen(out) - 4] = 0;
}

static char mods[MAX_MODULES][64];
static size_t nmods;
static unsigned char edge[MAX_MODULES][MAX_MODULES];
static int state[MAX_MODULES], via[MAX_MODULES];

static int mod_index(const char *name)
{
	size_t i;
	for (i = 0; i < nmods; i++)
		if (strcmp(mods[i], name) == 0)
			return (int)i;
	KT_ASSERT(nmods < MAX_MODULES);
	snprintf(mods[nmods], sizeof(mods[nmods]), "%s", name);
	return (int)nmods++;
}

/* Depth-first search; on a back edge prints the cycle and returns 1. */
static int cycle_from(int m)
{
	int d;
	state[m] = 1;
	for (d = 0; d < (int)nmods; d++) {
		if (!edge[m][d])
			continue;
		if (state[d] == 1) {
			int x = m;
			fprintf(stderr, "  include cycle: %s", mods[d]);
			while (x != d && x >= 0) {
				fprintf(stderr, " <- %s", mods[x]);
				x = via[x];
			}
			fprintf(stderr, " <- %s\n", mods[d]);
			return 1;
		}
		if (state[d] == 0) {
			via[d] = m;
			if (cycle_from(d))
				return 1;
		}
	}
	state[m] = 2;
	return 0;
}

static void test_no_include_cycle_between_modules(void)
{
	static const char *const dirs[] = { "src", "include", "web_export", NULL };
	size_t i;
	int m, found = 0;
	load(dirs);
	nmods = 0;
	memset(edge, 0, sizeof(edge));
	for (i = 0; i < nfiles; i++) {
		char self[64], dep[64];
		const char *p = files[i].text;
		module_of(self, sizeof(self), files[i].path);
		m = mod_index(self);
		while ((p = strstr(p, "#include \"")) != NULL) {
			const char *q = p + 10, *e = strchr(q, '"');
			char name[128];
			p = q;
			if (!e || (size_t)(e - q) >= sizeof(name))
				continue;
			memcpy(name, q, (size_t)(e - q));
			name[e - q] = 0;
			module_of(dep, sizeof(dep), name);
			if (strcmp(dep, self) != 0)
				edge[m][mod_index(dep)] = 1;
		}
	}
	unload();
	memset(state, 0, sizeof(state));
	for (m = 0; m < (int)nmods && !found; m++) {
		via[m] = -1;
		if (state[m] == 0)
			found = cycle_from(m);
	}
	KT_ASSERT_MSG(!found, "modules include each other (see the cycle above)");
}

static const kt_test tests[] = {
	KT(test_no_source_file_is_over_1000_lines),
	KT(test_only_command_files_parse_arguments),
	KT(test_no_include_cycle_between_modules),
	{ NULL, NULL }
};

KT_MAIN("layout", tests)
