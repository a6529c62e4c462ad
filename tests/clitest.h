/* clitest: run the score binary as a user would and read back what it wrote, for the end-to-end
 * tests (test_cli.c, test_cli_output.c, test_cli_entries.c). Static functions: include once per
 * test file. */
#ifndef KS_CLITEST_H
#define KS_CLITEST_H

#include "ktest.h"
#include "util/fsutil.h"
#include "util/mem.h"

static char g_out[8192], g_err[8192];

static inline const char *bin(void)
{
	const char *b = getenv("KSCORE_BIN");
	return b ? b : "build/test/score";
}

static inline int has_gpu(void)
{
	return access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

/* Runs `score ARGS` with stdout and stderr captured; returns the exit status. */
static inline int score(const char *args)
{
	char cmd[32768], po[4300], pe[4300];
	FILE *f;
	size_t n;
	int st;
	snprintf(po, sizeof(po), "%s/stdout", kt_tmpdir());
	snprintf(pe, sizeof(pe), "%s/stderr", kt_tmpdir());
	snprintf(cmd, sizeof(cmd), "XDG_CACHE_HOME='%s/cache' %s %s >'%s' 2>'%s'", kt_tmpdir(), bin(), args,
		 po, pe);
	st = system(cmd);
	f = fopen(po, "r");
	n = f ? fread(g_out, 1, sizeof(g_out) - 1, f) : 0;
	g_out[n] = 0;
	if (f)
		fclose(f);
	f = fopen(pe, "r");
	n = f ? fread(g_err, 1, sizeof(g_err) - 1, f) : 0;
	g_err[n] = 0;
	if (f)
		fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline char *slurp(const char *rel)
{
	char path[4400], *text = NULL;
	snprintf(path, sizeof(path), "%s/%s", kt_tmpdir(), rel);
	if (ks_fs_read(&text, NULL, path, 64u << 20) < 0)
		KT_FAIL("cannot read %s", path);
	return text;
}

static inline void put_file(const char *rel, const char *text)
{
	char path[4400], *dir;
	snprintf(path, sizeof(path), "%s/%s", kt_tmpdir(), rel);
	dir = ks_path_dirname(path);
	if (ks_fs_mkdir_p(dir, 0755) < 0 || ks_fs_write_atomic(path, text, strlen(text)) < 0)
		KT_FAIL("cannot write %s", path);
	ks_free(dir);
}

static inline int there(const char *rel)
{
	char path[4400];
	snprintf(path, sizeof(path), "%s/%s", kt_tmpdir(), rel);
	return ks_fs_exists(path);
}

#endif
