/* site tests: escaping and UTF-8, the charts' arithmetic, loading results (missing fields, a
 * team without a result, suspicious kernels, Unicode names), the ranking rule, the site folder
 * rule (only a folder kscore wrote is replaced), the pages and data files on the fixture batch and
 * on hostile input, and `score export` / `score batch` end to end. The browser tests are in
 * test_export_browser.c. */
#include "ktest.h"
#include "export_test.h"
#include "web_export/data.h"
#include "web_export/export.h"
#include "web_export/html.h"
#include "web_export/model.h"
#include "web_export/pages.h"
#include "web_export/svg.h"

#include <dirent.h>
#include <stdarg.h>
#include <sys/stat.h>

static char *esc(const char *s)
{
	ks_html h = KS_HTML_INIT(1 << 20);
	ks_html_text(&h, s);
	return ks_buf_take(&h.buf, NULL);
}

static void test_escaping(void)
{
	char *e = esc("<script>alert(\"x\") & 'y'</script>");
	KT_EQ_STR(e, "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;");
	ks_free(e);
	/* controls other than TAB and LF cannot render: U+FFFD; CR of CRLF is dropped */
	e = esc("a\x01" "b\tc\r\nd\x7f" "e\xC2\x85" "f");
	KT_EQ_STR(e, "a\xEF\xBF\xBD" "b\tc\nd\xEF\xBF\xBD" "e\xEF\xBF\xBD" "f");
	ks_free(e);
	/* CJK and emoji pass through */
	e = esc("チーム 中文队 \xF0\x9F\x9A\x80");
	KT_EQ_STR(e, "チーム 中文队 \xF0\x9F\x9A\x80");
	ks_free(e);
	{
		ks_html h = KS_HTML_INIT(1 << 20);
		ks_html_text_cut(&h, "中文队abc", 3);
		KT_EQ_STR(h.buf.ptr, "中文队\xE2\x80\xA6");
		ks_html_free(&h);
	}
	{
		/* a page that outgrows its cap reports it once, at the end */
		ks_html h = KS_HTML_INIT(8);
		ks_html_raw(&h, "12345");
		ks_html_text(&h, "6789");
		KT_EQ_INT(h.rc, KS_ELIMIT);
		ks_html_free(&h);
	}
}

static void test_invalid_utf8_becomes_valid(void)
{
	static const char *bad[] = {
		"\xFF\xFE", "\xC0\xAF" /* overlong '/' */, "\xED\xA0\x80" /* surrogate */,
		"\xF4\x90\x80\x80" /* above U+10FFFF */, "\xE4\xB8" /* truncated */, "\x80", "a\xF0\x9F\x9A",
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *e = esc(bad[i]), *c = ks_html_utf8_clean(bad[i], strlen(bad[i]));
		KT_ASSERT_MSG(!ks_html_utf8_valid(bad[i], strlen(bad[i])), "case %zu counted valid", i);
		KT_ASSERT_MSG(ks_html_utf8_valid(e, strlen(e)), "escaped case %zu is not valid UTF-8", i);
		KT_ASSERT_MSG(ks_html_utf8_valid(c, strlen(c)), "cleaned case %zu is not valid UTF-8", i);
		KT_CONTAINS(c, "\xEF\xBF\xBD");
		ks_free(e);
		ks_free(c);
	}
	KT_ASSERT(ks_html_utf8_valid("\xEF\xBF\xBD \xF0\x9F\x9A\x80", 8));
	{
		unsigned cp;
		KT_EQ_INT(ks_html_utf8_next((const unsigned char *)"\xE4\xB8\xAD", 3, &cp), 3);
		KT_EQ_INT(cp, 0x4E2D);
	}
}

static void test_json_for_script(void)
{
	cJSON *v = cJSON_CreateObject(), *back = NULL;
	ks_html h = KS_HTML_INIT(1 << 20);
	const char *s = "</script><!-- \xE2\x80\xA8 \xE2\x80\xA9 & \xFF";
	cJSON_AddStringToObject(v, "team", s);
	ks_html_json_script(&h, v);
	KT_NOT_CONTAINS(h.buf.ptr, "</");
	KT_NOT_CONTAINS(h.buf.ptr, "<!--");
	KT_NOT_CONTAINS(h.buf.ptr, "\xE2\x80\xA8");
	KT_NOT_CONTAINS(h.buf.ptr, "\xE2\x80\xA9");
	KT_CONTAINS(h.buf.ptr, "\\u003c/script\\u003e");
	KT_CONTAINS(h.buf.ptr, "\\u2028");
	KT_ASSERT(ks_html_utf8_valid(h.buf.ptr, h.buf.len));
	/* a JSON parser reads the same string back (the invalid byte as U+FFFD) */
	KT_EQ_INT(ks_json_parse(&back, h.buf.ptr, h.buf.len, 8, "script"), 0);
	KT_EQ_STR(cJSON_GetObjectItemCaseSensitive(back, "team")->valuestring,
		  "</script><!-- \xE2\x80\xA8 \xE2\x80\xA9 & \xEF\xBF\xBD");
	cJSON_Delete(back);
	cJSON_Delete(v);
	ks_html_free(&h);
}

static void test_fastp_and_charts(void)
{
	double sp[] = { 0.5, 1.0, 1.5, 2.5 };
	ks_svg_series s = { "t", sp, 4, 8 };
	ks_svg_bar bars[3] = { { "<b>a</b>", "team-a.html", 0.05, "c-bar", NULL },
			       { "b", NULL, 40, "c-good", "\"note\"" },
			       { "c", NULL, NAN, "c-gray", "compile_error" } };
	ks_svg_bars_opts o = KS_SVG_BARS_OPTS_INIT;
	ks_html h = KS_HTML_INIT(1 << 20);
	ks_svg_roof_point none = { "x", 100, 0, NAN, NAN, 0 };

	/* fast_p counts kernels strictly faster than p, over every kernel of the team */
	KT_NEAR(ks_svg_fastp_at(&s, 0), 4.0 / 8, 1e-12);
	KT_NEAR(ks_svg_fastp_at(&s, 1), 2.0 / 8, 1e-12);
	KT_NEAR(ks_svg_fastp_at(&s, 2), 1.0 / 8, 1e-12);
	KT_NEAR(ks_svg_fastp_at(&s, 3), 0, 1e-12);
	o.ref = 1;
	o.log = -1;
	ks_svg_bars(&h, bars, 3, &o);
	KT_CONTAINS(h.buf.ptr, "log scale");       /* 0.05 .. 40 spans almost three decades */
	KT_CONTAINS(h.buf.ptr, "&lt;b&gt;a&lt;/b&gt;");
	KT_NOT_CONTAINS(h.buf.ptr, "<b>");
	KT_CONTAINS(h.buf.ptr, "&quot;note&quot;");
	KT_CONTAINS(h.buf.ptr, "href=\"team-a.html\"");
	KT_CONTAINS(h.buf.ptr, "n/a");
	ks_html_free(&h);
	bars[0].value = 2;
	bars[1].value = 3;
	ks_svg_bars(&h, bars, 2, &o);
	KT_NOT_CONTAINS(h.buf.ptr, "log scale");
	ks_html_free(&h);
	/* numbers from a hand-edited file never reach the SVG as nan or inf */
	{
		ks_svg_bar huge[2] = { { "a", NULL, 1e308, "c-bar", NULL }, { "b", NULL, -1e308, "c-bar", NULL } };
		double big[2] = { 1e308, INFINITY };
		ks_svg_series hs = { "s", big, 2, 2 };
		ks_svg_roof_point rp[2] = { { "x", 1e6, 1e6, 1e-320, 1e-320, 1e-300 }, { "y", 1e6, 1e6, 0.1, 0.2, 0.05 } };
		o.log = 0;
		ks_svg_bars(&h, huge, 2, &o);
		ks_svg_fastp(&h, &hs, 1, "f");
		ks_svg_roofline(&h, rp, 2, 3000, "r", "Roofline");
		KT_CONTAINS(h.buf.ptr, "<circle");
		KT_NOT_CONTAINS(h.buf.ptr, "nan");
		KT_NOT_CONTAINS(h.buf.ptr, "inf");
		ks_html_free(&h);
	}
	/* a kernel that was never timed has no roofline picture */
	ks_svg_roofline(&h, &none, 1, 3000, "r", "Roofline");
	KT_EQ_INT(h.buf.len, 0);
	ks_html_free(&h);
}

static ks_export_model *load(const char *const *in, size_t n, int expect)
{
	ks_export_load_options lo = KS_EXPORT_LOAD_OPTIONS_INIT;
	ks_export_model *m = NULL;
	int rc = ks_export_model_load(&m, in, n, &lo);
	KT_ASSERT_MSG(rc == expect, "load: %d (%s)", rc, ks_error_msg());
	return m;
}

static const ks_export_team *team_named(const ks_export_model *m, const char *name)
{
	size_t i;
	for (i = 0; i < m->nteams; i++)
		if (!strcmp(m->teams[i].name, name))
			return &m->teams[i];
	KT_FAIL("no team %s", name);
	return NULL;
}

/* The site ranks a batch exactly as its leaderboard.json does. */
/* A kernel's bar on the team and problem pages: the class by verdict, suspicious first; a note only
 * where the kernel has no valid speedup. */
static void test_speedup_bar_classes(void)
{
	static const struct {
		int exec, suspicious;
		double speedup;
		const char *cls, *note;
	} cases[] = {
		{ 1, 0, 2.0, "c-good", NULL },
		{ 1, 0, 1.0, "c-good", NULL },
		{ 1, 0, 0.5, "c-bar", NULL },
		{ 1, 0, NAN, "c-bar", NULL },
		{ 0, 0, NAN, "c-gray", "wrong_output" },
		{ -1, 0, NAN, "c-gray", "wrong_output" },
		{ 1, 1, 3.0, "c-bad", "suspicious" },
		{ 0, 1, NAN, "c-bad", "suspicious" },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ks_export_kernel k;
		ks_svg_bar b;
		memset(&k, 0, sizeof(k));
		k.exec = cases[i].exec;
		k.suspicious = cases[i].suspicious;
		k.speedup = cases[i].speedup;
		k.reason = (char *)"wrong_output";
		ks_export_speedup_bar(&b, &k, "label", "href");
		KT_ASSERT_MSG(!strcmp(b.cls, cases[i].cls), "case %zu: class %s", i, b.cls);
		KT_ASSERT_MSG(cases[i].note ? b.note && !strcmp(b.note, cases[i].note) : !b.note,
			      "case %zu: note %s", i, b.note ? b.note : "(none)");
		KT_EQ_STR(b.label, "label");
		KT_EQ_STR(b.href, "href");
		KT_ASSERT(isnan(b.value) ? isnan(k.speedup) : b.value == k.speedup);
	}
}

static void test_fixture_model_and_ranking(void)
{
	char *fx = fx_fixture(), **names;
	const char *in[1] = { fx };
	ks_export_model *m = load(in, 1, 0);
	size_t n, i, nsus = 0;

	names = fx_ranked_names(fx, &n);
	KT_EQ_INT(m->nteams, n);
	for (i = 0; i < n; i++) {
		KT_EQ_STR(m->teams[i].name, names[i]);
		KT_EQ_INT(m->teams[i].rank, i + 1);
		if (m->teams[i].has_result)
			nsus += (size_t)m->teams[i].nsuspicious;
	}
	KT_ASSERT(m->nproblems > 0);
	KT_ASSERT(m->deadline != NULL);
	if (fx_is_generated(fx)) {
		/* the committed fixture's own facts */
		const ks_export_team *a = team_named(m, "Team Alpha"), *d = team_named(m, "delta");
		KT_EQ_INT(m->nproblems, 10);
		KT_EQ_INT(nsus, 1);
		KT_ASSERT(!d->has_result);
		KT_EQ_STR(d->reason, "missing_file");
		KT_EQ_INT(a->nk, 10);
		KT_ASSERT(a->kernels[9].suspicious);
		KT_EQ_INT(a->kernels[9].nperf, 3);
		KT_NEAR(a->kernels[9].perf[0].floor_ms, 137438953472.0 / 965.5e9, 1e-6);
		KT_ASSERT(team_named(m, "チーム 中文队 \xF0\x9F\x9A\x80")->has_result);
		KT_EQ_INT(team_named(m, "echo")->nlater, 2);
		KT_ASSERT(team_named(m, "echo")->later[0].ancestor);
		KT_ASSERT(ks_export_best_kernel(a, "triton_matmul")->suspicious);
		KT_EQ_STR(ks_export_verdict(&a->kernels[9]), "suspicious");
	}
	ks_free_strv(names, n);
	ks_export_model_free(m);
	ks_free(fx);
}

/* Ranking rule on crafted teams: GPU before compile-only before no result; score, then exec, then
 * call accuracy; then the earlier commit; then the name. */
static void test_sorting_rule(void)
{
	/* l2_norm_triton1's golden kernel reaches 63% of the roofline: 1.4x is not suspicious */
	static const fx_entry fast[] = { FX_OK("l2_norm_triton1", 1.4) }, slow[] = { FX_OK("l2_norm_triton1", 0.5) };
	static const fx_entry fail[] = { { "l2_norm_triton1", NAN, KS_REASON_MISMATCH, "x", NULL, NULL } };
	static const fx_entry two[] = { FX_OK("l2_norm_triton1", 0.5), { "matrix_transpose", NAN,
									KS_REASON_MISMATCH, "x", NULL, NULL } };
	fx_team t[] = {
		{ "compile-only high", "co", 0, fast, 1, NULL, NULL, NULL, "c1", "2025-08-20T00:00:00Z", "", 100, 0, 0, NULL },
		{ "zeta slow", "zs", 1, slow, 1, NULL, NULL, NULL, "c2", "2025-08-20T00:00:00Z", "", 200, 0, 0, NULL },
		{ "alpha slow later", "as", 1, slow, 1, NULL, NULL, NULL, "c3", "2025-08-21T00:00:00Z", "", 300, 0, 0, NULL },
		{ "fast", "f", 1, fast, 1, NULL, NULL, NULL, "c4", "2025-08-22T00:00:00Z", "", 400, 0, 0, NULL },
		{ "failed", "x", 1, NULL, 0, "failed", "bad_ref", "no such ref", NULL, NULL, NULL, 0, 0, 0, NULL },
		{ "zero", "z", 1, fail, 1, NULL, NULL, NULL, "c6", "2025-08-19T00:00:00Z", "", 50, 0, 0, NULL },
		/* the same score as "zeta slow", as early, but a lower exec accuracy: after the later one */
		{ "half", "h", 1, two, 2, NULL, NULL, NULL, "c7", "2025-08-20T00:00:00Z", "", 200, 0, 0, NULL },
	};
	static const char *order[] = { "fast", "zeta slow", "alpha slow later", "half", "zero", "compile-only high",
				       "failed" };
	char *res = ks_strdup(fx_tmp("results"));
	const char *in[1] = { res };
	ks_export_model *m;
	size_t i;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		fx_write_team(res, &t[i], 1);
	m = load(in, 1, 0);
	KT_EQ_INT(m->nteams, 7);
	for (i = 0; i < 7; i++)
		KT_EQ_STR(m->teams[i].name, order[i]);
	ks_export_model_free(m);
	ks_free(res);
}

static int count_files(const char *dir, const char *suffix, int (*check)(const char *path))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		KT_FAIL("cannot list %s", dir);
	while ((e = readdir(d)) != NULL) {
		char *p;
		size_t l = strlen(e->d_name), sl = strlen(suffix);
		if (e->d_name[0] == '.' || l < sl || strcmp(e->d_name + l - sl, suffix))
			continue;
		p = ks_path_join(dir, e->d_name);
		n += check ? check(p) : 1;
		ks_free(p);
	}
	closedir(d);
	return n;
}

static int utf8_ok(const char *path)
{
	char *text = fx_read(path);
	if (!text)
		KT_FAIL("cannot read %s", path);
	KT_ASSERT_MSG(ks_html_utf8_valid(text, strlen(text)), "%s is not valid UTF-8", path);
	ks_free(text);
	return 1;
}

/* Every page is valid UTF-8, loads nothing from the network and holds no markup that came from
 * a submission. */
static int page_ok(const char *path)
{
	char *text = fx_read(path);
	const char *p;
	utf8_ok(path);
	KT_NOT_CONTAINS(text, "<script>alert");
	KT_NOT_CONTAINS(text, "<img");
	KT_NOT_CONTAINS(text, "<b>");
	KT_NOT_CONTAINS(text, "src=\"http");
	KT_NOT_CONTAINS(text, "href=\"http");
	KT_NOT_CONTAINS(text, "href=\"javascript");
	KT_NOT_CONTAINS(text, "@import");
	/* the only scripts: the site's own file, and JSON data */
	for (p = strstr(text, "<script"); p; p = strstr(p + 1, "<script"))
		KT_ASSERT_MSG(!strncmp(p, "<script src=\"assets/site.js\"></script>", 38) ||
				      !strncmp(p, "<script type=\"application/json\"", 31),
			      "%s: a script that is not the site's: %.60s", path, p);
	ks_free(text);
	return 1;
}

static int export_to(const char *const *in, size_t n, const char *out, ks_export_stats *st, int no_code)
{
	ks_export_options o = KS_EXPORT_OPTIONS_INIT;
	o.out_dir = out;
	o.no_code = no_code;
	o.cache_dir = kt_tmpdir();
	return ks_export_site(st, in, n, &o);
}

static void test_site_of_the_fixture(void)
{
	char *fx = fx_fixture(), *site = ks_strdup(fx_tmp("site")), *index, *csv, **names, *p;
	const char *in[1] = { fx };
	ks_export_stats st;
	size_t n, i;
	const char *prev = NULL;

	KT_EQ_INT(export_to(in, 1, site, &st, 0), 0);
	names = fx_ranked_names(fx, &n);
	KT_EQ_INT(st.teams, n);
	index = fx_read("site/index.html");
	KT_CONTAINS(index, "<!DOCTYPE html>");
	KT_CONTAINS(index, "id=\"ranking-rule\"");
	KT_CONTAINS(index, "name=\"viewport\"");
	KT_CONTAINS(index, "Content-Security-Policy");
	KT_CONTAINS(index, "<svg class=\"chart\"");
	/* every team, in rank order */
	for (i = 0; i < n; i++) {
		char *row = ks_asprintf("<tr data-i=\"%zu\"", i), *e = esc(names[i]);
		const char *r = strstr(index, row), *name;
		KT_ASSERT_MSG(r != NULL, "no row %zu", i);
		name = strstr(r, e);
		KT_ASSERT_MSG(name && (!strstr(r + 1, "<tr ") || name < strstr(r + 1, "<tr ")),
			      "row %zu is not %s", i, names[i]);
		KT_ASSERT(!prev || r > prev);
		prev = r;
		ks_free(row);
		ks_free(e);
	}
	KT_EQ_INT(count_files(site, ".html", page_ok), (int)st.pages);
	/* index, problems, suspicious, provenance, data, and one per team and per problem */
	KT_EQ_INT(count_files(site, ".html", NULL), (int)(5 + st.teams + st.problems));
	p = ks_path_join(site, "data");
	KT_EQ_INT(count_files(p, "", utf8_ok), 4);
	ks_free(p);
	KT_ASSERT(ks_fs_exists(fx_tmp("site/" KS_EXPORT_MARKER)));
	KT_ASSERT(ks_fs_exists(fx_tmp("site/assets/site.css")));
	KT_ASSERT(ks_fs_exists(fx_tmp("site/assets/site.js")));
	csv = fx_read("site/data/leaderboard.csv");
	KT_ASSERT(!strncmp(csv, "rank,team,status,", 17));
	KT_CONTAINS(csv, "\r\n1,");
	ks_free(csv);
	if (fx_is_generated(fx)) {
		char *team = fx_read("site/team-Team_Alpha.html"), *prob = fx_read("site/problem-triton_matmul.html"),
		     *sus = fx_read("site/suspicious.html"), *prov = fx_read("site/provenance.html"),
		     *cjk = fx_read("site/team-team.html"), *d = fx_read("site/team-delta.html");
		KT_CONTAINS(team, "id=\"k-0-9\"");
		KT_CONTAINS(team, "Suspicious</strong> (scores 0; kept as evidence)");
		KT_CONTAINS(team, "below the roofline floor");
		KT_CONTAINS(team, "Roofline: achieved throughput");
		KT_CONTAINS(team, "TFLOP/s");
		KT_CONTAINS(team, "168 registers");
		KT_CONTAINS(team, "Code not shown: the repository is not in the cache");
		/* the best kernel of triton_matmul is the fastest correct one, not Team Alpha's suspicious one */
		KT_CONTAINS(prob, "Best kernel: <a href=\"team-team.html#k-0-5\"><bdi>チーム 中文队 \xF0\x9F\x9A\x80</bdi></a>, 0.7\xC3\x97");
		KT_CONTAINS(prob, "Golden kernel");
		KT_CONTAINS(prob, "2.084"); /* the 8192 case's golden median */
		KT_CONTAINS(sus, "Team Alpha");
		KT_CONTAINS(sus, "triton_matmul");
		KT_CONTAINS(prov, "NVIDIA H100 80GB HBM3");
		KT_CONTAINS(prov, "3006");
		KT_CONTAINS(prov, "in the scored history");
		KT_CONTAINS(prov, "connection timed out");
		KT_CONTAINS(cjk, "<h1><bdi>チーム 中文队 \xF0\x9F\x9A\x80</bdi></h1>");
		KT_CONTAINS(cjk, "block 1: tile done"); /* device output */
		KT_CONTAINS(d, "No result");
		KT_CONTAINS(d, "missing_file");
		ks_free(team);
		ks_free(prob);
		ks_free(sus);
		ks_free(prov);
		ks_free(cjk);
		ks_free(d);
	}
	ks_free(index);
	ks_free_strv(names, n);
	ks_free(site);
	ks_free(fx);
}

/* The site of a batch recorded on an H100 (scripts/gpu-batch-fixture.sh; fixtures/README.md): real
 * speedups, failures, suspicious kernels, a hostile and a CJK team name. What is asserted comes
 * from the recorded files themselves, so a new recording needs no change here. */
static void test_site_of_the_recorded_gpu_batch(void)
{
	char *fx = ks_asprintf("%s/web_export/fixtures/gpu-batch/results", fx_root());
	const char *in[1] = { fx };
	const char *teams[] = { "Team_Alpha", "bravo", "script_x_script", "team" };
	char *index, *sus, *prov, **names;
	ks_export_stats st;
	size_t n, i, nsus = 0;

	KT_EQ_INT(export_to(in, 1, fx_tmp("site"), &st, 0), 0);
	names = fx_ranked_names(fx, &n);
	KT_EQ_INT(st.teams, n);
	index = fx_read("site/index.html");
	sus = fx_read("site/suspicious.html");
	prov = fx_read("site/provenance.html");
	/* the hostile name is text, the CJK name intact */
	KT_CONTAINS(index, "&lt;script&gt;x&lt;/script&gt;");
	KT_NOT_CONTAINS(index, "<script>x</script>");
	KT_CONTAINS(index, "\xE3\x83\x87\xE3\x83\xAB\xE3\x82\xBF"); /* デルタ */
	for (i = 0; i < sizeof(teams) / sizeof(teams[0]); i++) {
		char *sp = ks_asprintf("%s/%s/score.json", fx, teams[i]), *text = fx_read(sp), *page, *pp;
		cJSON *j = NULL;
		const cJSON *k, *su;
		KT_ASSERT_MSG(text && ks_json_parse(&j, text, strlen(text), 64, sp) == 0, "%s", sp);
		if (i == 0)
			KT_CONTAINS(prov, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "device"), "name")->valuestring);
		pp = ks_asprintf("site/team-%s.html", teams[i]);
		page = fx_read(pp);
		KT_ASSERT_MSG(page != NULL, "no page %s", pp);
		/* every kernel's verdict reason is on its team's page */
		cJSON_ArrayForEach(k, cJSON_GetObjectItem(j, "kernels")) {
			const cJSON *r = cJSON_GetObjectItem(k, "reason");
			if (cJSON_IsString(r) && strcmp(r->valuestring, "ok"))
				KT_ASSERT_MSG(strstr(page, r->valuestring), "%s: reason %s not shown", pp, r->valuestring);
		}
		/* every suspicious kernel is on the organizers' list */
		cJSON_ArrayForEach(su, cJSON_GetObjectItem(j, "suspicious")) {
			const cJSON *pr = cJSON_GetObjectItem(su, "problem");
			if (cJSON_IsString(pr))
				KT_ASSERT_MSG(strstr(sus, pr->valuestring), "suspicious %s of %s not listed",
					      pr->valuestring, teams[i]);
			nsus++;
		}
		cJSON_Delete(j);
		ks_free(page);
		ks_free(pp);
		ks_free(text);
		ks_free(sp);
	}
	{
		char *delta = fx_read("site/team-team.html"), *late = fx_read("site/team-echo.html");
		KT_CONTAINS(delta, "not_cuda");
		/* the team of Triton answers: its zeros are noted where the organizer looks */
		KT_CONTAINS(delta, "7 of 10 answers are Triton (Python), which this run could not score");
		KT_CONTAINS(index, "7 of 10 answers are Triton (Python), which this run could not score");
		KT_CONTAINS(prov, "<h2 id=\"unscored\">Answers not scored</h2>");
		KT_CONTAINS(prov, "7 of 10 answers are Triton (Python)");
		KT_ASSERT_MSG(strstr(late, "no_commit_before_deadline") || strstr(late, "late"),
			      "the late team's page names no reason");
		ks_free(delta);
		ks_free(late);
	}
	fprintf(stderr, "  recorded batch: %zu teams, %zu suspicious kernels\n", n, nsus);
	ks_free_strv(names, n);
	ks_free(index);
	ks_free(sus);
	ks_free(prov);
	ks_free(fx);
}

/* What a kernel printed (score.json's device_output object) and the profile stage's diagnosis
 * reach the team page, as text. */
/* Gives the score.json at rel (under the test's folder) a baseline record. */
static void set_baseline(const char *rel, const char *kind, const char *text)
{
	cJSON *j = NULL, *b;
	char *t = fx_read(rel);
	KT_ASSERT_MSG(t && ks_json_parse(&j, t, strlen(t), 64, rel) == 0, "%s", rel);
	ks_free(t);
	cJSON_DeleteItemFromObject(j, "baseline");
	b = cJSON_AddObjectToObject(j, "baseline");
	cJSON_AddStringToObject(b, "kind", kind);
	cJSON_AddStringToObject(b, "text", text);
	t = ks_json_print(j, 1);
	kt_write(rel, t, strlen(t));
	ks_free(t);
	cJSON_Delete(j);
}

/* score --baseline reference: the leaderboard says the speedups are over the references, the
 * Provenance page says it per team, and a leaderboard of mixed baselines says they do not compare. */
static void test_the_baseline_is_said(void)
{
	char *fx = ks_asprintf("%s/web_export/fixtures/gpu-batch/results", fx_root()), *cmd, *sp, *index, *prov;
	const char *in[1];
	const char *teams[] = { "Team_Alpha", "bravo" };
	char *mixed;
	ks_export_stats st;
	size_t i;

	cmd = ks_asprintf("cp -r '%s' '%s'", fx, fx_tmp("mixed"));
	KT_EQ_INT(system(cmd), 0);
	ks_free(cmd);
	in[0] = mixed = ks_strdup(fx_tmp("mixed")); /* fx_tmp's buffer is reused */
	/* results written before score.json had a baseline record say nothing of it */
	KT_EQ_INT(export_to(in, 1, fx_tmp("site-old"), &st, 0), 0);
	index = fx_read("site-old/index.html");
	KT_NOT_CONTAINS(index, "id=\"baseline\"");
	ks_free(index);
	for (i = 0; i < 2; i++) {
		sp = ks_asprintf("mixed/%s/score.json", teams[i]);
		set_baseline(sp, i == 0 ? "reference" : "golden",
			     i == 0 ? "the reference implementations in tb-g: 10 of 10 timed" : "live: timed in the same session");
		ks_free(sp);
	}
	KT_EQ_INT(export_to(in, 1, fx_tmp("site-mixed"), &st, 0), 0);
	index = fx_read("site-mixed/index.html");
	KT_CONTAINS(index, "Teams were scored over different baselines: 1 over the reference implementations, 1 over");
	prov = fx_read("site-mixed/provenance.html");
	KT_CONTAINS(prov, "the reference implementations in tb-g: 10 of 10 timed");
	KT_CONTAINS(prov, "the golden kernel");
	ks_free(index);
	ks_free(prov);
	/* every team over the references: said once, with what the run said of them */
	set_baseline("mixed/bravo/score.json", "reference", "the reference implementations in tb-g");
	KT_ASSERT_MSG(export_to(in, 1, fx_tmp("site-ref"), &st, 0) == 0, "%s", ks_error_msg());
	index = fx_read("site-ref/index.html");
	KT_CONTAINS(index, "Speedups and scores are over the problems' reference implementations");
	ks_free(index);
	ks_free(mixed);
	ks_free(fx);
}

static void test_device_output_and_diagnosis_on_the_team_page(void)
{
	char *fx = ks_asprintf("%s/web_export/fixtures/gpu-batch/results", fx_root());
	char *sp, *text, *page;
	const char *in[1];
	cJSON *j = NULL, *k, *prof, *diag, *dout;
	fx_sh("cp -r '%s' '%s/results'", fx, kt_tmpdir());
	sp = ks_strdup(fx_tmp("results/bravo/score.json"));
	text = fx_read(sp);
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 64, sp), 0);
	k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0);
	cJSON_DeleteItemFromObject(k, "device_output");
	dout = cJSON_AddObjectToObject(k, "device_output");
	cJSON_AddStringToObject(dout, "text", "<b>row 0</b> says hello\n");
	cJSON_AddNumberToObject(dout, "bytes", 1e6);
	cJSON_AddBoolToObject(dout, "truncated", 1);
	prof = cJSON_AddObjectToObject(k, "profile");
	diag = cJSON_AddArrayToObject(prof, "diagnosis");
	cJSON_AddItemToArray(diag, cJSON_CreateString("memory-bound at 41% of DRAM bandwidth"));
	cJSON_AddItemToArray(diag, cJSON_CreateString("global loads are uncoalesced <8 sectors>"));
	KT_EQ_INT(ks_json_write_file(sp, j, 1), 0);
	in[0] = fx_tmp("results");
	KT_EQ_INT(export_to(in, 1, fx_tmp("site"), NULL, 0), 0);
	page = fx_read("site/team-bravo.html");
	KT_CONTAINS(page, "Device output (the first 4 KiB of it)");
	KT_CONTAINS(page, "&lt;b&gt;row 0&lt;/b&gt; says hello");
	KT_CONTAINS(page, "<li>memory-bound at 41% of DRAM bandwidth</li>");
	KT_CONTAINS(page, "uncoalesced &lt;8 sectors&gt;");
	cJSON_Delete(j);
	ks_free(page);
	ks_free(text);
	ks_free(sp);
	ks_free(fx);
}

static void test_hostile_and_broken_input(void)
{
	char *res = ks_strdup(fx_tmp("results")), *site = ks_strdup(fx_tmp("site")), *t, *index, *p;
	const char *in[1] = { res };
	ks_export_stats st;
	fx_edge_batch(res);
	KT_EQ_INT(export_to(in, 1, site, &st, 0), 0);
	KT_EQ_INT(count_files(site, ".html", page_ok), (int)st.pages);
	p = ks_path_join(site, "data");
	KT_EQ_INT(count_files(p, "", utf8_ok), 4);
	ks_free(p);
	index = fx_read("site/index.html");
	KT_CONTAINS(index, "&lt;script&gt;alert(1)&lt;/script&gt;");
	KT_CONTAINS(index, "javascript:alert(1)");     /* as text, never as a link */
	KT_CONTAINS(index, "never scored");
	KT_CONTAINS(index, "bad\xEF\xBF\xBD\xEF\xBF\xBDname");
	KT_CONTAINS(index, "minimal");
	/* a team's name is isolated wherever it sits in a line (a link, a heading): an override in it
	 * ends with it */
	KT_CONTAINS(index, "<a href=\"team-evil_rlo.html\"><bdi>evil\xE2\x80\xAE 9.99 :erocs</bdi></a>");
	/* the JSON block for the script cannot close its element */
	p = strstr(index, "id=\"ks-rows\">");
	KT_ASSERT(p && strstr(p, "</script>"));
	KT_ASSERT(memmem(p, (size_t)(strstr(p, "</script>") - p), "</", 2) == NULL);
	t = fx_read("site/team-script_alert_1_script.html");
	KT_CONTAINS(t, "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(&#39;code&#39;)&lt;/script&gt;");
	KT_CONTAINS(t, "&lt;img src=x onerror=alert(&#39;output&#39;)&gt;");
	KT_CONTAINS(t, "case &lt;b&gt;m=1&lt;/b&gt;: &quot;quoted&quot; &amp; &#39;single&#39; &lt;/td&gt;");
	KT_CONTAINS(t, "<title>&lt;script&gt;alert(1)&lt;/script&gt; \xE2\x80\x94 kscore</title>");
	KT_CONTAINS(t, "<span class=\"l\">extern &quot;C&quot; __global__");
	/* Trojan Source: every bidirectional control in the code is a visible, marked placeholder (none
	 * acts on the page), and the kernel is flagged in the team's facts, its table row and its
	 * section, as code hosts flag such a file */
	KT_CONTAINS(t, "<span class=\"l\">/* <span class=\"bidi\" title=\"U+202E RIGHT-TO-LEFT OVERRIDE: a "
		       "bidirectional control character;");
	KT_CONTAINS(t, "&lt;U+202E&gt;</span> } <span class=\"bidi\" title=\"U+2066 LEFT-TO-RIGHT ISOLATE");
	KT_CONTAINS(t, "&lt;U+2069&gt;</span>");
	KT_CONTAINS(t, "<strong>Bidirectional text</strong>: this code holds 4 bidirectional control characters");
	KT_CONTAINS(t, "<dt>Bidirectional text</dt><dd><span class=\"warn\">1 kernel holds bidirectional control");
	KT_CONTAINS(t, "<span class=\"badge b-bidi\"");
	KT_CONTAINS(t, "&lt;U+2067&gt;</span>rtl");  /* the device output too */
	KT_NOT_CONTAINS(t, "\xE2\x80\xAE");
	KT_NOT_CONTAINS(t, "\xE2\x81\xA6");
	KT_NOT_CONTAINS(t, "\xE2\x81\xA7");
	KT_NOT_CONTAINS(t, "\xE2\x81\xA9");
	/* only that kernel: the other one's section carries no flag */
	KT_ASSERT(strstr(t, "Bidirectional text</strong>") < strstr(t, "id=\"k-0-1\""));
	KT_NOT_CONTAINS(strstr(t, "id=\"k-0-1\""), "Bidirectional text</strong>");
	ks_free(t);
	t = fx_read("site/team-bad_name.html");
	KT_CONTAINS(t, "&lt;/title&gt;&lt;script&gt;alert(&#39;subject&#39;)&lt;/script&gt; \xE2\x80\xA8 "
		       "&quot;x&quot; onmouseover=alert(1) \xEF\xBF\xBD\xEF\xBF\xBD overlong");
	ks_free(t);
	t = fx_read("site/provenance.html");
	KT_CONTAINS(t, "in the scored history");
	ks_free(t);
	t = fx_read("site/team-minimal.html");
	KT_CONTAINS(t, "<h1><bdi>minimal</bdi></h1>");
	ks_free(t);
	ks_free(index);
	ks_free(site);
	ks_free(res);
}

/* kscore replaces only a folder it wrote: one with its mark of kind "site", or an empty one. */
static void test_site_folder_rule(void)
{
	char *fx = fx_fixture(), *site = ks_strdup(fx_tmp("site")), *keep;
	const char *in[1] = { fx };
	struct stat sb;

	ks_fs_mkdir_p(site, 0755);
	kt_write("site/notes.txt", "mine", 4);
	KT_EQ_INT(export_to(in, 1, site, NULL, 1), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "is not a kscore");
	keep = fx_read("site/notes.txt");
	KT_EQ_STR(keep, "mine");
	ks_free(keep);
	KT_ASSERT(!ks_fs_exists(fx_tmp("site/index.html")));
	/* a dot file alone still makes it someone's folder */
	unlink(fx_tmp("site/notes.txt"));
	kt_write("site/.hidden", "x", 1);
	KT_EQ_INT(export_to(in, 1, site, NULL, 1), KS_EINVALID);
	unlink(fx_tmp("site/.hidden"));
	/* an empty folder is taken; then the marked site is replaced whole (stale files go) */
	KT_EQ_INT(export_to(in, 1, site, NULL, 1), 0);
	kt_write("site/stale.html", "old", 3);
	KT_EQ_INT(export_to(in, 1, site, NULL, 1), 0);
	KT_ASSERT(!ks_fs_exists(fx_tmp("site/stale.html")));
	KT_ASSERT(ks_fs_exists(fx_tmp("site/index.html")));
	/* a file or a link in the way is refused */
	kt_write("file", "x", 1);
	KT_EQ_INT(export_to(in, 1, fx_tmp("file"), NULL, 1), KS_EINVALID);
	KT_EQ_INT(symlink(site, fx_tmp("link")), 0);
	KT_EQ_INT(export_to(in, 1, fx_tmp("link"), NULL, 1), KS_EINVALID);
	KT_EQ_INT(lstat(fx_tmp("link"), &sb), 0);
	KT_ASSERT(S_ISLNK(sb.st_mode));
	/* leftovers of a killed export: ours (marked, or a mark cut short; process gone) are
	 * removed, others kept */
	ks_fs_mkdir_p(fx_tmp("site.tmp-999999999"), 0755);
	kt_write("site.tmp-999999999/" KS_EXPORT_MARKER, "{\"schema\": \"kscore.outdir/1\", \"ki", 33);
	ks_fs_mkdir_p(fx_tmp("site.tmp-999999997-0"), 0755);
	kt_write("site.tmp-999999997-0/" KS_EXPORT_MARKER ".tmp.999999997", "", 0);
	ks_fs_mkdir_p(fx_tmp("site.tmp-999999996-0"), 0755);
	kt_write("site.tmp-999999996-0/" KS_EXPORT_MARKER, "x", 1);  /* not a mark kscore writes */
	ks_fs_mkdir_p(fx_tmp("site.old-999999998"), 0755);
	kt_write("site.old-999999998/data.txt", "not ours", 8);
	KT_EQ_INT(export_to(in, 1, site, NULL, 1), 0);
	KT_ASSERT(!ks_fs_exists(fx_tmp("site.tmp-999999999")));
	KT_ASSERT(!ks_fs_exists(fx_tmp("site.tmp-999999997-0")));
	KT_ASSERT(ks_fs_exists(fx_tmp("site.tmp-999999996-0/" KS_EXPORT_MARKER)));
	KT_ASSERT(ks_fs_exists(fx_tmp("site.old-999999998/data.txt")));
	/* an input that holds no result: nothing is written */
	ks_fs_mkdir_p(fx_tmp("empty"), 0755);
	in[0] = fx_tmp("empty");
	KT_EQ_INT(export_to(in, 1, fx_tmp("site2"), NULL, 1), KS_ENOTFOUND);
	KT_ASSERT(!ks_fs_exists(fx_tmp("site2")));
	ks_free(site);
	ks_free(fx);
}

/* ---- end to end: the score binary ---- */

static char *g_out, *g_err;

static int run(const char *fmt, ...)
{
	char *b = fx_bin(), args[8192], *cmd;
	va_list ap;
	int st;
	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	cmd = ks_asprintf("cd '%s' && XDG_CACHE_HOME='%s/cache' HOME='%s' '%s' %s >stdout.txt 2>stderr.txt",
			  kt_tmpdir(), kt_tmpdir(), kt_tmpdir(), b, args);
	st = system(cmd);
	ks_free(g_out);
	ks_free(g_err);
	g_out = fx_read("stdout.txt");
	g_err = fx_read("stderr.txt");
	ks_free(cmd);
	ks_free(b);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli_usage(void)
{
	KT_EQ_INT(run("export --help"), 0);
	KT_CONTAINS(g_out, "Usage: score export");
	KT_EQ_INT(run("export"), 64);
	KT_EQ_INT(run("export '%s'", kt_tmpdir()), 64);
	KT_CONTAINS(g_err, "--out");
	KT_EQ_INT(run("export --bogus x --out s"), 64);
	KT_EQ_INT(run("export nowhere --out s"), 65);
	KT_CONTAINS(g_err, "nowhere");
	ks_fs_mkdir_p(fx_tmp("taken"), 0755);
	kt_write("taken/x", "x", 1);
	KT_EQ_INT(run("export '%s/web_export/fixtures/batch' --out taken", fx_root()), 73);
	KT_CONTAINS(g_err, "is not a kscore");
	/* the site may not be an input or hold one */
	KT_EQ_INT(run("export '%s/web_export/fixtures/batch' --out '%s/web_export'", fx_root(),
		      fx_root()), 73);
	KT_CONTAINS(g_err, "holds the input");
	KT_EQ_INT(run("--help"), 0);
	KT_CONTAINS(g_out, "score export");
	/* a result file that cannot be read: named, left out, the site still written, status 65 */
	ks_fs_mkdir_p(fx_tmp("broken"), 0755);
	kt_write("broken/score.json", "{\"team\": \"half\", \"kernels\": [", 29);
	KT_EQ_INT(run("export broken --out bsite"), 65);
	KT_CONTAINS(g_err, "broken/score.json");
	KT_CONTAINS(g_err, "invalid JSON");
	KT_ASSERT(ks_fs_exists(fx_tmp("bsite/index.html")));
}

/* A participant's own run: `score` then `score export` on its result folder gives the team page
 * with the code, found through score.json's submission path. */
static void test_single_run_export(void)
{
	char *page, *idx;
	int rc = run("'%s/submissions/example/reflexion_oneshot_tritonbench_4.json' --compile-only --team "
		     "'my <team>' --out res -q --refs '%s/reference_tests'", fx_root(), fx_root());
	KT_ASSERT_MSG(rc == 1 || rc == 0, "score exited %d: %s", rc, g_err);
	/* run from elsewhere than where score ran: the file is still found by its path */
	KT_EQ_INT(run("export res --out site"), 0);
	KT_CONTAINS(g_out, "1 team, 10 problems");
	KT_CONTAINS(g_out, "code shown for 10 of 10 kernels");
	page = fx_read("site/team-my_team.html");
	KT_ASSERT_MSG(page != NULL, "no team page: %s", g_out);
	KT_CONTAINS(page, "<h1><bdi>my &lt;team&gt;</bdi></h1>");
	KT_CONTAINS(page, "<span class=\"l\">");
	KT_CONTAINS(page, "__global__");
	KT_CONTAINS(page, "compile_error");
	idx = fx_read("site/index.html");
	KT_CONTAINS(idx, "team-my_team.html");
	KT_CONTAINS(idx, "Compile accuracy by team");
	ks_free(idx);
	ks_free(page);
	/* --no-code leaves it out */
	KT_EQ_INT(run("export res --out site --no-code -q"), 0);
	KT_EQ_STR(g_out, "");
	page = fx_read("site/team-my_team.html");
	KT_NOT_CONTAINS(page, "<span class=\"l\">");
	KT_CONTAINS(page, "--no-code");
	ks_free(page);
	/* a result whose file changed since it was scored shows no code rather than wrong code */
	{
		char *sp = fx_read("res/score.json"), *q = strstr(sp, "\"entry_sha256\":\t\"");
		KT_ASSERT(q != NULL);
		q[17] = q[17] == 'a' ? 'b' : 'a';
		kt_write("res/score.json", sp, strlen(sp));
		ks_free(sp);
	}
	KT_EQ_INT(run("export res --out site"), 0);
	KT_CONTAINS(g_out, "code shown for 9 of 10 kernels");
	page = fx_read("site/team-my_team.html");
	KT_CONTAINS(page, "has changed since it was scored");
	ks_free(page);
}

/* `score batch` writes results/site/ after the leaderboard, with each kernel's code read from
 * the repository mirror; --no-site does not. */
static void test_batch_writes_the_site(void)
{
	char *page, *idx;
	int rc;
	if (system("git --version >/dev/null 2>&1") != 0)
		KT_SKIP("git is not installed");
	fx_batch_repo();
	rc = run("batch teams.json --compile-only -q --refs '%s/reference_tests'", fx_root());
	KT_ASSERT_MSG(rc == 1, "batch exited %d: %s", rc, g_err);
	KT_NOT_CONTAINS(g_err, "site not written");
	KT_ASSERT(ks_fs_exists(fx_tmp("results/site/" KS_EXPORT_MARKER)));
	idx = fx_read("results/site/index.html");
	KT_CONTAINS(idx, "Team &lt;One&gt;");
	KT_CONTAINS(idx, "ghost");
	KT_CONTAINS(idx, "unreachable");
	page = fx_read("results/site/team-Team_One.html");
	KT_ASSERT_MSG(page != NULL, "no team page");
	KT_CONTAINS(page, "final &lt;b&gt;submission&lt;/b&gt;");
	KT_CONTAINS(page, "<span class=\"l\">");  /* code, from the mirror at the scored commit */
	KT_NOT_CONTAINS(page, "Code not shown");
	ks_free(page);
	ks_free(idx);
	/* a folder named site that is not ours is left alone, with a warning */
	fx_sh("rm -rf results/site && mkdir results/site && echo mine > results/site/notes.txt");
	rc = run("batch teams.json --compile-only -q --refs '%s/reference_tests'", fx_root());
	KT_EQ_INT(rc, 1);
	KT_CONTAINS(g_err, "warning: site not written");
	page = fx_read("results/site/notes.txt");
	KT_EQ_STR(page, "mine\n");
	ks_free(page);
	fx_sh("rm -rf results/site");
	rc = run("batch teams.json --compile-only -q --no-site --refs '%s/reference_tests'", fx_root());
	KT_EQ_INT(rc, 1);
	KT_ASSERT(!ks_fs_exists(fx_tmp("results/site")));
	KT_EQ_INT(run("batch --help"), 0);
	KT_CONTAINS(g_out, "--no-site");
}

/* The deadline as the manifest gave it, with its offset, beside UTC, on the leaderboard and the
 * provenance page. */
static void test_deadline_shown_as_given(void)
{
	static const char utc[] = "\"2025-08-24T23:59:59Z\"";
	char *m, *at, *edited, *idx, *prov;
	int rc;
	if (system("git --version >/dev/null 2>&1") != 0)
		KT_SKIP("git is not installed");
	fx_batch_repo();
	m = fx_read("teams.json");
	at = strstr(m, utc);
	KT_ASSERT(at != NULL);
	*at = 0;
	edited = ks_asprintf("%s\"2025-08-25T07:59:59+08:00\"%s", m, at + strlen(utc));
	kt_write("teams.json", edited, strlen(edited));
	ks_free(edited);
	rc = run("batch teams.json --compile-only -q --refs '%s/reference_tests'", fx_root());
	KT_ASSERT_MSG(rc == 1, "batch exited %d: %s", rc, g_err);
	idx = fx_read("results/site/index.html");
	KT_CONTAINS(idx, "; deadline 2025-08-25T07:59:59+08:00 (2025-08-24T23:59:59Z);");
	prov = fx_read("results/site/provenance.html");
	KT_CONTAINS(prov, "<dt>Deadline</dt><dd>2025-08-25T07:59:59+08:00 (2025-08-24T23:59:59Z)</dd>");
	ks_free(prov);
	ks_free(idx);
	/* --deadline overrides the manifest's, and is shown as given too */
	fx_sh("rm -rf results");
	rc = run("batch teams.json --compile-only -q --deadline 2025-08-24T19:59:59-04:00 --refs '%s/reference_tests'",
		 fx_root());
	KT_EQ_INT(rc, 1);
	idx = fx_read("results/site/index.html");
	KT_CONTAINS(idx, "; deadline 2025-08-24T19:59:59-04:00 (2025-08-24T23:59:59Z);");
	ks_free(idx);
	ks_free(m);
}

static const kt_test tests[] = {
	KT(test_escaping),
	KT(test_invalid_utf8_becomes_valid),
	KT(test_json_for_script),
	KT(test_fastp_and_charts),
	KT(test_speedup_bar_classes),
	KT(test_fixture_model_and_ranking),
	KT(test_sorting_rule),
	KT(test_site_of_the_fixture), KT(test_site_of_the_recorded_gpu_batch), KT(test_device_output_and_diagnosis_on_the_team_page),
	KT(test_hostile_and_broken_input),
	KT(test_site_folder_rule),
	KT(test_cli_usage),
	KT(test_single_run_export),
	KT(test_batch_writes_the_site), KT(test_deadline_shown_as_given), KT(test_the_baseline_is_said),
	{ NULL, NULL },
};

KT_MAIN("export", tests)
