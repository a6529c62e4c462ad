/* batch_file: what a team's commit holds beside its submission pattern (batch_int.h): GEAK-eval's
 * result files, which teams following its guide commit instead of the submission, and
 * submission-shaped files in folders the pattern does not reach, named with the pattern that
 * would find them. */
#include "batch/batch_int.h"
#include "batch/pattern.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <string.h>

/* GEAK-eval writes <out>_results_<pass>.json, <out>_perf_<pass>.json, <out>_all_passes.json and
 * <out>passk.txt: the output of an evaluation, not the agent's answers. */
static const char geak_files[] = "**/*{_results_*.json,_perf_*.json,_all_passes.json,passk.txt}";

/* files named, and patterns tried, when a pattern matched nothing */
#define MAX_NAMED 3
#define MAX_TRIED 16

int bt_geak_name(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return strstr(base, "_results_") || strstr(base, "_perf_") || strstr(base, "_all_passes.json") ||
	       strstr(base, "passk.txt");
}

int bt_geak_content(const char *data, size_t len)
{
	cJSON *j = NULL, *first;
	int yes = 0;
	size_t i = 0;
	while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
		i++;
	if (i == len || (data[i] != '[' && data[i] != '{') || ks_json_parse(&j, data, len, 64, "file") < 0) {
		ks_error_clear();
		return 0;
	}
	first = cJSON_IsArray(j) ? cJSON_GetArrayItem(j, 0) : j;
	if (cJSON_IsObject(first))
		yes = (!cJSON_HasObjectItem(first, "predict") &&
		       (cJSON_HasObjectItem(first, "pass_num") || cJSON_HasObjectItem(first, "call_status") ||
			cJSON_HasObjectItem(first, "exec_status"))) ||
		      (cJSON_HasObjectItem(first, "speed_up") && cJSON_HasObjectItem(first, "efficiency"));
	cJSON_Delete(j);
	return yes;
}

int bt_geak_list(char ***paths, size_t *n, ks_repo *r, const char *id)
{
	return ks_repo_list(paths, n, r, id, geak_files, 4);
}

/* The patterns that may find a submission the team put elsewhere: each alternative's file name
 * in any folder ("**" + "/" + name), then the hackathon's defaults; spec's own left out. */
static size_t candidates(char *out[MAX_TRIED], const ks_manifest_paths *spec)
{
	static const char *const dflt[] = { KS_MANIFEST_DEFAULT_SUBMISSIONS };
	size_t k = 0, i, j, a;
	for (i = 0; i < spec->n && k < MAX_TRIED; i++) {
		char **alts = NULL;
		size_t nalts = 0;
		if (ks_pattern_expand(&alts, &nalts, spec->v[i]) < 0) {
			ks_error_clear();
			continue;
		}
		for (a = 0; a < nalts && k < MAX_TRIED; a++) {
			const char *name = strrchr(alts[a], '/');
			out[k++] = ks_asprintf("**/%s", name ? name + 1 : alts[a]);
		}
		ks_free_strv(alts, nalts);
	}
	for (i = 0; i < sizeof(dflt) / sizeof(dflt[0]) && k < MAX_TRIED; i++)
		out[k++] = ks_strdup(dflt[i]);
	/* one of the spec's own finds nothing more than the spec did */
	for (i = 0; i < k; i++)
		for (j = 0; out[i] && j < spec->n; j++)
			if (!strcmp(out[i], spec->v[j])) {
				ks_free(out[i]);
				out[i] = NULL;
			}
	return k;
}

char *bt_files_elsewhere(ks_repo *r, const char *id, const ks_manifest_paths *spec)
{
	char *tried[MAX_TRIED], *note = NULL;
	size_t k = candidates(tried, spec), i;
	for (i = 0; i < k && !note; i++) {
		char **paths = NULL;
		size_t n = 0, j, named = 0;
		ks_buf b = KS_BUF_INIT(1024);
		if (!tried[i] || ks_repo_list(&paths, &n, r, id, tried[i], 64) < 0) {
			ks_error_clear();
			continue;
		}
		for (j = 0; j < n; j++)
			if (!bt_geak_name(paths[j]) && named++ < MAX_NAMED)
				ks_buf_printf(&b, "%s%s", named > 1 ? ", " : "", paths[j]);
		if (named)
			note = ks_asprintf("outside the pattern the commit holds %s%s, which the pattern \"%s\" "
					   "finds: give it as \"submission\" (or --submission)", b.ptr,
					   named > MAX_NAMED ? ", ..." : "", tried[i]);
		ks_buf_free(&b);
		ks_free_strv(paths, n);
	}
	for (i = 0; i < k; i++)
		ks_free(tried[i]);
	return note;
}
