/* leaderboard tests: the ranking rule on crafted rows, and the JSON and CSV files. */
#include "batchtest.h"
#include "batch/leaderboard.h"

static ks_leaderboard_row row(const char *team, int gpu, double score, double exec, double call, double comp,
			int64_t t)
{
	ks_leaderboard_row r;
	memset(&r, 0, sizeof(r));
	r.team = ks_strdup(team);
	r.folder = ks_strdup(team);
	r.status = gpu >= 0 ? KS_LEADERBOARD_SCORED : KS_LEADERBOARD_FAILED;
	r.has_result = gpu >= 0;
	r.gpu = gpu == 1;
	r.mode = gpu < 0 ? NULL : ks_strdup(gpu ? "gpu" : "compile-only");
	r.score = score;
	r.exec_accuracy = exec;
	r.call_accuracy = call;
	r.compile_accuracy = comp;
	r.commit_time = t;
	return r;
}

static void test_ranking_rule(void)
{
	ks_leaderboard_row rows[12];
	const char *expect[] = { "s-high", "s-low-exec-high", "s-low-call-high", "s-low-early",
				 "s-low-late", "s-low-late-b", "no-score-exec", "compile-high",
				 "compile-low", "failed-early", "failed-a", "failed-b" };
	size_t i, n = 0;
	/* crafted out of order */
	rows[n++] = row("failed-b", -1, NAN, NAN, NAN, NAN, KS_MANIFEST_NO_DEADLINE);
	rows[n++] = row("compile-low", 0, NAN, NAN, NAN, 0.2, 100);
	rows[n++] = row("s-low-late-b", 1, 2.0, 0.5, 0.5, 1, 300);
	rows[n++] = row("no-score-exec", 1, NAN, 1.0, 1.0, 1, 1);     /* absent score: after any score */
	rows[n++] = row("s-low-late", 1, 2.0, 0.5, 0.5, 1, 300);      /* ties s-low-late-b but for the name */
	rows[n++] = row("s-high", 1, 9.5, 0.1, 0.1, 1, 999);
	rows[n++] = row("compile-high", 0, NAN, NAN, NAN, 0.9, 999);  /* compile-only after every GPU result */
	rows[n++] = row("failed-a", -1, NAN, NAN, NAN, NAN, KS_MANIFEST_NO_DEADLINE);
	rows[n++] = row("s-low-call-high", 1, 2.0, 0.5, 0.9, 1, 1);
	rows[n++] = row("s-low-exec-high", 1, 2.0, 0.7, 0.1, 1, 999);
	rows[n++] = row("s-low-early", 1, 2.0, 0.5, 0.5, 1, 200);
	rows[n++] = row("failed-early", -1, NAN, NAN, NAN, NAN, 50);  /* a commit time, but no result */
	ks_leaderboard_rank(rows, n);
	for (i = 0; i < n; i++) {
		KT_EQ_STR(rows[i].team, expect[i]);
		KT_EQ_INT(rows[i].rank, i + 1);
	}
	/* the leaderboard files keep that order; CSV quotes text a spreadsheet would run */
	ks_free(rows[0].team);
	rows[0].team = ks_strdup("=HYPERLINK(\"x\")");
	KT_EQ_INT(ks_leaderboard_write(kt_tmpdir(), rows, n, 1756079999LL), 0);
	{
		char *csv = slurp("leaderboard.csv");
		cJSON *j = json_file("leaderboard.json");
		const cJSON *t = get(j, "teams");
		KT_CONTAINS(csv, "rank,team,folder,status,mode,score,exec_accuracy,call_accuracy,compile_accuracy");
		KT_CONTAINS(csv, "1,\"'=HYPERLINK(\"\"x\"\")\",s-high,scored,gpu,9.5,0.1,0.1,1,0,0,");
		KT_CONTAINS(csv, "\r\n8,compile-high,compile-high,scored,compile-only,,,,0.9,");
		KT_CONTAINS(csv, "\r\n12,failed-b,failed-b,failed,,,,,,,,,,\r\n");
		KT_EQ_STR(gets_(j, "deadline"), DEADLINE);
		KT_EQ_INT(cJSON_GetArraySize(t), 12);
		KT_EQ_STR(gets_(cJSON_GetArrayItem(t, 1), "team"), "s-low-exec-high");
		KT_ASSERT(cJSON_IsNull(get(cJSON_GetArrayItem(t, 6), "score")));
		KT_CONTAINS(gets_(j, "ranking"), "earlier commit_time");
		cJSON_Delete(j);
		ks_free(csv);
	}
	for (i = 0; i < n; i++)
		ks_leaderboard_row_clear(&rows[i]);
}

static const kt_test tests[] = {
	KT(test_ranking_rule), { 0 }
};
KT_MAIN("leaderboard", tests)
