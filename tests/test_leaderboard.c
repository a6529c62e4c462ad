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
				 "s-low-late", "s-low-late-b", "no-score-exec", "compile-low",
				 "compile-high", "failed-early", "failed-a", "failed-b" };
	size_t i, n = 0;
	/* crafted out of order */
	rows[n++] = row("failed-b", -1, NAN, NAN, NAN, NAN, KS_MANIFEST_NO_DEADLINE);
	rows[n++] = row("compile-low", 0, NAN, NAN, NAN, 0.2, 100);
	rows[n++] = row("s-low-late-b", 1, 2.0, 0.5, 0.5, 1, 300);
	rows[n++] = row("no-score-exec", 1, NAN, 1.0, 1.0, 1, 1);     /* absent score: after any score */
	rows[n++] = row("s-low-late", 1, 2.0, 0.5, 0.5, 1, 300);      /* ties s-low-late-b but for the name */
	rows[n++] = row("s-high", 1, 9.5, 0.1, 0.1, 1, 999);
	/* compile-only after every GPU result, and not by accuracy (not comparable across languages):
	 * by commit time, then name */
	rows[n++] = row("compile-high", 0, NAN, NAN, NAN, 0.9, 999);
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
		KT_CONTAINS(csv, "\r\n8,compile-low,compile-low,scored,compile-only,,,,0.2,");
		KT_CONTAINS(csv, "\r\n9,compile-high,compile-high,scored,compile-only,,,,0.9,");
		KT_CONTAINS(csv, "\r\n12,failed-b,failed-b,failed,,,,,,,,,,,,\r\n");
		KT_CONTAINS(csv, ",commit_time,reason,unscored_answers,unscored_note\r\n");
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

/* A team whose answers could not be scored for their language says so in both files, read from
 * its score.json by the same row loader the batch uses. */
static void test_unscored_answers_are_noted(void)
{
	ks_leaderboard_row rows[2];
	put("tri/batch.json", "{\"schema\": \"kscore.batch-team/1\", \"status\": \"scored\"}");
	put("tri/score.json", "{\"mode\": \"compile-only\", \"summary\": {\"kernels\": 3, "
	    "\"compile_accuracy\": 0}, \"kernels\": ["
	    "{\"reason\": \"not_cuda\", \"detail\": \"the answer is Triton (Python), not CUDA: ...\"},"
	    "{\"reason\": \"not_cuda\", \"detail\": \"the answer is Triton (Python), not CUDA: ...\"},"
	    "{\"reason\": \"not_cuda\", \"detail\": \"the answer is Triton (Python), not CUDA: ...\"}]}");
	put("cu/batch.json", "{\"schema\": \"kscore.batch-team/1\", \"status\": \"scored\"}");
	put("cu/score.json", "{\"mode\": \"compile-only\", \"summary\": {\"kernels\": 1, "
	    "\"compile_accuracy\": 1}, \"kernels\": [{\"reason\": \"not_run\", \"compiled\": true}]}");
	ks_leaderboard_row_load(&rows[0], kt_tmpdir(), "tri", "tri");
	ks_leaderboard_row_load(&rows[1], kt_tmpdir(), "cu", "cu");
	KT_EQ_INT(rows[0].unscored.unscored, 3);
	KT_EQ_INT(rows[1].unscored.unscored, 0);
	ks_leaderboard_rank(rows, 2);
	KT_EQ_INT(ks_leaderboard_write(kt_tmpdir(), rows, 2, 1756079999LL), 0);
	{
		char *csv = slurp("leaderboard.csv");
		cJSON *j = json_file("leaderboard.json");
		const cJSON *t = get(j, "teams");
		KT_EQ_STR(gets_(cJSON_GetArrayItem(t, 0), "team"), "cu");
		KT_EQ_INT(get(cJSON_GetArrayItem(t, 0), "unscored_answers")->valuedouble, 0);
		KT_ASSERT(cJSON_IsNull(get(cJSON_GetArrayItem(t, 0), "unscored_note")));
		KT_EQ_INT(get(cJSON_GetArrayItem(t, 1), "unscored_answers")->valuedouble, 3);
		KT_EQ_STR(gets_(cJSON_GetArrayItem(t, 1), "unscored_note"),
			  "3 of 3 answers are Triton (Python), which this run could not score");
		KT_CONTAINS(csv, ",3,\"3 of 3 answers are Triton (Python), which this run could not score\"\r\n");
		cJSON_Delete(j);
		ks_free(csv);
	}
	ks_leaderboard_row_clear(&rows[0]);
	ks_leaderboard_row_clear(&rows[1]);
}

static const kt_test tests[] = {
	KT(test_ranking_rule), KT(test_unscored_answers_are_noted), { 0 }
};
KT_MAIN("leaderboard", tests)
