/* pages: the HTML pages of the static site, written from the model (web_export). Every page is
 * flat in the site folder, links relatively (so the folder opens from file:// and from any
 * static host, at any path), loads only assets/site.css and assets/site.js, and reads fully
 * without script: tables are sorted by rank on the server side and charts are inline SVG.
 *
 *   index.html              the leaderboard, the ranking rule, score and fast_p charts
 *   team-<slug>.html        one team: every kernel with its verdict, numbers, roofline and code
 *   problems.html           every problem, and problem-<slug>.html per problem
 *   suspicious.html         kernels flagged suspicious, with their evidence
 *   provenance.html         devices, drivers, ceilings, versions, seeds, deadline, later commits
 *   data.html               the downloads (JSON and CSV files under data/)
 *
 * Each writer fills `h` (check h->rc once at the end). */
#ifndef KS_EXPORT_PAGES_H
#define KS_EXPORT_PAGES_H

#include "web_export/html.h"
#include "web_export/model.h"
#include "web_export/svg.h"

void ks_export_page_leaderboard(ks_html *h, const ks_export_model *m);
void ks_export_page_team(ks_html *h, const ks_export_model *m, const ks_export_team *t);
void ks_export_page_problems(ks_html *h, const ks_export_model *m);
void ks_export_page_problem(ks_html *h, const ks_export_model *m, const char *problem);
void ks_export_page_suspicious(ks_html *h, const ks_export_model *m);
void ks_export_page_provenance(ks_html *h, const ks_export_model *m);
void ks_export_page_data(ks_html *h, const ks_export_model *m);

/* The file name of a problem's page ("problem-<safe name>.html"); distinct problems give distinct
 * names (an index is appended when two make the same safe name). Caller frees. */
char *ks_export_problem_page(const ks_export_model *m, const char *problem);

/* ---- shared by the page writers ---- */

/* <!DOCTYPE html> ... <main>, with the navigation; `active` names the current nav entry. */
void ks_export_page_begin(ks_html *h, const ks_export_model *m, const char *title, const char *active);
/* </main>, the footer and the script. */
void ks_export_page_end(ks_html *h, const ks_export_model *m);

/* Table cells. Numbers carry data-v (the exact value, "" when absent) for the sorting script;
 * an absent value shows as an em dash. */
void ks_export_td_num(ks_html *h, double v, int digits, const char *suffix);
void ks_export_td_pct(ks_html *h, double fraction);
void ks_export_td_text(ks_html *h, const char *s);
/* A sortable header cell; kind "num" or "text". */
void ks_export_th(ks_html *h, const char *label, const char *kind, const char *title);

/* The verdict badge of a kernel. */
void ks_export_badge(ks_html *h, const ks_export_kernel *k);

/* Team page link of a team (its slug is the exporter's own, never untrusted text). */
void ks_export_team_link(ks_html *h, const ks_export_team *t);

/* The deadline as the manifest gave it, with its offset, and beside it in UTC when they differ:
 * "2025-08-24T23:59:59+08:00 (2025-08-24T15:59:59Z)"; UTC alone when the given form is unknown. */
void ks_export_deadline(ks_html *h, const ks_export_model *m);

/* Opens a table row with the team's cell: its name as the sort value, its page link as content. */
void ks_export_row_team(ks_html *h, const ks_export_team *t);

/* A score-like number in a sentence ("1.234", "n/a"). */
void ks_export_num(ks_html *h, double v, int digits);

/* Fills *b as kernel k's bar on a speedup chart: its speedup, a class by verdict (suspicious,
 * failed, at least as fast as the golden kernel, slower) and, for a kernel without a valid speedup,
 * a note saying why. label and href are borrowed, not copied. */
void ks_export_speedup_bar(ks_svg_bar *b, const ks_export_kernel *k, const char *label, const char *href);

/* A figure of n speedup bars against the 1x line of the golden kernel (log scale when the values
 * spread wide), under caption (raw HTML). */
void ks_export_speedup_chart(ks_html *h, const char *caption, const char *title, const ks_svg_bar *bars,
			     size_t n);

#endif
