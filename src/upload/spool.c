/* spool: see src/upload/spool.h. */
#include "upload/spool.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#define PENDING_SCHEMA "kscore.upload-pending/1"
#define SENT_SCHEMA "kscore.upload-sent/1"
#define SPOOL_FILE_MAX (64u << 20) /* a pending file holds a payload: every kernel of a run */

char *ks_spool_default_dir(void)
{
	const char *x = getenv("XDG_STATE_HOME");
	const char *h = getenv("HOME");
	/* XDG says a relative XDG_STATE_HOME is invalid and must be ignored */
	if (x && x[0] == '/')
		return ks_asprintf("%s/kscore/spool", x);
	return ks_asprintf("%s/.local/state/kscore/spool", h && *h ? h : ".");
}

static void now_iso(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static char *spool_path(const char *spool, const char *sub, const char *name)
{
	return ks_asprintf("%s/%s/%s", spool, sub, name);
}

int ks_spool_mkdir(const char *spool, const char *sub)
{
	char *d = ks_asprintf("%s/%s", spool, sub);
	int rc = ks_fs_mkdir_p(d, 0700);
	ks_free(d);
	return rc;
}

int ks_spool_read(cJSON **out, const char *path)
{
	char *text = NULL;
	size_t len;
	int rc = ks_fs_read(&text, &len, path, SPOOL_FILE_MAX);
	if (rc == 0)
		rc = ks_json_parse(out, text, len, 64, path);
	ks_free(text);
	return rc;
}

static int same_target(const cJSON *o, const char *endpoint, const char *mode)
{
	const char *e = NULL, *m = NULL;
	return ks_json_str(&e, o, "endpoint", 0) == 0 && ks_json_str(&m, o, "mode", 0) == 0 &&
	       !strcmp(e, endpoint) && !strcmp(m, mode);
}

int ks_spool_sent_find(char when[32], const char *spool, const char *key, const char *endpoint,
		       const char *mode)
{
	char *name = ks_asprintf("%s.json", key), *path = spool_path(spool, "sent", name);
	cJSON *rec = NULL;
	const cJSON *u;
	int found = 0;

	if (ks_fs_exists(path) && ks_spool_read(&rec, path) == 0) {
		cJSON_ArrayForEach(u, cJSON_GetObjectItemCaseSensitive(rec, "uploads"))
		{
			const char *t = "";
			if (!same_target(u, endpoint, mode))
				continue;
			found = 1;
			ks_json_str(&t, u, "time", 0);
			snprintf(when, 32, "%s", t);
		}
	}
	cJSON_Delete(rec);
	ks_free(path);
	ks_free(name);
	return found;
}

/* One file per key: a result sent to two leaderboards lists both. */
int ks_spool_sent_add(const char *spool, const char *key, const cJSON *payload,
		      const char *endpoint, const char *mode, long status, int attempts)
{
	char *name = ks_asprintf("%s.json", key), *path = spool_path(spool, "sent", name);
	cJSON *rec = NULL, *ups, *u;
	const cJSON *team;
	char now[32];
	int rc;

	if ((rc = ks_spool_mkdir(spool, "sent")) < 0)
		goto done;
	if (!ks_fs_exists(path) || ks_spool_read(&rec, path) < 0 || !cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		rec = cJSON_CreateObject();
		cJSON_AddStringToObject(rec, "schema", SENT_SCHEMA);
		cJSON_AddStringToObject(rec, "key", key);
		team = cJSON_GetObjectItemCaseSensitive(payload, "team");
		cJSON_AddItemToObject(rec, "team", cJSON_IsString(team) ? cJSON_CreateString(team->valuestring)
								 : cJSON_CreateNull());
		cJSON_AddItemToObject(rec, "submission",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(payload,
										 "submission"),
						      1));
	}
	ups = cJSON_GetObjectItemCaseSensitive(rec, "uploads");
	if (!cJSON_IsArray(ups)) {
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "uploads");
		ups = cJSON_AddArrayToObject(rec, "uploads");
	}
	now_iso(now);
	u = cJSON_CreateObject();
	cJSON_AddStringToObject(u, "endpoint", endpoint);
	cJSON_AddStringToObject(u, "mode", mode);
	cJSON_AddStringToObject(u, "time", now);
	cJSON_AddNumberToObject(u, "http_status", (double)status);
	cJSON_AddNumberToObject(u, "attempts", attempts);
	cJSON_AddItemToArray(ups, u);
	rc = ks_json_write_file(path, rec, 1);
done:
	cJSON_Delete(rec);
	ks_free(path);
	ks_free(name);
	return rc;
}

char *ks_spool_pending_path(const char *spool, const char *key, const char *endpoint,
			    const char *mode)
{
	char *name = ks_asprintf("%s.json", key), *path = spool_path(spool, "pending", name);
	cJSON *rec = NULL;
	int taken = ks_fs_exists(path) && ks_spool_read(&rec, path) == 0 &&
		    !same_target(rec, endpoint, mode);
	cJSON_Delete(rec);
	if (taken) {
		char *t = ks_asprintf("%s\n%s", mode, endpoint), hex[65];
		ks_sha256_hex(hex, t, strlen(t));
		ks_free(t);
		ks_free(path);
		ks_free(name);
		name = ks_asprintf("%s-%.8s.json", key, hex);
		path = spool_path(spool, "pending", name);
	}
	ks_free(name);
	return path;
}

/* The token is not in here: it is read again when the file is sent. */
int ks_spool_pending_write(const char *path, const cJSON *prev, const cJSON *payload,
			   const char *key, const char *endpoint, const char *mode,
			   const char *source, int attempts, long status, const char *error)
{
	cJSON *rec = cJSON_CreateObject();
	char now[32];
	const char *first = NULL, *src = source;
	int64_t before = 0;
	int rc;

	now_iso(now);
	if (prev) {
		ks_json_str(&first, prev, "first_failed", 0);
		ks_json_int(&before, prev, "attempts", 0);
		ks_json_str(&src, prev, "source", 0);
	}
	cJSON_AddStringToObject(rec, "schema", PENDING_SCHEMA);
	cJSON_AddStringToObject(rec, "key", key);
	cJSON_AddStringToObject(rec, "endpoint", endpoint);
	cJSON_AddStringToObject(rec, "mode", mode);
	if (src)
		cJSON_AddStringToObject(rec, "source", src);
	else
		cJSON_AddNullToObject(rec, "source");
	cJSON_AddNumberToObject(rec, "attempts", (double)(before + attempts));
	cJSON_AddStringToObject(rec, "first_failed", first ? first : now);
	cJSON_AddStringToObject(rec, "last_failed", now);
	cJSON_AddNumberToObject(rec, "http_status", (double)status);
	cJSON_AddStringToObject(rec, "last_error", error ? error : "");
	cJSON_AddItemToObject(rec, "payload", cJSON_Duplicate(payload, 1));
	rc = ks_json_write_file(path, rec, 1);
	cJSON_Delete(rec);
	return rc;
}

void ks_spool_pending_remove(const char *spool, const char *key, const char *endpoint,
			     const char *mode)
{
	char *dir = ks_asprintf("%s/pending", spool), **names = NULL;
	size_t n = 0, i, kl = strlen(key);

	if (ks_fs_list(&names, &n, dir, 0) == 0) {
		for (i = 0; i < n; i++) {
			char *path;
			cJSON *rec = NULL;
			if (strncmp(names[i], key, kl) || (names[i][kl] != '.' && names[i][kl] != '-'))
				continue;
			path = ks_path_join(dir, names[i]);
			if (ks_spool_read(&rec, path) == 0 && same_target(rec, endpoint, mode))
				unlink(path);
			cJSON_Delete(rec);
			ks_free(path);
		}
		ks_free_strv(names, n);
	}
	ks_free(dir);
}

int ks_spool_lock(int *fd, const char *spool)
{
	char *lock = ks_asprintf("%s/.lock", spool);
	int rc = 0;

	/* two `--pending` runs at once would send each file twice (harmless with the idempotency key,
	 * but not in Gradio mode): the second one stops */
	*fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (*fd < 0 || flock(*fd, LOCK_EX | LOCK_NB) < 0) {
		rc = ks_error_set(KS_EIO, "%s: %s", lock,
				  *fd < 0 ? strerror(errno) : "another upload --pending is running");
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
	ks_free(lock);
	return rc;
}
