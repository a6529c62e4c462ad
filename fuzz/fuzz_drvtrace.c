/* fuzz_drvtrace: the driver-level trace's reader (trace/drvtrace.c). The trace comes from a process
 * that ran an answer's code, so it is untrusted input. The files beside it come from a table of two
 * fake CUBINs (any other name is missing). Contract: a failure has a message; an accepted trace's
 * words lie inside their launch's block and point into recorded allocations, and its verdict on
 * replay comes with a reason exactly when it is negative. The accepted trace then becomes a replay
 * plan (trace/drvplan.c), with the first allocation's first half as the case's input: a plan that
 * is not refused names only its own buffers, modules and kernels, keeps every relocation inside
 * its parameter block, and bundles into an image. */
#include "fuzz.h"
#include "trace/drvplan.h"
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

static void check_plan(const ks_drvtrace *t)
{
	ks_drvplan_tensor in;
	ks_drvplan p;
	size_t i, k, n = 0;
	int rc;
	void *blob = NULL;
	size_t len = 0;
	if (t->nallocs && t->allocs[0].size >= 2) {
		in.role = KS_DRVBUF_INPUT;
		in.ptr = t->allocs[0].base;
		in.bytes = t->allocs[0].size / 2;
		n = 1;
	}
	memset(&p, 0, sizeof(p));
	rc = ks_drvplan_build(&p, t, n ? &in : NULL, n, NULL);
	fz_check_error(rc);
	if (rc == 0 && !p.refused) {
		for (i = 0; i < p.nsteps; i++) {
			const ks_drvplan_step *s = &p.steps[i];
			if (s->kind != KS_DRVSTEP_LAUNCH) {
				FZ_CHECK(s->buf < p.nbufs, "step %zu: buffer %u of %zu", i, s->buf, p.nbufs);
				FZ_CHECK(s->kind != KS_DRVSTEP_COPY || s->src < p.nbufs, "step %zu: source %u", i, s->src);
				continue;
			}
			FZ_CHECK(s->module < p.nmodules && s->func < p.nnames, "step %zu: module %u, kernel %u", i,
				 s->module, s->func);
			for (k = 0; k < s->nrelocs; k++)
				FZ_CHECK(s->relocs[k].buf < p.nbufs && (uint64_t)s->relocs[k].offset + 8 <= s->nparams,
					 "step %zu reloc %zu: buffer %u at %u of %zu", i, k, s->relocs[k].buf,
					 s->relocs[k].offset, s->nparams);
		}
		if (p.nmodules) {
			rc = ks_drvplan_image(&blob, &len, &p, t);
			fz_check_error(rc);
			FZ_CHECK(rc != 0 || (blob && len), "an image of %zu bytes", len);
			ks_free(blob);
		}
	}
	ks_drvplan_clear(&p);
	ks_error_clear();
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
		check_plan(&t);
	}
	ks_drvtrace_clear(&t);
	ks_error_clear();
	return 0;
}
