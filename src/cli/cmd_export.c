/* `score export`: the command line of the static site writer (export.h). Self-contained: it needs
 * only export.h and the error module, so it can live beside the other cmd_* files. */
#include "web_export/export.h"
#include "util/errors.h"

#include <getopt.h>
#include <stdio.h>

enum { EX_OK = 0, EX_USAGE = 64, EX_DATAERR = 65, EX_IOERR = 74 };

static void usage(FILE *f)
{
	fputs("Usage: score export [OPTIONS] RESULTS_DIR... --out SITE_DIR\n"
	      "Write a static leaderboard site from results: a batch's results folder (team folders,\n"
	      "leaderboard.json) or the result folders of single `score` runs (folders with score.json).\n"
	      "The site opens from file:// and from any static host, loads nothing from the network and\n"
	      "reads without JavaScript (docs/export.md).\n"
	      "\n"
	      "Options:\n"
	      "  -o, --out SITE_DIR        the site folder (required); replaced whole when it was written\n"
	      "                            by score export before, refused when it holds anything else\n"
	      "      --no-code             leave the submitted code out of the team pages\n"
	      "      --cache-dir DIR       where a batch's repository mirrors are, to show each kernel's\n"
	      "                            code (default: $XDG_CACHE_HOME/kscore, as score batch)\n"
	      "  -q, --quiet               print nothing on success\n"
	      "  -h, --help                show this help and exit\n"
	      "\n"
	      "Exit status: 0 written, 64 usage error, 65 an input holds no result (nothing written) or\n"
	      "a result file could not be read (written without it), 73 SITE_DIR exists and is not a\n"
	      "site kscore wrote, or is or holds an input (refused, nothing written), 74 the site cannot\n"
	      "be written.\n",
	      f);
}

int ks_export_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "out", required_argument, 0, 'o' },
		{ "no-code", no_argument, 0, 1 },
		{ "cache-dir", required_argument, 0, 2 },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	ks_export_options o = KS_EXPORT_OPTIONS_INIT;
	ks_export_stats st;
	int c, quiet = 0, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:qh", lopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.out_dir = optarg;
			break;
		case 1:
			o.no_code = 1;
			break;
		case 2:
			o.cache_dir = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			fprintf(stderr, "Try 'score export --help' for more information.\n");
			return EX_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "score export: no RESULTS_DIR given\nTry 'score export --help' for more information.\n");
		return EX_USAGE;
	}
	if (!o.out_dir || !*o.out_dir) {
		fprintf(stderr, "score export: no --out SITE_DIR given\n");
		return EX_USAGE;
	}
	o.log = stderr;
	if ((rc = ks_export_check_out(o.out_dir, (const char *const *)(argv + optind), (size_t)(argc - optind))) < 0) {
		fprintf(stderr, "score export: error: %s\n", ks_error_msg());
		return rc == KS_EINVALID ? 73 : EX_IOERR;
	}
	rc = ks_export_site(&st, (const char *const *)(argv + optind), (size_t)(argc - optind), &o);
	if (rc < 0) {
		fprintf(stderr, "score export: error: %s\n", ks_error_msg());
		return rc == KS_EIO ? EX_IOERR : EX_DATAERR;
	}
	if (!quiet)
		printf("score export: wrote %s/index.html: %zu team%s, %zu problem%s, %zu pages; code shown for "
		       "%zu of %zu kernels\n", o.out_dir, st.teams, st.teams == 1 ? "" : "s", st.problems,
		       st.problems == 1 ? "" : "s", st.pages, st.code, st.kernels);
	return st.unreadable ? EX_DATAERR : EX_OK;
}
