/* repos_meta: what the repository files share (repos_int.h): libgit2 failures turned into
 * messages with the credentials scrubbed out, and the mirror's own record, kscore-mirror.json
 * (where it came from, when it was last fetched, what its source lacked). repos.c and repos_copy.c
 * include this one way. */
#include "batch/repos_int.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/secret.h"

#include <string.h>
#include <time.h>

/* Sets the thread's error from libgit2's last error, with the credentials scrubbed out. */
int rp_fail(const ks_repo *r, int code, const char *what, const char *arg)
{
	const git_error *e = git_error_last();
	char *msg = ks_strdup(e && e->message ? e->message : "unknown libgit2 error");
	msg = ks_secret_scrub(ks_secret_scrub(msg, r->secret[0]), r->secret[1]);
	code = ks_error_set(code, "repository %s: %s%s%s: %s", r->display, what, arg ? " " : "",
			    arg ? arg : "", msg);
	ks_free(msg);
	return code;
}

/* ---- the mirror's own record: where it came from, when it was last fetched ---- */

char *rp_meta_path(const ks_repo *r)
{
	return ks_path_join(r->path, "kscore-mirror.json");
}

void rp_meta_write(const ks_repo *r, time_t fetched, cJSON *missing)
{
	cJSON *o = cJSON_CreateObject();
	char ts[32], *path = rp_meta_path(r);
	cJSON_AddStringToObject(o, "schema", "kscore.mirror/1");
	cJSON_AddStringToObject(o, "location", r->display);
	if (fetched) {
		struct tm tm;
		gmtime_r(&fetched, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		cJSON_AddStringToObject(o, "fetched_at", ts);
		cJSON_AddNumberToObject(o, "fetched_at_epoch", (double)fetched);
	}
	if (missing)
		cJSON_AddItemToObject(o, "missing_objects", missing);
	/* best effort: it only tells people (and --no-fetch runs) when the mirror was refreshed */
	ks_json_write_file(path, o, 1);
	cJSON_Delete(o);
	ks_free(path);
}

cJSON *rp_meta_read(const ks_repo *r)
{
	char *path = rp_meta_path(r), *text = NULL;
	cJSON *o = NULL;
	size_t n;
	if (ks_fs_read(&text, &n, path, 1u << 20) == 0 && ks_json_parse(&o, text, n, 8, path) < 0)
		o = NULL;
	ks_free(text);
	ks_free(path);
	ks_error_clear();
	return o;
}

int rp_missing_recorded(const ks_repo *r, const git_oid *oid)
{
	cJSON *o = rp_meta_read(r);
	const cJSON *e;
	char hex[GIT_OID_HEXSZ + 1];
	int found = 0;
	git_oid_tostr(hex, sizeof(hex), oid);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "missing_objects")) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(e, "id");
		found |= cJSON_IsString(id) && !strcmp(id->valuestring, hex);
	}
	cJSON_Delete(o);
	return found;
}
