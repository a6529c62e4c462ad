/* cmd_batch: `score batch` (cmd.h): options into a ks_batch_options, then the run (batch.h). */
#include "batch/batch.h"
#include "web_export/export.h"
#include "cli/cli.h"
#include "batch/manifest.h"
#include "cli/cmd.h"
#include "util/errors.h"
#include "util/mem.h"
#include "session/scoreopts.h"
#include "batch/shard.h"
#include "batch/slurm.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f, "Usage: score batch [OPTIONS] MANIFEST\n"
	      "       score batch [OPTIONS] --pull-requests REPO --deadline TIME [--submission PATH] [MANIFEST]\n"
	      "Score every team of a hackathon from its git repository: fetch it into a cache, take the\n"
	      "newest commit at or before the deadline, read the submission from that commit (no\n"
	      "checkout), score it into OUT/<team>/ and rank the teams in OUT/leaderboard.json and .csv.\n"
	      "A batch that stops resumes where it stopped; teams already scored are skipped.\n"
	      "The manifest format is in docs/batch.md.\n"
	      "\n"
	      "Batch options:\n"
	      "  -o, --out DIR             results folder (default: %s)\n"
	      "      --pull-requests REPO  score every refs/pull/N/head of REPO, one team each: only the\n"
	      "                            pull request's own commits count (not the default branch's)\n"
	      "      --base BRANCH         the branch the pull requests were made against (overrides\n"
	      "                            pull_requests.base; default: the default branch, else main,\n"
	      "                            else master)\n"
	      "      --name-from RULE      name unmapped pull requests by subject (the whole subject),\n"
	      "                            author or number (pr-N); default: a team name written in the\n"
	      "                            head subject (\"[Team X]\", \"team: X\", ...), else pr-N\n"
	      "      --deadline TIME       the deadline with its zone, e.g. 2025-08-24T23:59:59+08:00\n"
	      "                            or 2025-08-24T15:59:59Z (overrides the manifest)\n"
	      "      --submission PATH     path or pattern of the submission in each repository\n"
	      "                            (overrides the manifest's default; repeatable: tried in order;\n"
	      "                            \"*\", \"**\", \"{a,b}\"; \"<N>\" picks the highest N; default:\n"
	      "                            **/reflexion_oneshot_tritonbench_<N>.json, then the same\n"
	      "                            with iter*_ before <N>)\n"
	      "      --team NAME           only this team (by name or folder); the leaderboard keeps all\n"
	      "      --rescore             score every team again, even those already scored\n"
	      "      --no-fetch            use the cached repositories as they are (a frozen batch)\n"
	      "      --json                print a JSON summary on stdout instead of the table\n"
	      "  -q, --quiet               only errors: teams that failed, warnings; no table\n"
	      "      --shard I/N           score only share I (0..N-1) of the teams; no leaderboard\n"
	      "      --collect             score nothing: build the leaderboard from the team folders\n"
	      "                            present (teams without one are listed as failed)\n"
	      "      --slurm               fetch here, then submit a Slurm job array of shards and a\n"
	      "                            collect job that runs after it (afterany)\n"
	      "      --shards N            the array's size (default: one per team, at most %d)\n"
	      "      --slurm-option OPT    an sbatch option for both jobs: partition, account, time\n"
	      "                            limit (repeatable)\n"
	      "      --dry-run             with --slurm: print the job scripts, submit nothing\n"
	      "      --status              how a batch (or its shards) is going, from the results folder:\n"
	      "                            teams scored, late, failed and to do, kernels per minute, the\n"
	      "                            time left, each shard running, finished or gone; takes no\n"
	      "                            lock and writes nothing\n"
	      "      --color[=WHEN]        never, always or auto (default; honours NO_COLOR)\n"
	      "      --no-site             do not write the static site OUT/site/ (score export)\n"
	      "  -h, --help                show this help and exit\n"
	      "\n"
	      "Scoring and upload options (as for score):\n",
	      KS_BATCH_DEFAULT_OUT, KS_BATCH_DEFAULT_MAX_SHARDS);
	ks_scoreopts_usage(f);
	fputs("\n"
	      "Repositories are cached in CACHE/repos/ (CACHE: --cache-dir, else $XDG_CACHE_HOME/kscore).\n"
	      "\n"
	      "Exit status:\n"
	      "   0  every team scored, already scored or late  1  some teams could not be scored (recorded)\n"
	      "   3  no GPU: compile-only results            64  usage error\n"
	      "  65  the manifest is invalid                  69  --require-gpu and no usable GPU\n"
	      "  73  OUT or a team folder exists and is not kscore's, or is, holds or lies inside an\n"
	      "      input: refused, nothing written\n"
	      "  74  results or cache not writable            78  the upload configuration is unusable\n"
	      "  With --slurm: 69 when sbatch is missing or refuses a job.\n", f);
}

/* The combinations of --shard, --collect and --slurm that make sense. */
static int check_modes(const ks_batch_options *o)
{
	const char *bad = NULL;
	if (o->sharded + o->collect + o->slurm + o->status > 1)
		bad = "--shard, --collect, --slurm and --status exclude each other";
	else if (o->dry_run && !o->slurm)
		bad = "--dry-run goes with --slurm";
	else if ((o->nshards || o->nsbatch_opts) && !o->slurm)
		bad = "--shards and --slurm-option go with --slurm";
	else if (o->slurm && o->only_team)
		bad = "--team cannot be used with --slurm";
	if (!bad)
		return 0;
	fprintf(stderr, "score batch: %s\nTry 'score batch --help' for more information.\n", bad);
	return KS_EXIT_USAGE;
}

static int is_own_arg(char *const *own, size_t n, const char *arg)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (own[i] == arg)
			return 1;
	return 0;
}

int ks_batch_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "out", required_argument, 0, 'o' },
		{ "pull-requests", required_argument, 0, 1 },
		{ "deadline", required_argument, 0, 2 },
		{ "submission", required_argument, 0, 3 },
		{ "team", required_argument, 0, 4 },
		{ "rescore", no_argument, 0, 5 },
		{ "no-fetch", no_argument, 0, 6 },
		{ "json", no_argument, 0, 7 },
		{ "quiet", no_argument, 0, 'q' },
		{ "color", optional_argument, 0, 8 },
		{ "shard", required_argument, 0, 9 },
		{ "collect", no_argument, 0, 10 },
		{ "slurm", no_argument, 0, 11 },
		{ "slurm-option", required_argument, 0, 12 },
		{ "shards", required_argument, 0, 13 },
		{ "dry-run", no_argument, 0, 14 },
		{ "name-from", required_argument, 0, 15 },
		{ "no-site", no_argument, 0, 16 },
		{ "base", required_argument, 0, 17 },
		{ "status", no_argument, 0, 18 },
		{ "help", no_argument, 0, 'h' },
		KS_SCOREOPTS_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	ks_batch_options o;
	/* getopt_long permutes argv: keep the order as given for the Slurm scripts */
	char **args = ks_calloc((size_t)argc + 1, sizeof(*args));
	char **own = ks_calloc((size_t)argc + 1, sizeof(*own));   /* --slurm's own argv elements */
	const char **sbatch = ks_calloc((size_t)argc + 1, sizeof(*sbatch));
	const char **job = ks_calloc((size_t)argc + 1, sizeof(*job));
	const char **subs = ks_calloc((size_t)argc + 1, sizeof(*subs));
	const char *nc = getenv("NO_COLOR");
	size_t nown = 0, nsbatch = 0, njob = 0, nsubs = 0;
	int c, i, color = -1, rc = KS_EXIT_OK;

	memset(&o, 0, sizeof(o));
	ks_scoreopts_init(&o.so);
	o.out = KS_BATCH_DEFAULT_OUT;
	ks_cli_join_optional(&argc, argv, "--baseline", "reference");
	o.name_from = -1;
	memcpy(args, argv, (size_t)argc * sizeof(*argv));
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh" KS_SCOREOPTS_SHORTOPTS, lopts, NULL)) != -1) {
		int r;
		if (c >= 11 && c <= 14) {
			/* --slurm's own options never reach the jobs: remember their argv elements */
			own[nown++] = argv[optind - 1];
			if (optarg && optarg == argv[optind - 1] && optind >= 2)
				own[nown++] = argv[optind - 2];
		}
		switch (c) {
		case 'o':
			o.out = optarg;
			continue;
		case 1:
			o.pull_repo = optarg;
			continue;
		case 2:
			o.deadline = optarg;
			continue;
		case 3:
			subs[nsubs++] = optarg;
			continue;
		case 4:
			o.only_team = optarg;
			continue;
		case 5:
			o.rescore = 1;
			continue;
		case 6:
			o.no_fetch = 1;
			continue;
		case 7:
			o.json = 1;
			continue;
		case 'q':
			o.quiet = 1;
			continue;
		case 8:
			if (!optarg || !strcmp(optarg, "always"))
				color = 1;
			else if (!strcmp(optarg, "never"))
				color = 0;
			else if (!strcmp(optarg, "auto"))
				color = -1;
			else {
				fprintf(stderr, "score batch: --color takes never, always or auto\n");
				rc = KS_EXIT_USAGE;
				goto done;
			}
			continue;
		case 9:
			if (ks_shard_parse(&o.shard, optarg) < 0) {
				fprintf(stderr, "score batch: %s\n", ks_error_msg());
				rc = KS_EXIT_USAGE;
				goto done;
			}
			o.sharded = 1;
			continue;
		case 10:
			o.collect = 1;
			continue;
		case 11:
			o.slurm = 1;
			continue;
		case 12:
			if (ks_slurm_option_check(optarg) < 0) {
				fprintf(stderr, "score batch: %s\n", ks_error_msg());
				rc = KS_EXIT_USAGE;
				goto done;
			}
			sbatch[nsbatch++] = optarg;
			continue;
		case 13: {
			ks_shard tmp;
			char spec[32];
			snprintf(spec, sizeof(spec), "0/%.20s", optarg);
			if (ks_shard_parse(&tmp, spec) < 0) {
				fprintf(stderr, "score batch: --shards takes a number from 1 to %d\n", KS_SHARD_MAX);
				rc = KS_EXIT_USAGE;
				goto done;
			}
			o.nshards = tmp.count;
			continue;
		}
		case 14:
			o.dry_run = 1;
			continue;
		case 16:
			o.no_site = 1;
			continue;
		case 17:
			if (!*optarg) {
				fprintf(stderr, "score batch: --base takes a branch, tag or commit\n");
				rc = KS_EXIT_USAGE;
				goto done;
			}
			o.base = optarg;
			continue;
		case 18:
			o.status = 1;
			continue;
		case 15: {
			ks_manifest_name_from nf;
			if (ks_manifest_name_from_parse(&nf, optarg) < 0) {
				fprintf(stderr, "score batch: --name-from: %s\n", ks_error_msg());
				rc = KS_EXIT_USAGE;
				goto done;
			}
			o.name_from = (int)nf;
			continue;
		}
		case 'h':
			usage(stdout);
			rc = 0;
			goto done;
		default:
			break;
		}
		r = ks_scoreopts_parse(&o.so, c, optarg);
		if (r < 0) {
			fprintf(stderr, "score batch: %s\n", ks_error_msg());
			rc = KS_EXIT_USAGE;
			goto done;
		}
		if (r == 0) {
			fprintf(stderr, "Try 'score batch --help' for more information.\n");
			rc = KS_EXIT_USAGE;
			goto done;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "score batch: one MANIFEST at most\n");
		rc = KS_EXIT_USAGE;
		goto done;
	}
	o.manifest_path = optind < argc ? argv[optind] : NULL;
	if (!o.manifest_path && !o.pull_repo) {
		fprintf(stderr, "score batch: no MANIFEST given (or --pull-requests REPO)\n"
			"Try 'score batch --help' for more information.\n");
		rc = KS_EXIT_USAGE;
		goto done;
	}
	if (ks_scoreopts_finish(&o.so) < 0) {
		fprintf(stderr, "score batch: %s\n", ks_error_msg());
		rc = KS_EXIT_USAGE;
		goto done;
	}
	o.submissions = subs;
	o.nsubmissions = nsubs;
	o.sbatch_opts = sbatch;
	o.nsbatch_opts = nsbatch;
	for (i = 1; i < argc; i++)
		if (!is_own_arg(own, nown, args[i]))
			job[njob++] = args[i];
	o.job_args = job;
	o.njob_args = njob;
	o.progress = isatty(2) && !o.json && !o.quiet;
	o.color = color == -1 ? isatty(2) && !(nc && *nc) : color;
	if ((rc = check_modes(&o)) != 0)
		goto done;
	o.write_site = ks_export_batch_site;
	rc = ks_batch_run(&o);
done:
	ks_free(args);
	ks_free(own);
	ks_free(sbatch);
	ks_free(job);
	ks_free(subs);
	return rc;
}
