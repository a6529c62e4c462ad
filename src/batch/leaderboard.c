/* leaderboard: see src/batch/leaderboard.h. */
#include "batch/leaderboard.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/utf8.h"
#include "util/version.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#define MAX_RECORD_BYTES (1024u << 20)

static const char *const status_names[] = { "not_scored", "scored", "already_scored", "failed",
					    "incomplete", "late" };

const char *ks_leaderboard_status_name(ks_leaderboard_status s)
{
	return (unsigned)s < sizeof(status_names) / sizeof(status_names[0]) ? status_names[s] : "incomplete";
}

ks_leaderboard_status ks_leaderboard_status_parse(const char *name)
{
	size_t i;
	for (i = 0; name && i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (!strcmp(name, status_names[i]))
			return (ks_leaderboard_status)i;
	return KS_LEADERBOARD_INCOMPLETE;
}

void ks_leaderboard_row_clear(ks_leaderboard_row *r)
{
	ks_free(r->team);
	ks_free(r->folder);
	ks_free(r->reason);
	ks_free(r->name_source);
	ks_free(r->note);
	ks_free(r->mode);
	ks_free(r->commit);
	memset(r, 0, sizeof(*r));
}

cJSON *ks_leaderboard_read_json(const char *path, size_t max)
{
	char *text = NULL;
	size_t n;
	cJSON *v = NULL;
	if (ks_fs_read(&text, &n, path, max) == 0 && ks_json_parse(&v, text, n, 64, path) < 0)
		v = NULL;
	ks_free(text);
	ks_error_clear();
	return v;
}

void ks_leaderboard_row_load(ks_leaderboard_row *row, const char *out_dir, const char *team,
			     const char *folder)
{
	char *dir = ks_path_join(out_dir, folder), *bp = ks_path_join(dir, "batch.json");
	char *sp = ks_path_join(dir, "score.json");
	cJSON *b = ks_leaderboard_read_json(bp, MAX_RECORD_BYTES), *s = NULL;
	double v;

	memset(row, 0, sizeof(*row));
	row->team = ks_strdup(team);
	row->folder = ks_strdup(folder);
	row->score = row->exec_accuracy = row->call_accuracy = row->compile_accuracy = NAN;
	row->commit_time = KS_MANIFEST_NO_DEADLINE;
	if (!b) {
		row->status = KS_LEADERBOARD_NOT_SCORED;
		goto done;
	}
	{
		const cJSON *st = cJSON_GetObjectItemCaseSensitive(b, "status");
		row->status = ks_leaderboard_status_parse(cJSON_IsString(st) ? st->valuestring : NULL);
	}
	row->reason = ks_json_strdup(b, "reason");
	row->name_source = ks_json_strdup(b, "name_source");
	if (row->name_source && !strcmp(row->name_source, "number"))
		row->note = ks_json_strdup(b, "head_subject");
	row->commit = ks_json_strdup(b, "commit");
	v = ks_json_numval(b, "commit_time_epoch");
	if (!isnan(v))
		row->commit_time = (int64_t)v;
	if (row->status != KS_LEADERBOARD_SCORED)
		goto done;
	s = ks_leaderboard_read_json(sp, MAX_RECORD_BYTES);
	if (!s) {
		row->status = KS_LEADERBOARD_INCOMPLETE;
		goto done;
	}
	{
		const cJSON *sum = cJSON_GetObjectItemCaseSensitive(s, "summary");
		const cJSON *susp = cJSON_GetObjectItemCaseSensitive(s, "suspicious");
		row->mode = ks_json_strdup(s, "mode");
		row->gpu = row->mode && !strcmp(row->mode, "gpu");
		row->has_result = 1;
		row->score = ks_json_numval(sum, "score");
		row->exec_accuracy = ks_json_numval(sum, "exec_accuracy");
		row->call_accuracy = ks_json_numval(sum, "call_accuracy");
		row->compile_accuracy = ks_json_numval(sum, "compile_accuracy");
		v = ks_json_numval(sum, "kernels");
		row->kernels = isnan(v) ? 0 : (long)v;
		v = ks_json_numval(sum, "suspicious");
		row->suspicious = !isnan(v) ? (long)v : cJSON_IsArray(susp) ? cJSON_GetArraySize(susp) : 0;
		ks_unscored_add_score(&row->unscored, s);
	}
done:
	cJSON_Delete(b);
	cJSON_Delete(s);
	ks_free(dir);
	ks_free(bp);
	ks_free(sp);
}

/* Higher first; an absent (NaN) value after every present one. */
static int cmp_desc(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) - isnan(b);
	return a > b ? -1 : a < b;
}

static int group(const ks_leaderboard_row *r)
{
	return !r->has_result ? 2 : r->gpu ? 0 : 1;
}

static int cmp_rows(const void *pa, const void *pb)
{
	const ks_leaderboard_row *a = pa, *b = pb;
	int c;
	if ((c = group(a) - group(b)))
		return c;
	if (group(a) == 0) {
		if ((c = cmp_desc(a->score, b->score)) || (c = cmp_desc(a->exec_accuracy, b->exec_accuracy)) ||
		    (c = cmp_desc(a->call_accuracy, b->call_accuracy)))
			return c;
	}
	/* compile-only results are not ranked by accuracy: it measures only what the host could check,
	 * nothing for answers it could not run (Triton without a GPU), so one compiled CUDA kernel
	 * would outrank every Triton team (docs/batch.md, "Leaderboard") */
	/* KS_MANIFEST_NO_DEADLINE is INT64_MIN: a missing commit time goes last, not first */
	if (a->commit_time != b->commit_time) {
		if (a->commit_time == KS_MANIFEST_NO_DEADLINE || b->commit_time == KS_MANIFEST_NO_DEADLINE)
			return a->commit_time == KS_MANIFEST_NO_DEADLINE ? 1 : -1;
		return a->commit_time < b->commit_time ? -1 : 1;
	}
	if ((c = strcmp(a->team, b->team)))
		return c;
	return strcmp(a->folder, b->folder);
}

void ks_leaderboard_rank(ks_leaderboard_row *rows, size_t n)
{
	size_t i;
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_rows);
	for (i = 0; i < n; i++)
		rows[i].rank = i + 1;
}

static const char ranking_rule[] =
	"GPU results, then compile-only results, then teams without a result; GPU results by "
	"summary.score (present before absent), then exec_accuracy, then call_accuracy, higher first; "
	"compile-only results are not ranked by accuracy (not comparable across languages); then the "
	"earlier commit_time; then "
	"team, then folder (bytewise). Ranks are 1..n with no ties.";

static void csv_field(ks_buf *b, const char *s)
{
	/* RFC 4180 quoting, and a leading quote mark on text a spreadsheet would run as a formula */
	int quote = s && (strpbrk(s, ",\"\r\n") != NULL);
	int formula = s && (*s == '=' || *s == '+' || *s == '-' || *s == '@' || *s == '\t' || *s == '\r');
	if (!s)
		return;
	if (quote || formula)
		ks_buf_put_truncated(b, "\"", 1);
	if (formula)
		ks_buf_put_truncated(b, "'", 1);
	for (; *s; s++) {
		if (*s == '"')
			ks_buf_put_truncated(b, "\"", 1);
		ks_buf_put_truncated(b, s, 1);
	}
	if (quote || formula)
		ks_buf_put_truncated(b, "\"", 1);
}

static void csv_num(ks_buf *b, double v, int integer)
{
	if (isnan(v))
		return;
	if (integer)
		ks_buf_printf(b, "%.0f", v);
	else
		ks_buf_printf(b, "%.6g", v);
}

int ks_leaderboard_write(const char *out_dir, const ks_leaderboard_row *rows, size_t n,
			       int64_t deadline)
{
	cJSON *o = cJSON_CreateObject(), *x, *arr;
	ks_buf csv = KS_BUF_INIT((size_t)1 << 30);
	char ts[32], *jp = ks_path_join(out_dir, "leaderboard.json"), *cp = ks_path_join(out_dir, "leaderboard.csv");
	size_t i;
	int rc;

	cJSON_AddStringToObject(o, "schema", "kscore.leaderboard/1");
	x = cJSON_AddObjectToObject(o, "scorer");
	cJSON_AddStringToObject(x, "name", "kscore");
	cJSON_AddStringToObject(x, "version", KS_VERSION);
	ks_manifest_format_time(ts, (int64_t)time(NULL));
	cJSON_AddStringToObject(o, "generated", ts);
	if (deadline != KS_MANIFEST_NO_DEADLINE) {
		ks_manifest_format_time(ts, deadline);
		cJSON_AddStringToObject(o, "deadline", ts);
	}
	cJSON_AddStringToObject(o, "ranking", ranking_rule);
	arr = cJSON_AddArrayToObject(o, "teams");
	ks_buf_puts(&csv, "rank,team,folder,status,mode,score,exec_accuracy,call_accuracy,compile_accuracy,"
		    "kernels,suspicious,commit,commit_time,reason,unscored_answers,unscored_note\r\n");
	for (i = 0; i < n; i++) {
		const ks_leaderboard_row *r = &rows[i];
		cJSON *t = cJSON_CreateObject();
		char *note = ks_unscored_note(&r->unscored);
		cJSON_AddNumberToObject(t, "rank", (double)r->rank);
		cJSON_AddStringToObject(t, "team", r->team);
		cJSON_AddStringToObject(t, "folder", r->folder);
		cJSON_AddStringToObject(t, "status", ks_leaderboard_status_name(r->status));
		if (r->reason)
			cJSON_AddStringToObject(t, "reason", r->reason);
		else
			cJSON_AddNullToObject(t, "reason");
		if (r->name_source)
			cJSON_AddStringToObject(t, "name_source", r->name_source);
		if (r->note)
			cJSON_AddStringToObject(t, "note", r->note);
		if (r->mode)
			cJSON_AddStringToObject(t, "mode", r->mode);
		else
			cJSON_AddNullToObject(t, "mode");
		ks_json_add_num(t, "score", r->score);
		ks_json_add_num(t, "exec_accuracy", r->exec_accuracy);
		ks_json_add_num(t, "call_accuracy", r->call_accuracy);
		ks_json_add_num(t, "compile_accuracy", r->compile_accuracy);
		if (r->has_result) {
			cJSON_AddNumberToObject(t, "kernels", (double)r->kernels);
			cJSON_AddNumberToObject(t, "suspicious", (double)r->suspicious);
			cJSON_AddNumberToObject(t, "unscored_answers", (double)r->unscored.unscored);
		} else {
			cJSON_AddNullToObject(t, "kernels");
			cJSON_AddNullToObject(t, "suspicious");
			cJSON_AddNullToObject(t, "unscored_answers");
		}
		ks_json_add_str(t, "unscored_note", note);
		if (r->commit)
			cJSON_AddStringToObject(t, "commit", r->commit);
		else
			cJSON_AddNullToObject(t, "commit");
		if (r->commit_time != KS_MANIFEST_NO_DEADLINE) {
			ks_manifest_format_time(ts, r->commit_time);
			cJSON_AddStringToObject(t, "commit_time", ts);
		} else {
			ts[0] = '\0';
			cJSON_AddNullToObject(t, "commit_time");
		}
		cJSON_AddItemToArray(arr, t);

		ks_buf_printf(&csv, "%zu,", r->rank);
		csv_field(&csv, r->team);
		ks_buf_puts(&csv, ",");
		csv_field(&csv, r->folder);
		ks_buf_printf(&csv, ",%s,%s,", ks_leaderboard_status_name(r->status), r->mode ? r->mode : "");
		csv_num(&csv, r->score, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->exec_accuracy, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->call_accuracy, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->compile_accuracy, 0);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->has_result ? (double)r->kernels : NAN, 1);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->has_result ? (double)r->suspicious : NAN, 1);
		ks_buf_printf(&csv, ",%s,%s,", r->commit ? r->commit : "", ts);
		csv_field(&csv, r->reason);
		ks_buf_puts(&csv, ",");
		csv_num(&csv, r->has_result ? (double)r->unscored.unscored : NAN, 1);
		ks_buf_puts(&csv, ",");
		csv_field(&csv, note);
		ks_buf_puts(&csv, "\r\n");
		ks_free(note);
	}
	rc = ks_json_write_file(jp, o, 1);
	if (rc == 0)
	{
		/* team names come from the manifest: the file stays UTF-8 whatever they hold */
		size_t clen;
		char *clean = ks_utf8_sanitize(csv.ptr ? csv.ptr : "", csv.len, &clen);
		rc = ks_fs_write_atomic(cp, clean, clen);
		ks_free(clean);
	}
	cJSON_Delete(o);
	ks_buf_free(&csv);
	ks_free(jp);
	ks_free(cp);
	return rc;
}


/* Prints s in exactly `cols` terminal columns: cut by whole characters, padded with spaces. */
static void print_cell(FILE *f, const char *s, size_t cols)
{
	size_t w, n = ks_utf8_prefix(s, cols, 0, &w);
	fprintf(f, "%.*s%*s", (int)n, s, (int)(cols - w), "");
}

void ks_leaderboard_print(FILE *f, const ks_leaderboard_row *rows, size_t n)
{
	size_t i;
	fprintf(f, "%-5s %-28s %-12s %-28s %s\n", "rank", "team", "status", "result", "commit");
	for (i = 0; i < n; i++) {
		const ks_leaderboard_row *r = &rows[i];
		char res[64] = "";
		if (r->has_result && r->gpu && !isnan(r->score))
			snprintf(res, sizeof(res), "score %.4g", r->score);
		else if (r->has_result && r->gpu)
			snprintf(res, sizeof(res), "exec %.3g call %.3g", isnan(r->exec_accuracy) ? 0 :
				 r->exec_accuracy, isnan(r->call_accuracy) ? 0 : r->call_accuracy);
		else if (r->has_result)
			snprintf(res, sizeof(res), "compile %.3g", isnan(r->compile_accuracy) ? 0 :
				 r->compile_accuracy);
		else if (r->reason)
			snprintf(res, sizeof(res), "%s", r->reason);
		if (r->has_result && r->unscored.unscored)
			snprintf(res + strlen(res), sizeof(res) - strlen(res), " (%zu not scored)",
				 r->unscored.unscored);
		fprintf(f, "%-5zu ", r->rank);
		/* names are people's: cut and aligned by characters and their width, never by bytes */
		print_cell(f, r->team, 28);
		fprintf(f, " %-12s ", ks_leaderboard_status_name(r->status));
		print_cell(f, res, 28);
		fprintf(f, " %.12s\n", r->commit ? r->commit : "-");
	}
}
