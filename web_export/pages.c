#include "web_export/pages.h"
#include "web_export/svg.h"
#include "util/mem.h"
#include "util/version.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


/* The site may only load its own files: a page that ended up carrying injected markup still
 * cannot run inline script or reach the network. */
static const char csp[] = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
			  "base-uri 'none'; form-action 'none'";

static const struct {
	const char *key, *href, *label;
} nav[] = {
	{ "leaderboard", "index.html", "Leaderboard" },
	{ "problems", "problems.html", "Problems" },
	{ "suspicious", "suspicious.html", "Suspicious" },
	{ "provenance", "provenance.html", "Provenance" },
	{ "data", "data.html", "Data" },
};

void ks_export_page_begin(ks_html *h, const ks_export_model *m, const char *title, const char *active)
{
	size_t i;
	(void)m;
	ks_html_rawf(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		     "<meta name=\"color-scheme\" content=\"light dark\">\n"
		     "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
		     "<meta name=\"generator\" content=\"kscore %s\">\n<title>", csp, KS_VERSION);
	ks_html_text(h, title);
	ks_html_raw(h, " \xE2\x80\x94 kscore</title>\n<link rel=\"stylesheet\" href=\"assets/site.css\">\n</head>\n"
		    "<body>\n<header class=\"top\"><a class=\"brand\" href=\"index.html\">kscore</a><nav>");
	for (i = 0; i < sizeof(nav) / sizeof(nav[0]); i++)
		ks_html_rawf(h, "<a href=\"%s\"%s>%s</a>", nav[i].href,
			     active && !strcmp(active, nav[i].key) ? " aria-current=\"page\"" : "", nav[i].label);
	ks_html_raw(h, "</nav></header>\n<main>\n");
}

void ks_export_page_end(ks_html *h, const ks_export_model *m)
{
	ks_html_raw(h, "</main>\n<footer>Written by kscore " KS_VERSION " on ");
	ks_html_text(h, m->generated);
	ks_html_raw(h, ". A static site: no network access, readable without JavaScript.</footer>\n"
		    "<script src=\"assets/site.js\"></script>\n</body>\n</html>\n");
}

static void fmt_num(char *out, size_t n, double v, int digits)
{
	ks_svg_num(out, n, v, digits);
}

void ks_export_num(ks_html *h, double v, int digits)
{
	char b[64];
	if (!isfinite(v)) {
		ks_html_raw(h, "n/a");
		return;
	}
	fmt_num(b, sizeof(b), v, digits);
	ks_html_raw(h, b);
}

void ks_export_speedup_bar(ks_svg_bar *b, const ks_export_kernel *k, const char *label, const char *href)
{
	b->label = label;
	b->href = href;
	b->value = k->speedup;
	b->cls = k->suspicious ? "c-bad" : k->exec != 1 ? "c-gray" :
		 isfinite(k->speedup) && k->speedup >= 1 ? "c-good" : "c-bar";
	b->note = k->suspicious ? "suspicious" : k->exec == 1 ? NULL : k->reason;
}

void ks_export_speedup_chart(ks_html *h, const char *caption, const char *title, const ks_svg_bar *bars,
			     size_t n)
{
	ks_svg_bars_opts o = KS_SVG_BARS_OPTS_INIT;
	ks_html_rawf(h, "<figure><figcaption>%s</figcaption>\n", caption);
	o.title = title;
	o.unit = "\xC3\x97";
	o.ref = 1;
	o.ref_label = "1\xC3\x97 = golden";
	o.log = -1;
	ks_svg_bars(h, bars, n, &o);
	ks_html_raw(h, "</figure>\n");
}

void ks_export_td_num(ks_html *h, double v, int digits, const char *suffix)
{
	char b[64];
	if (!isfinite(v)) {
		ks_html_raw(h, "<td class=\"num na\" data-v=\"\">\xE2\x80\x94</td>");
		return;
	}
	fmt_num(b, sizeof(b), v, digits);
	ks_html_rawf(h, "<td class=\"num\" data-v=\"%.17g\">%s%s</td>", v, b, suffix ? suffix : "");
}

void ks_export_td_pct(ks_html *h, double fraction)
{
	if (!isfinite(fraction)) {
		ks_export_td_num(h, NAN, 3, NULL);
		return;
	}
	ks_html_rawf(h, "<td class=\"num\" data-v=\"%.17g\">%.1f%%</td>", fraction, 100 * fraction);
}

void ks_export_td_text(ks_html *h, const char *s)
{
	if (!s || !*s) {
		ks_html_raw(h, "<td class=\"na\">\xE2\x80\x94</td>");
		return;
	}
	ks_html_raw(h, "<td>");
	ks_html_text(h, s);
	ks_html_raw(h, "</td>");
}

void ks_export_th(ks_html *h, const char *label, const char *kind, const char *title)
{
	ks_html_rawf(h, "<th scope=\"col\" data-sort=\"%s\"", kind);
	if (title) {
		ks_html_raw(h, " title=\"");
		ks_html_text(h, title);
		ks_html_raw(h, "\"");
	}
	ks_html_raw(h, ">");
	ks_html_text(h, label);
	ks_html_raw(h, "</th>");
}

void ks_export_badge(ks_html *h, const ks_export_kernel *k)
{
	const char *v = ks_export_verdict(k);
	ks_html_rawf(h, "<span class=\"badge b-%s\">%s</span>",
		     !strcmp(v, "not compiled") ? "failed" : !strcmp(v, "not run") ? "notrun" : v, v);
}

void ks_export_deadline(ks_html *h, const ks_export_model *m)
{
	if (!m->deadline_given || (m->deadline && !strcmp(m->deadline_given, m->deadline))) {
		ks_html_text(h, m->deadline ? m->deadline : m->deadline_given);
		return;
	}
	ks_html_text(h, m->deadline_given);
	if (m->deadline) {
		ks_html_raw(h, " (");
		ks_html_text(h, m->deadline);
		ks_html_raw(h, ")");
	}
}

void ks_export_team_link(ks_html *h, const ks_export_team *t)
{
	ks_html_rawf(h, "<a href=\"team-%s.html\">", t->slug);
	ks_html_name(h, t->name);
	ks_html_raw(h, "</a>");
}

void ks_export_row_team(ks_html *h, const ks_export_team *t)
{
	ks_html_raw(h, "<tr><td data-v=\"");
	ks_html_text(h, t->name);
	ks_html_raw(h, "\">");
	ks_export_team_link(h, t);
	ks_html_raw(h, "</td>");
}

static const char ranking_rule[] =
	"Teams are ranked by this rule, the one leaderboard.csv uses: results measured on a GPU first, then "
	"compile-only results, then teams without a result. GPU results by score (the sum of the speedups of "
	"correct, non-suspicious kernels), then exec accuracy, then call accuracy, higher first; compile-only "
	"results are not ranked by accuracy (it counts only what the host could check: without a GPU no Triton "
	"answer runs); then the earlier scored commit; then the team name. No two teams share a rank.";

/* What the speedups are over: kscore's golden kernels, or (score --baseline reference) the
 * problems' reference implementations, as the hackathon ranked. Said once, for every team; a
 * leaderboard whose teams were scored over different baselines says that instead. */
static void baseline_lead(ks_html *h, const ks_export_model *m)
{
	size_t i, ref = 0, gold = 0;
	const char *text = NULL;
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		if (!t->has_result || !t->gpu || !t->baseline_kind)
			continue;
		if (!strcmp(t->baseline_kind, "reference")) {
			ref++;
			text = text ? text : t->baseline_text;
		} else
			gold++;
	}
	if (!ref && !gold)
		return;
	ks_html_raw(h, "<p class=\"rule\" id=\"baseline\">");
	if (ref && gold)
		ks_html_rawf(h, "Teams were scored over different baselines: %zu over the reference implementations, "
			     "%zu over the golden kernels (the Provenance page says which): their scores do not "
			     "compare.", ref, gold);
	else if (ref) {
		ks_html_raw(h, "Speedups and scores are over the problems' reference implementations, timed in the "
			    "same run by the same protocol (");
		ks_html_text(h, text ? text : "score --baseline reference");
		ks_html_raw(h, "); each kernel's speedup over the golden kernel is in score.json.");
	} else
		ks_html_raw(h, "Speedups and scores are over kscore's golden kernels, timed beside each kernel.");
	ks_html_raw(h, "</p>\n");
}

static int any_gpu(const ks_export_model *m)
{
	size_t i;
	for (i = 0; i < m->nteams; i++)
		if (m->teams[i].has_result && m->teams[i].gpu)
			return 1;
	return 0;
}

static void commit_cell(ks_html *h, const ks_export_team *t)
{
	if (!t->commit) {
		ks_export_td_text(h, NULL);
		return;
	}
	ks_html_raw(h, "<td class=\"mono\"><span title=\"");
	ks_html_text(h, t->commit);
	if (t->commit_subject) {
		ks_html_raw(h, ": ");
		ks_html_text(h, t->commit_subject);
	}
	ks_html_raw(h, "\">");
	ks_html_textn(h, t->commit, strlen(t->commit) < 10 ? strlen(t->commit) : 10);
	ks_html_raw(h, "</span></td>");
}

static void status_cell(ks_html *h, const ks_export_team *t)
{
	ks_html_raw(h, "<td class=\"status\">");
	ks_html_text(h, t->status);
	if (t->mode && strcmp(t->mode, "gpu")) {
		ks_html_raw(h, " (");
		ks_html_text(h, t->mode);
		ks_html_raw(h, ")");
	}
	if (t->reason && strcmp(t->status ? t->status : "", "scored")) {
		ks_html_raw(h, ": ");
		ks_html_text(h, t->reason);
	}
	if (t->unscored_note) {
		/* its zeros are not its kernels' failures: the reader is told so where the zeros are */
		ks_html_raw(h, "<span class=\"warn unscored\">");
		ks_html_text(h, t->unscored_note);
		ks_html_raw(h, "</span>");
	}
	ks_html_raw(h, "</td>");
}

/* A paragraph above the leaderboard when some team's answers could not be scored. */
static void unscored_lead(ks_html *h, const ks_export_model *m)
{
	size_t i, n = 0;
	for (i = 0; i < m->nteams; i++)
		n += m->teams[i].unscored_note != NULL;
	if (!n)
		return;
	ks_html_rawf(h, "<p class=\"warn\" id=\"unscored\"><strong>%zu team%s</strong> ha%s answers this run "
		     "could not score, for their language or because this host could not run them (", n,
		     n == 1 ? "" : "s", n == 1 ? "s" : "ve");
	for (i = 0; i < m->nteams; i++) {
		if (!m->teams[i].unscored_note)
			continue;
		ks_export_team_link(h, &m->teams[i]);
		ks_html_raw(h, --n ? ", " : "");
	}
	ks_html_raw(h, "): they count as failed kernels in the scores below, though they are no compile or "
		    "run failures of their own; the Status column says how many and why. See "
		    "<a href=\"provenance.html#unscored\">Provenance</a>.</p>\n");
}

/* The speedups that count for fast_p: correct, not suspicious, timed. */
static double *team_speedups(const ks_export_team *t, size_t *n)
{
	double *v = ks_calloc(t->nk + 1, sizeof(*v));
	size_t i;
	*n = 0;
	for (i = 0; i < t->nk; i++) {
		const ks_export_kernel *k = &t->kernels[i];
		if (k->exec == 1 && !k->suspicious && isfinite(k->speedup))
			v[(*n)++] = k->speedup;
	}
	return v;
}

#define MAX_BARS 60
#define MAX_CURVES 8

static void charts(ks_html *h, const ks_export_model *m)
{
	ks_svg_bar *bars = ks_calloc(m->nteams + 1, sizeof(*bars));
	char **hrefs = ks_calloc(m->nteams + 1, sizeof(*hrefs));
	ks_svg_series *ser = ks_calloc(MAX_CURVES, sizeof(*ser));
	double **sp = ks_calloc(MAX_CURVES, sizeof(*sp));
	ks_svg_bars_opts o = KS_SVG_BARS_OPTS_INIT;
	int gpu = any_gpu(m);
	size_t i, nb = 0, ns = 0;

	for (i = 0; i < m->nteams && nb < MAX_BARS; i++) {
		const ks_export_team *t = &m->teams[i];
		if (!t->has_result)
			continue;
		hrefs[nb] = ks_asprintf("team-%s.html", t->slug);
		bars[nb].label = t->name;
		bars[nb].href = hrefs[nb];
		bars[nb].value = gpu ? (t->gpu ? t->score : NAN) : 100 * t->compile_acc;
		bars[nb].cls = i == 0 ? "c-gold" : "c-bar";
		nb++;
	}
	if (nb) {
		ks_html_raw(h, "<figure><figcaption>");
		ks_html_raw(h, gpu ? "Score by team: the sum of the speedups of correct, non-suspicious kernels"
				   : "Compile accuracy by team (compile-only results: nothing was run)");
		if (nb == MAX_BARS)
			ks_html_rawf(h, " (the first %d teams)", MAX_BARS);
		ks_html_raw(h, "</figcaption>\n");
		o.title = gpu ? "Score by team" : "Compile accuracy by team";
		o.unit = gpu ? "" : "%";
		o.digits = 4;
		ks_svg_bars(h, bars, nb, &o);
		ks_html_raw(h, "</figure>\n");
	}
	for (i = 0; i < m->nteams && ns < MAX_CURVES; i++) {
		const ks_export_team *t = &m->teams[i];
		if (!t->has_result || !t->gpu || !t->nk)
			continue;
		sp[ns] = team_speedups(t, &ser[ns].n);
		ser[ns].speedups = sp[ns];
		ser[ns].name = t->name;
		ser[ns].total = t->nk;
		ns++;
	}
	if (ns) {
		ks_html_rawf(h, "<figure><figcaption>fast_p: the fraction of a team's kernels that are correct and "
			     "more than p times as fast as the golden kernel (KernelBench); fast_1 and fast_2 are "
			     "marked%s</figcaption>\n", ns == MAX_CURVES ? "; the first 8 teams" : "");
		ks_svg_fastp(h, ser, ns, "fast_p by team");
		ks_html_raw(h, "</figure>\n");
	}
	for (i = 0; i < ns; i++)
		ks_free(sp[i]);
	ks_free(sp);
	ks_free(ser);
	ks_free_strv(hrefs, nb);
	ks_free(bars);
}

void ks_export_page_leaderboard(ks_html *h, const ks_export_model *m)
{
	cJSON *rows = cJSON_CreateArray();
	size_t i;

	ks_export_page_begin(h, m, "Leaderboard", "leaderboard");
	ks_html_raw(h, "<h1>Leaderboard</h1>\n<p class=\"lead\">");
	ks_html_rawf(h, "%zu team%s", m->nteams, m->nteams == 1 ? "" : "s");
	if (m->deadline || m->deadline_given) {
		ks_html_raw(h, "; deadline ");
		ks_export_deadline(h, m);
	}
	ks_html_raw(h, "; written ");
	ks_html_text(h, m->generated);
	ks_html_raw(h, ".</p>\n<p class=\"rule\" id=\"ranking-rule\">");
	ks_html_text(h, ranking_rule);
	ks_html_raw(h, "</p>\n");
	baseline_lead(h, m);
	unscored_lead(h, m);
	ks_html_raw(h, "<p class=\"tools\" hidden><label>Filter teams <input type=\"search\" "
		    "data-filter=\"leaderboard\" placeholder=\"team name\"></label></p>\n"
		    "<div class=\"scroll\"><table class=\"sortable\" id=\"leaderboard\">\n<thead><tr>");
	ks_export_th(h, "Rank", "num", NULL);
	ks_export_th(h, "Team", "text", NULL);
	ks_export_th(h, "Score", "num", "sum of the speedups of correct, non-suspicious kernels");
	/* beside the score it explains, so that it is in view on a laptop screen however wide the
	 * table (it used to be the last column, off-screen at 1400 px) */
	ks_export_th(h, "Status", "text", "why a team has the score it has: scored, or why not");
	ks_export_th(h, "Exec", "num", "exec accuracy: every correctness case passed");
	ks_export_th(h, "Call", "num", "call accuracy: compiled, loaded and ran");
	ks_export_th(h, "Compile", "num", "compile accuracy");
	ks_export_th(h, "fast_1", "num", "fraction of kernels correct and faster than the baseline");
	ks_export_th(h, "fast_2", "num", "fraction of kernels correct and twice as fast as the baseline");
	ks_export_th(h, "Geomean", "num", "geometric mean speedup of the timed kernels");
	ks_export_th(h, "Roofline", "num", "fraction of the measured roofline reached");
	ks_export_th(h, "Kernels", "num", NULL);
	ks_export_th(h, "Suspicious", "num", "kernels flagged suspicious (score 0)");
	ks_export_th(h, "Commit", "text", NULL);
	ks_export_th(h, "Commit time", "text", NULL);
	ks_html_raw(h, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		cJSON *r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "rank", (double)t->rank);
		cJSON_AddStringToObject(r, "team", t->name);
		cJSON_AddStringToObject(r, "page", t->slug);
		cJSON_AddItemToArray(rows, r);
		ks_html_rawf(h, "<tr data-i=\"%zu\"%s>", i, t->has_result ? "" : " class=\"noresult\"");
		ks_export_td_num(h, (double)t->rank, 6, NULL);
		ks_html_raw(h, "<td class=\"team\" data-v=\"");
		ks_html_text(h, t->name);
		ks_html_raw(h, "\">");
		ks_export_team_link(h, t);
		ks_html_raw(h, "</td>");
		ks_export_td_num(h, t->score, 4, NULL);
		status_cell(h, t);
		ks_export_td_pct(h, t->exec_acc);
		ks_export_td_pct(h, t->call_acc);
		ks_export_td_pct(h, t->compile_acc);
		ks_export_td_pct(h, t->fast_1);
		ks_export_td_pct(h, t->fast_2);
		ks_export_td_num(h, t->geomean, 3, "\xC3\x97");
		ks_export_td_pct(h, t->roofline);
		ks_export_td_num(h, t->has_result && t->nkernels >= 0 ? (double)t->nkernels : NAN, 6, NULL);
		ks_export_td_num(h, t->has_result && t->nsuspicious >= 0 ? (double)t->nsuspicious : NAN, 6, NULL);
		commit_cell(h, t);
		ks_export_td_text(h, t->commit_time);
		ks_html_raw(h, "</tr>\n");
	}
	ks_html_raw(h, "</tbody></table></div>\n");
	ks_html_raw(h, "<script type=\"application/json\" id=\"ks-rows\">");
	ks_html_json_script(h, rows);
	ks_html_raw(h, "</script>\n");
	cJSON_Delete(rows);
	charts(h, m);
	ks_export_page_end(h, m);
}

void ks_export_page_data(ks_html *h, const ks_export_model *m)
{
	ks_export_page_begin(h, m, "Data", "data");
	ks_html_raw(h, "<h1>Data</h1>\n<p>Everything on these pages, as files (formats in kscore's "
		    "docs/export.md). Strings are valid UTF-8; a number that was not measured is "
		    "<code>null</code> in JSON and empty in CSV. CSV files are RFC 4180 with CRLF line ends; a "
		    "text field that a spreadsheet would run as a formula starts with <code>'</code>.</p>\n<ul>\n"
		    "<li><a href=\"data/leaderboard.json\">leaderboard.json</a>: the ranked teams "
		    "(<code>kscore.site-leaderboard/1</code>)</li>\n"
		    "<li><a href=\"data/leaderboard.csv\">leaderboard.csv</a>: the same, one line per team</li>\n"
		    "<li><a href=\"data/kernels.json\">kernels.json</a>: every kernel of every team with its perf "
		    "cases (<code>kscore.site-kernels/1</code>)</li>\n"
		    "<li><a href=\"data/kernels.csv\">kernels.csv</a>: one line per kernel</li>\n</ul>\n"
		    "<p>The complete records are each team's <code>score.json</code> in the results folder this "
		    "site was written from.</p>\n");
	ks_export_page_end(h, m);
}
