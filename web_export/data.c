#include "web_export/data.h"
#include "web_export/html.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/version.h"

#include <math.h>
#include <stdio.h>
#include <string.h>


static void add_tri(cJSON *o, const char *k, int v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddBoolToObject(o, k, v);
}

static const char ranking[] =
	"GPU results, then compile-only results, then teams without a result; GPU results by score, then "
	"exec_accuracy, then call_accuracy, higher first; compile-only results are not ranked by accuracy "
	"(not comparable across languages); then the earlier commit_time; then team (bytewise). Ranks are "
	"1..n with no ties.";

cJSON *ks_export_data_leaderboard(const ks_export_model *m)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i;
	cJSON_AddStringToObject(o, "schema", "kscore.site-leaderboard/1");
	cJSON_AddStringToObject(o, "scorer", "kscore " KS_VERSION);
	ks_json_add_str(o, "generated", m->generated);
	ks_json_add_str(o, "deadline", m->deadline);
	cJSON_AddStringToObject(o, "ranking", ranking);
	a = cJSON_AddArrayToObject(o, "teams");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddNumberToObject(x, "rank", (double)t->rank);
		ks_json_add_str(x, "team", t->name);
		cJSON_AddStringToObject(x, "page", t->slug);
		ks_json_add_str(x, "status", t->status);
		ks_json_add_str(x, "reason", t->reason);
		ks_json_add_str(x, "mode", t->mode);
		ks_json_add_num(x, "score", t->score);
		ks_json_add_num(x, "exec_accuracy", t->exec_acc);
		ks_json_add_num(x, "call_accuracy", t->call_acc);
		ks_json_add_num(x, "compile_accuracy", t->compile_acc);
		ks_json_add_num(x, "fast_1", t->fast_1);
		ks_json_add_num(x, "fast_2", t->fast_2);
		ks_json_add_num(x, "geomean_speedup", t->geomean);
		ks_json_add_num(x, "roofline_fraction", t->roofline);
		ks_json_add_num(x, "kernels", t->has_result && t->nkernels >= 0 ? (double)t->nkernels : NAN);
		ks_json_add_num(x, "suspicious", t->has_result && t->nsuspicious >= 0 ? (double)t->nsuspicious : NAN);
		ks_json_add_num(x, "unscored_answers", t->has_result ? (double)t->unscored.unscored : NAN);
		ks_json_add_str(x, "unscored_note", t->unscored_note);
		ks_json_add_str(x, "commit", t->commit);
		ks_json_add_str(x, "commit_time", t->commit_time);
		ks_json_add_str(x, "commit_subject", t->commit_subject);
		cJSON_AddNumberToObject(x, "later_commits", (double)t->later_total);
		ks_json_add_str(x, "device", t->device_name);
		ks_json_add_str(x, "scorer_version", t->scorer_version);
		ks_json_add_str(x, "seed", t->seed);
		cJSON_AddItemToArray(a, x);
	}
	return o;
}

cJSON *ks_export_data_kernels(const ks_export_model *m)
{
	cJSON *o = cJSON_CreateObject(), *a;
	size_t i, j, q;
	cJSON_AddStringToObject(o, "schema", "kscore.site-kernels/1");
	ks_json_add_str(o, "generated", m->generated);
	a = cJSON_AddArrayToObject(o, "kernels");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		for (j = 0; j < t->nk; j++) {
			const ks_export_kernel *k = &t->kernels[j];
			cJSON *x = cJSON_CreateObject(), *pa;
			ks_json_add_str(x, "team", t->name);
			cJSON_AddNumberToObject(x, "rank", (double)t->rank);
			cJSON_AddNumberToObject(x, "pass", (double)k->pass);
			cJSON_AddNumberToObject(x, "index", (double)k->index);
			ks_json_add_str(x, "problem", k->problem);
			ks_json_add_str(x, "file", k->file);
			cJSON_AddStringToObject(x, "verdict", ks_export_verdict(k));
			cJSON_AddBoolToObject(x, "compiled", k->compiled);
			add_tri(x, "call", k->call);
			add_tri(x, "exec", k->exec);
			ks_json_add_str(x, "reason", k->reason);
			ks_json_add_str(x, "detail", k->detail);
			ks_json_add_num(x, "speedup", k->speedup);
			ks_json_add_num(x, "speedup_geomean", k->speedup_geomean);
			ks_json_add_num(x, "roofline_fraction", k->roofline_fraction);
			ks_json_add_num(x, "score", k->score);
			cJSON_AddBoolToObject(x, "suspicious", k->suspicious);
			ks_json_add_str(x, "suspicious_why", k->suspicious_why);
			pa = cJSON_AddArrayToObject(x, "perf");
			for (q = 0; q < k->nperf; q++) {
				const ks_export_perf *p = &k->perf[q];
				cJSON *c = cJSON_CreateObject();
				ks_json_add_str(c, "case", p->label);
				ks_json_add_num(c, "ms", p->ms);
				ks_json_add_num(c, "golden_ms", p->golden_ms);
				ks_json_add_num(c, "speedup", p->speedup);
				ks_json_add_num(c, "gbps", p->gbps);
				ks_json_add_num(c, "tflops", p->tflops);
				ks_json_add_num(c, "floor_ms", p->floor_ms);
				ks_json_add_num(c, "roofline_fraction", p->roofline_fraction);
				cJSON_AddBoolToObject(c, "suspicious", p->suspicious);
				ks_json_add_str(c, "why", p->why);
				cJSON_AddItemToArray(pa, c);
			}
			cJSON_AddItemToArray(a, x);
		}
	}
	return o;
}

char *ks_export_json_text(const cJSON *v)
{
	char *p = cJSON_Print(v), *clean, *out;
	if (!p)
		return ks_strdup("null\n");
	clean = ks_html_utf8_clean(p, strlen(p));
	cJSON_free(p);
	out = ks_asprintf("%s\n", clean);
	ks_free(clean);
	return out;
}

void ks_export_csv_field(ks_buf *b, const char *s)
{
	char *c;
	const char *p;
	int quote, formula;
	if (!s)
		return;
	c = ks_html_utf8_clean(s, strlen(s));
	quote = strpbrk(c, ",\"\r\n") != NULL;
	formula = *c == '=' || *c == '+' || *c == '-' || *c == '@' || *c == '\t' || *c == '\r';
	if (quote || formula)
		ks_buf_put_truncated(b, "\"", 1);
	if (formula)
		ks_buf_put_truncated(b, "'", 1);
	for (p = c; *p; p++) {
		if (*p == '"')
			ks_buf_put_truncated(b, "\"", 1);
		ks_buf_put_truncated(b, p, 1);
	}
	if (quote || formula)
		ks_buf_put_truncated(b, "\"", 1);
	ks_free(c);
}

static void csv_num(ks_buf *b, double v)
{
	if (isfinite(v))
		ks_buf_printf(b, "%.10g", v);
}

static void comma(ks_buf *b)
{
	ks_buf_put_truncated(b, ",", 1);
}

static int csv_done(ks_buf *b)
{
	/* every write is a field cut to fit or a short number: a failed one leaves the buffer full */
	return b->len + 256 >= b->max ? ks_error_set(KS_ELIMIT, "CSV larger than %zu bytes", b->max) : 0;
}

int ks_export_csv_leaderboard(ks_buf *b, const ks_export_model *m)
{
	size_t i;
	ks_buf_puts(b, "rank,team,status,reason,mode,score,exec_accuracy,call_accuracy,compile_accuracy,fast_1,"
		    "fast_2,geomean_speedup,roofline_fraction,kernels,suspicious,commit,commit_time,page,"
		    "unscored_answers,unscored_note\r\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		ks_buf_printf(b, "%zu,", t->rank);
		ks_export_csv_field(b, t->name);
		comma(b);
		ks_export_csv_field(b, t->status);
		comma(b);
		ks_export_csv_field(b, t->reason);
		comma(b);
		ks_export_csv_field(b, t->mode);
		comma(b);
		csv_num(b, t->score);
		comma(b);
		csv_num(b, t->exec_acc);
		comma(b);
		csv_num(b, t->call_acc);
		comma(b);
		csv_num(b, t->compile_acc);
		comma(b);
		csv_num(b, t->fast_1);
		comma(b);
		csv_num(b, t->fast_2);
		comma(b);
		csv_num(b, t->geomean);
		comma(b);
		csv_num(b, t->roofline);
		comma(b);
		csv_num(b, t->has_result && t->nkernels >= 0 ? (double)t->nkernels : NAN);
		comma(b);
		csv_num(b, t->has_result && t->nsuspicious >= 0 ? (double)t->nsuspicious : NAN);
		comma(b);
		ks_export_csv_field(b, t->commit);
		comma(b);
		ks_export_csv_field(b, t->commit_time);
		ks_buf_printf(b, ",team-%s.html,", t->slug);
		csv_num(b, t->has_result ? (double)t->unscored.unscored : NAN);
		comma(b);
		ks_export_csv_field(b, t->unscored_note);
		ks_buf_puts(b, "\r\n");
	}
	return csv_done(b);
}

int ks_export_csv_kernels(ks_buf *b, const ks_export_model *m)
{
	size_t i, j;
	ks_buf_puts(b, "rank,team,pass,index,problem,file,verdict,compiled,call,exec,reason,speedup,"
		    "speedup_geomean,roofline_fraction,score,suspicious,detail\r\n");
	for (i = 0; i < m->nteams; i++) {
		const ks_export_team *t = &m->teams[i];
		for (j = 0; j < t->nk; j++) {
			const ks_export_kernel *k = &t->kernels[j];
			ks_buf_printf(b, "%zu,", t->rank);
			ks_export_csv_field(b, t->name);
			ks_buf_printf(b, ",%ld,%ld,", k->pass, k->index);
			ks_export_csv_field(b, k->problem);
			comma(b);
			ks_export_csv_field(b, k->file);
			ks_buf_printf(b, ",%s,%s,%s,%s,", ks_export_verdict(k), k->compiled ? "true" : "false",
				      k->call < 0 ? "" : k->call ? "true" : "false",
				      k->exec < 0 ? "" : k->exec ? "true" : "false");
			ks_export_csv_field(b, k->reason);
			comma(b);
			csv_num(b, k->speedup);
			comma(b);
			csv_num(b, k->speedup_geomean);
			comma(b);
			csv_num(b, k->roofline_fraction);
			comma(b);
			csv_num(b, k->score);
			ks_buf_printf(b, ",%s,", k->suspicious ? "true" : "false");
			ks_export_csv_field(b, k->suspicious ? k->suspicious_why : k->detail);
			ks_buf_puts(b, "\r\n");
		}
	}
	return csv_done(b);
}
