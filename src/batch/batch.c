/* batch: see src/batch/batch.h; the run (batch_int.h), one team at a time through batch_team.c. */
#include "batch/batch_int.h"
#include "nvtool/sanitize.h"
#include "util/exitcode.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "report/outdir.h"
#include "load/paths.h"
#include "batch/slurm.h"
#include "util/version.h"

#include <curl/curl.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>


/* A fingerprint of the reference problems (names and spec hashes): a result scored against other
 * problems is not "already scored". */
static void problems_fingerprint(char out[65], const ks_problem_set *ps)
{
	ks_sha256 *h = ks_sha256_new();
	size_t i;
	for (i = 0; i < ps->n; i++) {
		ks_sha256_update_str(h, ps->problems[i]->name);
		ks_sha256_update_str(h, ps->problems[i]->sha256);
	}
	ks_sha256_final(h, out);
}

/* The kind of the names whose leftovers a run finishes or removes in the results folder: its
 * teams' folders (a shard: its own teams' only, the others may be in use), its own status file,
 * and, for a whole batch, the site, the leaderboard files and the folder's own mark. */
static int out_kind(const char *name, size_t len, void *ud)
{
	static const char *const files[] = { "leaderboard.json", "leaderboard.csv", KS_OUTDIR_MARK };
	const bt_batch *b = ud;
	char *status = bt_status_name(b);
	int own_status = strlen(status) == len && !strncmp(name, status, len);
	size_t k;
	ks_free(status);
	/* the run's own status file (a killed run's ".status.json.tmp.PID"; a shard's, its own) */
	if (own_status)
		return KS_OUTDIR_BATCH;
	for (k = 0; k < b->m->nteams; k++)
		if (strlen(b->m->teams[k].folder) == len && !strncmp(name, b->m->teams[k].folder, len))
			return !b->in_shard || b->in_shard[k] ? KS_OUTDIR_RESULT : -1;
	if (b->o.sharded)
		return -1;
	if (len == 4 && !strncmp(name, "site", 4))
		return KS_OUTDIR_SITE;
	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++)
		if (strlen(files[k]) == len && !strncmp(name, files[k], len))
			return KS_OUTDIR_BATCH;
	return -1;
}

/* A team folder's record, written in place (the rest of the folder is renamed into place whole). */
static int team_file_kind(const char *name, size_t len, void *ud)
{
	(void)ud;
	return len == 10 && !strncmp(name, "batch.json", 10) ? KS_OUTDIR_RESULT : -1;
}

/* Finishes or removes what killed runs left (outdir.h, ks_outdir_tidy): "<folder>.tmp-PID-N",
 * "<folder>.old-PID-N" (put back when the folder is gone), "<file>.tmp.PID", inside the team
 * folders too; only names kscore makes, of processes that are gone. */
static void remove_leftovers(bt_batch *b)
{
	size_t k;
	ks_outdir_tidy(b->o.out, out_kind, b);
	for (k = 0; k < b->m->nteams; k++) {
		char *dir;
		if (b->in_shard && !b->in_shard[k])
			continue;
		dir = bt_team_dir(b, &b->m->teams[k]);
		if (ks_fs_is_dir(dir))
			ks_outdir_tidy(dir, team_file_kind, NULL);
		ks_free(dir);
	}
}

static void upload_log(const char *line, void *ud)
{
	(void)ud;
	fprintf(stderr, "score batch: upload: %s\n", line);
}

static int team_selected(const bt_batch *b, const ks_manifest_team *t)
{
	if (b->in_shard && !b->in_shard[t - b->m->teams])
		return 0;
	return !b->o.only_team || !strcmp(b->o.only_team, t->name) || !strcmp(b->o.only_team, t->folder);
}

static int check_only_team(const bt_batch *b)
{
	size_t i;
	if (!b->o.only_team)
		return 0;
	for (i = 0; i < b->m->nteams; i++)
		if (team_selected(b, &b->m->teams[i]))
			return 0;
	fprintf(stderr, "score batch: no team named \"%s\"\n", b->o.only_team);
	return KS_EXIT_USAGE;
}

static int load_teams(bt_batch *b)
{
	int rc;
	if (b->o.manifest_path) {
		if ((rc = ks_manifest_load(&b->m, b->o.manifest_path)) < 0) {
			fprintf(stderr, "score batch: error: manifest: %s\n", ks_error_msg());
			return KS_EXIT_DATAERR;
		}
	} else {
		b->m = ks_manifest_new();
	}
	if (b->o.deadline) {
		ks_free(b->m->deadline_given);
		b->m->deadline_given = ks_strdup(b->o.deadline);
	}
	if (b->o.deadline && ks_manifest_parse_time(&b->m->deadline, b->o.deadline) < 0) {
		fprintf(stderr, "score batch: --deadline: %s\n", ks_error_msg());
		return KS_EXIT_USAGE;
	}
	if (b->o.nsubmissions &&
	    ks_manifest_paths_set(&b->m->submission, b->o.submissions, b->o.nsubmissions) < 0) {
		fprintf(stderr, "score batch: --submission: %s\n", ks_error_msg());
		return KS_EXIT_USAGE;
	}
	if (b->o.name_from >= 0)
		b->m->name_from = (ks_manifest_name_from)b->o.name_from;
	if (b->o.pull_repo) {
		if (b->m->nteams) {
			fprintf(stderr, "score batch: --pull-requests cannot be used with a manifest that "
				"lists teams\n");
			return KS_EXIT_USAGE;
		}
		ks_free(b->m->pull_repo);
		b->m->pull_repo = ks_strdup(b->o.pull_repo);
	}
	if (b->o.base) {
		if (!b->m->pull_repo) {
			fprintf(stderr, "score batch: --base goes with pull-request mode (--pull-requests or "
				"\"pull_requests\"); name a team's base as its \"base\" in the manifest\n");
			return KS_EXIT_USAGE;
		}
		ks_free(b->m->pull_base);
		b->m->pull_base = ks_strdup(b->o.base);
	}
	if (b->o.status)
		return 0; /* the teams, to look at what their folders say: nothing is scored */
	if (b->m->deadline == KS_MANIFEST_NO_DEADLINE) {
		fprintf(stderr, "score batch: no deadline: set \"deadline\" in the manifest or use --deadline\n");
		return b->o.manifest_path ? KS_EXIT_DATAERR : KS_EXIT_USAGE;
	}
	if (!b->m->submission.n) {
		static const char *const dflt[] = { KS_MANIFEST_DEFAULT_SUBMISSIONS };
		ks_manifest_paths_set(&b->m->submission, dflt, sizeof(dflt) / sizeof(dflt[0]));
	}
	if (!b->m->pull_repo && !b->m->nteams) {
		fprintf(stderr, "score batch: the manifest lists no teams\n");
		return KS_EXIT_DATAERR;
	}
	return 0;
}

/* The subject each pull request's team is named from: that of the commit that is scored (the
 * newest of its own commits at or before the deadline, as batch_team.c picks it), so that a
 * commit pushed after the deadline renames no team. A late pull request (none of its own commits
 * in time), or one whose base cannot be found, keeps its head's. */
static void scored_subjects(const bt_batch *b, ks_repo *r, ks_repo_pull *prs, size_t n)
{
	size_t i, k;
	for (i = 0; i < n; i++) {
		const char *base_ref = b->m->pull_base;
		char base[41], num[32];
		ks_repo_pick pick;
		snprintf(num, sizeof(num), "%lu", prs[i].number);
		for (k = 0; k < b->m->nmap_numbers; k++)
			if (!strcmp(b->m->map_numbers[k], num) && b->m->map_number_overrides &&
			    b->m->map_number_overrides[k].base)
				base_ref = b->m->map_number_overrides[k].base;
		if (ks_repo_base(base, r, prs[i].id, base_ref) == 0 &&
		    ks_repo_pick_commit(&pick, r, prs[i].id, base, b->m->deadline, 0) == 0) {
			if (pick.found && strcmp(pick.chosen.id, prs[i].id))
				prs[i].scored_subject = ks_strdup(pick.chosen.subject);
			ks_repo_pick_clear(&pick);
		}
		ks_error_clear();
	}
}

/* Where a stale folder goes: OUT/.stale/<folder>, or <folder>-<n> when that is taken. */
static char *stale_place(const char *dir, const char *name)
{
	char *p = ks_path_join(dir, name);
	unsigned k;
	for (k = 2; ks_fs_exists(p) && k < 1000; k++) {
		ks_free(p);
		p = ks_asprintf("%s/%s-%u", dir, name, k);
	}
	return p;
}

/* Pull-request mode: a team folder whose batch.json is the result of pull request N while N's
 * team now has another folder (renamed: by a name written in a newer scored commit, a map of the
 * manifest, --name-from) is stale. It is moved into OUT/.stale/ (hidden: out of the
 * leaderboard, the site and --status's counts), never deleted. A shard leaves folders alone. */
static void retire_stale(bt_batch *b)
{
	char **names = NULL, *stale = NULL;
	size_t n = 0, i, k;
	if (!b->m->pull_repo || b->o.sharded || ks_fs_list(&names, &n, b->o.out, 1) < 0) {
		ks_error_clear();
		return;
	}
	for (i = 0; i < n; i++) {
		char *dir = ks_path_join(b->o.out, names[i]), *rec = ks_path_join(dir, "batch.json");
		cJSON *j = ks_fs_is_dir(dir) ? ks_leaderboard_read_json(rec, BT_MAX_RECORD_BYTES) : NULL;
		const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "pull_request");
		const ks_manifest_team *now = NULL;
		int current = 0;
		for (k = 0; cJSON_IsNumber(pr) && k < b->m->nteams; k++) {
			current |= !strcmp(b->m->teams[k].folder, names[i]);
			if (b->m->teams[k].pull == (unsigned long)pr->valuedouble)
				now = &b->m->teams[k];
		}
		if (now && !current) {
			char *to;
			if (!stale) {
				stale = ks_path_join(b->o.out, ".stale");
				ks_fs_mkdir_p(stale, 0755);
			}
			to = stale_place(stale, names[i]);
			if (rename(dir, to) == 0)
				fprintf(stderr, "score batch: warning: %s held the result of pull request #%lu, "
					"which is now team \"%s\" (folder %s): stale, moved to %s\n", dir,
					now->pull, now->name, now->folder, to);
			else
				fprintf(stderr, "score batch: warning: %s is stale (pull request #%lu is now "
					"team \"%s\") but cannot be moved to %s: %s\n", dir, now->pull, now->name,
					to, strerror(errno));
			ks_free(to);
		}
		cJSON_Delete(j);
		ks_free(rec);
		ks_free(dir);
	}
	ks_free(stale);
	ks_free_strv(names, n);
	ks_error_clear();
}

/* Pull-request mode: fetch the repository and make one team per pull-request head. */
static int pull_teams(bt_batch *b)
{
	bt_repo_slot *s = bt_get_repo(b, b->m->pull_repo);
	ks_repo_pull *prs = NULL;
	size_t n = 0;
	if (s->error) {
		fprintf(stderr, "score batch: error: %s\n", s->error);
		return KS_EXIT_SOME;
	}
	if (s->warning) {
		fprintf(stderr, "score batch: warning: %s\n", s->warning);
		s->warned = 1;  /* once a batch, not on every pull request's line */
	}
	if (ks_repo_pull_requests(&prs, &n, s->repo) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		return KS_EXIT_SOME;
	}
	scored_subjects(b, s->repo, prs, n);
	ks_manifest_add_pull_teams(b->m, prs, n, stderr);
	ks_repo_pulls_free(prs, n);
	if (!b->m->nteams)
		fprintf(stderr, "score batch: warning: %s has no pull requests to score\n",
			ks_repo_display(s->repo));
	return 0;
}

/* The results folder must be absent, empty, or kscore's (outdir.h), before anything is made in it,
 * and then each team folder to be written must be kscore's too. */
static int check_out(const bt_batch *b, int teams)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	char *refs = teams ? NULL : ks_paths_find_refs(b->so.refs);
	const char *in[4] = { b->o.manifest_path, refs, b->so.pipeline.config, NULL };
	size_t i;
	int rc = 0;

	oo.kind = KS_OUTDIR_BATCH;
	oo.inputs = in;
	oo.ninputs = 3;
	if (!teams)
		rc = ks_outdir_check(b->o.out, &oo);
	for (i = 0; teams && rc == 0 && i < b->m->nteams; i++) {
		char *dir = bt_team_dir(b, &b->m->teams[i]);
		bt_team_outdir(b, &oo, in);
		if (team_selected(b, &b->m->teams[i]))
			rc = ks_outdir_check(dir, &oo);
		ks_free(dir);
	}
	ks_free(refs);
	if (rc < 0)
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
	return rc == 0 ? 0 : rc == KS_EINVALID ? KS_EXIT_CANTCREAT : KS_EXIT_IOERR;
}

/* One process per shard: a second run of the same shard would score its teams twice at once. */
static int lock_shard(bt_batch *b)
{
	char name[64], *lock;
	int fd;
	snprintf(name, sizeof(name), ".lock-shard-%u-of-%u", b->o.shard.index, b->o.shard.count);
	lock = ks_path_join(b->o.out, name);
	fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
	ks_free(lock);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		fprintf(stderr, "score batch: error: shard %u/%u of %s is already being scored\n",
			b->o.shard.index, b->o.shard.count, b->o.out);
		if (fd >= 0)
			close(fd);
		return KS_EXIT_IOERR;
	}
	b->shard_lock_fd = fd;
	return 0;
}

static int setup(bt_batch *b)
{
	int rc;
	char *cache_root;

	if ((rc = check_out(b, 0)) != 0)
		return rc;
	cache_root = b->so.cache_dir ? ks_strdup(b->so.cache_dir) : ks_paths_default_cache();
	if (!cache_root)
		cache_root = ks_path_join(b->o.out, ".cache");
	b->cache = cache_root;
	{
		char *repos = ks_path_join(b->cache, "repos");
		rc = ks_fs_mkdir_p(repos, 0755);
		ks_free(repos);
		if (rc < 0) {
			fprintf(stderr, "score batch: error: cannot use the cache %s: %s\n", b->cache,
				ks_error_msg());
			return KS_EXIT_IOERR;
		}
	}
	if (!b->so.no_cache)
		b->compile_cache = ks_strdup(b->cache);
	if (ks_fs_mkdir_p(b->o.out, 0755) < 0) {
		fprintf(stderr, "score batch: error: cannot create %s: %s\n", b->o.out, ks_error_msg());
		return KS_EXIT_IOERR;
	}
	{
		char *lock = ks_path_join(b->o.out, ".lock");
		b->lock_fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
		ks_free(lock);
		if (b->lock_fd < 0) {
			fprintf(stderr, "score batch: error: cannot write in %s: %s\n", b->o.out, strerror(errno));
			return KS_EXIT_IOERR;
		}
		/* shards of one batch write disjoint team folders and share the lock; a whole batch or
		 * a collect excludes every other run */
		if (flock(b->lock_fd, (b->o.sharded ? LOCK_SH : LOCK_EX) | LOCK_NB) < 0) {
			fprintf(stderr, "score batch: error: another score batch is writing %s%s\n", b->o.out,
				b->o.collect ? " (are shards still running?)" : "");
			return KS_EXIT_IOERR;
		}
		if (ks_outdir_mark(b->o.out, KS_OUTDIR_BATCH) < 0) {
			fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
			return KS_EXIT_IOERR;
		}
		if (b->o.sharded && (rc = lock_shard(b)) != 0)
			return rc;
	}
	if (b->o.collect || b->o.slurm)
		return 0;  /* neither scores: no GPU session, no upload */
	if (b->so.upload) {
		/* before any child process starts: this removes the token from the environment */
		curl_global_init(CURL_GLOBAL_ALL);
		b->so.up.log_fn = upload_log;
		if (ks_upload_setup_new(&b->up, &b->so.up, b->so.upload_config, KS_UPLOAD_NEED_ENDPOINT) < 0) {
			fprintf(stderr, "score batch: error: upload configuration: %s\n", ks_error_msg());
			return KS_EXIT_CONFIG;
		}
	}
	b->refs = ks_paths_find_refs(b->so.refs);
	if (!b->refs) {
		fprintf(stderr, "score batch: error: cannot load the reference problems: no reference_tests "
			"folder found (use --refs)\n");
		return KS_EXIT_DATAERR;
	}
	if (b->so.sanitize < 0) /* organizers want the strongest check (sanitize.h) */
		b->so.sanitize = KS_SANITIZE_DEFAULT_BATCH;
	ks_scoreopts_pipeline(&b->so, b->refs, b->compile_cache);
	if ((rc = ks_pipeline_new(&b->pl, &b->so.pipeline)) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		return rc == KS_EUNSUPPORTED ? KS_EXIT_UNAVAILABLE : KS_EXIT_DATAERR;
	}
	if (!b->so.pipeline.compile_only && !ks_pipeline_has_gpu(b->pl))
		fprintf(stderr, "score batch: warning: no usable GPU (%s)\n"
			"score batch: warning: falling back to compile-only mode: kernels are compiled for %s "
			"but not run (exit status 3; --require-gpu makes this an error)\n",
			ks_pipeline_no_gpu_reason(b->pl), b->so.pipeline.compile.arch);
	b->mode = ks_pipeline_has_gpu(b->pl) ? "gpu" : "compile-only";
	if (b->so.upload && !ks_pipeline_has_gpu(b->pl)) /* each team's upload is then "skipped" */
		fprintf(stderr, "score batch: upload: nothing will be sent: compile-only results have no score "
			"(%s); score on a GPU host to upload them (score batch MANIFEST --no-fetch --upload)\n",
			b->so.pipeline.compile_only ? "--compile-only" : "no usable GPU");
	problems_fingerprint(b->problems_sha, ks_pipeline_problems(b->pl));
	return 0;
}

/* --collect: a team without a result is one whose shard did not finish; it is listed as failed. */
static void mark_unfinished(bt_batch *b)
{
	size_t i;
	for (i = 0; i < b->m->nteams; i++) {
		ks_leaderboard_row *r = &b->rows[i];
		if (r->status != KS_LEADERBOARD_NOT_SCORED)
			continue;
		ks_free(r->reason);
		r->status = KS_LEADERBOARD_FAILED;
		r->reason = ks_strdup(ks_leaderboard_status_name(KS_LEADERBOARD_NOT_SCORED));
		b->nfailed++;
	}
}

/* --slurm: fetch here (the login node), then hand the scoring to a job array and the leaderboard
 * to a job that runs after it. */
static int submit_slurm(bt_batch *b)
{
	ks_slurm_options so = KS_SLURM_OPTIONS_INIT;
	ks_slurm_jobs jobs = { 0 };
	char *exe = realpath("/proc/self/exe", NULL), *cwd = getcwd(NULL, 0);
	char *outabs = realpath(b->o.out, NULL), *dir = NULL, *ap = NULL, *cp = NULL;
	char *array = NULL, *collect = NULL;
	size_t i, nunreachable = 0;
	int rc = KS_EXIT_OK;

	for (i = 0; i < b->m->nteams; i++) {
		bt_repo_slot *s = bt_get_repo(b, b->m->teams[i].repo);
		if (s->error && !b->o.quiet)
			fprintf(stderr, "score batch: warning: team %s: %s\n", b->m->teams[i].name, s->error);
		nunreachable += s->error != NULL;
	}
	if (!exe || !cwd || !outabs) {
		fprintf(stderr, "score batch: error: cannot resolve the paths for the Slurm scripts: %s\n",
			strerror(errno));
		rc = KS_EXIT_IOERR;
		goto done;
	}
	so.score_bin = exe;
	so.workdir = cwd;
	so.script_dir = dir = ks_path_join(outabs, "slurm");
	so.batch_args = b->o.job_args;
	so.nbatch_args = b->o.njob_args;
	so.sbatch_opts = b->o.sbatch_opts;
	so.nsbatch_opts = b->o.nsbatch_opts;
	so.shards = b->o.nshards ? b->o.nshards : (unsigned)(b->m->nteams < KS_BATCH_DEFAULT_MAX_SHARDS ? b->m->nteams
											 : KS_BATCH_DEFAULT_MAX_SHARDS);
	if (so.shards == 0)
		so.shards = 1;
	if (so.shards > b->m->nteams && b->m->nteams) {
		fprintf(stderr, "score batch: %u shards for %zu teams: using %zu\n", so.shards, b->m->nteams,
			b->m->nteams);
		so.shards = (unsigned)b->m->nteams;
	}
	so.gpus = ks_scoreopts_slurm_gpus(&b->so);
	if (ks_slurm_scripts(&array, &collect, &so) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		rc = KS_EXIT_USAGE;
		goto done;
	}
	if (b->o.dry_run) {
		printf("%s\n%s", array, collect);
		fprintf(stderr, "score batch: --dry-run: the scripts above were not submitted (%u shards, "
			"%zu teams)\n", so.shards, b->m->nteams);
		goto done;
	}
	ap = ks_path_join(dir, "shards.sh");
	cp = ks_path_join(dir, "collect.sh");
	if (ks_fs_mkdir_p(dir, 0755) < 0 || ks_fs_write_atomic(ap, array, strlen(array)) < 0 ||
	    ks_fs_write_atomic(cp, collect, strlen(collect)) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		rc = KS_EXIT_IOERR;
		goto done;
	}
	if (ks_slurm_submit(&jobs, ap, cp) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		if (jobs.array_id)
			fprintf(stderr, "score batch: the job array %s was submitted; cancel it with "
				"scancel %s\n", jobs.array_id, jobs.array_id);
		rc = KS_EXIT_UNAVAILABLE;
		goto done;
	}
	{
		cJSON *j = cJSON_CreateObject();
		char ts[32], *jp = ks_path_join(dir, "jobs.json");
		cJSON_AddStringToObject(j, "schema", "kscore.slurm-jobs/1");
		cJSON_AddStringToObject(j, "array_job", jobs.array_id);
		cJSON_AddStringToObject(j, "collect_job", jobs.collect_id);
		cJSON_AddNumberToObject(j, "shards", so.shards);
		cJSON_AddNumberToObject(j, "teams", (double)b->m->nteams);
		ks_manifest_format_time(ts, (int64_t)time(NULL));
		cJSON_AddStringToObject(j, "submitted_at", ts);
		if (ks_json_write_file(jp, j, 1) < 0)
			fprintf(stderr, "score batch: warning: %s\n", ks_error_msg());
		if (b->o.json) {
			char *txt = ks_json_print(j, 1);
			printf("%s\n", txt ? txt : "null");
			ks_free(txt);
		}
		cJSON_Delete(j);
		ks_free(jp);
	}
	if (!b->o.json)
		printf("submitted job array %s (%u shards, %zu teams) and collect job %s (after the array)\n"
		       "follow:      squeue -j %s,%s\n"
		       "shard logs:  %s/shard-<I>.log\n"
		       "leaderboard: %s/leaderboard.csv once job %s has ended (re-run: score batch ... "
		       "--collect)\n", jobs.array_id, so.shards, b->m->nteams, jobs.collect_id,
		       jobs.array_id, jobs.collect_id, dir, outabs, jobs.collect_id);
	if (nunreachable)
		rc = KS_EXIT_SOME;
done:
	ks_slurm_jobs_clear(&jobs);
	ks_free(array);
	ks_free(collect);
	ks_free(ap);
	ks_free(cp);
	ks_free(dir);
	free(exe);  /* from realpath/getcwd: libc's allocator */
	free(cwd);
	free(outabs);
	return rc;
}

/* Over the teams of this run that have a result: the answers that could not be scored for their
 * language, and how many teams hold some (*nteams) of how many with a result (*nresults). */
static void unscored_total(const bt_batch *b, ks_unscored *all, size_t *nteams, size_t *nresults)
{
	size_t i;
	memset(all, 0, sizeof(*all));
	*nteams = *nresults = 0;
	for (i = 0; b->rows && i < b->m->nteams; i++) {
		const ks_leaderboard_row *r = &b->rows[i];
		if (!r->has_result || (!b->o.collect && !team_selected(b, &b->m->teams[i])))
			continue;
		(*nresults)++;
		*nteams += r->unscored.unscored > 0;
		ks_unscored_merge(all, &r->unscored);
	}
}

/* The batch's last word on them: a team of answers nobody could score looks like a team of zeros
 * on the leaderboard, so it is said even with -q. */
static void print_unscored(const bt_batch *b)
{
	ks_unscored all;
	size_t nteams, nresults;
	char *langs;
	unscored_total(b, &all, &nteams, &nresults);
	if (!nteams)
		return;
	langs = ks_unscored_languages(&all);
	fprintf(stderr, "score batch: warning: %zu of %zu teams have answers this run could not score "
		"(%zu answer%s: %s): they count as failed kernels, and each team's line and the "
		"leaderboard say how many\n", nteams, nresults, all.unscored, all.unscored == 1 ? "" : "s",
		langs);
	ks_free(langs);
}

/* The --json report: kscore.batch-report/1. */
static void print_report(const bt_batch *b, cJSON *teams, int rc)
{
	cJSON *root = cJSON_CreateObject();
	char *s, ts[32];
	ks_unscored all;
	size_t nteams, nresults;
	cJSON_AddStringToObject(root, "schema", "kscore.batch-report/1");
	cJSON_AddStringToObject(root, "scorer", "kscore " KS_VERSION);
	if (b->mode)
		cJSON_AddStringToObject(root, "mode", b->mode);
	else
		cJSON_AddNullToObject(root, "mode");
	if (b->m && b->m->deadline != KS_MANIFEST_NO_DEADLINE) {
		ks_manifest_format_time(ts, b->m->deadline);
		cJSON_AddStringToObject(root, "deadline", ts);
	}
	cJSON_AddStringToObject(root, "out", b->o.out);
	cJSON_AddItemToObject(root, "teams", teams);
	cJSON_AddNumberToObject(root, "scored", (double)b->nscored);
	cJSON_AddNumberToObject(root, "already_scored", (double)b->nskipped);
	cJSON_AddNumberToObject(root, "late", (double)b->nlate);
	cJSON_AddNumberToObject(root, "failed", (double)b->nfailed);
	unscored_total(b, &all, &nteams, &nresults);
	cJSON_AddNumberToObject(root, "unscored_teams", (double)nteams);
	cJSON_AddNumberToObject(root, "unscored_answers", (double)all.unscored);
	cJSON_AddNumberToObject(root, "exit_status", rc);
	s = ks_json_print(root, 1);
	printf("%s\n", s ? s : "null");
	ks_free(s);
	cJSON_Delete(root);
}

static void print_table(const bt_batch *b)
{
	ks_leaderboard_row *sorted = ks_calloc(b->m->nteams + 1, sizeof(*sorted));
	memcpy(sorted, b->rows, b->m->nteams * sizeof(*sorted));
	ks_leaderboard_rank(sorted, b->m->nteams);
	ks_leaderboard_print(stdout, sorted, b->m->nteams);
	printf("leaderboard: %s/leaderboard.json, %s/leaderboard.csv\n", b->o.out, b->o.out);
	ks_free(sorted);
}

/* Scores the selected teams (or, with --collect, only reads them) and writes the leaderboard. */
static int run_teams(bt_batch *b)
{
	size_t i;
	int rc;
	if (b->o.sharded) {
		const char **folders = ks_calloc(b->m->nteams + 1, sizeof(*folders));
		for (i = 0; i < b->m->nteams; i++)
			folders[i] = b->m->teams[i].folder;
		b->in_shard = ks_calloc(b->m->nteams + 1, sizeof(*b->in_shard));
		ks_shard_select(b->in_shard, folders, b->m->nteams, b->o.shard);
		ks_free(folders);
	}
	if (!b->o.collect) {
		/* first: an old folder put back is then checked like the others */
		remove_leftovers(b);
		if ((rc = check_out(b, 1)) != 0)
			return rc;
	}
	b->rows = ks_calloc(b->m->nteams + 1, sizeof(*b->rows));
	for (i = 0; i < b->m->nteams; i++) {
		ks_leaderboard_row_load(&b->rows[i], b->o.out, b->m->teams[i].name, b->m->teams[i].folder);
		b->ntodo += !b->o.collect && team_selected(b, &b->m->teams[i]);
	}
	if (b->o.collect)
		mark_unfinished(b);
	if (b->o.collect) {
		if (bt_write_leaderboard(b) < 0) {
			fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
			return KS_EXIT_IOERR;
		}
		return 0;
	}
	/* teams are fetched here and queued, a few ahead of the lanes, into the session's one queue;
	 * each is written as soon as it is scored */
	b->ahead = 4 + 2 * ks_pipeline_lanes(b->pl);
	bt_status_start(b);
	for (i = 0; i < b->m->nteams; i++) {
		int stop;
		if (!team_selected(b, &b->m->teams[i]))
			continue;
		rc = bt_process_team(b, i);
		pthread_mutex_lock(&b->mu);
		if (rc < 0 && !b->fatal)
			b->fatal = ks_strdup(ks_error_msg());
		stop = b->fatal != NULL;
		pthread_mutex_unlock(&b->mu);
		bt_drain_uploads(b);
		if (stop)
			break;
	}
	ks_pipeline_end_input(b->pl);
	ks_pipeline_wait(b->pl);
	bt_drain_uploads(b);
	bt_status_stop(b, b->fatal ? "failed" : "finished");
	if (b->fatal) {
		bt_progress_clear(b);
		fprintf(stderr, "score batch: error: %s\n", b->fatal);
		return KS_EXIT_IOERR;
	}
	if (!b->o.sharded && bt_write_leaderboard(b) < 0) {
		fprintf(stderr, "score batch: error: %s\n", ks_error_msg());
		return KS_EXIT_IOERR;
	}
	return 0;
}

int ks_batch_run(const ks_batch_options *o)
{
	bt_batch b;
	size_t i;
	int rc;

	memset(&b, 0, sizeof(b));
	b.o = *o;
	b.so = o->so;
	b.lock_fd = b.shard_lock_fd = -1;
	pthread_mutex_init(&b.mu, NULL);
	pthread_cond_init(&b.cv, NULL);
	b.jteams = cJSON_CreateArray();
	if (b.o.collect)
		b.o.no_fetch = 1;  /* the leaderboard of what the shards scored, from the cache as it is */
	if ((rc = load_teams(&b)) != 0)
		goto done;
	if (b.o.status) {
		/* reads the results folder as it is: no lock, no mark, no fetch, nothing written */
		rc = bt_status_report(&b);
		goto done;
	}
	/* a manifest's teams are known now; pull requests only once their repository is fetched */
	if (!b.m->pull_repo && (rc = check_only_team(&b)) != 0)
		goto done;
	if ((rc = setup(&b)) != 0)
		goto done;
	if (b.m->pull_repo && ((rc = pull_teams(&b)) != 0 || (rc = check_only_team(&b)) != 0))
		goto done;
	retire_stale(&b);
	if (b.o.slurm) {
		rc = submit_slurm(&b);
		goto done;
	}
	if ((rc = run_teams(&b)) != 0)
		goto done;
	/* the static site (web_export/) is a view of the results: failing to write it is a warning;
	 * shards leave it to --collect, as the leaderboard */
	if (!b.o.sharded && !b.o.no_site && b.o.write_site &&
	    b.o.write_site(b.o.out, b.cache, stderr) < 0)
		fprintf(stderr, "score batch: warning: site not written: %s\n", ks_error_msg());
	if (!b.o.collect && !ks_pipeline_has_gpu(b.pl) && !b.so.pipeline.compile_only)
		rc = KS_EXIT_NO_GPU;
	else if (b.nfailed)
		rc = KS_EXIT_SOME;
	else
		rc = KS_EXIT_OK;
	if (b.o.quiet)
		;  /* -q: only errors (and each team that failed, printed as it failed) */
	else if (b.o.collect)
		fprintf(stderr, "score batch: collected %zu teams, %zu without a result\n", b.m->nteams,
			b.nfailed);
	else
		fprintf(stderr, "score batch: %s%zu scored, %zu already scored, %zu late, %zu failed\n",
			b.o.sharded ? "this shard: " : "", b.nscored, b.nskipped, b.nlate, b.nfailed);
	print_unscored(&b);
	if (b.o.sharded && !b.o.quiet)
		fprintf(stderr, "score batch: shard %u/%u done; `score batch ... --collect` builds the "
			"leaderboard once every shard has ended\n", b.o.shard.index, b.o.shard.count);
	if (!b.o.json && !b.o.quiet && !b.o.sharded)
		print_table(&b);
done:
	if (b.o.json && !b.o.slurm && !b.o.status) {
		print_report(&b, b.jteams, rc);
		b.jteams = NULL;
	}
	cJSON_Delete(b.jteams);
	for (i = 0; b.rows && i < b.m->nteams; i++)
		ks_leaderboard_row_clear(&b.rows[i]);
	ks_free(b.rows);
	ks_pipeline_free(b.pl); /* waits for teams still queued (after an early error) */
	bt_slots_free(&b);
	ks_free(b.fatal);
	ks_free(b.status_path);
	bt_uploads_free(&b);
	pthread_mutex_destroy(&b.mu);
	pthread_cond_destroy(&b.cv);
	ks_manifest_free(b.m);
	ks_free(b.cache);
	ks_free(b.compile_cache);
	ks_free(b.refs);
	if (b.lock_fd >= 0)
		close(b.lock_fd);
	if (b.shard_lock_fd >= 0)
		close(b.shard_lock_fd);
	ks_free(b.in_shard);
	if (b.so.upload) {
		ks_upload_setup_free(b.up);
		curl_global_cleanup();
	}
	return rc;
}
