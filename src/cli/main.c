/* score: the program. Dispatches its first argument to a command (src/cli/cmd.h), one file each;
 * anything else is the default command, `score [OPTIONS] SUBMISSION...` (src/cli/cmd_score.c). */
#include "cli/cli.h"
#include "cli/cmd.h"
#include "web_export/export.h"
#include "util/fsutil.h"
#include "util/nearest.h"
#include "util/version.h"

#include <curl/curl.h>

#include <stdio.h>
#include <string.h>

/* `score upload` sets up libcurl around its run: it is the only command that always uploads
 * (`score` and `score batch` set it up themselves only with --upload). */
static int upload_main(int argc, char **argv)
{
	int rc;
	curl_global_init(CURL_GLOBAL_ALL);
	rc = ks_upload_main(argc, argv);
	curl_global_cleanup();
	return rc;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "baseline", ks_baseline_main },   { "batch", ks_batch_main },	     { "calibrate", ks_calibrate_main },
	{ "check-refs", ks_refcheck_main }, { "export", ks_export_main },    { "problems", ks_catalog_main },
	{ "upload", upload_main },
};

/* A first argument that is no file and reads like a command mistyped (`score exprot`) would be
 * scored as a missing submission: say which command was meant instead. */
static int mistyped(const char *word)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	const char *near;
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		names[i] = commands[i].name;
	if (!(near = ks_nearest_name(word, names, i)))
		return 0;
	fprintf(stderr, "score: '%s' is neither a command nor a file; did you mean 'score %s'?\n"
		"Try 'score --help' for more information.\n", word, near);
	return 1;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		ks_score_usage(stdout);
		return KS_EXIT_OK;
	}
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("score (kscore) %s\n", KS_VERSION);
		return KS_EXIT_OK;
	}
	for (i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	if (argc > 1 && argv[1][0] != '-' && !ks_fs_exists(argv[1]) && mistyped(argv[1]))
		return KS_EXIT_USAGE;
	return ks_score_main(argc, argv);
}
