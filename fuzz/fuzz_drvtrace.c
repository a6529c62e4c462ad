/* fuzz_drvtrace: the driver-level trace's reader (trace/drvtrace.c). The trace comes from a process
 * that ran an answer's code, so it is untrusted input. The files beside it come from a table of two
 * fake CUBINs (any other name is missing). Contract: a failure has a message; an accepted trace's
 * words lie inside their launch's block and point into recorded allocations, and its verdict on
 * replay comes with a reason exactly when it is negative. */
#include "fuzz.h"
#include "trace/drvtrace.h"
#include "util/hash.h"

static const char cubin0[] = "\x7f" "ELF\0k1\0shared\0";
static const char cubin1[] = "\x7f" "ELF\0k2\0shared\0";

static int from_table(void *ctx, char **data, size_t *len, const char *sha, const char *ext, size_t max)
{
	const char *const imgs[2] = { cubin0, cubin1 };
	char h[65];
	size_t i;
	(void)ctx;
	(void)max;
	for (i = 0; i < 2; i++) {
		ks_sha256_hex(h, imgs[i], sizeof(cubin0) - 1);
		if (strcmp(h, sha) == 0) {
			*len = sizeof(cubin0) - 1;
			*data = ks_malloc(*len);
			memcpy(*data, imgs[i], *len);
			return 0;
		}
	}
	return ks_error_set(KS_ENOTFOUND, "%s.%s: no such file", sha, ext);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ks_drvtrace_options o = KS_DRVTRACE_OPTIONS_INIT;
	ks_drvtrace t;
	size_t i, k;
	char *why;
	int rc, ok;
	o.read_file = from_table;
	o.max_launches = 64;
	o.max_allocs = 256;
	rc = ks_drvtrace_parse(&t, (const char *)data, size, &o);
	fz_check_error(rc);
	if (rc == 0) {
		for (i = 0; i < t.nlaunches; i++) {
			const ks_drvtrace_launch *l = &t.launches[i];
			FZ_CHECK(l->nwords == l->nargs / 8, "launch %zu: %zu words for %zu bytes", i, l->nwords, l->nargs);
			FZ_CHECK(l->module < (int)t.nmodules, "launch %zu: module %d", i, l->module);
			FZ_CHECK(l->module >= 0 || l->refused, "launch %zu: no module and not refused", i);
			for (k = 0; k < l->nwords; k++) {
				const ks_drvtrace_word *w = &l->words[k];
				FZ_CHECK(w->offset == 8 * k, "launch %zu word %zu at %u", i, k, w->offset);
				if (w->kind == KS_DRVWORD_POINTER) {
					uint64_t v;
					FZ_CHECK(w->alloc < t.nallocs, "launch %zu word %zu: allocation %zu", i, k, w->alloc);
					memcpy(&v, l->args + w->offset, 8);
					FZ_CHECK(v - t.allocs[w->alloc].base == w->alloc_off &&
							 w->alloc_off < t.allocs[w->alloc].size,
						 "launch %zu word %zu: outside its allocation", i, k);
				}
				if (w->kind == KS_DRVWORD_TMAP)
					FZ_CHECK(w->tmap < t.ntmaps, "launch %zu word %zu: tensor map %zu", i, k, w->tmap);
			}
		}
		ok = ks_drvtrace_replayable(&t, &why);
		FZ_CHECK(ok == (why == NULL), "a verdict %d with reason %s", ok, why ? why : "(none)");
		ks_free(why);
	}
	ks_drvtrace_clear(&t);
	ks_error_clear();
	return 0;
}
