#include "web_export/export.h"
#include "web_export/assets.h"
#include "web_export/data.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "web_export/html.h"
#include "util/mem.h"
#include "web_export/model.h"
#include "web_export/pages.h"
#include "util/version.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


/* A page is bounded by the result files it shows (score.json is capped at 512 MiB). */
#define MAX_PAGE ((size_t)1 << 30)

/* Plain writes: the folder as a whole is renamed into place once complete. */
static int write_file(const char *dir, const char *name, const void *data, size_t len)
{
	char *path = ks_path_join(dir, name);
	FILE *f = fopen(path, "wb");
	int rc = 0;
	if (!f || (len && fwrite(data, 1, len, f) != len))
		rc = ks_error_set(KS_EIO, "cannot write %s: %s", path, strerror(errno));
	if (f && fclose(f) != 0 && rc == 0)
		rc = ks_error_set(KS_EIO, "cannot write %s: %s", path, strerror(errno));
	ks_free(path);
	return rc;
}

static int write_page(const char *dir, const char *name, ks_html *h, ks_export_stats *st)
{
	int rc = h->rc;
	if (rc < 0)
		rc = ks_error_wrap(rc, "page %s", name);
	else
		rc = write_file(dir, name, h->buf.ptr ? h->buf.ptr : "", h->buf.len);
	ks_html_free(h);
	st->pages += rc == 0;
	return rc;
}

static int write_json(const char *dir, const char *name, cJSON *v)
{
	char *text = ks_export_json_text(v);
	int rc = write_file(dir, name, text, strlen(text));
	ks_free(text);
	cJSON_Delete(v);
	return rc;
}

static int write_data(const char *dir, const ks_export_model *m)
{
	ks_buf b = KS_BUF_INIT(MAX_PAGE);
	int rc;
	if ((rc = write_json(dir, "data/leaderboard.json", ks_export_data_leaderboard(m))) < 0 ||
	    (rc = write_json(dir, "data/kernels.json", ks_export_data_kernels(m))) < 0)
		return rc;
	if ((rc = ks_export_csv_leaderboard(&b, m)) == 0)
		rc = write_file(dir, "data/leaderboard.csv", b.ptr, b.len);
	ks_buf_reset(&b);
	if (rc == 0 && (rc = ks_export_csv_kernels(&b, m)) == 0)
		rc = write_file(dir, "data/kernels.csv", b.ptr, b.len);
	ks_buf_free(&b);
	return rc;
}

static int write_pages(const char *dir, const ks_export_model *m, ks_export_stats *st)
{
	ks_html h = KS_HTML_INIT(MAX_PAGE);
	size_t i;
	int rc;

	ks_export_page_leaderboard(&h, m);
	if ((rc = write_page(dir, "index.html", &h, st)) < 0)
		return rc;
	for (i = 0; i < m->nteams; i++) {
		char *name = ks_asprintf("team-%s.html", m->teams[i].slug);
		ks_export_page_team(&h, m, &m->teams[i]);
		rc = write_page(dir, name, &h, st);
		ks_free(name);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < m->nproblems; i++) {
		char *name = ks_export_problem_page(m, m->problems[i]);
		ks_export_page_problem(&h, m, m->problems[i]);
		rc = write_page(dir, name, &h, st);
		ks_free(name);
		if (rc < 0)
			return rc;
	}
	ks_export_page_problems(&h, m);
	if ((rc = write_page(dir, "problems.html", &h, st)) < 0)
		return rc;
	ks_export_page_suspicious(&h, m);
	if ((rc = write_page(dir, "suspicious.html", &h, st)) < 0)
		return rc;
	ks_export_page_provenance(&h, m);
	if ((rc = write_page(dir, "provenance.html", &h, st)) < 0)
		return rc;
	ks_export_page_data(&h, m);
	return write_page(dir, "data.html", &h, st);
}

/* 1 when a lies inside b or is b (canonical paths; either missing: 0). */
static int within(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	size_t n = rb ? strlen(rb) : 0;
	int r = ra && rb && !strncmp(ra, rb, n) && (ra[n] == '/' || ra[n] == '\0' || !strcmp(rb, "/"));
	free(ra);  /* realpath's, from libc's allocator */
	free(rb);
	return r;
}

int ks_export_check_out(const char *out_dir, const char *const *inputs, size_t ninputs)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	size_t i;
	/* a site may live inside a results folder (results/site/ is where score batch writes it),
	 * but it may never be an input or hold one: replacing it would remove the results */
	for (i = 0; i < ninputs; i++)
		if (within(inputs[i], out_dir))
			return ks_error_set(KS_EINVALID, "%s is or holds the input %s: refusing to replace it; "
					    "choose another --out", out_dir, inputs[i]);
	oo.kind = KS_OUTDIR_SITE;
	return ks_outdir_check(out_dir, &oo);
}

/* Writes the site into dir (a folder ks_outdir_begin made and marked). */
static int write_site(const char *dir, const ks_export_model *m, ks_export_stats *st)
{
	char *sub;
	int rc;

	sub = ks_path_join(dir, "assets");
	rc = ks_fs_mkdir_p(sub, 0755);
	ks_free(sub);
	sub = ks_path_join(dir, "data");
	if (rc == 0)
		rc = ks_fs_mkdir_p(sub, 0755);
	ks_free(sub);
	if (rc == 0)
		rc = write_file(dir, "assets/site.css", ks_asset_site_css, ks_asset_site_css_len);
	if (rc == 0)
		rc = write_file(dir, "assets/site.js", ks_asset_site_js, ks_asset_site_js_len);
	if (rc == 0)
		rc = write_pages(dir, m, st);
	if (rc == 0)
		rc = write_data(dir, m);
	return rc;
}

int ks_export_site(ks_export_stats *stats, const char *const *inputs, size_t ninputs,
		   const ks_export_options *opts)
{
	ks_export_load_options lo = KS_EXPORT_LOAD_OPTIONS_INIT;
	ks_export_model *m = NULL;
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	ks_export_stats st;
	char *tmp = NULL;
	size_t i, j;
	int rc;

	memset(&st, 0, sizeof(st));
	if (!opts || !opts->out_dir || !*opts->out_dir)
		return ks_error_set(KS_EINVALID, "no site folder given");
	if ((rc = ks_export_check_out(opts->out_dir, inputs, ninputs)) < 0)
		return rc;
	lo.no_code = opts->no_code;
	lo.cache_dir = opts->cache_dir;
	lo.log = opts->log;
	lo.unreadable = &st.unreadable;
	if ((rc = ks_export_model_load(&m, inputs, ninputs, &lo)) < 0)
		return rc;
	oo.kind = KS_OUTDIR_SITE;  /* ks_outdir_begin first removes what a killed export left */
	if ((rc = ks_outdir_begin(&tmp, opts->out_dir, &oo)) < 0 || (rc = write_site(tmp, m, &st)) < 0)
		goto done;
	/* checked again: the folder (or an input inside it) may have appeared meanwhile */
	if ((rc = ks_export_check_out(opts->out_dir, inputs, ninputs)) < 0 ||
	    (rc = ks_outdir_commit(tmp, opts->out_dir, &oo)) < 0)
		goto done;
	st.teams = m->nteams;
	st.problems = m->nproblems;
	for (i = 0; i < m->nteams; i++)
		for (j = 0; j < m->teams[i].nk; j++) {
			st.kernels++;
			st.code += m->teams[i].kernels[j].code != NULL;
		}
	if (stats)
		*stats = st;
done:
	if (rc < 0 && tmp)
		ks_outdir_abort(tmp);
	ks_free(tmp);
	ks_export_model_free(m);
	return rc;
}

int ks_export_batch_site(const char *results_dir, const char *cache_dir, FILE *log)
{
	ks_export_options o = KS_EXPORT_OPTIONS_INIT;
	const char *in[1];
	int rc;
	o.out_dir = ks_path_join(results_dir, "site");
	o.cache_dir = cache_dir;
	o.log = log;
	in[0] = results_dir;
	rc = ks_export_site(NULL, in, 1, &o);
	ks_free((char *)o.out_dir);
	return rc;
}
