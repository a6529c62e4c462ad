/* The provenance page: where every number came from. The scoring runs (device, driver, toolchain,
 * scorer version, seed), the measured ceilings the roofline verdicts used, the timing protocol,
 * and for a batch the deadline, the scored commits and the commits dated after the deadline. */
#include "web_export/pages.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void num_cell(ks_html *h, const cJSON *o, const char *key, int digits)
{
	ks_export_td_num(h, ks_json_numval(o, key), digits, NULL);
}

static const char *str_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void runs_table(ks_html *h, const ks_export_model *m)
{
	size_t i;
	ks_html_raw(h, "<h2>Scoring runs</h2>\n<div class=\"scroll\"><table class=\"sortable\" id=\"runs\"><thead><tr>");
	ks_export_th(h, "Team", "text", NULL);
	ks_export_th(h, "Scored", "text", NULL);
	ks_export_th(h, "Mode", "text", NULL);
	ks_export_th(h, "Device", "text", NULL);
	ks_export_th(h, "CC", "text", "compute capability");
	ks_export_th(h, "Driver CUDA", "text", NULL);
	ks_export_th(h, "Arch", "text", NULL);
	ks_export_th(h, "NVRTC", "text", NULL);
	ks_export_th(h, "Scorer", "text", NULL);
	ks_export_th(h, "Seed", "text", "base seed of every input: --seed reproduces them");
	ks_export_th(h, "Golden times", "text", NULL);
	ks_export_th(h, "Speedups over", "text", "the baseline of the speedups and the score");
	ks_export_th(h, "Seconds", "num", "wall time of the scoring run");
	ks_html_raw(h, "</tr></thead><tbody>\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		if (!t->has_result)
			continue;
		ks_export_row_team(h, t);
		ks_export_td_text(h, t->created);
		ks_export_td_text(h, t->mode);
		ks_export_td_text(h, t->device_name);
		ks_export_td_text(h, t->compute_capability);
		ks_export_td_text(h, t->driver_cuda);
		ks_export_td_text(h, t->arch);
		ks_export_td_text(h, t->nvrtc);
		ks_export_td_text(h, t->scorer_version);
		ks_export_td_text(h, t->seed);
		ks_export_td_text(h, t->golden_times);
		ks_export_td_text(h, t->baseline_kind && !strcmp(t->baseline_kind, "reference")
					     ? t->baseline_text : t->baseline_kind ? "the golden kernel" : NULL);
		ks_export_td_num(h, t->wall_seconds, 4, NULL);
		ks_html_raw(h, "</tr>\n");
	}
	ks_html_raw(h, "</tbody></table></div>\n");
}

/* One line per distinct measurement (device and time), however many teams used it. */
static void ceilings_table(ks_html *h, const ks_export_model *m)
{
	size_t i, j, shown = 0;
	for (i = 0; i < m->nteams; i++) {
		const cJSON *c = m->teams[i].ceilings;
		const char *dev, *at, *notes;
		int seen = 0;
		if (!c)
			continue;
		dev = str_of(c, "uuid");
		at = str_of(c, "measured_at");
		for (j = 0; j < i && !seen; j++) {
			const cJSON *o = m->teams[j].ceilings;
			const char *d2 = str_of(o, "uuid"), *a2 = str_of(o, "measured_at");
			seen = o && d2 && a2 && dev && at && !strcmp(d2, dev) && !strcmp(a2, at);
		}
		if (seen)
			continue;
		if (!shown++)
			ks_html_raw(h, "<h2>Measured ceilings</h2>\n<p>The roofline verdicts compare every timing with "
				    "these numbers, measured on the device itself (never a datasheet).</p>\n"
				    "<div class=\"scroll\"><table class=\"perf\" id=\"ceilings\"><thead><tr><th>Device</th>"
				    "<th>Measured</th><th>Bandwidth GB/s</th><th>memcpy GB/s</th><th>Copy kernel GB/s"
				    "</th><th>Read kernel GB/s</th><th>FP32 TFLOP/s</th><th>FP16 tensor TFLOP/s</th>"
				    "<th>BF16 tensor TFLOP/s</th><th>Driver</th><th>Notes</th></tr></thead><tbody>\n");
		ks_html_raw(h, "<tr>");
		ks_export_td_text(h, str_of(c, "device"));
		ks_export_td_text(h, at);
		num_cell(h, c, "bandwidth_gbps", 5);
		num_cell(h, c, "memcpy_gbps", 5);
		num_cell(h, c, "copy_kernel_gbps", 5);
		num_cell(h, c, "read_kernel_gbps", 5);
		num_cell(h, c, "fp32_tflops", 4);
		num_cell(h, c, "f16_tc_tflops", 4);
		num_cell(h, c, "bf16_tc_tflops", 4);
		num_cell(h, c, "driver_version", 6);
		notes = str_of(c, "notes");
		ks_export_td_text(h, notes && *notes ? notes : NULL);
		ks_html_raw(h, "</tr>\n");
	}
	if (shown)
		ks_html_raw(h, "</tbody></table></div>\n");
	else
		ks_html_raw(h, "<h2>Measured ceilings</h2>\n<p class=\"note\">None: no result was timed on a GPU.</p>\n");
}

static void protocol(ks_html *h, const ks_export_model *m)
{
	size_t i;
	const cJSON *sec, *v;
	for (i = 0; i < m->nteams; i++)
		if (m->teams[i].protocol && m->teams[i].protocol->child)
			break;
	if (i == m->nteams)
		return;
	ks_html_raw(h, "<h2>Timing protocol</h2>\n<dl class=\"facts\">");
	cJSON_ArrayForEach(sec, m->teams[i].protocol)
	{
		cJSON_ArrayForEach(v, sec)
		{
			char b[64];
			ks_html_raw(h, "<div><dt>");
			ks_html_text(h, sec->string);
			ks_html_raw(h, ".");
			ks_html_text(h, v->string);
			ks_html_raw(h, "</dt><dd>");
			if (cJSON_IsNumber(v)) {
				snprintf(b, sizeof(b), "%.6g", v->valuedouble);
				ks_html_raw(h, b);
			} else if (cJSON_IsString(v)) {
				ks_html_text(h, v->valuestring);
			}
			ks_html_raw(h, "</dd></div>");
		}
	}
	ks_html_rawf(h, "</dl>\n<p class=\"note\">As recorded in the score.json of %s; each team's own record "
		     "holds its settings.</p>\n", "the first team timed");
}

static void commits(ks_html *h, const ks_export_model *m)
{
	size_t i, j, any = 0;
	for (i = 0; i < m->nteams; i++)
		any += m->teams[i].repository != NULL;
	if (!any)
		return;
	ks_html_raw(h, "<h2>Scored commits</h2>\n<div class=\"scroll\"><table class=\"sortable\" id=\"commits\"><thead><tr>");
	ks_export_th(h, "Team", "text", NULL);
	ks_export_th(h, "Repository", "text", NULL);
	ks_export_th(h, "Ref", "text", NULL);
	ks_export_th(h, "Commit", "text", NULL);
	ks_export_th(h, "Commit time", "text", NULL);
	ks_export_th(h, "Subject", "text", NULL);
	ks_export_th(h, "File", "text", NULL);
	ks_export_th(h, "Fetched", "text", "the mirror's last successful fetch");
	ks_export_th(h, "Later commits", "num", "commits dated after the deadline, not scored");
	ks_html_raw(h, "</tr></thead><tbody>\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		if (!t->repository)
			continue;
		ks_export_row_team(h, t);
		ks_export_td_text(h, t->repository);
		ks_export_td_text(h, t->ref);
		ks_export_td_text(h, t->commit);
		ks_export_td_text(h, t->commit_time);
		ks_export_td_text(h, t->commit_subject);
		ks_export_td_text(h, t->file);
		if (t->fetch_warning) {
			ks_html_raw(h, "<td>");
			ks_html_text(h, t->fetched_at);
			ks_html_raw(h, " <strong>fetch failed, cached copy used:</strong> ");
			ks_html_text(h, t->fetch_warning);
			ks_html_raw(h, "</td>");
		} else {
			ks_export_td_text(h, t->fetched_at);
		}
		ks_export_td_num(h, (double)t->later_total, 6, NULL);
		ks_html_raw(h, "</tr>\n");
	}
	ks_html_raw(h, "</tbody></table></div>\n");
	ks_html_raw(h, "<h2>Commits after the deadline</h2>\n<p>Reported, not scored. A commit marked "
		    "<strong>in the scored history</strong> is contained in the scored commit although dated after "
		    "the deadline: the scored commit's date was moved back, or a clock was wrong.</p>\n");
	for (i = any = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		if (!t->nlater)
			continue;
		any++;
		ks_html_rawf(h, "<section id=\"later-%s\"><h3>", t->slug);
		ks_export_team_link(h, t);
		ks_html_rawf(h, " (%ld)</h3><ul class=\"later\">", t->later_total);
		for (j = 0; j < t->nlater; j++) {
			const ks_export_commit *c = &t->later[j];
			ks_html_rawf(h, "<li%s><span class=\"mono\">", c->ancestor ? " class=\"sus\"" : "");
			ks_html_text(h, c->id);
			ks_html_raw(h, "</span> ");
			ks_html_text(h, c->time);
			ks_html_raw(h, ": ");
			ks_html_text(h, c->subject);
			if (c->ancestor)
				ks_html_raw(h, " <strong>in the scored history</strong>");
			ks_html_raw(h, "</li>");
		}
		if ((size_t)t->later_total > t->nlater)
			ks_html_rawf(h, "<li>\xE2\x80\xA6 and %ld more</li>", t->later_total - (long)t->nlater);
		ks_html_raw(h, "</ul></section>\n");
	}
	if (!any)
		ks_html_raw(h, "<p class=\"note\">None.</p>\n");
}

/* The answers each run could not score for their language or its toolchain: what a score of zero
 * means for those teams. */
static void unscored_table(ks_html *h, const ks_export_model *m)
{
	size_t i, any = 0;
	for (i = 0; i < m->nteams; i++)
		any += m->teams[i].unscored_note != NULL;
	ks_html_raw(h, "<h2 id=\"unscored\">Answers not scored</h2>\n");
	if (!any) {
		ks_html_raw(h, "<p class=\"note\">None: every answer was in a language its run could score.</p>\n");
		return;
	}
	ks_html_raw(h, "<p>Answers in a language the scoring run could not score (Triton answers where the "
		    "run had no GPU or the host lacked Python, torch or Triton to trace them; Python without a "
		    "Triton kernel; or, in results of earlier versions, anything but CUDA) count as failed "
		    "kernels: these teams' scores are not the scores of their kernels.</p>\n<div class=\"scroll\">"
		    "<table class=\"sortable\" id=\"unscored-teams\"><thead><tr>");
	ks_export_th(h, "Team", "text", NULL);
	ks_export_th(h, "Answers", "num", "answers that count (duplicates left out)");
	ks_export_th(h, "Not scored", "num", NULL);
	ks_export_th(h, "Note", "text", NULL);
	ks_html_raw(h, "</tr></thead><tbody>\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		if (!t->unscored_note)
			continue;
		ks_export_row_team(h, t);
		ks_export_td_num(h, (double)t->unscored.answers, 6, NULL);
		ks_export_td_num(h, (double)t->unscored.unscored, 6, NULL);
		ks_export_td_text(h, t->unscored_note);
		ks_html_raw(h, "</tr>\n");
	}
	ks_html_raw(h, "</tbody></table></div>\n");
}

void ks_export_page_provenance(ks_html *h, const ks_export_model *m)
{
	ks_export_page_begin(h, m, "Provenance", "provenance");
	ks_html_raw(h, "<h1>Provenance</h1>\n<dl class=\"facts\">");
	if (m->deadline || m->deadline_given) {
		ks_html_raw(h, "<div><dt>Deadline</dt><dd>");
		ks_export_deadline(h, m);
		ks_html_raw(h, "</dd></div>");
	}
	ks_html_raw(h, "<div><dt>Site written</dt><dd>");
	ks_html_text(h, m->generated);
	ks_html_rawf(h, "</dd></div><div><dt>Teams</dt><dd>%zu</dd></div><div><dt>Problems</dt><dd>%zu</dd></div></dl>\n",
		     m->nteams, m->nproblems);
	runs_table(h, m);
	unscored_table(h, m);
	ceilings_table(h, m);
	protocol(h, m);
	commits(h, m);
	ks_export_page_end(h, m);
}
