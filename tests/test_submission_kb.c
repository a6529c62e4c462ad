/* KernelBench's answer layout read as a submission (load/kbruns.h, ks_submission_load). */
#include "ktest.h"
#include "load/kbruns.h"
#include "load/sets/set.h"
#include "load/submission.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <sys/stat.h>

#define A1 "level_1_problem_1_sample_0_kernel.py"
#define MODEL "class ModelNew:\n    pass\n"

static ks_submission *g_sub;

static const char *fixture_dir(const char *sub)
{
	static char path[4096];
	const char *root = getenv("KSCORE_ROOT");
	snprintf(path, sizeof(path), "%s/tests/fixtures/submission/kernelbench-runs%s", root ? root : ".",
		 sub);
	return path;
}

static ks_submission *load(const char *path, const ks_submission_limits *l)
{
	ks_submission_free(g_sub);
	g_sub = NULL;
	if (ks_submission_load(&g_sub, path, l) < 0)
		KT_FAIL("loading %s failed: %s", path, ks_error_msg());
	return g_sub;
}

/* Loading path fails with code rc and a message holding `needle`. */
static void load_fails(const char *path, const ks_submission_limits *l, int rc, const char *needle)
{
	ks_submission *s = NULL;
	KT_EQ_INT(ks_submission_load(&s, path, l), rc);
	KT_ASSERT(s == NULL);
	KT_CONTAINS(ks_error_msg(), needle);
}

static const char *tmp_folder(const char *name)
{
	static char dir[4200];
	snprintf(dir, sizeof(dir), "%s/%s", kt_tmpdir(), name);
	KT_EQ_INT(ks_fs_mkdir_p(dir, 0755), 0);
	return dir;
}

/* Makes a subfolder of the test's folder, leaving tmp_folder's path alone. */
static void mkdirs(const char *name)
{
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/%s", kt_tmpdir(), name);
	KT_EQ_INT(ks_fs_mkdir_p(dir, 0755), 0);
}

static char *fixture_text(const char *name)
{
	char path[4400], *data = NULL;
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", fixture_dir("/demo_run"), name);
	if (ks_fs_read(&data, &len, path, 1 << 20) < 0)
		KT_FAIL("%s", ks_error_msg());
	return data;
}

static void check_entry(const ks_entry *e, const char *file, const char *problem, const char *name)
{
	char *text = fixture_text(name);
	KT_EQ_STR(e->file, file);
	KT_EQ_STR(e->problem, problem);
	KT_EQ_STR(e->predict, text);
	KT_ASSERT_MSG(!e->error, "%s", e->error);
	KT_EQ_INT(e->fault, KS_ENTRY_OK);
	KT_ASSERT(e->sha256[0]);
	ks_free(text);
}

/* The fixture: samples 0 and 1, in problem order, then the misnamed file as a failed pass. */
static void check_fixture(const ks_submission *s)
{
	const ks_pass *p;

	KT_EQ_INT(s->is_folder, 1);
	KT_EQ_INT(s->npasses, 3);
	p = &s->passes[0];
	KT_EQ_STR(p->name, "sample_0");
	KT_CONTAINS(p->path, "kernelbench-runs/demo_run");
	KT_ASSERT_MSG(!p->error, "%s", p->error);
	KT_EQ_INT(p->nentries, 2);
	check_entry(&p->entries[0], "level_1_problem_1.py", "level_1_problem_1", A1);
	check_entry(&p->entries[1], "level_1_problem_2.py", "level_1_problem_2",
		    "level_1_problem_2_sample_0_kernel.py");
	/* detected as for any entry: the Triton answer is Triton */
	KT_EQ_INT(p->entries[1].language, KS_LANG_TRITON);
	KT_ASSERT(p->entries[1].code != NULL);
	KT_EQ_INT(p->entries[0].index, 0);
	KT_EQ_INT(p->entries[1].index, 1);
	p = &s->passes[1];
	KT_EQ_STR(p->name, "sample_1");
	KT_EQ_INT(p->nentries, 2);
	check_entry(&p->entries[0], "level_1_problem_1.py", "level_1_problem_1",
		    "level_1_problem_1_sample_1_kernel.py");
	check_entry(&p->entries[1], "level_2_problem_10.py", "level_2_problem_10",
		    "level_2_problem_10_sample_1_kernel.py");
	KT_ASSERT(strcmp(s->passes[0].sha256, s->passes[1].sha256) != 0);
	p = &s->passes[2];
	KT_EQ_STR(p->name, "level_x_problem_3_sample_0_kernel.py");
	KT_EQ_INT(p->nentries, 0);
	KT_CONTAINS(p->error, "demo_run/level_x_problem_3_sample_0_kernel.py: not a name of "
			      "KernelBench's answer layout");
	KT_CONTAINS(p->error, "the level is not a number; skipped");
}

static void test_fixture_run_folder(void)
{
	check_fixture(load(fixture_dir("/demo_run"), NULL));
}

static void test_runs_folder_one_level_down(void)
{
	ks_submission *s = load(fixture_dir(""), NULL);
	char sha[65];
	check_fixture(s);
	memcpy(sha, s->sha256, sizeof(sha));
	/* the same answers by either path are the same submission */
	s = load(fixture_dir("/demo_run"), NULL);
	KT_EQ_STR(s->sha256, sha);
}

/* The entries' keys are those a KernelBench problem set maps to its problems. */
static void test_keys_find_the_kernelbench_problems(void)
{
	const char *root = getenv("KSCORE_ROOT");
	ks_problem_source *set = NULL;
	const ks_set_problem *q;
	ks_submission *s = load(fixture_dir("/demo_run"), NULL);
	char dir[4200];

	snprintf(dir, sizeof(dir), "%s/tests/fixtures/sets/kernelbench", root ? root : ".");
	if (ks_set_read(&set, dir, NULL) < 0)
		KT_FAIL("%s", ks_error_msg());
	q = ks_set_find(set, s->passes[0].entries[0].file);
	KT_ASSERT(q != NULL);
	KT_EQ_STR(q->name, "1_Scale");
	q = ks_set_find(set, s->passes[1].entries[0].problem);
	KT_ASSERT(q != NULL);
	KT_EQ_STR(q->name, "1_Scale");
	KT_ASSERT(ks_set_find(set, s->passes[1].entries[1].file) == NULL); /* level 2: not in the set */
	ks_set_free(set);
}

static void test_mix_is_refused(void)
{
	const char *dir = tmp_folder("mix");
	kt_write("mix/" A1, MODEL, strlen(MODEL));
	kt_write("mix/helper.py", "x = 1\n", 6);
	load_fails(dir, NULL, KS_EINVALID, "mix/helper.py: does not fit KernelBench's answer layout");
	dir = tmp_folder("mixjson");
	kt_write("mixjson/" A1, MODEL, strlen(MODEL));
	kt_write("mixjson/a.json", "[]", 2);
	load_fails(dir, NULL, KS_EINVALID, "mixjson/a.json: a GEAK submission file beside KernelBench");
}

static void test_geak_folder_loads_as_before(void)
{
	const char *arr = "[{\"file\": \"a.py\", \"predict\": \"\"}]";
	const char *dir = tmp_folder("geak");
	ks_submission *s;
	kt_write("geak/p1.json", arr, strlen(arr));
	kt_write("geak/helper.py", "x = 1\n", 6);
	s = load(dir, NULL);
	KT_EQ_INT(s->npasses, 1);
	KT_EQ_STR(s->passes[0].name, "p1.json");
	KT_EQ_STR(s->passes[0].entries[0].file, "a.py");
	/* a folder holding GEAK files is not searched for runs below it */
	mkdirs("geak/run");
	kt_write("geak/run/" A1, MODEL, strlen(MODEL));
	s = load(dir, NULL);
	KT_EQ_INT(s->npasses, 1);
	KT_EQ_STR(s->passes[0].name, "p1.json");
}

static void test_several_runs_are_refused(void)
{
	const char *dir = tmp_folder("runs");
	mkdirs("runs/a");
	mkdirs("runs/b");
	kt_write("runs/a/" A1, MODEL, strlen(MODEL));
	kt_write("runs/b/" A1, MODEL, strlen(MODEL));
	load_fails(dir, NULL, KS_EINVALID, "holds several runs of KernelBench answers (a, b)");
	/* never two levels down */
	dir = tmp_folder("deep");
	mkdirs("deep/runs/a");
	kt_write("deep/runs/a/" A1, MODEL, strlen(MODEL));
	load_fails(dir, NULL, KS_EINVALID, "folder holds no .json, .jsonl, .json.gz or .jsonl.gz file, nor "
		   "KernelBench answers (level_<L>_problem_<P>_sample_<S>_kernel.py) in it or in one subfolder");
}

static void test_caps_and_bad_text(void)
{
	ks_submission_limits l = KS_SUBMISSION_LIMITS_INIT;
	const char *dir = tmp_folder("caps");
	char big[300];
	ks_submission *s;

	memset(big, '#', sizeof(big));
	kt_write("caps/" A1, MODEL, strlen(MODEL));
	kt_write("caps/level_1_problem_2_sample_0_kernel.py", big, sizeof(big));
	kt_write("caps/level_1_problem_3_sample_0_kernel.py", "x = 1\0\n", 7);
	kt_write("caps/level_1_problem_4_sample_0_kernel.py", "x = '\xff'\n", 8);
	l.max_code_bytes = 200;
	s = load(dir, &l);
	KT_EQ_INT(s->npasses, 1);
	KT_EQ_INT(s->passes[0].nentries, 4);
	KT_ASSERT(!s->passes[0].entries[0].error);
	KT_EQ_INT(s->passes[0].entries[1].fault, KS_ENTRY_MALFORMED);
	KT_CONTAINS(s->passes[0].entries[1].error, "level_1_problem_2_sample_0_kernel.py");
	KT_CONTAINS(s->passes[0].entries[1].error, "200");
	KT_EQ_STR(s->passes[0].entries[1].predict, "");
	KT_EQ_INT(s->passes[0].entries[2].fault, KS_ENTRY_BAD_ENCODING);
	KT_CONTAINS(s->passes[0].entries[2].error, "NUL");
	KT_EQ_INT(s->passes[0].entries[3].fault, KS_ENTRY_BAD_ENCODING);
	KT_CONTAINS(s->passes[0].entries[3].error, "0xFF");
	KT_EQ_STR(s->passes[0].entries[3].file, "level_1_problem_4.py");
	/* entries per sample */
	l = (ks_submission_limits)KS_SUBMISSION_LIMITS_INIT;
	l.max_entries = 3;
	s = load(dir, &l);
	KT_EQ_INT(s->npasses, 1);
	KT_EQ_INT(s->passes[0].nentries, 0);
	KT_CONTAINS(s->passes[0].error, "sample 0 has 4 answer files, over the limit of 3 entries");
	/* samples (and misnamed files) are passes */
	kt_write("caps/level_1_problem_1_sample_7_kernel.py", MODEL, strlen(MODEL));
	l = (ks_submission_limits)KS_SUBMISSION_LIMITS_INIT;
	l.max_passes = 2;
	KT_EQ_INT(load(dir, &l)->npasses, 2);
	kt_write("caps/level_1_problem_1_sample_x_kernel.py", MODEL, strlen(MODEL));
	load_fails(dir, &l, KS_ELIMIT, "2 samples and 1 misnamed files, over the limit of 2 passes");
}

static void test_fingerprint_follows_the_answers(void)
{
	const char *dir = tmp_folder("fp");
	char sha[65], pass0[65];
	ks_submission *s;

	kt_write("fp/" A1, MODEL, strlen(MODEL));
	kt_write("fp/level_1_problem_1_sample_1_kernel.py", MODEL, strlen(MODEL));
	s = load(dir, NULL);
	memcpy(sha, s->sha256, sizeof(sha));
	memcpy(pass0, s->passes[0].sha256, sizeof(pass0));
	/* same text, other sample: the pass fingerprints differ by the file names */
	KT_ASSERT(strcmp(s->passes[0].sha256, s->passes[1].sha256) != 0);
	KT_EQ_STR(s->passes[0].entries[0].sha256, s->passes[1].entries[0].sha256);
	KT_EQ_STR(load(dir, NULL)->sha256, sha);
	kt_write("fp/level_1_problem_1_sample_1_kernel.py", MODEL "#\n", strlen(MODEL) + 3);
	s = load(dir, NULL);
	KT_ASSERT(strcmp(s->sha256, sha) != 0);
	KT_EQ_STR(s->passes[0].sha256, pass0);
}

typedef struct {
	const char *name;
	int ok, level, problem, sample;
	const char *why;
} name_case;

static void test_name_parser_hostile_names(void)
{
	static const name_case cases[] = {
		{ A1, 1, 1, 1, 0, NULL },
		{ "level_4_problem_100_sample_31_kernel.py", 1, 4, 100, 31, NULL },
		{ "level_999999999_problem_999999999_sample_999999999_kernel.py", 1, 999999999, 999999999,
		  999999999, NULL },
		{ "level_1234567890_problem_1_sample_0_kernel.py", 0, 0, 0, 0, "level has more than 9 digits" },
		{ "level_2147483648_problem_1_sample_0_kernel.py", 0, 0, 0, 0, "more than 9 digits" },
		{ "level_1_problem_18446744073709551617_sample_0_kernel.py", 0, 0, 0, 0,
		  "problem has more than 9 digits" },
		{ "level_-1_problem_1_sample_0_kernel.py", 0, 0, 0, 0, "the level has a sign" },
		{ "level_1_problem_+1_sample_0_kernel.py", 0, 0, 0, 0, "the problem has a sign" },
		{ "level_1_problem_1_sample_-0_kernel.py", 0, 0, 0, 0, "the sample has a sign" },
		{ "level_0_problem_1_sample_0_kernel.py", 0, 0, 0, 0, "the level is 0 (it counts from 1)" },
		{ "level_1_problem_0_sample_0_kernel.py", 0, 0, 0, 0, "the problem is 0" },
		{ "level_01_problem_1_sample_0_kernel.py", 0, 0, 0, 0, "leading zero" },
		{ "level_1_problem_1_sample_00_kernel.py", 0, 0, 0, 0, "leading zero" },
		{ "level_x_problem_1_sample_0_kernel.py", 0, 0, 0, 0, "the level is not a number" },
		{ "level__problem_1_sample_0_kernel.py", 0, 0, 0, 0, "the level is not a number" },
		{ "level_1_problem_1_kernel.py", 0, 0, 0, 0, "\"_sample_\" does not follow the problem" },
		{ "level_1_problem_1_sample_0.py", 0, 0, 0, 0, "\"_kernel.py\" does not follow the sample" },
		{ "level_1_problem_1_sample_0_kernel.py.py", 0, 0, 0, 0, "text follows" },
		{ "level_1_problem_1_sample_0_kernel.pyc", 0, 0, 0, 0, "text follows" },
		{ "level_1_problem_1_sample_0_kernel.p", 0, 0, 0, 0, "does not follow the sample" },
		{ "level_1 problem_1_sample_0_kernel.py", 0, 0, 0, 0, "does not follow the level" },
		{ "Level_1_problem_1_sample_0_kernel.py", 0, 0, 0, 0, "does not start with" },
		{ "", 0, 0, 0, 0, "does not start with" },
		{ "level_", 0, 0, 0, 0, "not a number" },
	};
	char name[4200];
	size_t i, parsed = 0;
	int l, p, s;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;
		l = p = s = -7;
		rc = ks_kbruns_parse_name(&l, &p, &s, cases[i].name);
		if (cases[i].ok) {
			KT_ASSERT_MSG(rc == 0, "%s: %s", cases[i].name, ks_error_msg());
			KT_EQ_INT(l, cases[i].level);
			KT_EQ_INT(p, cases[i].problem);
			KT_EQ_INT(s, cases[i].sample);
		} else {
			KT_ASSERT_MSG(rc == KS_EINVALID, "%s parsed", cases[i].name);
			KT_CONTAINS(ks_error_msg(), cases[i].why);
			KT_EQ_INT(l, -7); /* nothing written on failure */
		}
	}
	/* a 4,000-digit number stops at the cap */
	memcpy(name, "level_", 6);
	memset(name + 6, '7', 4000);
	strcpy(name + 4006, "_problem_1_sample_0_kernel.py");
	KT_EQ_INT(ks_kbruns_parse_name(&l, &p, &s, name), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "more than 9 digits");
	/* valid names with random edits (insert, delete, replace a byte): what parses is exactly the
	 * canonical spelling of what it parsed to */
	srand(37);
	for (i = 0; i < 20000; i++) {
		static const char alpha[] = "0123456789_-+.xlpy \xff";
		char canon[128];
		size_t n, k, at, edits = (size_t)rand() % 4;
		n = (size_t)snprintf(name, sizeof(name), "level_%d_problem_%d_sample_%d_kernel.py",
				     rand() % 12, rand() % 300, rand() % 2 ? rand() % 10 : rand());
		for (k = 0; k < edits && n > 0; k++) {
			char c = alpha[(size_t)rand() % (sizeof(alpha) - 1)];
			at = (size_t)rand() % n;
			if (rand() % 3 == 0) {
				memmove(name + at + 1, name + at, n - at + 1);
				name[at] = c;
				n++;
			} else if (rand() % 2) {
				memmove(name + at, name + at + 1, n - at);
				n--;
			} else {
				name[at] = c;
			}
		}
		if (ks_kbruns_parse_name(&l, &p, &s, name) == 0) {
			KT_ASSERT(l >= 1 && p >= 1 && s >= 0);
			snprintf(canon, sizeof(canon), "level_%d_problem_%d_sample_%d_kernel.py", l, p, s);
			KT_EQ_STR(name, canon);
			parsed++;
		}
	}
	KT_ASSERT_MSG(parsed > 0, "no random name parsed: the property was never checked");
}

static const kt_test tests[] = {
	KT(test_fixture_run_folder), KT(test_runs_folder_one_level_down),
	KT(test_keys_find_the_kernelbench_problems), KT(test_mix_is_refused),
	KT(test_geak_folder_loads_as_before), KT(test_several_runs_are_refused),
	KT(test_caps_and_bad_text), KT(test_fingerprint_follows_the_answers),
	KT(test_name_parser_hostile_names), { 0 }
};
KT_MAIN("submission_kb", tests)
