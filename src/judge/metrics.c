#include "judge/metrics.h"
#include "util/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	const ks_kernel_result *r;
	size_t pos;      /* in the caller's array */
} item;

/* Problem first (entries that name none come first, each on its own), then pass, then the entry's
 * place in its file: the first item of a (problem, pass) run is the entry that counts. */
static int item_cmp(const void *a, const void *b)
{
	const item *x = a, *y = b;
	const char *kx = x->r->problem, *ky = y->r->problem;
	int c;

	if (!kx || !ky)
		c = kx ? 1 : ky ? -1 : 0;
	else
		c = strcmp(kx, ky);
	if (c)
		return c;
	if (x->r->pass != y->r->pass)
		return x->r->pass < y->r->pass ? -1 : 1;
	if (x->r->index != y->r->index)
		return x->r->index < y->r->index ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

typedef struct {
	int n, compiled, call, exec, fast1, fast2;
	double score;
} group;

/* Groups the results that count by problem. A result counts unless it is a duplicate: marked so
 * by the loader, or a later entry of its file for a problem already seen (the same rule, applied
 * again so that no caller can count copies). A result that names no problem is a group of its own.
 * *counts (if not NULL) gets one flag per result. Returns the number of groups. */
static size_t group_by_problem(group **out, unsigned char *counts, const ks_kernel_result *r, size_t n)
{
	item *it = ks_calloc(n + 1, sizeof(*it));
	group *g = ks_calloc(n + 1, sizeof(*g));
	const ks_kernel_result *prev = NULL; /* the last result that counted */
	size_t ng = 0, i;

	for (i = 0; i < n; i++) {
		it[i].r = &r[i];
		it[i].pos = i;
	}
	qsort(it, n, sizeof(*it), item_cmp);
	for (i = 0; i < n; i++) {
		const ks_kernel_result *x = it[i].r;
		int same_problem = prev && x->problem && prev->problem && !strcmp(prev->problem, x->problem);
		group *gg;
		if (counts)
			counts[it[i].pos] = 0;
		if (x->reason == KS_REASON_DUPLICATE || (same_problem && prev->pass == x->pass))
			continue;
		if (!same_problem)
			ng++;
		prev = x;
		if (counts)
			counts[it[i].pos] = 1;
		gg = &g[ng - 1];
		gg->n++;
		gg->compiled += x->compiled;
		gg->call += x->call;
		gg->exec += x->exec;
		gg->score += x->score;
		if (x->timed && x->exec && !x->suspicious) {
			gg->fast1 += x->speedup > 1.0;
			gg->fast2 += x->speedup > 2.0;
		}
	}
	ks_free(it);
	*out = g;
	return ng;
}

void ks_metrics_file(ks_file_metrics *m, const ks_kernel_result *r, size_t n)
{
	unsigned char *counts = ks_calloc(n + 1, 1);
	group *g;
	size_t ng, i, nlog = 0, nroof = 0;
	double comp = 0, call = 0, exec = 0, f1 = 0, f2 = 0, logsum = 0, roof = 0;
	int ran = 0;

	memset(m, 0, sizeof(*m));
	m->entries = n;
	ng = group_by_problem(&g, counts, r, n);
	m->problems = ng;
	for (i = 0; i < n; i++) {
		ran |= r[i].ran;
		if (!counts[i]) {
			m->duplicates++;
			continue;
		}
		m->compiled += r[i].compiled;
		m->called += r[i].call;
		m->executed += r[i].exec;
		m->suspicious += (size_t)r[i].suspicious;
		m->not_cuda += r[i].reason == KS_REASON_NOT_CUDA;
		if (!r[i].timed)
			continue;
		m->timed = 1;
		roof += r[i].roofline_fraction;
		nroof++;
		if (r[i].exec && !r[i].suspicious && r[i].speedup > 0) {
			logsum += log(r[i].speedup);
			nlog++;
		}
	}
	m->geomean_speedup = nlog ? exp(logsum / (double)nlog) : 0;
	m->roofline_fraction = nroof ? roof / (double)nroof : 0;
	/* per problem, averaged over its samples (one per pass): copies never add up */
	for (i = 0; i < ng; i++) {
		comp += (double)g[i].compiled / g[i].n;
		call += (double)g[i].call / g[i].n;
		exec += (double)g[i].exec / g[i].n;
		f1 += (double)g[i].fast1 / g[i].n;
		f2 += (double)g[i].fast2 / g[i].n;
		m->score += g[i].score / g[i].n;
	}
	m->compile_accuracy = ng ? comp / (double)ng : 0;
	m->call_accuracy = ng ? call / (double)ng : 0;
	m->exec_accuracy = ng ? exec / (double)ng : 0;
	/* KernelBench's fast_p: correct and faster than p, over the problems of the file */
	m->fast_1 = ng ? f1 / (double)ng : 0;
	m->fast_2 = ng ? f2 / (double)ng : 0;
	if (!ran) {
		m->call_accuracy = NAN;
		m->exec_accuracy = NAN;
	}
	ks_free(g);
	ks_free(counts);
}

double ks_pass_at_k(int n, int c, int k)
{
	double prod = 1.0;
	int i;
	if (n - c < k)
		return 1.0;
	for (i = n - c + 1; i <= n; i++)
		prod *= 1.0 - (double)k / (double)i;
	return 1.0 - prod;
}

void ks_metrics_passk(ks_passk *out, const int *ks, size_t nk, const ks_kernel_result *r, size_t n)
{
	group *g;
	size_t ng = group_by_problem(&g, NULL, r, n), i, q;
	for (q = 0; q < nk; q++) {
		ks_passk *p = &out[q];
		memset(p, 0, sizeof(*p));
		p->k = ks[q];
		for (i = 0; i < ng; i++) {
			if (ks[q] < 1 || g[i].n < ks[q]) {
				p->skipped++;
				continue;
			}
			p->call += ks_pass_at_k(g[i].n, g[i].call, ks[q]);
			p->exec += ks_pass_at_k(g[i].n, g[i].exec, ks[q]);
			p->problems++;
		}
		if (p->problems) {
			p->valid = 1;
			p->call /= (double)p->problems;
			p->exec /= (double)p->problems;
		}
	}
	ks_free(g);
}

const char *ks_metrics_not_cuda_warning(const ks_file_metrics *m)
{
	size_t counted = m->entries - m->duplicates;
	if (!counted || m->not_cuda * 2 <= counted)
		return NULL;
	return "most entries are Python/Triton, not CUDA: kscore scores CUDA C++ device code only, so "
	       "they all score 0 (reason not_cuda; see docs/submission-format.md)";
}

void ks_metrics_summary_lines(ks_buf *out, const ks_file_metrics *m, size_t nkernels, int gpu, int timing)
{
	if (!gpu) {
		ks_buf_printf(out, "Compile Accuracy: %.4g  (%zu kernels; compile-only: nothing was run)\n",
			      m->compile_accuracy, nkernels);
		return;
	}
	ks_buf_printf(out, "Call Accuracy: %.4g  Exec Accuracy: %.4g  (%zu kernels)\n",
		      isnan(m->call_accuracy) ? 0 : m->call_accuracy,
		      isnan(m->exec_accuracy) ? 0 : m->exec_accuracy, nkernels);
	if (m->timed)
		ks_buf_printf(out, "Score: %.4f (sum of speedups)  geomean speedup: %.3fx  fast_1: %.3g  "
			      "fast_2: %.3g  suspicious: %zu\n", m->score, m->geomean_speedup, m->fast_1,
			      m->fast_2, m->suspicious);
	else if (!timing)
		ks_buf_puts(out, "Score: none (--no-timing: kernels were run and checked, not timed)\n");
	else
		ks_buf_puts(out, "Score: 0 (no kernel was timed)\n");
}
