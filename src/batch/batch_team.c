/* batch_team: one team of a batch run (batch_int.h): its repository fetched once per run, the
 * commit at the deadline, the submission file, scoring, and its batch.json. */
#include "batch/batch_int.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "report/outdir.h"
#include "load/submission.h"
#include "util/secret.h"
#include "util/utf8.h"
#include "util/version.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>


#define TEAM_SCHEMA "kscore.batch-team/1"
#define MAX_LATER 100

typedef struct {
	ks_leaderboard_status status;     /* NOT_SCORED: not decided yet (prepare found no fault) */
	const char *reason;               /* failed: a stable code */
	int of_run;                       /* failed for a reason of this run, not of the team */
	char *detail;
	bt_repo_slot *slot;
	char tip[41];
	ks_repo_pick pick;
	char *file;
	char sha[65];
	char *base_ref;                   /* the ref whose history is not the team's own, or NULL */
	char base[41];                    /* its commit ("" without one) */
	char fork[41];                    /* where the scored commit left the base ("": nowhere) */
	size_t base_files;                /* matches left out as the base's own files */
	char missing[41];                 /* missing_object: the object's id */
	const ks_manifest_paths *spec;    /* the submission paths or patterns looked for */
	char *previous;                   /* the commit this result replaced, if another */
	int previous_in_history;
	const char *upload;               /* upload status name, or NULL */
	int kept;                         /* failed this run, and the earlier result was kept */
} outcome;

static const char *col(const bt_batch *b, const char *code)
{
	return b->o.color ? code : "";
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* The progress line (b->mu held): the team the calling thread is at (its place among the teams to
 * do, its stage), and the time left at the rate teams have been scored so far. NULL t: the last
 * line again, with the counts of now (after a team was written). */
static void progress(bt_batch *b, const ks_manifest_team *t, const char *stage)
{
	char eta[32] = "";
	double left;
	if (!b->o.progress)
		return;
	if (t) {
		b->prog_team = t;
		b->prog_stage = stage;
	} else if (!b->prog_team || b->ndone >= b->ntodo)
		return;
	t = b->prog_team;
	stage = b->prog_stage;
	if (b->nscored && b->t_first > 0) {
		left = (now_s() - b->t_first) / (double)b->nscored * (double)(b->ntodo - b->ndone);
		if (left >= 3600)
			snprintf(eta, sizeof(eta), ", ETA %dh%02dm", (int)(left / 3600), ((int)left % 3600) / 60);
		else
			snprintf(eta, sizeof(eta), ", ETA %dm%02ds", (int)(left / 60), (int)left % 60);
	}
	fprintf(stderr, "\r\033[K[%zu/%zu] %s: %s%s", b->nstarted, b->ntodo, t->name, stage, eta);
	fflush(stderr);
}

void bt_progress_clear(const bt_batch *b)
{
	if (b->o.progress) {
		fprintf(stderr, "\r\033[K");
		fflush(stderr);
	}
}

static void outcome_clear(outcome *o)
{
	ks_free(o->detail);
	ks_free(o->file);
	ks_free(o->previous);
	ks_free(o->base_ref);
	ks_repo_pick_clear(&o->pick);
	memset(o, 0, sizeof(*o));
}

/* Records why a team cannot be scored; the sentence names the team, the ref and (through the
 * message of repos.h) the repository, commit and file. */
static void fail(outcome *o, const ks_manifest_team *t, const char *reason, const char *detail)
{
	char *text = ks_asprintf("team %s, ref %s: %s", t->name, t->ref, detail);
	o->status = KS_LEADERBOARD_FAILED;
	o->reason = reason;
	ks_free(o->detail);
	/* paths and subjects in it come from teams: bytes that are not UTF-8 do not reach the JSON */
	o->detail = ks_utf8_clean(text);
	ks_free(text);
}

/* The repository of a location, opened and fetched once per run, however many teams use it and
 * however they write it ("../x.git" and its absolute path are one repository). */
bt_repo_slot *bt_get_repo(bt_batch *b, const char *location)
{
	ks_repo_options ro = KS_REPO_OPTIONS_INIT;
	bt_repo_slot *s;
	char *key = ks_repo_locate(location, NULL);
	size_t i;
	for (i = 0; i < b->nslots; i++)
		if (!strcmp(b->slots[i]->location, key)) {
			ks_secret_free(key);
			return b->slots[i];
		}
	b->slots = ks_realloc(b->slots, (b->nslots + 1) * sizeof(*b->slots));
	s = b->slots[b->nslots++] = ks_calloc(1, sizeof(*s));
	s->location = key;
	ro.cache_dir = b->cache;
	if (ks_repo_open(&s->repo, location, &ro) < 0) {
		s->error = ks_strdup(ks_error_msg());
		s->reason = "cache_error";
		return s;
	}
	if (b->o.no_fetch) {
		/* a mirror is complete or it is not used: a partial one would drop teams without a word */
		if (ks_repo_ready(s->repo) < 0) {
			s->error = ks_asprintf("%s, and --no-fetch was given", ks_error_msg());
			s->reason = "unreachable";
		} else if (ks_repo_fetch_note(s->repo)) {
			s->warning = ks_strdup(ks_repo_fetch_note(s->repo));  /* what the mirror lacks */
		}
		return s;
	}
	if (ks_repo_fetch(s->repo) == 0) {
		if (ks_repo_fetch_note(s->repo))
			s->warning = ks_strdup(ks_repo_fetch_note(s->repo));
	} else {
		char *why = ks_strdup(ks_error_msg());
		if (ks_repo_ready(s->repo) == 0) {
			const char *lacks = ks_repo_fetch_note(s->repo);
			char ts[32];
			ks_manifest_format_time(ts, (int64_t)ks_repo_fetched_at(s->repo));
			s->warning = ks_asprintf("%s; using the copy cached at %s%s%s", why, ts, lacks ? "; " : "",
						 lacks ? lacks : "");
			ks_free(why);
		} else {
			s->error = ks_asprintf("%s; no cached copy is used: %s", why, ks_error_msg());
			ks_free(why);
			s->reason = "unreachable";
		}
	}
	return s;
}

void bt_slots_free(bt_batch *b)
{
	size_t i;
	for (i = 0; i < b->nslots; i++) {
		ks_repo_free(b->slots[i]->repo);
		ks_secret_free(b->slots[i]->location);
		ks_free(b->slots[i]->error);
		ks_free(b->slots[i]->warning);
		ks_free(b->slots[i]);
	}
	ks_free(b->slots);
	b->slots = NULL;
	b->nslots = 0;
}

char *bt_team_dir(const bt_batch *b, const ks_manifest_team *t)
{
	return ks_path_join(b->o.out, t->folder);
}

/* The rule for a team's folder (outdir.h): kscore's to replace, never an input. in[] holds the
 * inputs and must outlive *oo. */
void bt_team_outdir(const bt_batch *b, ks_outdir_options *oo, const char *in[4])
{
	in[0] = b->o.manifest_path;
	in[1] = b->refs;
	in[2] = b->so.pipeline.config;
	in[3] = b->cache;
	oo->kind = KS_OUTDIR_RESULT;
	oo->inputs = in;
	oo->ninputs = 4;
}

static cJSON *commit_json(const ks_repo_commit *c, int later)
{
	cJSON *o = cJSON_CreateObject();
	char ts[32];
	ks_manifest_format_time(ts, c->time);
	cJSON_AddStringToObject(o, "id", c->id);
	cJSON_AddStringToObject(o, "time", ts);
	cJSON_AddStringToObject(o, "subject", c->subject ? c->subject : "");
	if (later)
		cJSON_AddBoolToObject(o, "ancestor_of_scored", c->ancestor_of_chosen);
	return o;
}

static cJSON *later_json(const outcome *o)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < o->pick.nlater; i++)
		cJSON_AddItemToArray(a, commit_json(&o->pick.later[i], 1));
	return a;
}

/* The team's batch.json: where its result came from, or why there is none. */
static cJSON *team_record(const bt_batch *b, const ks_manifest_team *t, const outcome *o)
{
	cJSON *r = cJSON_CreateObject(), *x;
	const ks_manifest_paths *spec = bt_team_paths(b, t);
	char ts[32], *display = o->slot && o->slot->repo ? ks_strdup(ks_repo_display(o->slot->repo)) :
				ks_repo_redact(t->repo);
	time_t fetched = o->slot && o->slot->repo ? ks_repo_fetched_at(o->slot->repo) : 0;

	cJSON_AddStringToObject(r, "schema", TEAM_SCHEMA);
	cJSON_AddStringToObject(r, "team", t->name);
	cJSON_AddStringToObject(r, "folder", t->folder);
	cJSON_AddStringToObject(r, "status", ks_leaderboard_status_name(o->status == KS_LEADERBOARD_FAILED ||
									  o->status == KS_LEADERBOARD_LATE ?
									  o->status : KS_LEADERBOARD_SCORED));
	ks_json_add_str(r, "reason", o->reason);
	ks_json_add_str(r, "detail", o->detail);
	cJSON_AddStringToObject(r, "name_source", ks_manifest_name_source_name(t->name_source));
	if (t->pull) {
		cJSON_AddNumberToObject(r, "pull_request", (double)t->pull);
		ks_json_add_str(r, "head_subject", t->head_subject);
	}
	cJSON_AddStringToObject(r, "repository", display);
	cJSON_AddStringToObject(r, "ref", t->ref);
	ks_json_add_str(r, "ref_commit", o->tip[0] ? o->tip : NULL);
	if (o->base_ref) {
		cJSON_AddStringToObject(r, "base", o->base_ref);
		ks_json_add_str(r, "base_commit", o->base[0] ? o->base : NULL);
		if (o->fork[0])
			cJSON_AddStringToObject(r, "fork_point", o->fork);
	}
	ks_manifest_format_time(ts, b->m->deadline);
	cJSON_AddStringToObject(r, "deadline", ts);
	ks_json_add_str(r, "deadline_given", b->m->deadline_given);
	if (fetched) {
		ks_manifest_format_time(ts, (int64_t)fetched);
		cJSON_AddStringToObject(r, "fetched_at", ts);
	} else {
		cJSON_AddNullToObject(r, "fetched_at");
	}
	if (o->slot && o->slot->warning)
		cJSON_AddStringToObject(r, "fetch_warning", o->slot->warning);
	if (o->pick.found) {
		cJSON_AddStringToObject(r, "commit", o->pick.chosen.id);
		ks_manifest_format_time(ts, o->pick.chosen.time);
		cJSON_AddStringToObject(r, "commit_time", ts);
		cJSON_AddNumberToObject(r, "commit_time_epoch", (double)o->pick.chosen.time);
		cJSON_AddStringToObject(r, "commit_subject", o->pick.chosen.subject);
	} else {
		cJSON_AddNullToObject(r, "commit");
		cJSON_AddNullToObject(r, "commit_time");
	}
	if (spec->n == 1) {
		cJSON_AddStringToObject(r, "submission", spec->v[0]);
	} else {
		cJSON *a = cJSON_AddArrayToObject(r, "submission");
		size_t i;
		for (i = 0; i < spec->n; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(spec->v[i]));
	}
	ks_json_add_str(r, "file", o->file);
	if (o->base_files)
		cJSON_AddNumberToObject(r, "base_files_left_out", (double)o->base_files);
	if (o->missing[0])
		cJSON_AddStringToObject(r, "missing_object", o->missing);
	cJSON_AddItemToObject(r, "later_commits", later_json(o));
	cJSON_AddNumberToObject(r, "later_commits_total", (double)o->pick.later_total);
	if (o->previous) {
		cJSON_AddStringToObject(r, "previous_commit", o->previous);
		cJSON_AddBoolToObject(r, "previous_commit_in_history", o->previous_in_history);
	}
	x = cJSON_AddObjectToObject(r, "scorer");
	cJSON_AddStringToObject(x, "name", "kscore");
	cJSON_AddStringToObject(x, "version", KS_VERSION);
	cJSON_AddStringToObject(r, "mode", b->mode);
	cJSON_AddBoolToObject(r, "timing", !b->so.pipeline.no_timing);
	ks_json_add_str(r, "config", b->so.pipeline.config);
	cJSON_AddStringToObject(r, "problems_sha256", b->problems_sha);
	ks_json_add_str(r, "submission_sha256", o->sha[0] ? o->sha : NULL);
	ks_manifest_format_time(ts, (int64_t)time(NULL));
	cJSON_AddStringToObject(r, "recorded_at", ts);
	ks_free(display);
	return r;
}

static int same_str(const cJSON *o, const char *key, const char *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return !x || cJSON_IsNull(x);
	return cJSON_IsString(x) && !strcmp(x->valuestring, v);
}

static int same_version(const cJSON *rec)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(rec, "scorer");
	return same_str(s, "version", KS_VERSION);
}

/* 1 when the later commits recorded in rec are those of o (so the record needs no update). */
static int same_later(const cJSON *rec, const outcome *o)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(rec, "later_commits"), *e;
	size_t i = 0;
	if (!cJSON_IsArray(a) || (size_t)cJSON_GetArraySize(a) != o->pick.nlater)
		return 0;
	cJSON_ArrayForEach(e, a) {
		if (!same_str(e, "id", o->pick.later[i].id))
			return 0;
		i++;
	}
	return 1;
}

/* The team's existing record, when its result is complete: NULL otherwise. */
static cJSON *existing_record(const bt_batch *b, const ks_manifest_team *t)
{
	char *dir = bt_team_dir(b, t), *p = ks_path_join(dir, "batch.json");
	cJSON *rec = ks_leaderboard_read_json(p, BT_MAX_RECORD_BYTES);
	ks_free(p);
	ks_free(dir);
	return rec;
}

/* A result already there for the same submission bytes (from this commit or an earlier one: a
 * commit that leaves the file byte-identical is not scored again), file, scorer version, mode,
 * timing settings and problems, with a score.json of the same submission (the result folder is renamed into place
 * whole, so a score.json means a complete folder). */
static int already_scored(const bt_batch *b, const ks_manifest_team *t, const cJSON *rec, const outcome *o)
{
	char *dir, *sp;
	cJSON *s;
	int ok;
	if (!rec || !same_str(rec, "status", ks_leaderboard_status_name(KS_LEADERBOARD_SCORED)) ||
	    !same_str(rec, "submission_sha256", o->sha) || !same_str(rec, "file", o->file) ||
	    !same_version(rec) || !same_str(rec, "mode", b->mode) ||
	    !same_str(rec, "problems_sha256", b->problems_sha) ||
	    !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(rec, "timing")) ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "timing")) != !b->so.pipeline.no_timing ||
	    !same_str(rec, "config", b->so.pipeline.config))
		return 0;
	dir = bt_team_dir(b, t);
	sp = ks_path_join(dir, "score.json");
	s = ks_leaderboard_read_json(sp, BT_MAX_RECORD_BYTES);
	ok = s && same_str(cJSON_GetObjectItemCaseSensitive(s, "submission"), "sha256", o->sha);
	cJSON_Delete(s);
	ks_free(sp);
	ks_free(dir);
	return ok;
}

/* Replaces (or adds) key in rec. */
static void set_item(cJSON *rec, const char *key, cJSON *v)
{
	if (cJSON_HasObjectItem(rec, key))
		cJSON_ReplaceItemInObjectCaseSensitive(rec, key, v);
	else
		cJSON_AddItemToObject(rec, key, v);
}

/* The record of a result scored from an earlier commit with the same submission bytes, moved to
 * the commit chosen now; "result_commit" keeps the commit that was scored (score.json's). */
static void reuse_for_commit(cJSON *rec, const outcome *o)
{
	const cJSON *was = cJSON_GetObjectItemCaseSensitive(rec, "result_commit");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(rec, "commit");
	char ts[32];
	if (!cJSON_IsString(was) && cJSON_IsString(c))
		set_item(rec, "result_commit", cJSON_CreateString(c->valuestring));
	set_item(rec, "commit", cJSON_CreateString(o->pick.chosen.id));
	ks_manifest_format_time(ts, o->pick.chosen.time);
	set_item(rec, "commit_time", cJSON_CreateString(ts));
	set_item(rec, "commit_time_epoch", cJSON_CreateNumber((double)o->pick.chosen.time));
	set_item(rec, "commit_subject", cJSON_CreateString(o->pick.chosen.subject));
	set_item(rec, "ref_commit", cJSON_CreateString(o->tip));
}

static int write_record(const bt_batch *b, const ks_manifest_team *t, const cJSON *rec)
{
	char *dir = bt_team_dir(b, t), *p = ks_path_join(dir, "batch.json");
	int rc = ks_json_write_file(p, rec, 1);
	if (rc < 0)
		ks_error_wrap(rc, "team %s: cannot write its record", t->name);
	ks_free(p);
	ks_free(dir);
	return rc;
}

/* 1 when a failure is the run's, not the team's (nothing could be fetched or read), and the team
 * has a scored result already: that result is kept as it is. */
static int kept_despite(const outcome *o, const cJSON *old)
{
	return old && o->of_run && same_str(old, "status", ks_leaderboard_status_name(KS_LEADERBOARD_SCORED));
}

/* A failure replaces whatever result the team had: the folder then holds batch.json only. An
 * unchanged failure (same commit, reason and message) leaves the folder as it is. */
static int record_failure(const bt_batch *b, const ks_manifest_team *t, const outcome *o, const cJSON *old)
{
	char *dir;
	cJSON *rec;
	int rc;
	if (old && same_str(old, "status", ks_leaderboard_status_name(o->status)) && same_str(old, "reason", o->reason) &&
	    same_str(old, "detail", o->detail) && same_version(old) &&
	    same_str(old, "commit", o->pick.found ? o->pick.chosen.id : NULL) && same_later(old, o))
		return 0;
	dir = bt_team_dir(b, t);
	{
		ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
		const char *in[4];
		char *tmp = NULL;
		bt_team_outdir(b, &oo, in);
		if ((rc = ks_outdir_begin(&tmp, dir, &oo)) < 0 || (rc = ks_outdir_commit(tmp, dir, &oo)) < 0) {
			ks_outdir_abort(tmp);
			ks_free(tmp);
			ks_error_wrap(rc, "team %s: cannot write its results folder", t->name);
			ks_free(dir);
			return rc;
		}
		ks_free(tmp);
	}
	ks_free(dir);
	rec = team_record(b, t, o);
	rc = write_record(b, t, rec);
	cJSON_Delete(rec);
	return rc;
}

/* A scored team waiting for its upload (uploads go over the network: never in the finisher). */
struct bt_upload {
	size_t idx;
	cJSON *jt;                        /* its line in the --json report */
	struct bt_upload *next;
};

/* Uploads team idx's result folder (the calling thread; b->mu not held); returns its status name. */
static const char *upload_dir(bt_batch *b, const ks_manifest_team *t)
{
	ks_upload_report ur;
	const char *st;
	char *dir;
	if (!ks_pipeline_has_gpu(b->pl))
		return "skipped";
	dir = bt_team_dir(b, t);
	ks_upload_result_dir(&ur, dir, ks_upload_setup_options(b->up));
	st = ks_upload_status_name(ur.status);
	pthread_mutex_lock(&b->mu);
	bt_progress_clear(b);
	if (!b->o.quiet || (ur.status != KS_UPLOAD_SENT && ur.status != KS_UPLOAD_ALREADY))
		fprintf(stderr, "score batch: %s: upload: %s: %s\n", t->name, st, ur.message);
	pthread_mutex_unlock(&b->mu);
	ks_upload_report_clear(&ur);
	ks_free(dir);
	return st;
}

void bt_uploads_free(bt_batch *b)
{
	while (b->uploads) {
		struct bt_upload *u = b->uploads;
		b->uploads = u->next;
		ks_free(u);
	}
}

void bt_drain_uploads(bt_batch *b)
{
	for (;;) {
		struct bt_upload *u;
		const char *st;
		pthread_mutex_lock(&b->mu);
		u = b->uploads;
		if (u)
			b->uploads = u->next;
		pthread_mutex_unlock(&b->mu);
		if (!u)
			return;
		st = upload_dir(b, &b->m->teams[u->idx]);
		pthread_mutex_lock(&b->mu);
		cJSON_ReplaceItemInObjectCaseSensitive(u->jt, "upload", cJSON_CreateString(st));
		pthread_mutex_unlock(&b->mu);
		ks_free(u);
	}
}

/* ---- what teams commit instead of a submission ---- */

/* Fails the team as geak_results_not_submission: what it committed and what kscore needs. */
static void fail_geak(outcome *o, const ks_manifest_team *t, const char *what)
{
	char *elsewhere = bt_files_elsewhere(o->slot->repo, o->pick.chosen.id, o->spec);
	char *msg = ks_asprintf("repository %s: commit %.12s: %s GEAK-eval's result files (what an "
				"evaluation of the agent's answers wrote), not a submission: kscore scores "
				"the submission itself, the JSON array of {\"file\", \"predict\"} entries the "
				"agent wrote (GEAK-eval's input, named like "
				"reflexion_oneshot_tritonbench_<N>.json); %s", ks_repo_display(o->slot->repo),
				o->pick.chosen.id, what, elsewhere ? elsewhere : "commit that file and give its "
				"path as \"submission\"");
	ks_free(elsewhere);
	fail(o, t, "geak_results_not_submission", msg);
	ks_free(msg);
}

/* No submission matched (or the files that did are ambiguous, as GEAK-eval's _results_0 and
 * _perf_0 are to "*_<N>.json"): a GEAK result folder committed instead is said so, naming its
 * files. `why` is the read's message. */
static int geak_instead(outcome *o, const ks_manifest_team *t, ks_repo_file_status st, const char *why)
{
	char **paths = NULL, *what;
	size_t n = 0, i, named = 0;
	ks_buf b = KS_BUF_INIT(4096);
	if ((st != KS_REPO_FILE_NO_MATCH && st != KS_REPO_FILE_AMBIGUOUS) ||
	    bt_geak_list(&paths, &n, o->slot->repo, o->pick.chosen.id) < 0 || !n) {
		ks_error_clear();
		ks_free_strv(paths, n);
		return 0;
	}
	for (i = 0; i < n; i++)
		named += strstr(why, paths[i]) != NULL;
	if (st == KS_REPO_FILE_AMBIGUOUS && !named) {
		ks_free_strv(paths, n);
		return 0;
	}
	ks_buf_printf(&b, "no submission file, only %s%s%s%s", paths[0], n > 1 ? ", " : "",
		      n > 1 ? paths[1] : "", n > 2 ? ", ..." : "");
	what = ks_asprintf("%s, which are", b.ptr);
	fail_geak(o, t, what);
	ks_free(what);
	ks_buf_free(&b);
	ks_free_strv(paths, n);
	return 1;
}

/* ---- one team before scoring ---- */

const ks_manifest_paths *bt_team_paths(const bt_batch *b, const ks_manifest_team *t)
{
	return t->submission.n ? &t->submission : &b->m->submission;
}

/* The history that is not the team's own: the base the manifest names, or for a pull request
 * the repository's default branch (HEAD, else main, else master). Without one no commit can be
 * told to be the team's: the team fails, saying how to name its base. 0 decided (o->base set, or
 * no base wanted), -1 the team failed. */
static int find_base(outcome *o, const ks_manifest_team *t)
{
	const char *dflt = NULL;
	int pull = !strncmp(t->ref, "refs/pull/", 10);
	if (!t->base && !pull)
		return 0;
	if (!t->base && ks_repo_default_branch(&dflt, o->slot->repo) < 0) {
		char *msg = ks_asprintf("%s: the pull request's own commits cannot be told from the "
					"organizers', so none is scored; name the branch it was made against "
					"as its base: %s", ks_error_msg(),
					t->pull ? "\"base\" in the manifest's \"pull_requests\" (or in "
						  "teams_by_number), or --base BRANCH" :
						  "the team's \"base\" in the manifest");
		fail(o, t, "bad_base", msg);
		ks_free(msg);
		return -1;
	}
	o->base_ref = ks_strdup(t->base ? t->base : dflt);
	if (ks_repo_base(o->base, o->slot->repo, o->tip, o->base_ref) < 0) {
		fail(o, t, "bad_base", ks_error_msg());
		return -1;
	}
	return 0;
}

static const char *read_reason(ks_repo_file_status s)
{
	switch (s) {
	case KS_REPO_FILE_NO_MATCH:
		return "missing_file";
	case KS_REPO_FILE_BASE_ONLY:
		return "base_file_only";
	case KS_REPO_FILE_TOO_LARGE:
		return "file_too_large";
	case KS_REPO_FILE_MISSING_OBJECT:
		return "missing_object";
	default:
		return "unusable_file";
	}
}

/* Fetch, choose the commit, read and parse the submission: everything before scoring. Leaves
 * o->status NOT_SCORED, with *pass parsed and o->sha its fingerprint, when the team can be
 * scored; sets o->status to FAILED or LATE with the reason otherwise. Nothing here stops the
 * batch. */
static void prepare(bt_batch *b, const ks_manifest_team *t, outcome *o, ks_pass *pass)
{
	ks_submission_limits lim = KS_SUBMISSION_LIMITS_INIT;
	ks_repo_read_options ro = KS_REPO_READ_OPTIONS_INIT;
	const ks_manifest_paths *spec = bt_team_paths(b, t);
	ks_repo_file f;
	ks_sha256 *h;
	int rc;

	o->spec = spec;
	o->slot = bt_get_repo(b, t->repo);
	if (o->slot->error) {
		fail(o, t, o->slot->reason, o->slot->error);
		o->of_run = 1;
		return;
	}
	if ((rc = ks_repo_resolve(o->tip, o->slot->repo, t->ref)) < 0) {
		fail(o, t, "bad_ref", ks_error_msg());
		return;
	}
	if (find_base(o, t) < 0)
		return;
	if ((rc = ks_repo_pick_commit(&o->pick, o->slot->repo, o->tip, o->base[0] ? o->base : NULL,
				      b->m->deadline, MAX_LATER)) < 0) {
		fail(o, t, "history_error", ks_error_msg());
		o->of_run = 1;
		return;
	}
	if (!o->pick.found) {
		char ts[32], *msg;
		ks_manifest_format_time(ts, b->m->deadline);
		msg = ks_asprintf("repository %s: ref %s has no commit%s at or before the deadline %s "
				  "(%zu later commits%s%s%s)", ks_repo_display(o->slot->repo), t->ref,
				  o->base[0] ? " of its own" : "", ts, o->pick.later_total,
				  o->base[0] ? "; the history of " : "", o->base[0] ? o->base_ref : "",
				  o->base[0] ? ", its base, is not the team's" : "");
		fail(o, t, "no_commit_before_deadline", msg);
		o->status = KS_LEADERBOARD_LATE;
		ks_free(msg);
		return;
	}
	/* a file the team never changed since it left the base is the base's, not a submission */
	if (o->base[0] && ks_repo_merge_base(o->fork, o->slot->repo, o->pick.chosen.id, o->base) < 0)
		ks_error_clear();
	ro.specs = (const char *const *)spec->v;
	ro.nspecs = spec->n;
	ro.max_bytes = lim.max_file_bytes;
	ro.base = o->fork[0] ? o->fork : NULL;
	rc = ks_repo_read(&f, o->slot->repo, o->pick.chosen.id, &ro);
	o->base_files = f.base_matches;
	if (rc < 0) {
		char *why = ks_strdup(ks_error_msg());
		memcpy(o->missing, f.missing, sizeof(o->missing));
		if (!geak_instead(o, t, f.status, why)) {
			char *elsewhere = f.status == KS_REPO_FILE_NO_MATCH ?
					  bt_files_elsewhere(o->slot->repo, o->pick.chosen.id, spec) : NULL;
			char *full = elsewhere ? ks_asprintf("%s; %s", why, elsewhere) : NULL;
			fail(o, t, read_reason(f.status), full ? full : why);
			ks_free(full);
			ks_free(elsewhere);
		}
		ks_free(why);
		ks_repo_file_clear(&f);
		return;
	}
	o->file = ks_utf8_clean(f.path);  /* a name from a team's tree: recorded in JSON */
	if (bt_geak_name(o->file) || bt_geak_content(f.data, f.len)) {
		char *what = ks_asprintf("%s is one of", o->file);
		fail_geak(o, t, what);
		ks_free(what);
		ks_repo_file_clear(&f);
		return;
	}
	ks_pass_parse(pass, o->file, f.data, f.len, &lim);
	ks_repo_file_clear(&f);
	h = ks_sha256_new();
	ks_sha256_update_str(h, pass->sha256);
	ks_sha256_final(h, o->sha);
	if (pass->error || pass->nentries == 0) {
		char *msg = pass->error ? ks_strdup(pass->error) :
			    ks_asprintf("%s: holds no entries", o->file);
		char *full = ks_asprintf("repository %s: commit %.12s: %s", ks_repo_display(o->slot->repo),
					 o->pick.chosen.id, msg);
		fail(o, t, "malformed_file", full);
		ks_free(full);
		ks_free(msg);
	}
}

/* The commit a result replaces, and whether the tip's history still contains it: a force-push
 * that dropped a scored commit is worth an organizer's look. */
static void note_previous(outcome *o, const cJSON *old)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(old, "commit");
	if (!cJSON_IsString(c) || !o->pick.found || !strcmp(c->valuestring, o->pick.chosen.id))
		return;
	o->previous = ks_strdup(c->valuestring);
	o->previous_in_history = ks_repo_contains(o->slot->repo, o->tip, o->previous) == 1;
	ks_error_clear();
}

int bt_write_leaderboard(bt_batch *b)
{
	ks_leaderboard_row *sorted = ks_calloc(b->m->nteams + 1, sizeof(*sorted));
	int rc;
	/* rank a shallow copy: b->rows stays in manifest order for updates */
	memcpy(sorted, b->rows, b->m->nteams * sizeof(*sorted));
	ks_leaderboard_rank(sorted, b->m->nteams);
	rc = ks_leaderboard_write(b->o.out, sorted, b->m->nteams, b->m->deadline);
	ks_free(sorted);
	if (rc < 0)
		ks_error_wrap(rc, "cannot write the leaderboard in %s", b->o.out);
	return rc;
}

/* The end of a team (b->mu held): its counts, its line, its --json line, its leaderboard row, the
 * leaderboard (unless a shard's), the status file; a scored team's upload is queued. Returns 0, or
 * -1 when the leaderboard cannot be written (message set). */
static int finish(bt_batch *b, size_t idx, const outcome *o, int upload)
{
	const ks_manifest_team *t = &b->m->teams[idx];
	cJSON *jt;
	char *note = NULL;
	int rc = 0;

	/* the leaderboard follows every team, so a stopped batch leaves a current one */
	ks_leaderboard_row_clear(&b->rows[idx]);
	ks_leaderboard_row_load(&b->rows[idx], b->o.out, t->name, t->folder);
	if (o->status == KS_LEADERBOARD_SCORED || o->status == KS_LEADERBOARD_ALREADY_SCORED)
		note = ks_unscored_note(&b->rows[idx].unscored);
	bt_progress_clear(b);
	/* a repository's warning (what it lacks, a failed fetch) is one line a batch, however many
	 * teams it has; every team's record keeps it */
	if (o->slot && o->slot->warning && !o->slot->warned) {
		fprintf(stderr, "score batch: %swarning%s: %s\n", col(b, "\033[33m"), col(b, "\033[0m"),
			o->slot->warning);
		o->slot->warned = 1;
	}
	if (o->status == KS_LEADERBOARD_FAILED) {
		/* -q keeps these: a team that cannot be scored is an error to look at */
		b->nfailed++;
		fprintf(stderr, "score batch: [%zu/%zu] %s: %sfailed%s: %s: %s%s\n", b->ndone + 1, b->ntodo,
			t->name, col(b, "\033[31m"), col(b, "\033[0m"), o->reason, o->detail,
			o->kept ? " (its earlier result is kept)" : "");
	} else if (o->status == KS_LEADERBOARD_LATE) {
		b->nlate++;
		if (!b->o.quiet)
			fprintf(stderr, "score batch: [%zu/%zu] %s: %slate%s: %s\n", b->ndone + 1, b->ntodo,
				t->name, col(b, "\033[33m"), col(b, "\033[0m"), o->detail);
	} else {
		char ts[32];
		ks_manifest_format_time(ts, o->pick.chosen.time);
		if (o->status == KS_LEADERBOARD_SCORED)
			b->nscored++;
		else
			b->nskipped++;
		/* -q keeps a team of answers this run could not score: it looks like a team of zeros */
		if (b->o.quiet && note)
			fprintf(stderr, "score batch: [%zu/%zu] %s: %swarning%s: %s\n", b->ndone + 1, b->ntodo,
				t->name, col(b, "\033[33m"), col(b, "\033[0m"), note);
		if (!b->o.quiet) {
			fprintf(stderr, "score batch: [%zu/%zu] %s: %s%s%s: commit %.12s (%s), %s", b->ndone + 1,
				b->ntodo, t->name,
				col(b, o->status == KS_LEADERBOARD_SCORED ? "\033[32m" : "\033[36m"),
				o->status == KS_LEADERBOARD_SCORED ? "scored" : "already scored", col(b, "\033[0m"),
				o->pick.chosen.id, ts, o->file);
			if (o->pick.later_total)
				fprintf(stderr, "; %zu later commit%s not scored", o->pick.later_total,
					o->pick.later_total == 1 ? "" : "s");
			if (note)
				fprintf(stderr, "; %s%s%s", col(b, "\033[33m"), note, col(b, "\033[0m"));
			fputc('\n', stderr);
		}
	}
	jt = cJSON_CreateObject();
	cJSON_AddStringToObject(jt, "team", t->name);
	cJSON_AddStringToObject(jt, "folder", t->folder);
	cJSON_AddStringToObject(jt, "status", ks_leaderboard_status_name(o->status));
	cJSON_AddStringToObject(jt, "name_source", ks_manifest_name_source_name(t->name_source));
	ks_json_add_str(jt, "reason", o->reason);
	ks_json_add_str(jt, "detail", o->detail);
	ks_json_add_str(jt, "commit", o->pick.found ? o->pick.chosen.id : NULL);
	ks_json_add_str(jt, "file", o->file);
	cJSON_AddNumberToObject(jt, "later_commits", (double)o->pick.later_total);
	if (o->slot && o->slot->warning)
		cJSON_AddStringToObject(jt, "fetch_warning", o->slot->warning);
	ks_json_add_str(jt, "upload", o->upload);
	if (o->kept)
		cJSON_AddBoolToObject(jt, "earlier_result_kept", 1);
	if (b->rows[idx].has_result)
		cJSON_AddNumberToObject(jt, "unscored_answers", (double)b->rows[idx].unscored.unscored);
	else
		cJSON_AddNullToObject(jt, "unscored_answers");
	ks_json_add_str(jt, "unscored_note", note);
	ks_free(note);
	cJSON_AddItemToArray(b->jteams, jt);
	if (upload && b->up) {
		struct bt_upload *u = ks_calloc(1, sizeof(*u)), **pp;
		u->idx = idx;
		u->jt = jt;
		for (pp = &b->uploads; *pp; pp = &(*pp)->next)
			;
		*pp = u;
	}
	b->ndone++;
	/* shards leave the leaderboard to --collect: each sees only its own teams' progress */
	if (!b->o.sharded && (rc = bt_write_leaderboard(b)) < 0 && !b->fatal)
		b->fatal = ks_strdup(ks_error_msg());
	bt_status_write(b, "running");
	progress(b, NULL, NULL);
	return rc < 0 ? -1 : 0;
}

/* A team in the session's queue: scored while the next teams are fetched. */
typedef struct {
	bt_batch *b;
	size_t idx;
	outcome o;
	ks_pass pass;
	ks_submission sub;
} team_job;

static void team_job_free(team_job *tj)
{
	ks_free(tj->sub.path);
	ks_pass_clear(&tj->pass);
	outcome_clear(&tj->o);
	ks_free(tj);
}

/* The team is scored and its result folder written (the session's finisher thread). */
static void team_scored(void *ud, ks_scored *sc, int rc, const char *error)
{
	team_job *tj = ud;
	bt_batch *b = tj->b;
	const ks_manifest_team *t = &b->m->teams[tj->idx];
	cJSON *rec;
	char *why = NULL;

	if (rc < 0)
		why = ks_asprintf("team %s: %s", t->name, error ? error : "cannot write its results");
	else {
		tj->o.status = KS_LEADERBOARD_SCORED;
		rec = team_record(b, t, &tj->o);
		if (write_record(b, t, rec) < 0)
			why = ks_strdup(ks_error_msg());
		cJSON_Delete(rec);
	}
	pthread_mutex_lock(&b->mu);
	if (why) {
		if (!b->fatal)
			b->fatal = why;
		else
			ks_free(why);
	} else {
		b->kernels += sc->nresults;
		finish(b, tj->idx, &tj->o, 1);
	}
	b->inflight--;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	team_job_free(tj);
}

int bt_process_team(bt_batch *b, size_t idx)
{
	const ks_manifest_team *t = &b->m->teams[idx];
	team_job *tj = ks_calloc(1, sizeof(*tj));
	outcome *o = &tj->o;
	cJSON *old = NULL;
	char *dir = NULL;
	int rc = 0;

	tj->b = b;
	tj->idx = idx;
	old = existing_record(b, t);
	pthread_mutex_lock(&b->mu);
	b->nstarted++;
	progress(b, t, "fetching");
	pthread_mutex_unlock(&b->mu);
	prepare(b, t, o, &tj->pass);
	if (o->status == KS_LEADERBOARD_FAILED && kept_despite(o, old)) {
		/* the repository cannot be reached now, but what was scored from it stands: a
		 * network or cache problem of this run must not delete a team's result */
		o->kept = 1;
	} else if (o->status == KS_LEADERBOARD_FAILED || o->status == KS_LEADERBOARD_LATE) {
		if ((rc = record_failure(b, t, o, old)) < 0)
			goto done;
	} else if (!b->o.rescore && already_scored(b, t, old, o)) {
		int moved = !same_str(old, "commit", o->pick.chosen.id);
		o->status = KS_LEADERBOARD_ALREADY_SCORED;
		/* a newer commit with the same submission bytes: the result stands, the record names
		 * the commit now chosen and the one whose bytes were scored */
		if (moved)
			reuse_for_commit(old, o);
		/* commits pushed after the deadline since the result was written are still recorded */
		if (moved || !same_later(old, o)) {
			char ts[32];
			ks_manifest_format_time(ts, (int64_t)ks_repo_fetched_at(o->slot->repo));
			cJSON_ReplaceItemInObjectCaseSensitive(old, "later_commits", later_json(o));
			cJSON_ReplaceItemInObjectCaseSensitive(old, "later_commits_total",
							      cJSON_CreateNumber((double)o->pick.later_total));
			cJSON_ReplaceItemInObjectCaseSensitive(old, "fetched_at", cJSON_CreateString(ts));
			if ((rc = write_record(b, t, old)) < 0)
				goto done;
		}
		if (b->up)
			o->upload = upload_dir(b, t);
	} else {
		/* scored in the session's queue; finished in team_scored, as soon as it is */
		note_previous(o, old);
		tj->sub.path = ks_asprintf("%s@%s:%s", ks_repo_display(o->slot->repo), o->pick.chosen.id, o->file);
		tj->sub.passes = &tj->pass;
		tj->sub.npasses = 1;
		memcpy(tj->sub.sha256, o->sha, sizeof(tj->sub.sha256));
		dir = bt_team_dir(b, t);
		pthread_mutex_lock(&b->mu);
		while (b->inflight >= b->ahead && !b->fatal)
			pthread_cond_wait(&b->cv, &b->mu);
		if (b->fatal) {
			pthread_mutex_unlock(&b->mu);
			goto done;
		}
		b->inflight++;
		if (b->t_first <= 0)
			b->t_first = now_s();
		progress(b, t, "scoring");
		pthread_mutex_unlock(&b->mu);
		ks_pipeline_submit(b->pl, &tj->sub, t->name, dir, team_scored, tj);
		tj = NULL; /* the finisher's from now on */
		goto done;
	}
	pthread_mutex_lock(&b->mu);
	rc = finish(b, idx, o, 0);
	pthread_mutex_unlock(&b->mu);
done:
	cJSON_Delete(old);
	ks_free(dir);
	if (tj)
		team_job_free(tj);
	return rc;
}
