/* score upload: sends scored result folders to the leaderboard, or the uploads kept in the spool
 * (src/cli/cmd.h, docs/upload.md). The work is upload.c's; this file is options and output. */
#include "cli/cli.h"
#include "cli/cmd.h"
#include "util/errors.h"
#include "util/mem.h"
#include "upload/upload_setup.h"

#include <cJSON.h>
#include <curl/curl.h>

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "score upload"

static void cli_log(const char *line, void *payload)
{
	(void)payload;
	fprintf(stderr, PROG ": %s\n", line);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: score upload [OPTIONS] RESULT_DIR...\n"
	      "       score upload --pending [OPTIONS]\n"
	      "Uploads scored result folders (their score.json) to the leaderboard endpoint.\n"
	      "A failed upload is kept in the spool; --pending sends the kept ones.\n"
	      "\n"
	      "  --endpoint URL         where to upload (https; http only for loopback hosts)\n"
	      "  --upload-mode MODE     native (the kscore.upload/1 payload) or gradio (a Gradio\n"
	      "                         space); --mode is the same\n"
	      "  --upload-config FILE   upload config (JSON; default scoring/upload.json);\n"
	      "                         --config is the same\n"
	      "  --token-file FILE      read the bearer token from FILE's first line\n"
	      "  --token-env NAME       read it from $NAME instead (default %s)\n"
	      "  --ca-bundle FILE       trust the CAs in FILE (PEM) instead of the system's\n"
	      "  --team NAME            upload under this team name instead of the record's\n"
	      "  --spool DIR            the spool folder (default $XDG_STATE_HOME/kscore/spool)\n"
	      "  --retries N            retries after the first attempt (0-%d, default %d)\n"
	      "  --timeout SEC          limit of each HTTP request (default %g)\n"
	      "  --connect-timeout SEC  limit of each connection attempt (default %g)\n"
	      "  --pending              send the uploads kept in the spool\n"
	      "  --json                 print a JSON summary on stdout\n"
	      "  -h, --help             show this help\n"
	      "\n"
	      "The token is never accepted on the command line. Exit status: 0 all uploaded (or\n"
	      "already uploaded), 1 some failed and were kept in the spool, 64 usage error,\n"
	      "65 a result folder unreadable or invalid, 78 configuration error.\n",
	      KS_UPLOAD_DEFAULT_TOKEN_ENV, KS_UPLOAD_MAX_RETRIES, KS_UPLOAD_DEFAULT_RETRIES,
	      KS_UPLOAD_DEFAULT_TOTAL_TIMEOUT_S, KS_UPLOAD_DEFAULT_CONNECT_TIMEOUT_S);
}

static int usage_error(const char *fmt, ...) KS_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'score upload --help'.\n", stderr);
	return KS_EXIT_USAGE;
}

static int parse_seconds(double *out, const char *s)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > KS_UPLOAD_MAX_SECONDS)
		return -1;
	*out = v;
	return 0;
}

/* The worse of two exit codes: configuration, then invalid input, then failed uploads. */
static int worse(int a, int b)
{
	static const int order[] = { KS_EXIT_OK, KS_EXIT_SOME, KS_EXIT_DATAERR, KS_EXIT_CONFIG };
	int ra = 0, rb = 0, i;
	for (i = 0; i < 4; i++) {
		if (order[i] == a)
			ra = i;
		if (order[i] == b)
			rb = i;
	}
	return rb > ra ? b : a;
}

static cJSON *report_json(const ks_upload_report *r)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "source", r->source ? r->source : "");
	cJSON_AddStringToObject(o, "status", ks_upload_status_name(r->status));
	if (r->key[0])
		cJSON_AddStringToObject(o, "key", r->key);
	else
		cJSON_AddNullToObject(o, "key");
	if (r->endpoint)
		cJSON_AddStringToObject(o, "endpoint", r->endpoint);
	else
		cJSON_AddNullToObject(o, "endpoint");
	if (r->http_status)
		cJSON_AddNumberToObject(o, "http_status", (double)r->http_status);
	else
		cJSON_AddNullToObject(o, "http_status");
	cJSON_AddNumberToObject(o, "attempts", r->attempts);
	cJSON_AddBoolToObject(o, "spooled", r->spooled);
	if (r->spool_path)
		cJSON_AddStringToObject(o, "spool_path", r->spool_path);
	else
		cJSON_AddNullToObject(o, "spool_path");
	cJSON_AddStringToObject(o, "message", r->message ? r->message : "");
	return o;
}

int ks_upload_main(int argc, char **argv)
{
	enum {
		OPT_ENDPOINT = 256, OPT_MODE, OPT_CONFIG, OPT_TOKEN_FILE, OPT_TOKEN_ENV, OPT_CA,
		OPT_TEAM, OPT_SPOOL, OPT_RETRIES, OPT_TIMEOUT, OPT_CONNECT, OPT_PENDING, OPT_JSON
	};
	static const struct option longopts[] = {
		{ "endpoint", required_argument, NULL, OPT_ENDPOINT },
		{ "upload-mode", required_argument, NULL, OPT_MODE },
		{ "upload-config", required_argument, NULL, OPT_CONFIG },
		/* the names of the first release, before `score` took the same options */
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "token-env", required_argument, NULL, OPT_TOKEN_ENV },
		{ "ca-bundle", required_argument, NULL, OPT_CA },
		{ "team", required_argument, NULL, OPT_TEAM },
		{ "spool", required_argument, NULL, OPT_SPOOL },
		{ "retries", required_argument, NULL, OPT_RETRIES },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "connect-timeout", required_argument, NULL, OPT_CONNECT },
		{ "pending", no_argument, NULL, OPT_PENDING },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	ks_upload_options cli = KS_UPLOAD_OPTIONS_INIT;
	ks_upload_setup *setup = NULL;
	ks_upload_report *reps = NULL, *pend = NULL;
	size_t nreps = 0, npend = 0, i, cap = 0;
	const char *config = NULL;
	int pending = 0, json = 0, c, code = KS_EXIT_OK, ndirs;
	FILE *human;

	optind = 0; /* GNU: start over, whatever parsed argv before us */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		char *end;
		long n;
		switch (c) {
		case OPT_ENDPOINT: cli.endpoint = optarg; break;
		case OPT_MODE:
			if (ks_upload_mode_parse(&cli.mode, optarg) < 0)
				return usage_error("--upload-mode must be native or gradio, not \"%s\"",
						   optarg);
			break;
		case OPT_CONFIG: config = optarg; break;
		case OPT_TOKEN_FILE: cli.token_file = optarg; break;
		case OPT_TOKEN_ENV: cli.token_env = optarg; break;
		case OPT_CA: cli.ca_bundle = optarg; break;
		case OPT_TEAM: cli.team = optarg; break;
		case OPT_SPOOL: cli.spool_dir = optarg; break;
		case OPT_RETRIES:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || n < 0 || n > KS_UPLOAD_MAX_RETRIES)
				return usage_error("--retries must be an integer from 0 to %d",
						   KS_UPLOAD_MAX_RETRIES);
			cli.max_retries = (int)n;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(&cli.total_timeout, optarg) < 0)
				return usage_error("--timeout must be a number of seconds in (0, %.0f]",
						   KS_UPLOAD_MAX_SECONDS);
			break;
		case OPT_CONNECT:
			if (parse_seconds(&cli.connect_timeout, optarg) < 0)
				return usage_error(
					"--connect-timeout must be a number of seconds in (0, %.0f]",
					KS_UPLOAD_MAX_SECONDS);
			break;
		case OPT_PENDING: pending = 1; break;
		case OPT_JSON: json = 1; break;
		case 'h': usage(stdout); return KS_EXIT_OK;
		case ':': return usage_error("option %s needs a value", argv[optind - 1]);
		default: return usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	ndirs = argc - optind;
	if (!pending && ndirs <= 0)
		return usage_error("no RESULT_DIR given (or --pending)");
	human = json ? stderr : stdout;
	cli.log_fn = cli_log;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (ks_upload_setup_new(&setup, &cli, config, ndirs > 0 ? KS_UPLOAD_NEED_ENDPOINT : 0) < 0) {
		fprintf(stderr, PROG ": %s\n", ks_error_msg());
		code = KS_EXIT_CONFIG;
		goto done;
	}
	if (pending) {
		int rc = ks_upload_pending(&pend, &npend, ks_upload_setup_options(setup));
		if (rc < 0 && rc != KS_ERROR) {
			fprintf(stderr, PROG ": %s\n", ks_error_msg());
			code = KS_EXIT_SOME;
		} else if (npend == 0) {
			fprintf(stderr, PROG ": nothing pending\n");
		}
	}
	cap = npend + (size_t)(ndirs > 0 ? ndirs : 0);
	reps = ks_calloc(cap ? cap : 1, sizeof(*reps));
	for (i = 0; i < npend; i++) {
		reps[nreps++] = pend[i]; /* moved, not copied */
		memset(&pend[i], 0, sizeof(pend[i]));
	}
	for (; optind < argc; optind++)
		ks_upload_result_dir(&reps[nreps++], argv[optind], ks_upload_setup_options(setup));
	for (i = 0; i < nreps; i++) {
		fprintf(human, "%s: %s: %s\n", reps[i].source, ks_upload_status_name(reps[i].status),
			reps[i].message);
		code = worse(code, ks_upload_status_exit(reps[i].status));
	}
	if (json) {
		cJSON *o = cJSON_CreateObject(), *arr;
		char *s;
		cJSON_AddStringToObject(o, "schema", "kscore.upload-report/1");
		arr = cJSON_AddArrayToObject(o, "results");
		for (i = 0; i < nreps; i++)
			cJSON_AddItemToArray(arr, report_json(&reps[i]));
		cJSON_AddNumberToObject(o, "exit_code", code);
		s = cJSON_Print(o);
		if (s)
			printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(o);
	}
done:
	fflush(stdout);
	ks_upload_reports_free(reps, nreps);
	ks_upload_reports_free(pend, npend);
	ks_upload_setup_free(setup);
	curl_global_cleanup();
	return code;
}