/* unscored tests: which kernel records count as answers this run could not score for their
 * language, the language each is named by, and the notes built from the counts. */
#include "ktest.h"
#include "report/unscored.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#define TRITON_DETAIL "the answer is Triton (Python), not CUDA: kscore scores CUDA C++ device code"

static void test_note_of_a_team_of_triton_answers(void)
{
	ks_unscored u = KS_UNSCORED_INIT;
	char *note;
	int i;
	for (i = 0; i < 10; i++)
		ks_unscored_add(&u, "not_cuda", NULL, TRITON_DETAIL);
	KT_EQ_INT(u.answers, 10);
	KT_EQ_INT(u.unscored, 10);
	note = ks_unscored_note(&u);
	KT_EQ_STR(note, "10 of 10 answers are Triton (Python), which this run could not score");
	ks_free(note);
	note = ks_unscored_languages(&u);
	KT_EQ_STR(note, "10 Triton (Python)");
	ks_free(note);
}

static void test_only_language_reasons_count(void)
{
	ks_unscored u = KS_UNSCORED_INIT;
	char *note;
	ks_unscored_add(&u, "ok", NULL, NULL);
	ks_unscored_add(&u, "compile_error", NULL, "NVRTC: 1 error");
	ks_unscored_add(&u, "mismatch", NULL, "y[0] = 1 but ...");
	/* a CUDA kernel of a compile-only run: not run, but not for its language */
	ks_unscored_add(&u, "not_run", NULL, "compiled for sm_90a; not run (compile-only)");
	ks_unscored_add(&u, "not_run", "cuda", "compiled for sm_90a; not run (compile-only)");
	ks_unscored_add(&u, "not_run", "none", "lane lost");
	/* a duplicate is no answer at all */
	ks_unscored_add(&u, "duplicate", NULL, "duplicate of entry 0");
	KT_EQ_INT(u.answers, 6);
	KT_EQ_INT(u.unscored, 0);
	KT_ASSERT(ks_unscored_note(&u) == NULL);
	KT_ASSERT(ks_unscored_languages(&u) == NULL);
	/* a Triton answer this run could not trace (no GPU, or no Python, torch or Triton): its record
	 * names its language, and it counts */
	ks_unscored_add(&u, "not_run", "triton", "a Triton answer: it passed the static check; tracing and "
			"running it need a GPU (compile-only)");
	ks_unscored_add(&u, "not_cuda", NULL, "the answer is Python, not CUDA: ...");
	note = ks_unscored_note(&u);
	/* with the cause the first not_run answer's detail gives: no compile failure */
	KT_EQ_STR(note, "1 of 8 answers is Triton (Python) and 1 is Python, which this run could not score: "
		  "compile-only run, tracing Triton answers needs a GPU");
	ks_free(note);
}

static void test_the_cause_is_said(void)
{
	static const struct {
		const char *detail, *cause;
	} cases[] = {
		{ "a Triton answer: it passed the static check; tracing and running it need a GPU (no GPU)",
		  ": this host has no usable GPU" },
		{ "a Triton answer, not traced: torch and triton cannot be imported by /usr/bin/python3: "
		  "ModuleNotFoundError: No module named 'torch'", ": this host's Python has no torch or Triton" },
		{ "a Triton answer, not checked: no python3 on PATH (Triton answers need ...)",
		  ": this host has no Python for Triton answers" },
		{ "a Triton answer, not traced: something else", "" },
	};
	size_t i;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ks_unscored u = KS_UNSCORED_INIT, all = KS_UNSCORED_INIT;
		char *note, *want;
		ks_unscored_add(&u, "not_run", "triton", cases[i].detail);
		ks_unscored_add(&u, "not_run", "triton", "a Triton answer: ... need a GPU (compile-only)");
		note = ks_unscored_note(&u);
		want = ks_asprintf("2 of 2 answers are Triton (Python), which this run could not score%s%s",
				   cases[i].cause[0] ? cases[i].cause : "", cases[i].cause[0] ? "" :
				   ": compile-only run, tracing Triton answers needs a GPU");
		KT_EQ_STR(note, want);
		/* a batch's total keeps the first team's cause */
		ks_unscored_merge(&all, &u);
		KT_EQ_STR(all.cause, u.cause);
		ks_free(want);
		ks_free(note);
	}
}

static void test_language_from_the_record_or_the_detail(void)
{
	ks_unscored u = KS_UNSCORED_INIT;
	char *note;
	ks_unscored_add(&u, "not_cuda", "Triton", "something else");  /* the field wins */
	ks_unscored_add(&u, "not_cuda", NULL, TRITON_DETAIL);
	ks_unscored_add(&u, "not_cuda", NULL, "the answer is Python, not CUDA: ...");
	ks_unscored_add(&u, "not_cuda", NULL, "no language named here");
	/* an answer without code is recorded as language "none": its detail names the language */
	ks_unscored_add(&u, "not_cuda", "none", "the answer is Python without a Triton kernel: kscore scores ...");
	/* what reaches terminals and pages is printable, whatever a record holds */
	ks_unscored_add(&u, "not_cuda", "Ju\x1b[31mlia\xE2\x80\xAE", NULL);
	KT_EQ_INT(u.nlang, 4);
	note = ks_unscored_note(&u);
	KT_EQ_STR(note, "2 of 6 answers are Triton (Python), 2 are Python, 1 is not CUDA and 1 is Ju[31mlia, "
		      "which this run could not score");
	ks_free(note);
	note = ks_unscored_languages(&u);
	KT_EQ_STR(note, "2 Triton (Python), 2 Python, 1 not CUDA, 1 Ju[31mlia");
	ks_free(note);
}

static void test_counts_of_a_score_json_and_their_sum(void)
{
	const char *text = "{\"kernels\": [{\"reason\": \"not_cuda\", \"detail\": \"" TRITON_DETAIL "\"},"
			   "{\"reason\": \"ok\"}, {\"reason\": \"duplicate\"}, {\"reason\": 7}, 3]}";
	ks_unscored a = KS_UNSCORED_INIT, b = KS_UNSCORED_INIT;
	cJSON *j = NULL;
	char *note;
	size_t i;
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 64, "score.json"), 0);
	ks_unscored_add_score(&a, j);
	KT_EQ_INT(a.answers, 3);  /* a record without a reason is an answer, not an unscored one; a non-object is nothing */
	KT_EQ_INT(a.unscored, 1);
	ks_unscored_add_score(&a, NULL);
	KT_EQ_INT(a.answers, 3);
	cJSON_Delete(j);
	/* one answer, one language: singular */
	note = ks_unscored_note(&(ks_unscored){ .answers = 1, .unscored = 1, .nlang = 1,
						.lang = { { "Python", 1 } } });
	KT_EQ_STR(note, "1 of 1 answer is Python, which this run could not score");
	ks_free(note);
	/* a batch's sum; past the cap, further languages are counted together */
	for (i = 0; i < KS_UNSCORED_MAX_LANGUAGES + 2; i++) {
		char lang[16];
		snprintf(lang, sizeof(lang), "lang%zu", i);
		ks_unscored_add(&b, "not_cuda", lang, NULL);
	}
	ks_unscored_merge(&b, &a);
	KT_EQ_INT(b.answers, KS_UNSCORED_MAX_LANGUAGES + 2 + 3);
	KT_EQ_INT(b.unscored, KS_UNSCORED_MAX_LANGUAGES + 3);
	KT_EQ_INT(b.nlang, KS_UNSCORED_MAX_LANGUAGES);
	KT_EQ_STR(b.lang[KS_UNSCORED_MAX_LANGUAGES - 1].name, "other languages");
	KT_EQ_INT(b.lang[KS_UNSCORED_MAX_LANGUAGES - 1].n, 4);
}

static const kt_test tests[] = {
	KT(test_note_of_a_team_of_triton_answers),
	KT(test_only_language_reasons_count), KT(test_the_cause_is_said),
	KT(test_language_from_the_record_or_the_detail),
	KT(test_counts_of_a_score_json_and_their_sum),
	{ 0 }
};
KT_MAIN("unscored", tests)
