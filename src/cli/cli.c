/* cli: see src/cli/cli.h. */
#include "cli/cli.h"
#include "util/errors.h"
#include "util/numparse.h"
#include "util/mem.h"
#include "load/paths.h"
#include "load/problem.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ks_cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return KS_EXIT_USAGE;
}

int ks_cli_refs_option(ks_cli_refs *o, int opt, const char *arg)
{
	if (opt == KS_CLI_OPT_REFS)
		o->refs = arg;
	else if (opt == KS_CLI_OPT_SUITE)
		o->suite = arg;
	else
		return 0;
	return 1;
}

int ks_cli_refs_load(ks_problem_set **set, char **refs, const ks_cli_refs *o, const char *prog,
		     int need_some)
{
	*set = NULL;
	if (!(*refs = ks_paths_find_refs(o->refs))) {
		fprintf(stderr, "%s: no reference_tests folder found (use --refs)\n", prog);
		return KS_EXIT_DATAERR;
	}
	if (ks_problem_set_load(set, *refs, o->suite) < 0) {
		fprintf(stderr, "%s: %s\n", prog, ks_error_msg());
		return KS_EXIT_DATAERR;
	}
	if (need_some && (*set)->n == 0) {
		fprintf(stderr, "%s: no valid problem in %s%s%s\n", prog, *refs,
			o->suite ? " for suite " : "", o->suite ? o->suite : "");
		return KS_EXIT_DATAERR;
	}
	return 0;
}

int ks_cli_device_parse(int *out, const char *arg)
{
	uint64_t v;
	if (ks_numparse_u64(&v, arg, KS_DEVICE_MAX_ORDINAL, 0) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

int ks_cli_color_parse(int *out, const char *when)
{
	if (!when || !strcmp(when, "always"))
		*out = 1;
	else if (!strcmp(when, "auto"))
		*out = -1;
	else if (!strcmp(when, "never"))
		*out = 0;
	else
		return -1;
	return 0;
}

int ks_cli_color_use(int choice, int fd)
{
	const char *nc = getenv("NO_COLOR");
	if (choice >= 0)
		return choice;
	return isatty(fd) && !(nc && *nc);
}

void ks_cli_join_optional(int *argc, char **argv, const char *opt, const char *word)
{
	static char joined[KS_CLI_MAX_JOINED][4224];
	static int used;
	size_t wl = strlen(word);
	int i, k;

	for (i = 1; i + 1 < *argc && used < KS_CLI_MAX_JOINED; i++) {
		const char *v = argv[i + 1];
		if (!strcmp(argv[i], "--"))
			break;
		if (strcmp(argv[i], opt) != 0 || strncmp(v, word, wl) != 0 || (v[wl] && v[wl] != '='))
			continue;
		if ((size_t)snprintf(joined[used], sizeof(joined[used]), "%s=%s", opt, v) >= sizeof(joined[used]))
			continue;
		argv[i] = joined[used++];
		for (k = i + 1; k + 1 < *argc; k++)
			argv[k] = argv[k + 1];
		argv[--*argc] = NULL;
	}
}
