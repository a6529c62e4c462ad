/* manifest tests: the time format, team folder names, manifests and pull-request teams. */
#include "ktest.h"
#include "manifest.h"
#include "errors.h"
#include "mem.h"

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
	KT_ASSERT(m->teams[0].submission == NULL);
	KT_EQ_STR(m->teams[1].repo, "https://tok@example.org/c.git");
	KT_EQ_STR(m->teams[1].submission, "sub/c.json");
	ks_manifest_free(m);

	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"deadine\": \"x\"}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "unknown key \"deadine\"");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/2\"}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "kscore.batch/1");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"deadline\": \"tomorrow\"}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "deadline");
	KT_EQ_INT(parse(&m, "{\"schema\": \"kscore.batch/1\", \"teams\": [{\"name\": \"a\", \"repo\": \"r\"}]}"),
		  KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "no \"submission\"");
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
	ks_manifest_free(m);
}

static const kt_test tests[] = {
	KT(test_times), KT(test_folder_names), KT(test_manifest), KT(test_pull_request_teams), { 0 }
};
KT_MAIN("manifest", tests)
