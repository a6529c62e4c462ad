/* The problem pages (every team's result on one problem, the best kernel, the golden kernel's time
 * and roofline), the problems index and the suspicious list. */
#include "web_export/pages.h"
#include "batch/batch.h"
#include "web_export/svg.h"
#include "util/mem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ks_export_problem_page(const ks_export_model *m, const char *problem)
{
	char *base = ks_manifest_folder_name(problem), *page;
	size_t i, idx = 0;
	int clash = 0;
	for (i = 0; i < m->nproblems; i++)
		if (!strcmp(m->problems[i], problem)) {
			idx = i;
			break;
		}
	for (i = 0; i < idx && !clash; i++) {
		char *other = ks_manifest_folder_name(m->problems[i]);
		clash = !strcmp(other, base);
		ks_free(other);
	}
	page = clash ? ks_asprintf("problem-%s-%zu.html", base, idx) : ks_asprintf("problem-%s.html", base);
	ks_free(base);
	return page;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The golden kernel per perf case: its median time over every team's run (each team's golden
 * kernel ran in the same session as its candidate), and the roofline fraction that gives. */
static void golden_table(ks_html *h, const ks_export_model *m, const char *problem)
{
	const ks_export_kernel *ref = NULL;
	size_t i, j, c;
	for (i = 0; i < m->nteams && !ref; i++)
		for (j = 0; j < m->teams[i].nk; j++) {
			const ks_export_kernel *k = &m->teams[i].kernels[j];
			if (k->problem && !strcmp(k->problem, problem) && k->nperf) {
				ref = k;
				break;
			}
		}
	if (!ref) {
		ks_html_raw(h, "<p class=\"note\">No kernel was timed on this problem, so there are no golden "
			    "times.</p>\n");
		return;
	}
	ks_html_raw(h, "<h2>Golden kernel</h2>\n<div class=\"scroll\"><table class=\"perf\"><thead><tr><th>Case</th>"
		    "<th>Golden ms (median)</th><th>Range</th><th>Floor ms</th><th>Golden roofline</th>"
		    "<th>Timed runs</th></tr></thead><tbody>\n");
	for (c = 0; c < ref->nperf; c++) {
		const char *label = ref->perf[c].label;
		double *v = ks_calloc(m->nteams + 1, sizeof(*v)), med, lo = INFINITY, hi = -INFINITY;
		size_t n = 0;
		for (i = 0; i < m->nteams; i++) {
			const ks_export_kernel *k = ks_export_best_kernel(&m->teams[i], problem);
			size_t q;
			if (!k)
				continue;
			for (q = 0; q < k->nperf; q++)
				if (k->perf[q].label && label && !strcmp(k->perf[q].label, label) &&
				    isfinite(k->perf[q].golden_ms)) {
					v[n++] = k->perf[q].golden_ms;
					lo = fmin(lo, k->perf[q].golden_ms);
					hi = fmax(hi, k->perf[q].golden_ms);
					break;
				}
		}
		med = median(v, n);
		ks_html_rawf(h, "<tr><td>%zu. ", c + 1);
		ks_html_text(h, label);
		ks_html_raw(h, "</td>");
		ks_export_td_num(h, med, 4, NULL);
		if (n > 1)
			ks_html_rawf(h, "<td class=\"num\">%.4g\xE2\x80\x93%.4g (%zu teams' runs)</td>", lo, hi, n);
		else
			ks_export_td_text(h, n ? "one team's run" : NULL);
		ks_export_td_num(h, ref->perf[c].floor_ms, 4, NULL);
		ks_export_td_pct(h, ref->perf[c].floor_ms > 0 && med > 0 ? ref->perf[c].floor_ms / med : NAN);
		ks_export_td_num(h, ref->perf[c].golden_runs >= 0 ? (double)ref->perf[c].golden_runs : NAN, 6, NULL);
		ks_html_raw(h, "</tr>\n");
		ks_free(v);
	}
	ks_html_raw(h, "</tbody></table></div>\n");
}

void ks_export_page_problem(ks_html *h, const ks_export_model *m, const char *problem)
{
	ks_svg_bar *bars = ks_calloc(m->nteams + 1, sizeof(*bars));
	char **hrefs = ks_calloc(m->nteams + 1, sizeof(*hrefs));
	const ks_export_team *bt = NULL;
	const ks_export_kernel *best = NULL;
	size_t i, nb = 0, timed = 0;

	ks_export_page_begin(h, m, problem, "problems");
	ks_html_raw(h, "<h1>");
	ks_html_text(h, problem);
	ks_html_raw(h, "</h1>\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_kernel *k = ks_export_best_kernel(&m->teams[i], problem);
		if (!k)
			continue;
		if (k->exec == 1 && !k->suspicious && isfinite(k->speedup) &&
		    (!best || k->speedup > best->speedup)) {
			best = k;
			bt = &m->teams[i];
		}
		hrefs[nb] = ks_asprintf("team-%s.html#k-%ld-%ld", m->teams[i].slug, k->pass, k->index);
		ks_export_speedup_bar(&bars[nb], k, m->teams[i].name, hrefs[nb]);
		timed += isfinite(k->speedup);
		nb++;
	}
	ks_html_raw(h, "<p class=\"lead\">");
	if (best) {
		ks_html_raw(h, "Best kernel: ");
		ks_html_rawf(h, "<a href=\"team-%s.html#k-%ld-%ld\">", bt->slug, best->pass, best->index);
		ks_html_name(h, bt->name);
		ks_html_raw(h, "</a>, ");
		ks_export_num(h, best->speedup, 4);
		ks_html_raw(h, "\xC3\x97 the golden kernel");
		if (isfinite(best->roofline_fraction))
			ks_html_rawf(h, ", %.1f%% of the roofline", 100 * best->roofline_fraction);
		ks_html_raw(h, ".");
	} else {
		ks_html_raw(h, "No correct, timed kernel on this problem.");
	}
	ks_html_rawf(h, " %zu team%s submitted a kernel for it.</p>\n", nb, nb == 1 ? "" : "s");
	if (timed)
		ks_export_speedup_chart(h, "Speedup of every team's kernel over the golden kernel; the line marks "
					"1\xC3\x97", "Speedup by team", bars, nb);
	golden_table(h, m, problem);
	ks_html_raw(h, "<h2>Teams</h2>\n<div class=\"scroll\"><table class=\"sortable\" id=\"problem-teams\"><thead><tr>");
	ks_export_th(h, "Rank", "num", "the team's rank on the leaderboard");
	ks_export_th(h, "Team", "text", NULL);
	ks_export_th(h, "Verdict", "text", NULL);
	ks_export_th(h, "Reason", "text", NULL);
	ks_export_th(h, "Speedup", "num", NULL);
	ks_export_th(h, "Roofline", "num", NULL);
	ks_export_th(h, "Score", "num", NULL);
	ks_html_raw(h, "</tr></thead><tbody>\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		const ks_export_kernel *k = ks_export_best_kernel(t, problem);
		if (!k)
			continue;
		ks_html_raw(h, "<tr>");
		ks_export_td_num(h, (double)t->rank, 6, NULL);
		ks_html_raw(h, "<td data-v=\"");
		ks_html_text(h, t->name);
		ks_html_rawf(h, "\"><a href=\"team-%s.html#k-%ld-%ld\">", t->slug, k->pass, k->index);
		ks_html_name(h, t->name);
		ks_html_rawf(h, "</a></td><td data-v=\"%s\">", ks_export_verdict(k));
		ks_export_badge(h, k);
		ks_html_raw(h, "</td>");
		ks_export_td_text(h, k->reason && strcmp(k->reason, "ok") ? k->reason : NULL);
		ks_export_td_num(h, k->speedup, 4, "\xC3\x97");
		ks_export_td_pct(h, k->roofline_fraction);
		ks_export_td_num(h, k->score, 4, NULL);
		ks_html_raw(h, "</tr>\n");
	}
	ks_html_raw(h, "</tbody></table></div>\n");
	ks_export_page_end(h, m);
	ks_free_strv(hrefs, nb);
	ks_free(bars);
}

void ks_export_page_problems(ks_html *h, const ks_export_model *m)
{
	size_t p, i;
	ks_export_page_begin(h, m, "Problems", "problems");
	ks_html_raw(h, "<h1>Problems</h1>\n");
	if (!m->nproblems) {
		ks_html_raw(h, "<p class=\"note\">No kernel names a problem.</p>\n");
		ks_export_page_end(h, m);
		return;
	}
	ks_html_raw(h, "<div class=\"scroll\"><table class=\"sortable\" id=\"problems\"><thead><tr>");
	ks_export_th(h, "Problem", "text", NULL);
	ks_export_th(h, "Teams", "num", "teams that submitted a kernel for it");
	ks_export_th(h, "Correct", "num", "teams whose kernel is correct");
	ks_export_th(h, "Best speedup", "num", NULL);
	ks_export_th(h, "Best team", "text", NULL);
	ks_html_raw(h, "</tr></thead><tbody>\n");
	for (p = 0; p < m->nproblems; p++) {
		const char *name = m->problems[p];
		const ks_export_team *bt = NULL;
		double best = NAN;
		size_t teams = 0, correct = 0;
		char *page = ks_export_problem_page(m, name);
		for (i = 0; i < m->nteams; i++) {
			const ks_export_kernel *k = ks_export_best_kernel(&m->teams[i], name);
			if (!k)
				continue;
			teams++;
			correct += k->exec == 1 && !k->suspicious;
			if (k->exec == 1 && !k->suspicious && isfinite(k->speedup) && (isnan(best) || k->speedup > best)) {
				best = k->speedup;
				bt = &m->teams[i];
			}
		}
		ks_html_raw(h, "<tr><td data-v=\"");
		ks_html_text(h, name);
		ks_html_rawf(h, "\"><a href=\"%s\">", page);
		ks_html_text(h, name);
		ks_html_raw(h, "</a></td>");
		ks_export_td_num(h, (double)teams, 6, NULL);
		ks_export_td_num(h, (double)correct, 6, NULL);
		ks_export_td_num(h, best, 4, "\xC3\x97");
		ks_export_td_text(h, bt ? bt->name : NULL);
		ks_html_raw(h, "</tr>\n");
		ks_free(page);
	}
	ks_html_raw(h, "</tbody></table></div>\n");
	ks_export_page_end(h, m);
}

void ks_export_page_suspicious(ks_html *h, const ks_export_model *m)
{
	size_t i, j, q, n = 0;
	ks_export_page_begin(h, m, "Suspicious kernels", "suspicious");
	ks_html_raw(h, "<h1>Suspicious kernels</h1>\n<p class=\"lead\">A kernel is suspicious when a perf case ran "
		    "faster than the roofline floor allows (the device's measured bandwidth and arithmetic "
		    "ceilings) by more than the margin, below the timer floor, or with an absurd speedup. It "
		    "scores 0 and keeps every number as evidence for the organizers' review.</p>\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		for (j = 0; j < t->nk; j++) {
			const ks_export_kernel *k = &t->kernels[j];
			if (!k->suspicious)
				continue;
			n++;
			ks_html_rawf(h, "<section class=\"kernel sus\"><h2><a href=\"team-%s.html#k-%ld-%ld\">", t->slug,
				     k->pass, k->index);
			ks_html_name(h, t->name);
			ks_html_raw(h, " \xC2\xB7 ");
			ks_html_text(h, k->problem ? k->problem : k->file);
			ks_html_raw(h, "</a></h2>\n<p>");
			ks_html_rawf(h, "pass %ld, entry %ld; speedup ", k->pass, k->index);
			ks_export_num(h, k->speedup, 4);
			ks_html_raw(h, "\xC3\x97. ");
			ks_html_text(h, k->suspicious_why);
			ks_html_raw(h, "</p>\n<div class=\"scroll\"><table class=\"perf\"><thead><tr><th>Case</th><th>ms</th>"
				    "<th>Floor ms</th><th>Golden ms</th><th>Speedup</th><th>Why</th></tr></thead><tbody>\n");
			for (q = 0; q < k->nperf; q++) {
				const ks_export_perf *p = &k->perf[q];
				if (!p->suspicious)
					continue;
				ks_html_raw(h, "<tr><td>");
				ks_html_text(h, p->label);
				ks_html_raw(h, "</td>");
				ks_export_td_num(h, p->ms, 4, NULL);
				ks_export_td_num(h, p->floor_ms, 4, NULL);
				ks_export_td_num(h, p->golden_ms, 4, NULL);
				ks_export_td_num(h, p->speedup, 4, "\xC3\x97");
				ks_export_td_text(h, p->why);
				ks_html_raw(h, "</tr>\n");
			}
			ks_html_raw(h, "</tbody></table></div></section>\n");
		}
	}
	if (!n)
		ks_html_raw(h, "<p class=\"note\" id=\"no-suspicious\">No kernel was flagged suspicious.</p>\n");
	ks_export_page_end(h, m);
}
