/* drvtrace_check: reads a driver-level trace folder with the scorer's reader and prints what it
 * holds, one line per launch, for tests/gpu/drvtrace.sh on a GPU host:
 *     drvtrace_check DIR [MIN_LAUNCHES]
 * Exit 0 when it reads and holds at least MIN_LAUNCHES launches, every module an ELF, every launch
 * with a layout; 1 otherwise (the reason printed). */
#include "trace/drvtrace.h"
#include "util/errors.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	ks_drvtrace t;
	size_t i, k, min = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 1, ptr = 0, words = 0, nolayout = 0;
	size_t notelf = 0;
	char *why;
	int ok;
	if (argc < 2) {
		fprintf(stderr, "usage: drvtrace_check DIR [MIN_LAUNCHES]\n");
		return 2;
	}
	if (ks_drvtrace_read(&t, argv[1], NULL, NULL) < 0) {
		printf("unreadable: %s\n", ks_error_msg());
		return 1;
	}
	for (i = 0; i < t.nmodules; i++)
		notelf += !t.modules[i].elf;
	for (i = 0; i < t.nlaunches; i++) {
		const ks_drvtrace_launch *l = &t.launches[i];
		size_t p = 0;
		for (k = 0; k < l->nwords; k++)
			p += l->words[k].kind == KS_DRVWORD_POINTER;
		ptr += p;
		words += l->nwords;
		nolayout += !l->layout && !l->extra;
		printf("launch %zu %s grid %u,%u,%u block %u,%u,%u smem %u params %zu bytes %zu ptrs %zu module %d%s%s%s\n", i,
		       l->name ? l->name : "?", l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2],
		       l->smem, l->nparams, l->nargs, p, l->module, l->extra ? " extra" : "",
		       l->refused ? " refused: " : "", l->refused ? l->refused : "");
	}
	ok = ks_drvtrace_replayable(&t, &why);
	printf("summary: launches %zu modules %zu (not ELF %zu) allocs %zu copies %zu tmaps %zu refusals %zu "
	       "words %zu pointers %zu no-layout %zu complete %d replayable %d%s%s\n",
	       t.nlaunches, t.nmodules, notelf, t.nallocs, t.ncopies, t.ntmaps, t.nrefusals, words, ptr, nolayout,
	       t.complete, ok, why ? ": " : "", why ? why : "");
	for (i = 0; i < t.nrefusals; i++)
		printf("untraceable: %s: %s%s\n", t.refusals[i].what, t.refusals[i].why,
		       t.refusals[i].recording ? " (while recording)" : "");
	ok = t.nlaunches >= min && notelf == 0 && nolayout == 0 && t.complete;
	ks_free(why);
	ks_drvtrace_clear(&t);
	return ok ? 0 : 1;
}
