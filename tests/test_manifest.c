/* manifest tests: the time format, team folder names, manifests and pull-request teams. */
#include "ktest.h"
#include "batch/manifest.h"
#include "util/errors.h"
#include "util/mem.h"

#define DEADLINE "2025-08-24T23:59:59Z"

static void test_times(void)
{
	int64_t t;
	char s[32];
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-08-24T23:59:59Z"), 0);
	KT_EQ_INT(t, 1756079999LL);
	ks_manifest_format_time(s, t);
	KT_EQ_STR(s, "2025-08-24T23:59:59Z");
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-08-24T16:59:59-07:00"), 0);
	KT_EQ_INT(t, 1756079999LL);
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-08-25 01:59:59+0200"), 0);
	KT_EQ_INT(t, 1756079999LL);
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-02-30T00:00:00Z"), KS_EINVALID);
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-08-24T23:59:59"), KS_EINVALID); /* no zone: ambiguous */
	/* the message says what is missing and how to write it */
	KT_CONTAINS(ks_error_msg(), "\"2025-08-24T23:59:59\" has no UTC offset");
	KT_CONTAINS(ks_error_msg(), "2025-08-24T23:59:59Z");
	KT_CONTAINS(ks_error_msg(), "2025-08-24T23:59:59+08:00 for UTC+8");
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-08-24T23:59:5"), KS_EINVALID);
	KT_NOT_CONTAINS(ks_error_msg(), "UTC offset");
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-08-24"), KS_EINVALID);
	KT_EQ_INT(ks_manifest_parse_time(&t, "2025-08-24T24:00:00Z"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "2025-08-24T23:59:59Z");
}

static void test_folder_names(void)
{
	struct {
		const char *in, *out;
	} c[] = {
		{ "Alpha Team", "Alpha_Team" },
		{ "../../etc/passwd", "etc_passwd" },
		{ "-rf", "rf" },
		{ "  ", "team" },
		{ "équipe été", "quipe_t" },
		{ "a.tmp-123", "a_tmp-123" },
		{ "Leaderboard", "team-Leaderboard" },
		{ "team/x\\y:z", "team_x_y_z" },
	};
	size_t i;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *f = ks_manifest_folder_name(c[i].in);
		KT_EQ_STR(f, c[i].out);
		ks_free(f);
	}
	{
		char long_name[300], *f;
		memset(long_name, 'x', sizeof(long_name) - 1);
		long_name[sizeof(long_name) - 1] = 0;
		f = ks_manifest_folder_name(long_name);
		KT_EQ_INT(strlen(f), 64);
		ks_free(f);
	}
}

static int parse(ks_manifest **m, const char *text)
{
	return ks_manifest_parse(m, text, strlen(text), "m.json", "/srv/h");
}

static void test_manifest(void)
{
	ks_manifest *m = NULL;
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", "
			 "\"submission\": \"x_<N>.json\", \"teams\": ["
			 "{\"name\": \"A b\", \"repo\": \"teams/a\"},"
			 "{\"name\": \"C\", \"repo\": \"https://tok@example.org/c.git\", \"ref\": \"refs/pull/3/head\","
			 " \"submission\": \"sub/c.json\"}]}"), 0);
	KT_EQ_INT(m->deadline, 1756079999LL);
	KT_EQ_INT(m->nteams, 2);
	KT_EQ_STR(m->teams[0].folder, "A_b");
	KT_EQ_STR(m->teams[0].repo, "/srv/h/teams/a"); /* relative to the manifest's folder */
	KT_EQ_STR(m->teams[0].ref, "HEAD");
	KT_EQ_INT(m->teams[0].submission.n, 0);
	KT_EQ_INT(m->teams[0].name_source, KS_MANIFEST_NAMED_BY_MANIFEST);
	KT_ASSERT(m->teams[0].base == NULL);
	KT_EQ_STR(m->teams[1].repo, "https://tok@example.org/c.git");
	KT_EQ_INT(m->teams[1].submission.n, 1);
	KT_EQ_STR(m->teams[1].submission.v[0], "sub/c.json");
	KT_EQ_INT(m->submission.n, 1);
	KT_EQ_STR(m->submission.v[0], "x_<N>.json");
	ks_manifest_free(m);

	/* several patterns in order, per team too, and a team's base */
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"deadline\": \"" DEADLINE "\", "
			 "\"submission\": [\"submit/r_<N>.json\", \"{,src/**/}r_<N>.json\"], \"teams\": ["
			 "{\"name\": \"a\", \"repo\": \"a\", \"base\": \"template\", "
			 "\"submission\": [\"out/x.json\", \"x.json\"]}]}"), 0);
	KT_EQ_INT(m->submission.n, 2);
	KT_EQ_STR(m->submission.v[1], "{,src/**/}r_<N>.json");
	KT_EQ_INT(m->teams[0].submission.n, 2);
	KT_EQ_STR(m->teams[0].submission.v[1], "x.json");
	KT_EQ_STR(m->teams[0].base, "template");
	ks_manifest_free(m);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": []}"), KS_EINVALID);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": [\"a.json\", 3]}"), KS_EINVALID);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": [\"a.json\", \"{b\"]}"),
		  KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "{b");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s\", \"teams\": ["
			 "{\"name\": \"a\", \"repo\": \"r\", \"base\": \"\"}]}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "\"base\" is empty");
	/* a manifest without teams parses with 0 (it returned 1) */
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\"}"), 0);
	ks_manifest_free(m);
	/* names are UTF-8, counted in characters: 128 CJK characters (384 bytes) are a name */
	{
		char name[128 * 3 + 1], *text;
		size_t i;
		for (i = 0; i < 128; i++)
			memcpy(name + 3 * i, "\xE7\x81\xAB", 3);
		name[384] = 0;
		text = ks_asprintf("{\"schema\": \"kscore.batch/1\", \"submission\": \"s\", \"teams\": ["
				   "{\"name\": \"%s\", \"repo\": \"r\"}]}", name);
		KT_EQ_INT(parse(&m, text), 0);
		ks_manifest_free(m);
		ks_free(text);
		text = ks_asprintf("{\"schema\": \"kscore.batch/1\", \"submission\": \"s\", \"teams\": ["
				   "{\"name\": \"%s\xE7\x81\xAB\", \"repo\": \"r\"}]}", name);
		KT_EQ_INT(parse(&m, text), KS_EINVALID);
		KT_CONTAINS(ks_error_msg(), "128 characters");
		ks_free(text);
	}
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s\", \"teams\": ["
			 "{\"name\": \"caf\xE9\", \"repo\": \"r\"}]}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "UTF-8");

	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"deadine\": \"x\"}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "unknown key \"deadine\"");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/2\"}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "kscore.batch/1");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"deadline\": \"tomorrow\"}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "deadline");
	/* no "submission": the batch's default patterns apply (batch.c) */
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"teams\": [{\"name\": \"a\", \"repo\": \"r\"}]}"), 0);
	ks_manifest_free(m);
	m = NULL;
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s\", \"teams\": ["
			 "{\"name\": \"a b\", \"repo\": \"r\"}, {\"name\": \"A.B\", \"repo\": \"s\"}]}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "share");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s\", \"teams\": ["
			 "{\"name\": \"a\", \"repo\": \"r\", \"branch\": \"x\"}]}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "team \"a\": unknown key \"branch\"");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s\", \"teams\": ["
			 "{\"name\": \"a\\u0001\", \"repo\": \"r\"}]}"), KS_EINVALID);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"../s\"}"), KS_EINVALID);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"teams\": [], \"pull_requests\": {}}"),
		  KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not both");
	KT_EQ_INT(parse(&m, "[1]"), KS_EINVALID);
}

static void test_pull_request_teams(void)
{
	ks_manifest *m = NULL;
	ks_repo_pull prs[5];
	char ids[5][41];
	size_t i;
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s.json\", "
			 "\"pull_requests\": {\"repo\": \"hub.git\", \"teams_by_number\": {\"4\": \"Delta Force\"},"
			 " \"teams_by_subject\": {\"fix typo\": \"Charlie\"}, \"exclude\": [5]}}"), 0);
	KT_EQ_STR(m->pull_repo, "/srv/h/hub.git");
	memset(prs, 0, sizeof(prs));
	for (i = 0; i < 5; i++) {
		memset(ids[i], 'a' + (int)i, 40);
		ids[i][40] = 0;
		prs[i].number = i + 1;
		memcpy(prs[i].id, ids[i], 41);
	}
	prs[0].subject = "Team Alpha";
	prs[1].subject = "  Team\tAlpha \n";  /* the same team again */
	prs[2].subject = "fix typo";
	prs[3].subject = "whatever";
	prs[4].subject = "excluded";
	ks_manifest_add_pull_teams(m, prs, 5, NULL);
	KT_EQ_INT(m->nteams, 4);
	KT_EQ_STR(m->teams[0].name, "Team Alpha");
	KT_EQ_STR(m->teams[0].folder, "Team_Alpha");
	KT_EQ_STR(m->teams[0].ref, "refs/pull/1/head");
	KT_EQ_STR(m->teams[0].repo, "/srv/h/hub.git");
	KT_EQ_STR(m->teams[1].name, "Team Alpha #2");
	KT_EQ_STR(m->teams[1].folder, "Team_Alpha-pr2");
	KT_EQ_STR(m->teams[1].head_subject, "Team Alpha");
	KT_EQ_STR(m->teams[2].name, "Charlie");
	KT_EQ_STR(m->teams[3].name, "Delta Force");
	KT_EQ_INT(m->teams[3].pull, 4);
	KT_EQ_INT(m->teams[0].name_source, KS_MANIFEST_NAMED_BY_SUBJECT);
	KT_EQ_INT(m->teams[2].name_source, KS_MANIFEST_NAMED_BY_MANIFEST);
	KT_EQ_INT(m->teams[3].name_source, KS_MANIFEST_NAMED_BY_MANIFEST);
	ks_manifest_free(m);
}

/* The ways people write a team name in a commit subject, and the subjects that name none. The
 * first four are subjects of a real hackathon's pull requests. */
static void test_team_names_in_subjects(void)
{
	struct {
		const char *subject, *name;
	} c[] = {
		{ "add perf result", NULL },
		{ "Update prompt_for_reflection.py", NULL },
		{ "feat(kernels): add optimized Triton kernels and tuned configs for all ten [Team Aca]", "Team Aca" },
		{ "yuyu", "yuyu" },
		{ "Team Alpha", "Team Alpha" },
		{ "  Team\tAlpha \n", "Team Alpha" },
		{ "team rocket: final submission", "team rocket" },
		{ "Team Red Panda", "Team Red Panda" },
		{ "Team Red Panda final submission v2", "Team Red" },
		{ "[Team Bravo] iteration 4", "Team Bravo" },
		{ "final kernels (Team Charlie)", "Team Charlie" },
		{ "submission, team: Delta", "Delta" },
		{ "team=Echo; tuned", "Echo" },
		{ "[team: Foxtrot] fix", "Foxtrot" },
		{ "steam: engine", NULL },                 /* "team" must be a word of its own */
		{ "Teamwork", "Teamwork" },                /* one word */
		{ "update", NULL },                        /* one word, but git's own */
		{ "WIP", NULL },
		{ "2", NULL },
		{ "README.md", NULL },
		{ "", NULL },
		{ "Team \xE7\x81\xAB\xE7\xAE\xAD: \xE6\x8F\x90\xE4\xBA\xA4", "Team \xE7\x81\xAB\xE7\xAE\xAD" },
		{ "\xE7\x86\x8A\xE7\x8C\xAB\xE9\x98\x9F", "\xE7\x86\x8A\xE7\x8C\xAB\xE9\x98\x9F" }, /* one CJK word */
	};
	size_t i;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *name = ks_manifest_team_in_subject(c[i].subject);
		if (!c[i].name)
			KT_ASSERT_MSG(name == NULL, "\"%s\" gave \"%s\"", c[i].subject, name);
		else
			KT_EQ_STR(name, c[i].name);
		ks_free(name);
	}
}

/* Untrusted text becomes a name of valid UTF-8, cut by characters. */
static void test_clean_names(void)
{
	char long_cjk[200 * 3 + 1], *n;
	size_t i;
	for (i = 0; i < 200; i++)
		memcpy(long_cjk + 3 * i, "\xE7\x81\xAB", 3);
	long_cjk[600] = 0;
	n = ks_manifest_clean_name(long_cjk);
	KT_EQ_INT(strlen(n), KS_MANIFEST_MAX_NAME * 3);  /* 128 characters, none cut in half */
	ks_free(n);
	n = ks_manifest_clean_name("caf\xE9\x01 ok");
	KT_EQ_STR(n, "caf\xEF\xBF\xBD ok");
	ks_free(n);
}

/* Unmapped pull requests: --name-from, the pr-N fallback, and a number's own overrides. */
static void test_pull_request_naming_rules(void)
{
	ks_manifest *m = NULL;
	ks_repo_pull prs[3];
	ks_manifest_name_from nf;
	memset(prs, 0, sizeof(prs));
	prs[0].number = 7;
	prs[0].subject = "add perf result";
	prs[0].author = "Ada L.";
	prs[1].number = 8;
	prs[1].subject = "[Team Aca] tuned";
	prs[1].author = "Bo";
	prs[2].number = 9;
	prs[2].subject = "Update prompt_for_reflection.py";
	prs[2].author = "";
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s.json\", "
			 "\"pull_requests\": {\"repo\": \"hub.git\", \"base\": \"main\", \"teams_by_number\": "
			 "{\"9\": {\"submission\": [\"src/**/r_<N>.json\"], \"base\": \"v1\"}}}}"), 0);
	ks_manifest_add_pull_teams(m, prs, 3, NULL);
	KT_EQ_INT(m->nteams, 3);
	KT_EQ_STR(m->teams[0].name, "pr-7");
	KT_EQ_INT(m->teams[0].name_source, KS_MANIFEST_NAMED_BY_NUMBER);
	KT_EQ_STR(m->teams[0].head_subject, "add perf result"); /* kept as the note */
	KT_EQ_STR(m->teams[0].base, "main");
	KT_EQ_INT(m->teams[0].submission.n, 0);
	KT_EQ_STR(m->teams[1].name, "Team Aca");
	KT_EQ_INT(m->teams[1].name_source, KS_MANIFEST_NAMED_BY_SUBJECT);
	KT_EQ_STR(m->teams[2].name, "pr-9");   /* the override has no name: named by the rule */
	KT_EQ_STR(m->teams[2].base, "v1");
	KT_EQ_INT(m->teams[2].submission.n, 1);
	KT_EQ_STR(m->teams[2].submission.v[0], "src/**/r_<N>.json");
	ks_manifest_free(m);

	KT_EQ_INT(ks_manifest_name_from_parse(&nf, "author"), 0);
	KT_EQ_INT(ks_manifest_name_from_parse(&nf, "nobody"), KS_EINVALID);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s.json\", "
			 "\"pull_requests\": {\"name_from\": \"author\"}}"), 0);
	ks_manifest_add_pull_teams(m, prs, 3, NULL);
	KT_EQ_STR(m->teams[0].name, "Ada L.");
	KT_EQ_INT(m->teams[0].name_source, KS_MANIFEST_NAMED_BY_AUTHOR);
	KT_EQ_STR(m->teams[2].name, "pr-9");   /* no author name */
	KT_EQ_INT(m->teams[2].name_source, KS_MANIFEST_NAMED_BY_NUMBER);
	ks_manifest_free(m);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s.json\", "
			 "\"pull_requests\": {\"name_from\": \"subject\"}}"), 0);
	ks_manifest_add_pull_teams(m, prs, 3, NULL);
	KT_EQ_STR(m->teams[0].name, "add perf result");
	KT_EQ_INT(m->teams[0].name_source, KS_MANIFEST_NAMED_BY_SUBJECT);
	ks_manifest_free(m);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"submission\": \"s.json\", "
			 "\"pull_requests\": {\"name_from\": \"number\"}}"), 0);
	ks_manifest_add_pull_teams(m, prs, 3, NULL);
	KT_EQ_STR(m->teams[1].name, "pr-8");
	ks_manifest_free(m);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"pull_requests\": {\"name_from\": \"x\"}}"),
		  KS_EINVALID);
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"pull_requests\": {\"teams_by_number\": "
			 "{\"3\": {\"name\": \"a\", \"branch\": \"x\"}}}}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "unknown key \"branch\"");
}

static const kt_test tests[] = {
	KT(test_times), KT(test_folder_names), KT(test_manifest), KT(test_pull_request_teams),
	KT(test_team_names_in_subjects), KT(test_clean_names), KT(test_pull_request_naming_rules), { 0 }
};
KT_MAIN("manifest", tests)
