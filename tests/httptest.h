/* httptest: the fixtures of the tests that talk to a real HTTP(S) server on loopback
 * (tests/upload_server.py), scripted per test, which records every request it gets: test_upload.c,
 * test_http.c, test_spool.c. Retries use an injected sleep that records the delays instead of
 * waiting. Static functions: include once per test file. */
#ifndef KS_HTTPTEST_H
#define KS_HTTPTEST_H

#include "ktest.h"
#include "upload/upload.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <cJSON.h>
#include <dirent.h>

#define TOKEN "tok-S3CRET-7f1e9a0c4b2d8e6f"
#define FIX "tests/fixtures/upload"

static inline char *fixture(const char *name)
{
	const char *root = getenv("KSCORE_ROOT");
	return ks_asprintf("%s/" FIX "/%s", root && *root ? root : ".", name);
}

static inline char *tmp(const char *name)
{
	return ks_asprintf("%s/%s", kt_tmpdir(), name);
}

static inline char *slurp(const char *path)
{
	char *s = NULL;
	size_t n;
	if (ks_fs_read(&s, &n, path, 64u << 20) < 0)
		KT_FAIL("cannot read %s: %s", path, ks_error_msg());
	return s;
}

static inline void put(const char *path, const char *text)
{
	if (ks_fs_write_atomic(path, text, strlen(text)) < 0)
		KT_FAIL("cannot write %s: %s", path, ks_error_msg());
}

/* A result folder <tmp>/<name>/score.json holding the fixture `fix`, optionally edited. */
static inline char *result_dir(const char *name, const char *fix, void (*edit)(cJSON *))
{
	char *dir = tmp(name), *src = fixture(fix), *text = slurp(src), *dst;
	cJSON *rec = cJSON_Parse(text);
	KT_ASSERT(rec != NULL);
	if (edit)
		edit(rec);
	ks_fs_mkdir_p(dir, 0755);
	dst = ks_path_join(dir, "score.json");
	{
		char *s = cJSON_Print(rec);
		put(dst, s);
		cJSON_free(s);
	}
	cJSON_Delete(rec);
	ks_free(dst);
	ks_free(text);
	ks_free(src);
	return dir;
}

typedef struct {
	pid_t pid;
	int port;
	char *record;
	char url[128];
} server;

static int g_servers;

/* Starts tests/upload_server.py with the given script; its files live in <tmp>/server so that the
 * scan for the token can leave them out (the script holds the echo body, the record holds the
 * Authorization header). */
static inline void server_start(server *s, const char *script, int tls)
{
	char *sdir = tmp("server"), *spath, *py = fixture("../../upload_server.py");
	char *cert = fixture("server.pem"), *key = fixture("server.key");
	int fds[2], st;
	char line[64];
	ssize_t n, got = 0;

	ks_fs_mkdir_p(sdir, 0755);
	spath = ks_asprintf("%s/script-%d.json", sdir, g_servers);
	s->record = ks_asprintf("%s/record-%d.jsonl", sdir, g_servers);
	g_servers++;
	put(spath, script);
	if (pipe(fds) < 0)
		KT_FAIL("pipe");
	s->pid = fork();
	if (s->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		if (tls)
			execlp("python3", "python3", py, "--script", spath, "--record", s->record,
			       "--cert", cert, "--key", key, (char *)NULL);
		else
			execlp("python3", "python3", py, "--script", spath, "--record", s->record,
			       (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (got < (ssize_t)sizeof(line) - 1 &&
	       (n = read(fds[0], line + got, sizeof(line) - 1 - (size_t)got)) > 0) {
		got += n;
		if (memchr(line, '\n', (size_t)got))
			break;
	}
	close(fds[0]);
	line[got > 0 ? got : 0] = '\0';
	s->port = atoi(line);
	if (s->port <= 0) {
		waitpid(s->pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
			KT_SKIP("python3 is not installed: the upload tests need it for their server");
		KT_FAIL("the test server did not start");
	}
	snprintf(s->url, sizeof(s->url), "%s://127.0.0.1:%d", tls ? "https" : "http", s->port);
	ks_free(sdir);
	ks_free(spath);
	ks_free(py);
	ks_free(cert);
	ks_free(key);
}

static inline void server_stop(server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
	}
	ks_free(s->record);
	s->pid = 0;
	s->record = NULL;
}

/* The recorded requests, as a JSON array. */
static inline cJSON *requests(const server *s)
{
	cJSON *arr = cJSON_CreateArray();
	char *text, *line, *save = NULL;
	if (!ks_fs_exists(s->record))
		return arr;
	text = slurp(s->record);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *r = cJSON_Parse(line);
		KT_ASSERT(r != NULL);
		cJSON_AddItemToArray(arr, r);
	}
	ks_free(text);
	return arr;
}

static inline const char *rq_str(const cJSON *arr, int i, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetArrayItem(arr, i), key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static inline const char *rq_header(const cJSON *arr, int i, const char *name)
{
	const cJSON *h = cJSON_GetObjectItem(cJSON_GetArrayItem(arr, i), "headers");
	const cJSON *v = cJSON_GetObjectItem(h, name);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

typedef struct {
	int n;
	double d[32];
} sleeps;

static inline void rec_sleep(double seconds, void *p)
{
	sleeps *z = p;
	if (z->n < 32)
		z->d[z->n++] = seconds;
}

typedef struct {
	char text[8192];
} logs;

static inline void rec_log(const char *line, void *p)
{
	logs *l = p;
	size_t n = strlen(l->text);
	snprintf(l->text + n, sizeof(l->text) - n, "%s\n", line);
}

static char *g_spool;

static inline void base_opts(ks_upload_options *o, const char *url, sleeps *z)
{
	ks_upload_options init = KS_UPLOAD_OPTIONS_INIT;
	*o = init;
	if (!g_spool)
		g_spool = tmp("spool");
	o->endpoint = url;
	o->token = TOKEN;
	o->spool_dir = g_spool;
	o->max_retries = 2;
	o->backoff_initial = 1;
	o->backoff_max = 8;
	o->connect_timeout = 3;
	o->total_timeout = 10;
	o->sleep_fn = rec_sleep;
	o->sleep_payload = z;
}


static inline int file_has(const char *path, const char *needle)
{
	char *s = NULL;
	size_t n;
	int hit;
	if (ks_fs_read(&s, &n, path, 64u << 20) < 0)
		return 0;
	hit = memmem(s, n, needle, strlen(needle)) != NULL;
	ks_free(s);
	return hit;
}

/* Fails if any file under dir (but the server's own files) holds the token. */
static inline void assert_token_nowhere(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char *p;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, "server"))
			continue;
		p = ks_path_join(dir, e->d_name);
		if (ks_fs_is_dir(p))
			assert_token_nowhere(p);
		else if (file_has(p, TOKEN))
			KT_FAIL("the token appears in %s", p);
		ks_free(p);
	}
	closedir(d);
}

/* The token may appear in the server's record only as the Authorization header's value. */
static inline void assert_token_only_in_auth(const cJSON *reqs)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, reqs)
	{
		cJSON *c = cJSON_Duplicate(r, 1);
		char *s;
		cJSON_DeleteItemFromObject(cJSON_GetObjectItem(c, "headers"), "authorization");
		s = cJSON_PrintUnformatted(c);
		KT_NOT_CONTAINS(s, TOKEN);
		cJSON_free(s);
		cJSON_Delete(c);
	}
}

static inline char *pending_file(const char *key)
{
	return ks_asprintf("%s/pending/%s.json", g_spool, key);
}

static inline char *sent_file(const char *key)
{
	return ks_asprintf("%s/sent/%s.json", g_spool, key);
}
#endif
