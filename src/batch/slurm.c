/* slurm: see src/batch/slurm.h. */
#include "batch/slurm.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/errors.h"
#include "util/mem.h"
#include "util/sandbox.h"
#include "batch/shard.h"

extern char **environ;

#define SCRIPT_MAX (1u << 20)
#define SBATCH_OUT_MAX 4096
#define SBATCH_TIMEOUT_S 120.0

int ks_slurm_option_check(const char *opt)
{
	const unsigned char *p;
	if (!opt || opt[0] != '-')
		return ks_error_set(KS_EINVALID, "--slurm-option \"%s\": an sbatch option starts with '-' "
				    "(e.g. --partition=gpu)", opt ? opt : "");
	for (p = (const unsigned char *)opt; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return ks_error_set(KS_EINVALID, "--slurm-option: control character at byte %zu",
					    (size_t)(p - (const unsigned char *)opt));
	return 0;
}

/* A script being written: a capped buffer and whether anything did not fit. */
typedef struct {
	ks_buf b;
	int over;
} script;

static void put(script *sc, const char *s)
{
	if (ks_buf_puts(&sc->b, s) < 0)
		sc->over = 1;
}

static void putf(script *sc, const char *fmt, ...) KS_PRINTF(2, 3);
static void putf(script *sc, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	put(sc, tmp);
}

/* Appends s quoted for the POSIX shell: inside single quotes everything is literal but the quote
 * itself, which is closed, escaped and reopened. */
static void put_quoted(script *sc, const char *s)
{
	put(sc, "'");
	while (*s) {
		size_t n = strcspn(s, "'");
		if (n && ks_buf_put(&sc->b, s, n) < 0)
			sc->over = 1;
		s += n;
		if (*s == '\'') {
			put(sc, "'\\''");
			s++;
		}
	}
	put(sc, "'");
}

static void put_header(script *sc, const ks_slurm_options *o, const char *name, const char *log)
{
	put(sc, "#!/bin/sh\n#SBATCH --job-name=");
	put(sc, o->job_name);
	put(sc, "-");
	put(sc, name);
	put(sc, "\n#SBATCH --chdir=");
	put(sc, o->workdir);
	put(sc, "\n#SBATCH --output=");
	put(sc, o->script_dir);
	put(sc, "/");
	put(sc, log);
	put(sc, "\n");
}

static void put_user_opts(script *sc, const ks_slurm_options *o)
{
	size_t i;
	for (i = 0; i < o->nsbatch_opts; i++) {
		put(sc, "#SBATCH ");
		put(sc, o->sbatch_opts[i]);
		put(sc, "\n");
	}
}

static void put_command(script *sc, const ks_slurm_options *o, const char *const *extra, size_t nextra)
{
	size_t i;
	put(sc, "exec ");
	put_quoted(sc, o->score_bin);
	put(sc, " batch");
	for (i = 0; i < o->nbatch_args; i++) {
		put(sc, " ");
		put_quoted(sc, o->batch_args[i]);
	}
	for (i = 0; i < nextra; i++) {
		put(sc, " ");
		put(sc, extra[i]);  /* our own words, some with shell expansions */
	}
	put(sc, "\n");
}

static int check_paths(const ks_slurm_options *o)
{
	const char *p[3] = { o->score_bin, o->workdir, o->script_dir };
	size_t i;
	for (i = 0; i < 3; i++) {
		const unsigned char *c;
		if (!p[i] || p[i][0] != '/')
			return ks_error_set(KS_EINVALID, "Slurm scripts need absolute paths");
		/* an #SBATCH line ends at a newline and sbatch splits at spaces: refuse what it would
		 * misread rather than write a script that runs somewhere else */
		for (c = (const unsigned char *)p[i]; *c; c++)
			if (*c < 0x20 || *c == 0x7f || (i && *c == ' '))
				return ks_error_set(KS_EINVALID, "path \"%s\" cannot be written into a Slurm "
						    "script (spaces or control characters)", p[i]);
	}
	return 0;
}

int ks_slurm_scripts(char **array_script, char **collect_script, const ks_slurm_options *o)
{
	script a = { KS_BUF_INIT(SCRIPT_MAX), 0 }, c = { KS_BUF_INIT(SCRIPT_MAX), 0 };
	char shard_arg[64];
	const char *shard_extra[3] = { "--no-fetch", "--shard", shard_arg };
	const char *collect_extra[2] = { "--no-fetch", "--collect" };
	size_t i;
	int rc;

	*array_script = *collect_script = NULL;
	if (o->shards < 1 || o->shards > KS_SHARD_MAX)
		return ks_error_set(KS_EINVALID, "--shards must be 1 to %d", KS_SHARD_MAX);
	if ((rc = check_paths(o)) < 0)
		return rc;
	for (i = 0; i < o->nsbatch_opts; i++)
		if ((rc = ks_slurm_option_check(o->sbatch_opts[i])) < 0)
			return rc;

	put_header(&a, o, "shard", "shard-%a.log");
	putf(&a, "#SBATCH --array=0-%u\n", o->shards - 1);
	if (o->gpus > 0)
		putf(&a, "#SBATCH --gres=gpu:%d\n", o->gpus);
	else if (o->gpus < 0)
		put(&a, "#SBATCH --exclusive\n#SBATCH --nodes=1\n");
	put_user_opts(&a, o);
	putf(&a, "# Written by score batch --slurm: array task I of %u scores shard I/%u of the teams\n"
	     "# (docs/batch.md, \"A cluster through Slurm\").\n", o->shards, o->shards);
	snprintf(shard_arg, sizeof(shard_arg), "\"$SLURM_ARRAY_TASK_ID/%u\"", o->shards);
	put_command(&a, o, shard_extra, 3);

	put_header(&c, o, "collect", "collect.log");
	put_user_opts(&c, o);
	put(&c, "# Written by score batch --slurm: runs once every shard has ended (afterany) and builds\n"
	    "# the leaderboard from the team folders present.\n");
	put_command(&c, o, collect_extra, 2);

	if (a.over || c.over) {
		ks_buf_free(&a.b);
		ks_buf_free(&c.b);
		return ks_error_set(KS_ELIMIT, "the Slurm scripts would exceed %u bytes", SCRIPT_MAX);
	}
	*array_script = ks_buf_take(&a.b, NULL);
	*collect_script = ks_buf_take(&c.b, NULL);
	return 0;
}

static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH"), *p;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len) {
			char *cand = ks_asprintf("%.*s/%s", (int)len, p, name);
			if (access(cand, X_OK) == 0)
				return cand;
			ks_free(cand);
		}
		p += len + (end != NULL);
	}
	return NULL;
}

/* Runs sbatch --parsable [extra] script and returns the job id it printed ("id" or "id;cluster"). */
static int sbatch(char **id, const char *bin, const char *dependency, const char *path)
{
	const char *argv[5];
	ks_spawn_options so;
	ks_spawn_result res;
	size_t n = 0, len;
	char *dep = NULL;
	int rc = 0;

	memset(&so, 0, sizeof(so));
	memset(&res, 0, sizeof(res));
	argv[n++] = bin;
	argv[n++] = "--parsable";
	if (dependency)
		argv[n++] = dep = ks_asprintf("--dependency=afterany:%s", dependency);
	argv[n++] = path;
	argv[n] = NULL;
	so.argv = argv;
	so.envp = (const char *const *)environ;  /* sbatch needs SLURM_CONF and the user's settings */
	so.max_stdout = so.max_stderr = SBATCH_OUT_MAX;
	so.timeout_s = SBATCH_TIMEOUT_S;
	so.limits = (ks_sandbox_limits)KS_SANDBOX_LIMITS_INIT;
	so.limits.file_size_mb = 16;
	so.limits.max_files = 0;
	if ((rc = ks_spawn_run(&res, &so)) < 0)
		goto done;
	if (!res.exited || res.exit_code != 0) {
		len = res.err_len;
		while (len && (res.err[len - 1] == '\n' || res.err[len - 1] == '\r'))
			len--;
		rc = ks_error_set(KS_ERROR, "sbatch %s: %s%.*s", path, res.timed_out ? "timed out " : "",
				  (int)len, res.err ? res.err : "");
		goto done;
	}
	len = strcspn(res.out, ";\r\n");
	if (len == 0 || len > 64 || strspn(res.out, "0123456789_") != len) {
		rc = ks_error_set(KS_ERROR, "sbatch %s printed no job id (\"%.64s\")", path, res.out);
		goto done;
	}
	*id = ks_strndup(res.out, len);
done:
	ks_spawn_result_clear(&res);
	ks_free(dep);
	return rc;
}

int ks_slurm_submit(ks_slurm_jobs *out, const char *array_path, const char *collect_path)
{
	char *bin = find_in_path("sbatch");
	int rc;
	memset(out, 0, sizeof(*out));
	if (!bin)
		return ks_error_set(KS_EUNSUPPORTED, "sbatch not found in PATH (is this a Slurm login node?)");
	if ((rc = sbatch(&out->array_id, bin, NULL, array_path)) == 0)
		rc = sbatch(&out->collect_id, bin, out->array_id, collect_path);
	ks_free(bin);
	return rc;
}

void ks_slurm_jobs_clear(ks_slurm_jobs *jobs)
{
	ks_free(jobs->array_id);
	ks_free(jobs->collect_id);
	memset(jobs, 0, sizeof(*jobs));
}
