/* passestest: a fixture's entries as passes, for the tests that score fixture files (test_cli.c,
 * test_gpu.c). Static functions: include once per test file. */
#ifndef KS_PASSESTEST_H
#define KS_PASSESTEST_H

#include "ktest.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

/* Writes entries of the fixture array `fixture` to the folder <tmp>/<name>, one file (one pass) per
 * entry: fixtures try several kernels for one problem, and within one file only the first entry
 * for a problem counts. With idx, the entries idx[0..n); without, every entry. kernels[i] of the
 * result is then the i-th entry written. Returns the folder (static: valid until the next call). */
static inline const char *kt_fixture_passes(const char *fixture, const char *name, const int *idx, int n)
{
	static char dir[4400];
	char path[4500], *t = NULL;
	cJSON *all = NULL;
	int i;
	snprintf(dir, sizeof(dir), "%s/%s", kt_tmpdir(), name);
	KT_EQ_INT(ks_fs_mkdir_p(dir, 0755), 0);
	KT_EQ_INT(ks_fs_read(&t, NULL, fixture, 16u << 20), 0);
	KT_EQ_INT(ks_json_parse(&all, t, strlen(t), 64, fixture), 0);
	if (!idx)
		n = cJSON_GetArraySize(all);
	for (i = 0; i < n; i++) {
		const cJSON *e = cJSON_GetArrayItem(all, idx ? idx[i] : i);
		cJSON *one = cJSON_CreateArray();
		KT_ASSERT_MSG(e != NULL, "%s has no entry %d", fixture, idx ? idx[i] : i);
		cJSON_AddItemToArray(one, cJSON_Duplicate(e, 1));
		snprintf(path, sizeof(path), "%s/e%03d.json", dir, i);
		KT_EQ_INT(ks_json_write_file(path, one, 1), 0);
		cJSON_Delete(one);
	}
	cJSON_Delete(all);
	ks_free(t);
	return dir;
}

#endif
