/* The team page: the team's summary, its charts, and every kernel with its verdict and reason, per
 * case speedups and throughput against the roofline, resources, suspicious evidence, extracted
 * code with line numbers and device output. `score export` of a single run's result folder
 * writes this same page for a participant's own file. */
#include "web_export/pages.h"
#include "web_export/svg.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The title of the mark on a kernel whose code holds bidirectional text (an attribute: escaped). */
static const char bidi_title[] = "the code holds bidirectional control characters (U+202A-U+202E, "
				 "U+2066-U+2069): as displayed it can differ from what the compiler reads "
				 "(Trojan Source); they are shown as &lt;U+...&gt;";

/* One fact of the summary: <div><dt>term</dt><dd>, closed by dd_end. */
static void dt(ks_html *h, const char *term)
{
	ks_html_raw(h, "<div><dt>");
	ks_html_raw(h, term);
	ks_html_raw(h, "</dt><dd>");
}

static void dd_end(ks_html *h)
{
	ks_html_raw(h, "</dd></div>");
}

static void dd_text(ks_html *h, const char *term, const char *v)
{
	if (!v || !*v)
		return;
	dt(h, term);
	ks_html_text(h, v);
	dd_end(h);
}

static void dd_pct(ks_html *h, const char *term, double v)
{
	if (!isfinite(v))
		return;
	dt(h, term);
	ks_html_rawf(h, "%.1f%%", 100 * v);
	dd_end(h);
}

/* A number to 4 significant digits and then suffix; nothing for a missing (non-finite) one. */
static void dd_num(ks_html *h, const char *term, double v, const char *suffix)
{
	if (!isfinite(v))
		return;
	dt(h, term);
	ks_export_num(h, v, 4);
	ks_html_raw(h, suffix);
	dd_end(h);
}

static void summary(ks_html *h, const ks_export_team *t)
{
	ks_html_raw(h, "<dl class=\"facts\">");
	dt(h, "Rank");
	ks_html_rawf(h, "%zu", t->rank);
	dd_end(h);
	dd_text(h, "Status", t->status);
	dd_text(h, "Reason", t->reason);
	dd_text(h, "Detail", t->detail);
	dd_text(h, "Mode", t->mode);
	dd_text(h, "Why no GPU", t->no_gpu_reason);
	if (t->unscored_note) {
		dt(h, "Not scored");
		ks_html_raw(h, "<span class=\"warn unscored\">");
		ks_html_text(h, t->unscored_note);
		ks_html_raw(h, "</span>");
		dd_end(h);
	}
	dd_num(h, "Score", t->score, " (sum of the speedups of correct, non-suspicious kernels)");
	dd_pct(h, "Exec accuracy", t->exec_acc);
	dd_pct(h, "Call accuracy", t->call_acc);
	dd_pct(h, "Compile accuracy", t->compile_acc);
	dd_pct(h, "fast_1", t->fast_1);
	dd_pct(h, "fast_2", t->fast_2);
	dd_num(h, "Geomean speedup", t->geomean, "\xC3\x97");
	dd_pct(h, "Roofline reached", t->roofline);
	if (t->nsuspicious > 0) {
		dt(h, "Suspicious");
		ks_html_rawf(h, "<a href=\"suspicious.html\">%ld kernel%s</a>", t->nsuspicious,
			     t->nsuspicious == 1 ? "" : "s");
		dd_end(h);
	}
	if (t->commit) {
		dt(h, "Commit");
		ks_html_raw(h, "<span class=\"mono\">");
		ks_html_text(h, t->commit);
		ks_html_raw(h, "</span>");
		if (t->commit_time) {
			ks_html_raw(h, ", ");
			ks_html_text(h, t->commit_time);
		}
		if (t->commit_subject) {
			ks_html_raw(h, ": \xE2\x80\x9C");
			ks_html_text(h, t->commit_subject);
			ks_html_raw(h, "\xE2\x80\x9D");
		}
		dd_end(h);
	}
	dd_text(h, "Repository", t->repository);
	dd_text(h, "Ref", t->ref);
	dd_text(h, "File", t->file ? t->file : t->submission_path);
	if (t->later_total > 0) {
		dt(h, "Later commits");
		ks_html_rawf(h, "<a href=\"provenance.html#later-%s\">%ld not scored</a>", t->slug, t->later_total);
		dd_end(h);
	}
	{
		size_t i, n = 0;
		for (i = 0; i < t->nk; i++)
			n += ks_html_bidi_count(t->kernels[i].code) > 0;
		if (n) {
			dt(h, "Bidirectional text");
			ks_html_rawf(h, "<span class=\"warn\">%zu kernel%s hold%s bidirectional control "
				     "characters: review %s code (marked <span class=\"badge b-bidi\">bidi</span> "
				     "below)</span>", n, n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "its" : "their");
			dd_end(h);
		}
	}
	dd_text(h, "Submission sha256", t->submission_sha256);
	dd_text(h, "Scored", t->created);
	ks_html_raw(h, "</dl>\n");
}

static void team_charts(ks_html *h, const ks_export_team *t)
{
	ks_svg_bar *bars = ks_calloc(t->nk + 1, sizeof(*bars));
	char **labels = ks_calloc(t->nk + 1, sizeof(*labels)), **hrefs = ks_calloc(t->nk + 1, sizeof(*hrefs));
	double *sp = ks_calloc(t->nk + 1, sizeof(*sp));
	ks_svg_series s;
	size_t i, timed = 0;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < t->nk; i++) {
		const ks_export_kernel *k = &t->kernels[i];
		labels[i] = ks_strdup(k->problem ? k->problem : (k->file ? k->file : "?"));
		hrefs[i] = ks_asprintf("#k-%ld-%ld", k->pass, k->index);
		ks_export_speedup_bar(&bars[i], k, labels[i], hrefs[i]);
		timed += isfinite(k->speedup);
		if (k->exec == 1 && !k->suspicious && isfinite(k->speedup))
			sp[s.n++] = k->speedup;
	}
	if (timed) {
		ks_export_speedup_chart(h, "Speedup of each kernel over the golden kernel (golden time / this "
					"kernel's time, summed over the perf cases); the line marks 1\xC3\x97",
					"Speedup by kernel", bars, t->nk);
		s.name = t->name;
		s.speedups = sp;
		s.total = t->nk;
		ks_html_raw(h, "<figure><figcaption>fast_p: the fraction of this team's kernels that are correct "
			    "and more than p times as fast as the golden kernel</figcaption>\n");
		ks_svg_fastp(h, &s, 1, "fast_p");
		ks_html_raw(h, "</figure>\n");
	}
	ks_free_strv(labels, t->nk);
	ks_free_strv(hrefs, t->nk);
	ks_free(bars);
	ks_free(sp);
}

static long max_of(const ks_export_kernel *k, int which)
{
	long v = -1;
	size_t i;
	for (i = 0; i < k->nfns; i++) {
		long x = which == 0 ? k->fns[i].registers : which == 1 ? k->fns[i].shared : k->fns[i].local;
		if (x > v)
			v = x;
	}
	return v;
}

static void kernel_table(ks_html *h, const ks_export_team *t)
{
	size_t i;
	ks_html_raw(h, "<p class=\"tools\" hidden><label>Show <select data-verdict-filter=\"kernels\">"
		    "<option value=\"\">every kernel</option><option value=\"correct\">correct</option>"
		    "<option value=\"failed\">failed</option><option value=\"suspicious\">suspicious</option>"
		    "</select></label></p>\n<div class=\"scroll\"><table class=\"sortable\" id=\"kernels\">"
		    "<thead><tr>");
	ks_export_th(h, "#", "num", "pass and entry");
	ks_export_th(h, "Problem", "text", NULL);
	ks_export_th(h, "Verdict", "text", NULL);
	ks_export_th(h, "Reason", "text", NULL);
	ks_export_th(h, "Speedup", "num", "golden time / this kernel's time, summed over perf cases");
	ks_export_th(h, "Geomean", "num", "geometric mean of the per-case speedups");
	ks_export_th(h, "Roofline", "num", "fraction of the measured roofline reached");
	ks_export_th(h, "Registers", "num", "most registers per thread of its kernels");
	ks_export_th(h, "Shared", "num", "most static shared memory (bytes) of its kernels");
	ks_export_th(h, "Spills", "num", "most local memory (bytes) of its kernels");
	ks_export_th(h, "Score", "num", NULL);
	ks_html_raw(h, "</tr></thead>\n<tbody>\n");
	for (i = 0; i < t->nk; i++) {
		const ks_export_kernel *k = &t->kernels[i];
		long r = max_of(k, 0), sh = max_of(k, 1), lo = max_of(k, 2);
		const char *v = ks_export_verdict(k);
		ks_html_rawf(h, "<tr data-verdict=\"%s\"><td class=\"num\" data-v=\"%ld\">%ld.%ld</td><td>"
			     "<a href=\"#k-%ld-%ld\">", v, k->pass * 100000 + k->index, k->pass, k->index, k->pass,
			     k->index);
		ks_html_text(h, k->problem ? k->problem : (k->file ? k->file : "?"));
		ks_html_rawf(h, "</a></td><td data-v=\"%s\">", v);
		ks_export_badge(h, k);
		if (ks_html_bidi_count(k->code))
			ks_html_rawf(h, " <span class=\"badge b-bidi\" title=\"%s\">bidi</span>", bidi_title);
		ks_html_raw(h, "</td>");
		ks_export_td_text(h, k->reason && strcmp(k->reason, "ok") ? k->reason : NULL);
		ks_export_td_num(h, k->speedup, 4, "\xC3\x97");
		ks_export_td_num(h, k->speedup_geomean, 4, "\xC3\x97");
		ks_export_td_pct(h, k->roofline_fraction);
		ks_export_td_num(h, r >= 0 ? (double)r : NAN, 6, NULL);
		ks_export_td_num(h, sh >= 0 ? (double)sh : NAN, 9, NULL);
		ks_export_td_num(h, lo >= 0 ? (double)lo : NAN, 9, NULL);
		ks_export_td_num(h, k->score, 4, NULL);
		ks_html_raw(h, "</tr>\n");
	}
	ks_html_raw(h, "</tbody></table></div>\n");
}

/* A log or output quotes code: its bidirectional controls are shown, not obeyed, as in the code. */
static void pre_block(ks_html *h, const char *cls, const char *text)
{
	ks_html_rawf(h, "<pre class=\"%s\">", cls);
	ks_html_code_textn(h, text, strlen(text));
	ks_html_raw(h, "</pre>\n");
}

/* The flag code hosts show on a file with bidirectional text, above its code. */
static void bidi_warning(ks_html *h, const ks_export_kernel *k)
{
	size_t n = ks_html_bidi_count(k->code);
	if (!n)
		return;
	ks_html_rawf(h, "<p class=\"reason warn bidi-warning\"><strong>Bidirectional text</strong>: this "
		     "code holds %zu bidirectional control character%s (U+202A&ndash;U+202E, "
		     "U+2066&ndash;U+2069), shown below as <span class=\"bidi\">&lt;U+&hellip;&gt;</span>. "
		     "They reorder how text is displayed, so the code as a reader sees it can differ from "
		     "the code the compiler read (Trojan Source): review it before trusting its "
		     "comments and strings.</p>\n", n, n == 1 ? "" : "s");
}

/* Code with line numbers: each line is a span, numbered by a CSS counter, so copying the code
 * does not copy the numbers. */
static void code_block(ks_html *h, const ks_export_kernel *k)
{
	const char *p = k->code, *nl;
	size_t lines = 0;
	if (!k->code) {
		ks_html_raw(h, "<p class=\"note\">Code not shown: ");
		ks_html_text(h, k->code_note ? k->code_note : "not available");
		ks_html_raw(h, ".</p>\n");
		return;
	}
	for (nl = p; nl; nl = strchr(nl + 1, '\n'))
		lines++;
	ks_html_rawf(h, "<details class=\"code\"><summary>Extracted code (%zu lines", lines);
	if (k->extraction) {
		ks_html_raw(h, "; ");
		ks_html_text(h, k->extraction);
	}
	ks_html_raw(h, ")</summary>\n<pre class=\"code\"><code>");
	while (*p) {
		size_t n;
		nl = strchr(p, '\n');
		n = nl ? (size_t)(nl - p) : strlen(p);
		ks_html_raw(h, "<span class=\"l\">");
		ks_html_code_textn(h, p, n);
		ks_html_raw(h, "</span>\n");
		p += n;
		if (*p == '\n')
			p++;
	}
	ks_html_raw(h, "</code></pre></details>\n");
}

static void perf_table(ks_html *h, const ks_export_kernel *k)
{
	size_t i;
	ks_html_raw(h, "<div class=\"scroll\"><table class=\"perf\"><thead><tr><th>Case</th><th>ms</th>"
		    "<th>Golden ms</th><th>Speedup</th><th>GB/s</th><th>TFLOP/s</th><th>Floor ms</th>"
		    "<th>Roofline</th><th>Runs</th><th>Verified</th><th>Verdict</th></tr></thead><tbody>\n");
	for (i = 0; i < k->nperf; i++) {
		const ks_export_perf *p = &k->perf[i];
		ks_html_rawf(h, "<tr%s><td class=\"case\">%zu. ", p->suspicious ? " class=\"sus\"" : "", i + 1);
		ks_html_text(h, p->label);
		ks_html_raw(h, "</td>");
		ks_export_td_num(h, p->ms, 4, NULL);
		ks_export_td_num(h, p->golden_ms, 4, NULL);
		ks_export_td_num(h, p->speedup, 4, "\xC3\x97");
		ks_export_td_num(h, p->gbps, 4, NULL);
		ks_export_td_num(h, p->tflops, 4, NULL);
		ks_export_td_num(h, p->floor_ms, 4, NULL);
		ks_export_td_pct(h, p->roofline_fraction);
		ks_export_td_num(h, p->runs >= 0 ? (double)p->runs : NAN, 6, NULL);
		ks_export_td_num(h, p->verified >= 0 ? (double)p->verified : NAN, 6, NULL);
		ks_html_raw(h, p->suspicious ? "<td><strong>suspicious</strong></td></tr>\n" : "<td>ok</td></tr>\n");
		if (p->suspicious) {
			/* the evidence on a line of its own, under the numbers it is about */
			ks_html_raw(h, "<tr class=\"sus\"><td class=\"why\" colspan=\"11\">");
			ks_html_text(h, p->why);
			ks_html_raw(h, "</td></tr>\n");
		}
	}
	ks_html_raw(h, "</tbody></table></div>\n");
}

static double bandwidth(const ks_export_team *t)
{
	return ks_json_numval(t->ceilings, "bandwidth_gbps");
}

static void kernel_section(ks_html *h, const ks_export_model *m, const ks_export_team *t, const ks_export_kernel *k)
{
	size_t i;
	char id[64];
	ks_html_rawf(h, "<section class=\"kernel\" id=\"k-%ld-%ld\"><h3>", k->pass, k->index);
	if (k->problem) {
		char *page = ks_export_problem_page(m, k->problem);
		ks_html_rawf(h, "<a href=\"%s\">", page);
		ks_html_text(h, k->problem);
		ks_html_raw(h, "</a>");
		ks_free(page);
	} else {
		ks_html_text(h, k->file ? k->file : "(no problem)");
	}
	ks_html_raw(h, " ");
	ks_export_badge(h, k);
	if (ks_html_bidi_count(k->code))
		ks_html_rawf(h, " <span class=\"badge b-bidi\" title=\"%s\">bidirectional text</span>", bidi_title);
	ks_html_rawf(h, "</h3>\n<p class=\"meta\">pass %ld, entry %ld", k->pass, k->index);
	if (k->file) {
		ks_html_raw(h, ", file ");
		ks_html_text(h, k->file);
	}
	if (k->launch_source) {
		ks_html_raw(h, ", launch: ");
		ks_html_text(h, k->launch_source);
	}
	if (isfinite(k->speedup)) {
		ks_html_raw(h, "; speedup ");
		ks_export_num(h, k->speedup, 4);
		ks_html_raw(h, "\xC3\x97 (geomean ");
		ks_export_num(h, k->speedup_geomean, 4);
		ks_html_raw(h, "\xC3\x97)");
	}
	if (isfinite(k->roofline_fraction))
		ks_html_rawf(h, ", %.1f%% of the roofline", 100 * k->roofline_fraction);
	ks_html_raw(h, "</p>\n");
	if (k->reason && strcmp(k->reason, "ok")) {
		ks_html_raw(h, "<p class=\"reason\"><strong>");
		ks_html_text(h, k->reason);
		ks_html_raw(h, "</strong>: ");
		ks_html_text(h, k->detail);
		ks_html_raw(h, "</p>\n");
	}
	if (k->suspicious) {
		ks_html_raw(h, "<p class=\"reason sus\"><strong>Suspicious</strong> (scores 0; kept as evidence): ");
		ks_html_text(h, k->suspicious_why);
		ks_html_raw(h, "</p>\n");
	}
	if (k->timing_error) {
		ks_html_raw(h, "<p class=\"reason\">Not timed: ");
		ks_html_text(h, k->timing_error);
		ks_html_raw(h, "</p>\n");
	}
	if (k->nfailed) {
		ks_html_rawf(h, "<p>Failed correctness runs (of %ld):</p><ul class=\"cases\">", k->ncases);
		for (i = 0; i < k->nfailed; i++) {
			ks_html_raw(h, "<li>");
			ks_html_text(h, k->failed[i].label);
			ks_html_raw(h, ": ");
			ks_html_text(h, k->failed[i].reason);
			ks_html_raw(h, " \xE2\x80\x94 ");
			ks_html_text(h, k->failed[i].detail);
			ks_html_raw(h, "</li>");
		}
		ks_html_raw(h, "</ul>\n");
	}
	if (k->nfns) {
		ks_html_raw(h, "<p class=\"fns\">");
		for (i = 0; i < k->nfns; i++) {
			ks_html_raw(h, i ? "; " : "Kernels: ");
			ks_html_raw(h, "<code>");
			ks_html_text(h, k->fns[i].name);
			ks_html_rawf(h, "</code> %ld registers, %ld B shared, %ld B spilled", k->fns[i].registers,
				     k->fns[i].shared, k->fns[i].local);
		}
		ks_html_raw(h, "</p>\n");
	}
	if (k->nperf) {
		ks_svg_roof_point *pts = ks_calloc(k->nperf, sizeof(*pts));
		perf_table(h, k);
		for (i = 0; i < k->nperf; i++) {
			pts[i].label = k->perf[i].label;
			pts[i].bytes = k->perf[i].bytes;
			pts[i].flops = k->perf[i].flops;
			pts[i].ms = k->perf[i].ms;
			pts[i].golden_ms = k->perf[i].golden_ms;
			pts[i].floor_ms = k->perf[i].floor_ms;
		}
		snprintf(id, sizeof(id), "r-%ld-%ld", k->pass, k->index);
		ks_html_raw(h, "<figure><figcaption>Roofline: achieved throughput against the measured ceilings, "
			    "the golden kernel beside it</figcaption>\n");
		ks_svg_roofline(h, pts, k->nperf, bandwidth(t), id, "Roofline");
		ks_html_raw(h, "</figure>\n");
		ks_free(pts);
	}
	if (k->compile_log && *k->compile_log) {
		ks_html_raw(h, "<details><summary>Compile log</summary>");
		pre_block(h, "log", k->compile_log);
		ks_html_raw(h, "</details>\n");
	}
	if (k->output && *k->output) {
		ks_html_raw(h, k->output_truncated ? "<p>Device output (the first 4 KiB of it):</p>"
						   : "<p>Device output:</p>");
		pre_block(h, "log", k->output);
	}
	if (k->diagnosis && *k->diagnosis) {
		const char *p = k->diagnosis;
		ks_html_raw(h, "<p>Why it is slow (Nsight Compute, against the golden kernel):</p><ul class=\"diagnosis\">");
		while (*p) {
			size_t n = strcspn(p, "\n");
			ks_html_raw(h, "<li>");
			ks_html_textn(h, p, n);
			ks_html_raw(h, "</li>");
			p += n + (p[n] == '\n');
		}
		ks_html_raw(h, "</ul>\n");
	}
	bidi_warning(h, k);
	code_block(h, k);
	ks_html_raw(h, "</section>\n");
}

void ks_export_page_team(ks_html *h, const ks_export_model *m, const ks_export_team *t)
{
	size_t i;
	ks_export_page_begin(h, m, t->name, NULL);
	ks_html_raw(h, "<h1>");
	ks_html_name(h, t->name);
	ks_html_raw(h, "</h1>\n");
	summary(h, t);
	if (!t->has_result) {
		ks_html_raw(h, "<p class=\"note\">No result: this team was not scored");
		if (t->detail || t->reason) {
			ks_html_raw(h, " (");
			ks_html_text(h, t->detail ? t->detail : t->reason);
			ks_html_raw(h, ")");
		}
		ks_html_raw(h, ".</p>\n");
		ks_export_page_end(h, m);
		return;
	}
	team_charts(h, t);
	ks_html_rawf(h, "<h2>Kernels</h2>\n");
	if (!t->nk)
		ks_html_raw(h, "<p class=\"note\">The submission holds no kernel.</p>\n");
	else
		kernel_table(h, t);
	for (i = 0; i < t->nk; i++)
		kernel_section(h, m, t, &t->kernels[i]);
	ks_export_page_end(h, m);
}
