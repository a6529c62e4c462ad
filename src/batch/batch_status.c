/* batch_status: what a batch run is doing, in a status file of the results folder that the run
 * rewrites after every team and on a heartbeat, and `score batch MANIFEST --status`, which reads
 * the results folder (every shard's status file, every team's batch.json) while runs go on or after
 * they stopped, and never takes the batch's lock nor writes anything (batch_int.h). */
#include "batch/batch_int.h"
#include "util/exitcode.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/version.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STATUS_SCHEMA "kscore.batch-status/1"
#define STATUS_MAX_BYTES (64u << 20)

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static double wall_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

char *bt_status_name(const bt_batch *b)
{
	if (b->o.sharded)
		return ks_asprintf(".status-shard-%u-of-%u.json", b->o.shard.index, b->o.shard.count);
	return ks_strdup(".status.json");
}

/* ---- the writer: the run itself */

void bt_status_write(bt_batch *b, const char *state)
{
	cJSON *o, *a;
	char ts[32], host[256] = "";
	double now = wall_now();
	size_t i;

	if (!b->status_path) {
		char *name = bt_status_name(b);
		b->status_path = ks_path_join(b->o.out, name);
		ks_free(name);
	}
	if (b->t_start <= 0)
		b->t_start = now;
	gethostname(host, sizeof(host) - 1);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", STATUS_SCHEMA);
	cJSON_AddStringToObject(o, "scorer", "kscore " KS_VERSION);
	cJSON_AddStringToObject(o, "state", state);
	if (b->o.sharded) {
		cJSON *sh = cJSON_AddObjectToObject(o, "shard");
		cJSON_AddNumberToObject(sh, "index", b->o.shard.index);
		cJSON_AddNumberToObject(sh, "count", b->o.shard.count);
	} else
		cJSON_AddNullToObject(o, "shard");
	cJSON_AddNumberToObject(o, "pid", (double)getpid());
	cJSON_AddStringToObject(o, "host", host);
	ks_manifest_format_time(ts, (int64_t)b->t_start);
	cJSON_AddStringToObject(o, "started_at", ts);
	cJSON_AddNumberToObject(o, "started_epoch", b->t_start);
	ks_manifest_format_time(ts, (int64_t)now);
	cJSON_AddStringToObject(o, "updated_at", ts);
	cJSON_AddNumberToObject(o, "updated_epoch", now);
	cJSON_AddNumberToObject(o, "heartbeat_seconds", KS_BATCH_HEARTBEAT_S);
	cJSON_AddStringToObject(o, "mode", b->mode ? b->mode : "gpu");
	cJSON_AddNumberToObject(o, "lanes", (double)(b->pl ? ks_pipeline_lanes(b->pl) : 0));
	a = cJSON_AddArrayToObject(o, "teams");
	for (i = 0; i < b->m->nteams; i++)
		if ((!b->in_shard || b->in_shard[i]) &&
		    (!b->o.only_team || !strcmp(b->o.only_team, b->m->teams[i].name) ||
		     !strcmp(b->o.only_team, b->m->teams[i].folder)))
			cJSON_AddItemToArray(a, cJSON_CreateString(b->m->teams[i].folder));
	cJSON_AddNumberToObject(o, "done", (double)b->ndone);
	cJSON_AddNumberToObject(o, "scored", (double)b->nscored);
	cJSON_AddNumberToObject(o, "already_scored", (double)b->nskipped);
	cJSON_AddNumberToObject(o, "late", (double)b->nlate);
	cJSON_AddNumberToObject(o, "failed", (double)b->nfailed);
	cJSON_AddNumberToObject(o, "kernels", (double)b->kernels);
	/* the time since the first team was queued for scoring: what the kernels took */
	cJSON_AddNumberToObject(o, "scoring_seconds", b->t_first > 0 ? mono_now() - b->t_first : 0);
	if (ks_json_write_file(b->status_path, o, 1) < 0)
		ks_error_clear(); /* a view for people: the run goes on without it */
	cJSON_Delete(o);
}

static void *heartbeat_main(void *ud)
{
	bt_batch *b = ud;
	pthread_mutex_lock(&b->mu);
	while (!b->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += KS_BATCH_HEARTBEAT_S;
		while (!b->stopping && pthread_cond_timedwait(&b->cv, &b->mu, &until) != ETIMEDOUT)
			;
		if (!b->stopping)
			bt_status_write(b, "running");
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

void bt_status_start(bt_batch *b)
{
	pthread_mutex_lock(&b->mu);
	bt_status_write(b, "running");
	b->stopping = 0;
	pthread_mutex_unlock(&b->mu);
	b->heartbeat_on = pthread_create(&b->heartbeat, NULL, heartbeat_main, b) == 0;
}

void bt_status_stop(bt_batch *b, const char *state)
{
	pthread_mutex_lock(&b->mu);
	b->stopping = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	if (b->heartbeat_on)
		pthread_join(b->heartbeat, NULL);
	b->heartbeat_on = 0;
	pthread_mutex_lock(&b->mu);
	bt_status_write(b, state);
	pthread_mutex_unlock(&b->mu);
}

/* ---- the reader: --status */

/* One run's status file, as read. */
typedef struct {
	cJSON *j;
	const char *state;           /* running, finished, failed, gone */
	char *why;                   /* gone: why it is taken for gone */
	double age;                  /* seconds since its last update */
	double rate;                 /* kernels per second while it scored */
} run_file;

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static double jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* A run that says it is running is alive when its process is (same host) and its heartbeat is
 * recent; a kill -9 leaves "running" with no process behind it. */
static void judge(run_file *r, double now)
{
	char host[256] = "";
	const char *st = jstr(r->j, "state");
	double hb = jnum(r->j, "heartbeat_seconds"), secs = jnum(r->j, "scoring_seconds");
	pid_t pid = (pid_t)jnum(r->j, "pid");
	r->age = now - jnum(r->j, "updated_epoch");
	r->rate = secs > 0 ? jnum(r->j, "kernels") / secs : 0;
	if (hb <= 0)
		hb = KS_BATCH_HEARTBEAT_S;
	if (strcmp(st, "running")) {
		r->state = !strcmp(st, "finished") ? "finished" : "failed";
		return;
	}
	gethostname(host, sizeof(host) - 1);
	if (!strcmp(host, jstr(r->j, "host")) && pid > 0 && kill(pid, 0) < 0 && errno == ESRCH) {
		r->state = "gone";
		r->why = ks_asprintf("process %ld on %s is not running", (long)pid, host);
	} else if (r->age > 3 * hb) {
		r->state = "gone";
		r->why = ks_asprintf("no heartbeat for %.0f s (one every %.0f s)", r->age, hb);
	} else
		r->state = "running";
}

static int has_name(cJSON *set, const char *name)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, set)
		if (!strcmp(x->valuestring, name))
			return 1;
	return 0;
}

static void duration(char *out, size_t n, double s)
{
	if (s >= 3600)
		snprintf(out, n, "%dh%02dm", (int)(s / 3600), ((int)s % 3600) / 60);
	else if (s >= 60)
		snprintf(out, n, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(out, n, "%.0fs", s);
}

int bt_status_report(bt_batch *b)
{
	cJSON *folders = cJSON_CreateArray(), *root = cJSON_CreateObject(), *runs, *x;
	run_file *rf = NULL;
	size_t nrf = 0, i, nscored = 0, nlate = 0, nfailed = 0, ntodo = 0, runs_scored = 0;
	double now = wall_now(), rate = 0, kernels = 0, eta = -1;
	DIR *d = opendir(b->o.out);
	struct dirent *e;
	char buf[64];

	/* every team: the manifest's, every run's, and any folder with a record (pull requests) */
	for (i = 0; b->m && i < b->m->nteams; i++)
		cJSON_AddItemToArray(folders, cJSON_CreateString(b->m->teams[i].folder));
	while (d && (e = readdir(d)) != NULL) {
		size_t len = strlen(e->d_name);
		char *p;
		if (!strncmp(e->d_name, ".status", 7) && len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			cJSON *j;
			p = ks_path_join(b->o.out, e->d_name);
			j = ks_leaderboard_read_json(p, STATUS_MAX_BYTES);
			ks_free(p);
			if (!j || strcmp(jstr(j, "schema"), STATUS_SCHEMA)) {
				cJSON_Delete(j);
				continue;
			}
			rf = ks_realloc(rf, (nrf + 1) * sizeof(*rf));
			memset(&rf[nrf], 0, sizeof(*rf));
			rf[nrf].j = j;
			judge(&rf[nrf], now);
			cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(j, "teams"))
				if (cJSON_IsString(x) && !has_name(folders, x->valuestring))
					cJSON_AddItemToArray(folders, cJSON_CreateString(x->valuestring));
			nrf++;
		} else if (e->d_name[0] != '.' && strcmp(e->d_name, "site") && strcmp(e->d_name, "slurm")) {
			char *rec;
			p = ks_path_join(b->o.out, e->d_name);
			rec = ks_path_join(p, "batch.json");
			if (ks_fs_is_dir(p) && ks_fs_exists(rec) && !has_name(folders, e->d_name))
				cJSON_AddItemToArray(folders, cJSON_CreateString(e->d_name));
			ks_free(rec);
			ks_free(p);
		}
	}
	if (d)
		closedir(d);
	cJSON_ArrayForEach(x, folders) {
		char *dir = ks_path_join(b->o.out, x->valuestring), *p = ks_path_join(dir, "batch.json");
		cJSON *rec = ks_leaderboard_read_json(p, BT_MAX_RECORD_BYTES);
		const char *st = rec ? jstr(rec, "status") : "";
		if (!strcmp(st, "scored"))
			nscored++;
		else if (!strcmp(st, "late"))
			nlate++;
		else if (!strcmp(st, "failed"))
			nfailed++;
		else
			ntodo++;
		cJSON_Delete(rec);
		ks_free(p);
		ks_free(dir);
	}
	/* the rate: of the runs that score now, else of every run over its own time */
	for (i = 0; i < nrf; i++) {
		kernels += jnum(rf[i].j, "kernels");
		runs_scored += (size_t)jnum(rf[i].j, "scored");
		if (!strcmp(rf[i].state, "running"))
			rate += rf[i].rate;
	}
	if (rate <= 0)
		for (i = 0; i < nrf; i++)
			rate += rf[i].rate;
	if (rate > 0 && runs_scored)
		eta = (double)ntodo * (kernels / (double)runs_scored) / rate;

	cJSON_AddStringToObject(root, "schema", "kscore.batch-progress/1");
	cJSON_AddStringToObject(root, "out", b->o.out);
	x = cJSON_AddObjectToObject(root, "teams");
	cJSON_AddNumberToObject(x, "total", (double)cJSON_GetArraySize(folders));
	cJSON_AddNumberToObject(x, "scored", (double)nscored);
	cJSON_AddNumberToObject(x, "late", (double)nlate);
	cJSON_AddNumberToObject(x, "failed", (double)nfailed);
	cJSON_AddNumberToObject(x, "to_do", (double)ntodo);
	cJSON_AddNumberToObject(root, "kernels_scored", kernels);
	ks_json_add_num(root, "kernels_per_minute", rate > 0 ? rate * 60 : NAN);
	ks_json_add_num(root, "eta_seconds", eta >= 0 ? eta : NAN);
	runs = cJSON_AddArrayToObject(root, "runs");
	for (i = 0; i < nrf; i++) {
		cJSON *r = cJSON_CreateObject(), *sh = cJSON_GetObjectItemCaseSensitive(rf[i].j, "shard");
		cJSON_AddItemToObject(r, "shard", cJSON_IsObject(sh) ? cJSON_Duplicate(sh, 1) : cJSON_CreateNull());
		cJSON_AddStringToObject(r, "state", rf[i].state);
		ks_json_add_str(r, "why", rf[i].why);
		cJSON_AddNumberToObject(r, "pid", jnum(rf[i].j, "pid"));
		cJSON_AddStringToObject(r, "host", jstr(rf[i].j, "host"));
		cJSON_AddNumberToObject(r, "teams", (double)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rf[i].j, "teams")));
		cJSON_AddNumberToObject(r, "done", jnum(rf[i].j, "done"));
		cJSON_AddNumberToObject(r, "kernels", jnum(rf[i].j, "kernels"));
		ks_json_add_num(r, "kernels_per_minute", rf[i].rate > 0 ? rf[i].rate * 60 : NAN);
		cJSON_AddStringToObject(r, "updated_at", jstr(rf[i].j, "updated_at"));
		cJSON_AddNumberToObject(r, "seconds_since_update", rf[i].age > 0 ? rf[i].age : 0);
		cJSON_AddItemToArray(runs, r);
	}
	if (b->o.json) {
		char *t = ks_json_print(root, 1);
		printf("%s\n", t ? t : "null");
		ks_free(t);
	} else {
		printf("%s: %d teams: %zu scored, %zu late, %zu failed, %zu still to do\n", b->o.out,
		       cJSON_GetArraySize(folders), nscored, nlate, nfailed, ntodo);
		if (rate > 0)
			printf("  %.0f kernels per minute (%.0f kernels scored so far)\n", rate * 60, kernels);
		else
			printf("  no kernel scored yet\n");
		if (eta >= 0 && ntodo) {
			duration(buf, sizeof(buf), eta);
			printf("  about %s left at that rate\n", buf);
		}
		if (!nrf)
			printf("  no run has written its status here (no batch started, or one of an earlier "
			       "version)\n");
		for (i = 0; i < nrf; i++) {
			cJSON *sh = cJSON_GetObjectItemCaseSensitive(rf[i].j, "shard");
			char age[32];
			duration(age, sizeof(age), rf[i].age > 0 ? rf[i].age : 0);
			if (cJSON_IsObject(sh))
				printf("  shard %.0f/%.0f: ", jnum(sh, "index"), jnum(sh, "count"));
			else
				printf("  whole batch: ");
			printf("%s%s%s, %.0f of %d teams done, %.0f kernels", rf[i].state, rf[i].why ? " (" : "",
			       rf[i].why ? rf[i].why : "", jnum(rf[i].j, "done"),
			       cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rf[i].j, "teams")),
			       jnum(rf[i].j, "kernels"));
			if (rf[i].why)
				printf(")");
			printf(", pid %.0f on %s, updated %s ago\n", jnum(rf[i].j, "pid"), jstr(rf[i].j, "host"), age);
		}
	}
	for (i = 0; i < nrf; i++) {
		cJSON_Delete(rf[i].j);
		ks_free(rf[i].why);
	}
	ks_free(rf);
	cJSON_Delete(folders);
	cJSON_Delete(root);
	return KS_EXIT_OK;
}
