#include "metrics.h"
#include "mem.h"

#include <math.h>
#include <string.h>

/* The key an entry is grouped under: its problem, or the entry itself when it names none. */
static char *key_of(const ks_kernel_result *r)
{
	if (r->problem)
		return ks_strdup(r->problem);
	return ks_asprintf("#pass%zu-entry%zu", r->pass, r->index);
}

typedef struct {
	char *key;
	int n, compiled, call, exec;
} group;

static size_t group_by_problem(group **out, const ks_kernel_result *r, size_t n)
{
	group *g = ks_calloc(n + 1, sizeof(*g));
	size_t ng = 0, i, j;
	for (i = 0; i < n; i++) {
		char *k = key_of(&r[i]);
		for (j = 0; j < ng; j++)
			if (!strcmp(g[j].key, k))
				break;
		if (j == ng)
			g[ng++].key = k;
		else
			ks_free(k);
		g[j].n++;
		g[j].compiled += r[i].compiled;
		g[j].call += r[i].call;
		g[j].exec += r[i].exec;
	}
	*out = g;
	return ng;
}

static void free_groups(group *g, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		ks_free(g[i].key);
	ks_free(g);
}

void ks_metrics_file(ks_file_metrics *m, const ks_kernel_result *r, size_t n)
{
	group *g;
	size_t ng, i;
	double comp = 0, call = 0, exec = 0;
	int ran = 0;

	memset(m, 0, sizeof(*m));
	m->entries = n;
	for (i = 0; i < n; i++) {
		m->compiled += r[i].compiled;
		m->called += r[i].call;
		m->executed += r[i].exec;
		ran |= r[i].ran;
	}
	{
		double logsum = 0, roof = 0;
		size_t nlog = 0, nroof = 0, f1 = 0, f2 = 0;
		for (i = 0; i < n; i++) {
			m->score += r[i].score;
			m->suspicious += (size_t)r[i].suspicious;
			if (!r[i].timed)
				continue;
			m->timed = 1;
			roof += r[i].roofline_fraction;
			nroof++;
			if (r[i].exec && !r[i].suspicious && r[i].speedup > 0) {
				logsum += log(r[i].speedup);
				nlog++;
				f1 += r[i].speedup > 1.0;
				f2 += r[i].speedup > 2.0;
			}
		}
		m->geomean_speedup = nlog ? exp(logsum / (double)nlog) : 0;
		m->roofline_fraction = nroof ? roof / (double)nroof : 0;
		/* KernelBench's fast_p: correct and faster than p, over all kernels of the file */
		m->fast_1 = n ? (double)f1 / (double)n : 0;
		m->fast_2 = n ? (double)f2 / (double)n : 0;
	}
	ng = group_by_problem(&g, r, n);
	m->problems = ng;

	for (i = 0; i < ng; i++) {
		comp += (double)g[i].compiled / g[i].n;
		call += (double)g[i].call / g[i].n;
		exec += (double)g[i].exec / g[i].n;
	}
	m->compile_accuracy = ng ? comp / (double)ng : 0;
	m->call_accuracy = ng ? call / (double)ng : 0;
	m->exec_accuracy = ng ? exec / (double)ng : 0;
	if (!ran) {
		m->call_accuracy = NAN;
		m->exec_accuracy = NAN;
	}
	free_groups(g, ng);
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
	size_t ng = group_by_problem(&g, r, n), i, q;
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
	free_groups(g, ng);
}
