/* The site in a real browser: Debian's chromium-headless-shell (scripts/install-deps.sh installs
 * it) opens the exported pages from file:// and the tests assert on the DOM it dumps (every team,
 * in rank order; the site's script ran; sorting and filtering work; hostile names stay text; no
 * console message of any kind, so no script error, no blocked or network load) and on
 * screenshots (decoded here, not blank), which are kept under build/export-screens/. Without a
 * browser every test reports itself skipped, by name. KSCORE_BROWSER names another binary. */
#include "ktest.h"
#include "export_test.h"
#include "web_export/export.h"
#include "web_export/html.h"

#include <stdarg.h>
#include <zlib.h>

static char g_browser[1024];

static const char *browser(void)
{
	static const char *names[] = { "chromium-headless-shell", "chromium", "chromium-browser", "headless_shell" };
	const char *env = getenv("KSCORE_BROWSER");
	size_t i;
	if (g_browser[0])
		return g_browser;
	if (env && *env) {
		if (access(env, X_OK) != 0)
			return NULL;
		snprintf(g_browser, sizeof(g_browser), "%s", env);
		return g_browser;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char cmd[4400], *out;
		snprintf(cmd, sizeof(cmd), "command -v %s > '%s/which.txt' 2>/dev/null", names[i], kt_tmpdir());
		if (system(cmd) != 0)
			continue;
		out = fx_read("which.txt");
		if (out) {
			out[strcspn(out, "\n")] = 0;
			snprintf(g_browser, sizeof(g_browser), "%s", out);
			ks_free(out);
			return g_browser;
		}
	}
	return NULL;
}

#define NEED_BROWSER()                                                                             \
	do {                                                                                       \
		if (!browser())                                                                    \
			KT_SKIP("no headless browser (install chromium-headless-shell, or set "     \
				"KSCORE_BROWSER)");                                                 \
	} while (0)

static char *g_dom, *g_log;

/* Runs the browser on a page of the test's folder. `what` is "--dump-dom" or a screenshot
 * option. --no-sandbox: the sandbox needs kernel features CI containers (and root) lack, and the
 * pages are the exporter's own output under test. Every resolver lookup fails, so a page that
 * tried to load anything from the network would log it. */
static void browse(const char *what, const char *page)
{
	char *cmd = ks_asprintf("cd '%s' && mkdir -p home && HOME='%s/home' timeout 60 '%s' --headless --no-sandbox "
				"--disable-gpu --no-first-run --disable-background-networking "
				"--disable-component-update --disable-sync --user-data-dir='%s/profile' "
				"--enable-logging=stderr --v=0 --host-resolver-rules='MAP * ~NOTFOUND' %s "
				"'file://%s/%s' >dom.html 2>browser.log",
				kt_tmpdir(), kt_tmpdir(), browser(), kt_tmpdir(), what, kt_tmpdir(), page);
	int st = system(cmd);
	ks_free(g_dom);
	ks_free(g_log);
	g_dom = fx_read("dom.html");
	g_log = fx_read("browser.log");
	KT_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the browser failed on %s: %s", page,
		      g_log ? g_log : "");
	ks_free(cmd);
}

/* No console line at all: script errors ("Uncaught ..."), CSP violations and failed loads are
 * all reported there. */
static void no_console(const char *page)
{
	const char *c = g_log ? strstr(g_log, ":CONSOLE") : NULL;
	if (!c)
		c = g_log ? strstr(g_log, "Uncaught") : NULL;
	KT_ASSERT_MSG(c == NULL, "%s: console: %.300s", page, c);
}

static void open_page(const char *page)
{
	browse("--dump-dom", page);
	KT_ASSERT_MSG(g_dom && strstr(g_dom, "data-ks-script=\"ran\""), "%s: the site's script did not run", page);
	no_console(page);
}

/* Text as the DOM serialiser writes it. */
static char *dom_text(const char *s)
{
	ks_buf b = KS_BUF_INIT(1 << 20);
	for (; *s; s++) {
		if (*s == '&')
			ks_buf_puts(&b, "&amp;");
		else if (*s == '<')
			ks_buf_puts(&b, "&lt;");
		else if (*s == '>')
			ks_buf_puts(&b, "&gt;");
		else
			ks_buf_put(&b, s, 1);
	}
	return ks_buf_take(&b, NULL);
}

/* ---- PNG: enough of a decoder to tell a page from a blank screen ---- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

typedef struct {
	uint32_t w, h;
	size_t colors;        /* distinct colours, counted up to 4096 */
	double foreground;    /* fraction of pixels not of the most common colour */
	uint32_t background;  /* the most common colour, 0xRRGGBB */
} png_stats;

static void png_read(png_stats *st, const char *path)
{
	char *data = NULL;
	size_t len = 0, pos = 8, idat_len = 0, bpp, stride, y, x, i;
	unsigned char *idat = NULL, *raw, *prev;
	uLongf rawlen;
	int depth = 0, ctype = 0, interlace = 0;
	uint32_t *keys = ks_calloc(8192, sizeof(*keys)), best = 0;
	size_t *counts = ks_calloc(8192, sizeof(*counts)), bestn = 0;
	unsigned char *used = ks_calloc(8192, 1);

	memset(st, 0, sizeof(*st));
	if (ks_fs_read(&data, &len, path, 64u << 20) < 0 || len < 8 || memcmp(data, "\x89PNG\r\n\x1a\n", 8))
		KT_FAIL("%s is not a PNG", path);
	while (pos + 12 <= len) {
		uint32_t n = be32((unsigned char *)data + pos);
		const char *type = data + pos + 4;
		unsigned char *d = (unsigned char *)data + pos + 8;
		if (pos + 12 + n > len)
			KT_FAIL("%s: truncated chunk", path);
		if (!memcmp(type, "IHDR", 4)) {
			st->w = be32(d);
			st->h = be32(d + 4);
			depth = d[8];
			ctype = d[9];
			interlace = d[12];
		} else if (!memcmp(type, "IDAT", 4)) {
			idat = ks_realloc(idat, idat_len + n);
			memcpy(idat + idat_len, d, n);
			idat_len += n;
		}
		pos += 12 + n;
	}
	KT_ASSERT_MSG(depth == 8 && (ctype == 2 || ctype == 6) && !interlace, "%s: PNG type %d/%d not handled", path,
		      depth, ctype);
	bpp = ctype == 6 ? 4 : 3;
	stride = st->w * bpp;
	rawlen = (uLongf)(st->h * (stride + 1));
	raw = ks_malloc(rawlen);
	KT_EQ_INT(uncompress(raw, &rawlen, idat, (uLong)idat_len), Z_OK);
	KT_EQ_INT(rawlen, st->h * (stride + 1));
	prev = ks_calloc(stride, 1);
	for (y = 0; y < st->h; y++) {
		unsigned char *row = raw + y * (stride + 1) + 1, f = row[-1];
		for (i = 0; i < stride; i++) {
			int a = i >= bpp ? row[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
			row[i] = (unsigned char)(row[i] + (f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) / 2 :
							   f == 4 ? paeth(a, b, c) : 0));
		}
		for (x = 0; x < st->w; x++) {
			const unsigned char *px = row + x * bpp;
			uint32_t k = (uint32_t)px[0] << 16 | (uint32_t)px[1] << 8 | px[2], hsh = (k * 2654435761u) >> 19;
			while (used[hsh] && keys[hsh] != k)
				hsh = (hsh + 1) & 8191;
			if (!used[hsh] && st->colors < 4096) {
				used[hsh] = 1;
				keys[hsh] = k;
				st->colors++;
			}
			if (used[hsh] && keys[hsh] == k && ++counts[hsh] > bestn) {
				bestn = counts[hsh];
				best = k;
			}
		}
		memcpy(prev, row, stride);
	}
	st->background = best;
	st->foreground = 1.0 - (double)bestn / ((double)st->w * st->h);
	ks_free(prev);
	ks_free(raw);
	ks_free(idat);
	ks_free(data);
	ks_free(keys);
	ks_free(counts);
	ks_free(used);
}

static double luminance(uint32_t rgb)
{
	return (0.2126 * (rgb >> 16 & 255) + 0.7152 * (rgb >> 8 & 255) + 0.0722 * (rgb & 255)) / 255;
}

/* Takes a screenshot, keeps it as build/export-screens/<name>.png and checks it is a page; with
 * `dark`, the browser prefers a dark colour scheme. Returns the background's luminance. */
static double screenshot_scheme(const char *page, const char *name, int w, int h, int dark)
{
	char *dir = ks_asprintf("%s/build/export-screens", fx_root()), *out = ks_asprintf("%s/%s.png", dir, name);
	char *what = ks_asprintf("--hide-scrollbars --window-size=%d,%d%s --screenshot='%s'", w, h,
				 dark ? " --blink-settings=preferredColorScheme=0" : "", out);
	png_stats st;
	ks_fs_mkdir_p(dir, 0755);
	unlink(out);
	browse(what, page);
	png_read(&st, out);
	KT_EQ_INT(st.w, (uint32_t)w);
	KT_EQ_INT(st.h, (uint32_t)h);
	KT_ASSERT_MSG(st.colors >= 16 && st.foreground >= 0.03, "%s looks blank: %zu colours, %.1f%% not background",
		      out, st.colors, 100 * st.foreground);
	ks_free(what);
	ks_free(out);
	ks_free(dir);
	return luminance(st.background);
}

static void screenshot(const char *page, const char *name, int w, int h)
{
	screenshot_scheme(page, name, w, h, 0);
}

static void export_fixture(void)
{
	char *fx = fx_fixture();
	const char *in[1] = { fx };
	ks_export_options o = KS_EXPORT_OPTIONS_INIT;
	o.out_dir = fx_tmp("site");
	o.cache_dir = kt_tmpdir();
	KT_ASSERT_MSG(ks_export_site(NULL, in, 1, &o) == 0, "export: %s", ks_error_msg());
	ks_free(fx);
}

/* The Status column is the one place that says why a team has no score: on a laptop screen
 * (1280 px) every team's status must be in view and whole without scrolling sideways. A harness
 * script beside the leaderboard measures each status cell where the browser laid it out. */
static void status_in_view(const char *index_page, const char *harness_page)
{
	static const char harness[] =
		"(function () {\n"
		"  var th = document.querySelectorAll('#leaderboard thead th'), col = -1, out = [];\n"
		"  Array.prototype.forEach.call(th, function (h, i) { if (h.textContent.trim() === 'Status') col = i; });\n"
		"  Array.prototype.forEach.call(document.querySelectorAll('#leaderboard tbody tr'), function (r) {\n"
		"    var c = r.cells[col], b = c.getBoundingClientRect();\n"
		"    out.push({ left: b.left, right: b.right, clipped: c.scrollWidth > c.clientWidth + 1,\n"
		"               text: c.textContent });\n"
		"  });\n"
		"  var pre = document.createElement('pre'); pre.id = 'result';\n"
		"  pre.textContent = JSON.stringify({ col: col, width: window.innerWidth, cells: out });\n"
		"  document.body.appendChild(pre);\n"
		"}());\n";
	char *index, *at, *page, *res, *end, *dir = ks_path_dirname(harness_page), *js;
	cJSON *r = NULL;
	const cJSON *c;
	int ncells = 0;

	js = ks_asprintf("%s/harness.js", dir);
	kt_write(js, harness, strlen(harness));
	index = fx_read(index_page);
	at = strstr(index, "</body>");
	*at = 0;
	page = ks_asprintf("%s<script src=\"harness.js\"></script></body></html>\n", index);
	kt_write(harness_page, page, strlen(page));
	browse("--window-size=1280,800 --dump-dom", harness_page);
	res = g_dom ? strstr(g_dom, "<pre id=\"result\">") : NULL;
	KT_ASSERT_MSG(res != NULL, "the harness did not run: %s", g_log ? g_log : "");
	res += strlen("<pre id=\"result\">");
	end = strstr(res, "</pre>");
	*end = 0;
	KT_EQ_INT(ks_json_parse(&r, res, strlen(res), 8, "harness"), 0);
	KT_ASSERT_MSG(cJSON_GetObjectItem(r, "col")->valuedouble >= 0, "no Status column");
	KT_EQ_INT(cJSON_GetObjectItem(r, "width")->valuedouble, 1280);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(r, "cells")) {
		double right = cJSON_GetObjectItem(c, "right")->valuedouble;
		const char *text = cJSON_GetObjectItem(c, "text")->valuestring;
		KT_ASSERT_MSG(right <= 1280 && cJSON_GetObjectItem(c, "left")->valuedouble >= 0,
			      "the status \"%s\" ends at %.0f px, out of a 1280 px window", text, right);
		KT_ASSERT_MSG(!cJSON_IsTrue(cJSON_GetObjectItem(c, "clipped")), "the status \"%s\" is cut", text);
		ncells++;
	}
	KT_ASSERT(ncells > 0);
	cJSON_Delete(r);
	ks_free(page);
	ks_free(index);
	ks_free(js);
	ks_free(dir);
}

static void test_leaderboard_in_a_browser(void)
{
	char *fx, **names;
	const char *prev = NULL;
	size_t n, i;
	NEED_BROWSER();
	export_fixture();
	fx = fx_fixture();
	names = fx_ranked_names(fx, &n);
	open_page("site/index.html");
	KT_CONTAINS(g_dom, "id=\"ranking-rule\"");
	for (i = 0; i < n; i++) {
		char *row = ks_asprintf("<tr data-i=\"%zu\"", i), *t = dom_text(names[i]);
		const char *r = strstr(g_dom, row), *next;
		KT_ASSERT_MSG(r != NULL, "no row %zu in the DOM", i);
		next = strstr(r + 1, "<tr ");
		KT_ASSERT_MSG(strstr(r, t) && (!next || strstr(r, t) < next), "row %zu is not %s", i, names[i]);
		KT_ASSERT_MSG(!prev || r > prev, "row %zu is out of rank order", i);
		prev = r;
		ks_free(row);
		ks_free(t);
	}
	/* the script revealed the filter and made the headers buttons */
	KT_CONTAINS(g_dom, "<p class=\"tools\"><label>Filter teams");
	KT_CONTAINS(g_dom, "<th scope=\"col\" data-sort=\"num\"><button type=\"button\">Rank</button></th>");
	KT_ASSERT(screenshot_scheme("site/index.html", "leaderboard", 1200, 900, 0) > 0.8);
	screenshot("site/index.html", "leaderboard-phone", 390, 844);
	/* prefers-color-scheme: dark gives a dark page */
	KT_ASSERT(screenshot_scheme("site/index.html", "leaderboard-dark", 1200, 900, 1) < 0.2);
	ks_free_strv(names, n);
	ks_free(fx);
}

static void test_other_pages_in_a_browser(void)
{
	static const char *pages[] = { "problems.html", "suspicious.html", "provenance.html", "data.html" };
	char *fx, **names, *page, *slug;
	size_t n, i;
	NEED_BROWSER();
	export_fixture();
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		page = ks_asprintf("site/%s", pages[i]);
		open_page(page);
		ks_free(page);
	}
	/* the first team's page, found through the leaderboard's own link */
	fx = fx_fixture();
	names = fx_ranked_names(fx, &n);
	page = fx_read("site/data/leaderboard.json");
	slug = strstr(page, "\"page\":");
	KT_ASSERT(slug != NULL);
	slug = strchr(slug + 7, '"') + 1;
	*strchr(slug, '"') = 0;
	slug = ks_asprintf("site/team-%s.html", slug);
	open_page(slug);
	{
		char *t = dom_text(names[0]);
		KT_CONTAINS(g_dom, t);
		ks_free(t);
	}
	KT_CONTAINS(g_dom, "<select data-verdict-filter=\"kernels\">");
	screenshot(slug, "team", 1200, 900);
	ks_free(slug);
	ks_free(page);
	ks_free_strv(names, n);
	ks_free(fx);
}

/* Clicks and typing, through a harness page beside the leaderboard that loads the site's script,
 * then a script of the test's own (allowed by the pages' policy: same folder). */
static void test_sorting_and_filtering_script(void)
{
	static const char harness[] =
		"(function () {\n"
		"  function names() { return Array.prototype.map.call(document.querySelectorAll('#leaderboard tbody tr'),\n"
		"    function (r) { return r.cells[1].getAttribute('data-v'); }).join('|'); }\n"
		"  function visible() { return Array.prototype.filter.call(document.querySelectorAll('#leaderboard tbody tr'),\n"
		"    function (r) { return !r.hidden; }).length; }\n"
		"  var th = document.querySelectorAll('#leaderboard th');\n"
		"  var out = {};\n"
		"  th[1].querySelector('button').click(); out.up = names(); out.aria = th[1].getAttribute('aria-sort');\n"
		"  th[1].querySelector('button').click(); out.down = names();\n"
		"  th[2].querySelector('button').click(); out.score = names();\n"
		"  th[0].querySelector('button').click(); out.rank = names();\n"
		"  var f = document.querySelector('input[data-filter]'); f.value = 'ECHO';\n"
		"  f.dispatchEvent(new Event('input')); out.filtered = visible();\n"
		"  f.value = ''; f.dispatchEvent(new Event('input')); out.all = visible();\n"
		"  var pre = document.createElement('pre'); pre.id = 'result'; pre.textContent = JSON.stringify(out);\n"
		"  document.body.appendChild(pre);\n"
		"}());\n";
	char *index, *at, *page, *res, *end, *fx, **names;
	cJSON *r = NULL;
	size_t n;
	NEED_BROWSER();
	fx = fx_fixture();
	if (!fx_is_generated(fx)) {
		ks_free(fx);
		KT_SKIP("the harness knows the generated fixture's teams only");
	}
	export_fixture();
	kt_write("site/harness.js", harness, strlen(harness));
	index = fx_read("site/index.html");
	at = strstr(index, "</body>");
	*at = 0;
	page = ks_asprintf("%s<script src=\"harness.js\"></script></body></html>\n", index);
	kt_write("site/harness.html", page, strlen(page));
	open_page("site/harness.html");
	res = strstr(g_dom, "<pre id=\"result\">");
	KT_ASSERT_MSG(res != NULL, "the harness did not run");
	res += strlen("<pre id=\"result\">");
	end = strstr(res, "</pre>");
	*end = 0;
	KT_EQ_INT(ks_json_parse(&r, res, strlen(res), 8, "harness"), 0);
	/* by name (case-insensitive), both ways; by score, higher last on the first click (ascending),
	 * the team without a score last either way; back to rank */
	KT_EQ_STR(cJSON_GetObjectItem(r, "up")->valuestring, "bravo|delta|echo|Team Alpha|チーム 中文队 \xF0\x9F\x9A\x80");
	KT_EQ_STR(cJSON_GetObjectItem(r, "aria")->valuestring, "ascending");
	KT_EQ_STR(cJSON_GetObjectItem(r, "down")->valuestring, "チーム 中文队 \xF0\x9F\x9A\x80|Team Alpha|echo|delta|bravo");
	KT_EQ_STR(cJSON_GetObjectItem(r, "score")->valuestring, "bravo|チーム 中文队 \xF0\x9F\x9A\x80|echo|Team Alpha|delta");
	names = fx_ranked_names(fx, &n);
	{
		char *want = ks_asprintf("%s|%s|%s|%s|%s", names[0], names[1], names[2], names[3], names[4]);
		KT_EQ_STR(cJSON_GetObjectItem(r, "rank")->valuestring, want);
		ks_free(want);
	}
	KT_EQ_INT(cJSON_GetObjectItem(r, "filtered")->valuedouble, 1);
	KT_EQ_INT(cJSON_GetObjectItem(r, "all")->valuedouble, 5);
	cJSON_Delete(r);
	ks_free_strv(names, n);
	ks_free(fx);
	ks_free(page);
	ks_free(index);
}

static void test_status_in_view_at_1280_px(void)
{
	NEED_BROWSER();
	export_fixture();
	status_in_view("site/index.html", "site/harness.html");
	screenshot("site/index.html", "leaderboard-1280", 1280, 800);
}

/* Hostile names, code, output and subjects render as text in a real browser. */
static void test_hostile_input_in_a_browser(void)
{
	static const char *pages[] = { "site/index.html", "site/team-script_alert_1_script.html",
				       "site/team-bad_name.html", "site/provenance.html" };
	char *res;
	const char *in[1];
	ks_export_options o = KS_EXPORT_OPTIONS_INIT;
	size_t i;
	NEED_BROWSER();
	res = ks_strdup(fx_tmp("results"));
	in[0] = res;
	fx_edge_batch(res);
	o.out_dir = fx_tmp("site");
	o.cache_dir = kt_tmpdir();
	KT_EQ_INT(ks_export_site(NULL, in, 1, &o), 0);
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		const char *s;
		open_page(pages[i]);
		/* an element made of submitted text would appear here as markup */
		KT_NOT_CONTAINS(g_dom, "<script>alert");
		KT_NOT_CONTAINS(g_dom, "<img");
		KT_NOT_CONTAINS(g_dom, "<b>");
		for (s = strstr(g_dom, "<script"); s; s = strstr(s + 1, "<script"))
			KT_ASSERT_MSG(!strncmp(s, "<script src=\"assets/site.js\">", 29) ||
					      !strncmp(s, "<script type=\"application/json\"", 31),
				      "%s: a script element that is not the site's: %.80s", pages[i], s);
		KT_ASSERT(ks_html_utf8_valid(g_dom, strlen(g_dom)));
	}
	KT_CONTAINS(g_dom, "&lt;/title&gt;&lt;script&gt;alert('subject')&lt;/script&gt;");
	open_page("site/team-script_alert_1_script.html");
	KT_CONTAINS(g_dom, "<h1><bdi>&lt;script&gt;alert(1)&lt;/script&gt;</bdi></h1>");
	KT_CONTAINS(g_dom, "&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert('code')&lt;/script&gt;");
	KT_CONTAINS(g_dom, "&lt;img src=x onerror=alert('output')&gt;");
	/* Trojan Source: in the page the browser built, the code shows each bidirectional control as
	 * its placeholder, in order, and none is left to reorder the text around it */
	KT_CONTAINS(g_dom, "&lt;U+202E&gt;</span> } <span class=\"bidi\"");
	KT_CONTAINS(g_dom, "if (n &lt; 0)<span class=\"bidi\"");
	KT_CONTAINS(g_dom, "Bidirectional text</strong>: this code holds 4");
	KT_NOT_CONTAINS(g_dom, "\xE2\x80\xAE");
	KT_NOT_CONTAINS(g_dom, "\xE2\x81\xA6");
	screenshot("site/team-script_alert_1_script.html", "hostile-team", 1000, 800);
	ks_free(res);
}

/* The same pages of the batch recorded on an H100 (fixtures/gpu-batch): real numbers in a real
 * browser; its leaderboard screenshot is the README's picture (docs/export-leaderboard.png). */
static void test_recorded_gpu_batch_in_a_browser(void)
{
	char *fx = ks_asprintf("%s/web_export/fixtures/gpu-batch/results", fx_root());
	NEED_BROWSER();
	setenv("KSCORE_EXPORT_FIXTURE", fx, 1);  /* this test runs in a child of its own */
	test_leaderboard_in_a_browser();
	status_in_view("site/index.html", "site/harness.html");
	screenshot("site/index.html", "gpu-batch-leaderboard", 1000, 620);
	test_other_pages_in_a_browser();
	open_page("site/suspicious.html");
	open_page("site/team-bravo.html");
	screenshot("site/team-bravo.html", "gpu-batch-team", 1000, 900);
	ks_free(fx);
}

/* The README's picture: the leaderboard of the bundled example's compile-only results, kept as
 * build/export-screens/example-leaderboard.png (docs/export.md says how it reaches docs/). */
static void test_example_leaderboard_screenshot(void)
{
	char *b, *cmd;
	int st;
	NEED_BROWSER();
	b = fx_bin();
	cmd = ks_asprintf("cd '%s' && XDG_CACHE_HOME='%s/cache' '%s' '%s/submissions/example/reflexion_oneshot_tritonbench_4.json' "
			  "--compile-only --team example --out res -q --refs '%s/reference_tests' >/dev/null 2>&1; "
			  "'%s' export res --out site -q", kt_tmpdir(), kt_tmpdir(), b, fx_root(), fx_root(), b);
	st = system(cmd);
	KT_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "score export failed");
	open_page("site/index.html");
	KT_CONTAINS(g_dom, "example");
	screenshot("site/index.html", "example-leaderboard", 1000, 620);
	open_page("site/team-example.html");
	KT_CONTAINS(g_dom, "<span class=\"l\">");
	screenshot("site/team-example.html", "example-team", 1000, 900);
	ks_free(cmd);
	ks_free(b);
}

/* The README's workflow: `score batch` (compile-only here) writes results/site/, which works in
 * the browser as the exported fixture does. */
static void test_batch_site_in_a_browser(void)
{
	char *b, *cmd;
	int st;
	NEED_BROWSER();
	if (system("git --version >/dev/null 2>&1") != 0)
		KT_SKIP("git is not installed");
	fx_batch_repo();
	b = fx_bin();
	cmd = ks_asprintf("cd '%s' && XDG_CACHE_HOME='%s/cache' HOME='%s' '%s' batch teams.json --compile-only -q "
			  "--refs '%s/reference_tests' >/dev/null 2>&1", kt_tmpdir(), kt_tmpdir(), kt_tmpdir(), b,
			  fx_root());
	st = system(cmd);
	KT_ASSERT_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "score batch exited %d", WEXITSTATUS(st));
	open_page("results/site/index.html");
	KT_CONTAINS(g_dom, "<tr data-i=\"0\"><td class=\"num\" data-v=\"1\">1</td><td class=\"team\" "
			   "data-v=\"Team &lt;One&gt;\">");
	KT_CONTAINS(g_dom, "ghost");
	status_in_view("results/site/index.html", "results/site/harness.html");
	screenshot("results/site/index.html", "batch-leaderboard-1280", 1280, 800);
	open_page("results/site/team-Team_One.html");
	KT_CONTAINS(g_dom, "<span class=\"l\">");
	open_page("results/site/provenance.html");
	ks_free(cmd);
	ks_free(b);
}

static const kt_test tests[] = {
	KT(test_leaderboard_in_a_browser),
	KT(test_other_pages_in_a_browser),
	KT(test_sorting_and_filtering_script),
	KT(test_status_in_view_at_1280_px),
	KT(test_hostile_input_in_a_browser),
	KT(test_recorded_gpu_batch_in_a_browser), KT(test_example_leaderboard_screenshot),
	KT(test_batch_site_in_a_browser),
	{ NULL, NULL },
};

KT_MAIN("export_browser", tests)
