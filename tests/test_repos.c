/* repos tests on real git repositories that each test builds with the git command-line tool in
 * its temporary folder: branches, tags, commits dated before and after a deadline, a bare
 * repository with pull-request refs, patterns, and files that must be refused. */
#include "ktest.h"
#include "batchtest.h"
#include "batch/repos.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <stdarg.h>

/* DEADLINE (batchtest.h) as seconds since the epoch */
#define DEADLINE_EPOCH 1756079999LL

static char *git_text(const char *fmt, const char *arg)
{
	char cmd[8192], *path = ks_asprintf("%s/git.out", kt_tmpdir()), *text = NULL;
	size_t n;
	snprintf(cmd, sizeof(cmd), fmt, arg);
	sh("%s > '%s'", cmd, path);
	if (ks_fs_read(&text, &n, path, 1 << 20) < 0)
		KT_FAIL("cannot read git output");
	while (n && (text[n - 1] == '\n'))
		text[--n] = 0;
	ks_free(path);
	return text;
}

static ks_repo *open_fetch(const char *location)
{
	ks_repo_options o = KS_REPO_OPTIONS_INIT;
	ks_repo *r = NULL;
	char *cache = ks_asprintf("%s/cache", kt_tmpdir());
	o.cache_dir = cache;
	o.base_dir = kt_tmpdir();
	if (ks_repo_open(&r, location, &o) < 0)
		KT_FAIL("open %s: %s", location, ks_error_msg());
	if (ks_repo_fetch(r) < 0)
		KT_FAIL("fetch %s: %s", location, ks_error_msg());
	ks_free(cache);
	return r;
}

/* A team repository: two commits before the deadline (the second one with three iterations of
 * the submission file), a tag on the first, and two commits after the deadline. */
static void team_repo(void)
{
	sh("git -c init.defaultBranch=main init -q team");
	put("team/sub/reflexion_oneshot_tritonbench_2.json", "[2]");
	put("team/README.md", "hello");
	commit("team", "2025-08-20T10:00:00Z", "first iteration");
	sh("cd team && git tag v1");
	put("team/sub/reflexion_oneshot_tritonbench_10.json", "[10]");
	put("team/sub/reflexion_oneshot_tritonbench_9.json", "[9]");
	commit("team", "2025-08-24T23:59:59Z", "final before the deadline");
	put("team/sub/reflexion_oneshot_tritonbench_11.json", "[11]");
	commit("team", "2025-08-25T00:00:00Z", "one second late");
	commit("team", "2025-08-26T09:00:00Z", "much later");
}

static void test_locations_are_redacted(void)
{
	char *s = ks_repo_redact("https://user:s3cret-token@github.com/org/repo.git");
	KT_EQ_STR(s, "https://github.com/org/repo.git");
	ks_free(s);
	s = ks_repo_redact("https://ghp_abcdef@example.org:8443/x?y=1");
	KT_EQ_STR(s, "https://example.org:8443/x?y=1");
	ks_free(s);
	s = ks_repo_redact("https://example.org/a@b");
	KT_EQ_STR(s, "https://example.org/a@b"); /* an '@' in the path is not user information */
	ks_free(s);
	s = ks_repo_redact("/srv/git/team@1");
	KT_EQ_STR(s, "/srv/git/team@1");
	ks_free(s);
	KT_ASSERT(ks_repo_is_url("https://github.com/o/r"));
	KT_ASSERT(ks_repo_is_url("file:///srv/git/r"));
	KT_ASSERT(ks_repo_is_url("git@github.com:o/r.git"));
	KT_ASSERT(!ks_repo_is_url("/srv/git/r"));
	KT_ASSERT(!ks_repo_is_url("teams/r"));
	KT_ASSERT(!ks_repo_is_url("./a:b"));
	KT_ASSERT(!ks_repo_is_url("dir/a:b"));
}

static void test_refs_deadline_and_later_commits(void)
{
	ks_repo *r;
	ks_repo_pick p;
	char id[41], *tip, *first, *final;
	if (!have_git())
		KT_SKIP("git is not installed");
	team_repo();
	tip = git_text("git -C team rev-parse HEAD%s", "");
	first = git_text("git -C team rev-parse v1%s", "");
	final = git_text("git -C team rev-parse HEAD~2%s", "");
	r = open_fetch("team");

	KT_EQ_INT(ks_repo_resolve(id, r, "main"), 0);
	KT_EQ_STR(id, tip);
	KT_EQ_INT(ks_repo_resolve(id, r, "HEAD"), 0); /* the remote's default branch */
	KT_EQ_STR(id, tip);
	KT_EQ_INT(ks_repo_resolve(id, r, "refs/heads/main"), 0);
	KT_EQ_STR(id, tip);
	KT_EQ_INT(ks_repo_resolve(id, r, "v1"), 0);
	KT_EQ_STR(id, first);
	KT_EQ_INT(ks_repo_resolve(id, r, final), 0);
	KT_EQ_STR(id, final);
	{
		char abbrev[9];
		memcpy(abbrev, final, 8);
		abbrev[8] = 0;
		KT_EQ_INT(ks_repo_resolve(id, r, abbrev), 0);
		KT_EQ_STR(id, final);
	}
	KT_EQ_INT(ks_repo_resolve(id, r, "nosuch"), KS_ENOTFOUND);
	KT_CONTAINS(ks_error_msg(), "nosuch");
	KT_CONTAINS(ks_error_msg(), "/team");
	KT_EQ_INT(ks_repo_resolve(id, r, "refs/pull/9/head"), KS_ENOTFOUND);
	KT_EQ_INT(ks_repo_resolve(id, r, "0000000000000000000000000000000000000000"), KS_ENOTFOUND);

	/* the commit at exactly the deadline counts; the two later ones are listed, newest first */
	KT_EQ_INT(ks_repo_pick_commit(&p, r, tip, NULL, DEADLINE_EPOCH, 50), 0);
	KT_ASSERT(p.found);
	KT_EQ_STR(p.chosen.id, final);
	KT_EQ_INT(p.chosen.time, DEADLINE_EPOCH);
	KT_EQ_STR(p.chosen.subject, "final before the deadline");
	KT_EQ_INT(p.nlater, 2);
	KT_EQ_INT(p.later_total, 2);
	KT_EQ_STR(p.later[0].subject, "much later");
	KT_EQ_STR(p.later[1].subject, "one second late");
	KT_EQ_INT(p.later[1].time, DEADLINE_EPOCH + 1);
	KT_ASSERT(!p.later[0].ancestor_of_chosen);
	ks_repo_pick_clear(&p);

	/* the list is capped but counted */
	KT_EQ_INT(ks_repo_pick_commit(&p, r, tip, NULL, DEADLINE_EPOCH, 1), 0);
	KT_EQ_INT(p.nlater, 1);
	KT_EQ_INT(p.later_total, 2);
	ks_repo_pick_clear(&p);

	/* a deadline before the first commit: nothing qualifies, everything is later */
	KT_EQ_INT(ks_repo_pick_commit(&p, r, tip, NULL, 1000000000LL, 50), 0);
	KT_ASSERT(!p.found);
	KT_EQ_INT(p.later_total, 4);
	ks_repo_pick_clear(&p);
	ks_repo_free(r);
	ks_free(tip);
	ks_free(first);
	ks_free(final);
}

static void test_files_and_patterns(void)
{
	ks_repo *r;
	char *data = NULL, *path = NULL, *final, *tip;
	size_t len;
	if (!have_git())
		KT_SKIP("git is not installed");
	team_repo();
	final = git_text("git -C team rev-parse HEAD~2%s", "");
	tip = git_text("git -C team rev-parse HEAD%s", "");
	r = open_fetch("team");

	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final, "README.md", 1024), 0);
	KT_EQ_STR(data, "hello");
	KT_EQ_INT(len, 5);
	KT_EQ_STR(path, "README.md");
	ks_free(data);
	ks_free(path);

	/* iterations 2, 10 and 9: 10 wins (numeric, not lexical, which would give 9) */
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final,
				    "sub/reflexion_oneshot_tritonbench_<N>.json", 1024), 0);
	KT_EQ_STR(path, "sub/reflexion_oneshot_tritonbench_10.json");
	KT_EQ_STR(data, "[10]");
	ks_free(data);
	ks_free(path);
	/* the same pattern at the tip sees iteration 11, committed after the deadline */
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, tip, "*/reflexion_oneshot_tritonbench_<N>.json",
				    1024), 0);
	KT_EQ_STR(path, "sub/reflexion_oneshot_tritonbench_11.json");
	ks_free(data);
	ks_free(path);

	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final, "sub/missing.json", 1024), KS_ENOTFOUND);
	KT_CONTAINS(ks_error_msg(), "sub/missing.json");
	KT_ASSERT(data == NULL && path == NULL);
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final, "nothing_<N>.json", 1024), KS_ENOTFOUND);
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final, "sub/*.json", 1024), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "matches 3 files");
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final, "sub", 1024), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "folder");
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final, "sub/reflexion_oneshot_tritonbench_10.json",
				    3), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "limit");
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, final, "../x", 1024), KS_EINVALID);
	ks_repo_free(r);
	ks_free(final);
	ks_free(tip);
}

static void test_links_lfs_and_equal_iterations_are_refused(void)
{
	ks_repo *r;
	char *data = NULL, *path = NULL, *tip;
	size_t len;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q odd");
	put("odd/real.json", "[]");
	sh("cd odd && ln -s real.json link.json && ln -s /etc/passwd abs.json");
	put("odd/big.json", "version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 12345\n");
	put("odd/a/run_3.json", "[a]");
	put("odd/b/run_03.json", "[b]");
	commit("odd", "2025-08-20T10:00:00Z", "odd files");
	tip = git_text("git -C odd rev-parse HEAD%s", "");
	r = open_fetch("odd");
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, tip, "link.json", 1024), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "symbolic link");
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, tip, "abs.json", 1024), KS_EINVALID);
	/* a pattern never selects a link */
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, tip, "l*.json", 1024), KS_ENOTFOUND);
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, tip, "big.json", 1024), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "LFS");
	/* 3 and 03 are the same iteration in two places: ambiguous, both named */
	KT_EQ_INT(ks_repo_read_file(&data, &len, &path, r, tip, "*/run_<N>.json", 1024), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "a/run_3.json");
	KT_CONTAINS(ks_error_msg(), "b/run_03.json");
	ks_repo_free(r);
	ks_free(tip);
}

static void test_forged_dates_are_reported(void)
{
	ks_repo *r;
	ks_repo_pick p;
	char *tip, *late;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q forge");
	commit("forge", "2025-08-20T10:00:00Z", "honest");
	put("forge/x.json", "[late work]");
	commit("forge", "2025-08-25T12:00:00Z", "late work");
	commit("forge", "2025-08-24T12:00:00Z", "dated back");
	tip = git_text("git -C forge rev-parse HEAD%s", "");
	late = git_text("git -C forge rev-parse HEAD~1%s", "");
	r = open_fetch("forge");
	KT_EQ_INT(ks_repo_pick_commit(&p, r, tip, NULL, DEADLINE_EPOCH, 50), 0);
	KT_ASSERT(p.found);
	KT_EQ_STR(p.chosen.id, tip);
	KT_EQ_INT(p.nlater, 1);
	KT_EQ_STR(p.later[0].id, late);
	KT_ASSERT(p.later[0].ancestor_of_chosen);
	ks_repo_pick_clear(&p);
	ks_repo_free(r);
	ks_free(tip);
	ks_free(late);
}

static void test_pull_request_refs_in_a_bare_repository(void)
{
	ks_repo *r;
	ks_repo_pull *pr = NULL;
	size_t n = 0;
	char id[41], *url;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q work");
	put("work/README.md", "base");
	commit("work", "2025-08-19T10:00:00Z", "base");
	sh("git init -q --bare hub.git && cd work && git push -q ../hub.git main");
	sh("cd work && git checkout -q -b a && echo a > a.json && git add -A && "
	   "GIT_COMMITTER_DATE=2025-08-21T10:00:00Z git commit -q -m 'Team Alpha' && "
	   "git push -q ../hub.git a:refs/pull/1/head");
	sh("cd work && git checkout -q main && git checkout -q -b b && echo b > b.json && git add -A && "
	   "GIT_COMMITTER_DATE=2025-08-22T10:00:00Z git commit -q -m 'Bravo' && "
	   "git push -q ../hub.git b:refs/pull/12/head && git push -q ../hub.git b:refs/pull/2/head");
	/* refs/pull/N/merge and odd names are not pull-request heads */
	sh("cd work && git push -q ../hub.git b:refs/pull/2/merge && git push -q ../hub.git b:refs/pull/x/head");
	url = ks_asprintf("file://%s/hub.git", kt_tmpdir());
	r = open_fetch(url);
	KT_EQ_INT(ks_repo_pull_requests(&pr, &n, r), 0);
	KT_EQ_INT(n, 3);
	KT_EQ_INT(pr[0].number, 1);
	KT_EQ_STR(pr[0].subject, "Team Alpha");
	KT_EQ_INT(pr[1].number, 2);
	KT_EQ_STR(pr[1].subject, "Bravo");
	KT_EQ_INT(pr[2].number, 12);
	KT_EQ_INT(ks_repo_resolve(id, r, "refs/pull/1/head"), 0);
	KT_EQ_STR(id, pr[0].id);
	KT_EQ_STR(ks_repo_display(r), url);
	ks_repo_pulls_free(pr, n);
	ks_repo_free(r);
	ks_free(url);
}

static void test_cache_is_reused_and_refreshed(void)
{
	ks_repo *r;
	char id[41], *path, *tip2;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q t");
	commit("t", "2025-08-20T10:00:00Z", "one");
	sh("cd t && git branch gone");
	r = open_fetch("t");
	path = ks_strdup(ks_repo_path(r));
	KT_ASSERT(ks_fs_is_dir(path));
	KT_ASSERT(!strncmp(path, kt_tmpdir(), strlen(kt_tmpdir())));
	KT_CONTAINS(path, "/cache/repos/");
	KT_ASSERT(ks_repo_fetched_at(r) > 0);
	KT_ASSERT(ks_repo_has_refs(r));
	ks_repo_free(r);
	/* a new commit upstream, a deleted branch: the same mirror gets the commit, keeps the branch */
	commit("t", "2025-08-21T10:00:00Z", "two");
	sh("cd t && git branch -D gone");
	tip2 = git_text("git -C t rev-parse HEAD%s", "");
	{
		/* the same repository named by another relative path maps to the same mirror */
		char *alt = ks_asprintf("%s/./t", kt_tmpdir());
		r = open_fetch(alt);
		ks_free(alt);
	}
	KT_EQ_STR(ks_repo_path(r), path);
	KT_EQ_INT(ks_repo_resolve(id, r, "main"), 0);
	KT_EQ_STR(id, tip2);
	KT_EQ_INT(ks_repo_resolve(id, r, "gone"), 0);
	/* the mirror has no working tree and no credentials in its configuration */
	{
		char *head = ks_path_join(path, "HEAD"), *wt = ks_path_join(path, "README.md");
		KT_ASSERT(ks_fs_exists(head));
		KT_ASSERT(!ks_fs_exists(wt));
		ks_free(head);
		ks_free(wt);
	}
	ks_repo_free(r);
	ks_free(path);
	ks_free(tip2);
}

static void test_unreachable_locations_fail_without_leaking_credentials(void)
{
	ks_repo_options o = KS_REPO_OPTIONS_INIT;
	ks_repo *r = NULL;
	char *cache = ks_asprintf("%s/cache", kt_tmpdir());
	o.cache_dir = cache;
	KT_EQ_INT(ks_repo_open(&r, "/nonexistent/team-repo", &o), 0);
	KT_EQ_INT(ks_repo_fetch(r), KS_ERROR);
	KT_CONTAINS(ks_error_msg(), "/nonexistent/team-repo");
	KT_ASSERT(!ks_repo_has_refs(r));
	KT_EQ_INT(ks_repo_fetched_at(r), 0);
	ks_repo_free(r);
	/* port 1 on loopback: refused at once */
	KT_EQ_INT(ks_repo_open(&r, "http://alice:TOPSECRET-42@127.0.0.1:1/team.git", &o), 0);
	KT_EQ_STR(ks_repo_display(r), "http://127.0.0.1:1/team.git");
	KT_ASSERT(ks_repo_fetch(r) < 0);
	KT_CONTAINS(ks_error_msg(), "127.0.0.1:1/team.git");
	KT_NOT_CONTAINS(ks_error_msg(), "TOPSECRET");
	{
		char cmd[8192];
		snprintf(cmd, sizeof(cmd), "grep -rq TOPSECRET '%s'", cache);
		KT_ASSERT(system(cmd) != 0);
	}
	ks_repo_free(r);
	KT_EQ_INT(ks_repo_open(&r, "", &o), KS_EINVALID);
	ks_free(cache);
}

static void test_fetch_size_cap(void)
{
	ks_repo_options o = KS_REPO_OPTIONS_INIT;
	ks_repo *r = NULL;
	char *cache, *url;
	int rc;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q big && head -c 300000 /dev/urandom > big/blob.bin");
	commit("big", "2025-08-20T10:00:00Z", "big");
	sh("git clone -q --bare big big.git");
	cache = ks_asprintf("%s/cache", kt_tmpdir());
	url = ks_asprintf("file://%s/big.git", kt_tmpdir());
	o.cache_dir = cache;
	o.max_fetch_bytes = 4096;
	KT_EQ_INT(ks_repo_open(&r, url, &o), 0);
	rc = ks_repo_fetch(r);
	if (rc == 0)
		KT_SKIP("libgit2's local transport reported no transfer progress to cap");
	KT_EQ_INT(rc, KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "limit");
	ks_repo_free(r);
	ks_free(cache);
	ks_free(url);
}

/* "**", alternatives and several patterns in order; the files a pattern lists. */
static void test_globstar_alternatives_and_pattern_lists(void)
{
	static const char *const specs[] = { "nothing_<N>.json", "**/x_<N>.json" };
	ks_repo_read_options o = KS_REPO_READ_OPTIONS_INIT;
	ks_repo_file f;
	ks_repo *r;
	char *tip, **paths = NULL;
	size_t n = 0;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q lay");
	put("lay/x_1.json", "[1]");
	put("lay/submit/x_2.json", "[2]");
	put("lay/src/iter1_4/x_4.json", "[4]");
	put("lay/src/a/b/c/x_3.json", "[3]");
	commit("lay", "2025-08-20T10:00:00Z", "layouts");
	tip = git_text("git -C lay rev-parse HEAD%s", "");
	r = open_fetch("lay");
	o.specs = specs;
	o.nspecs = 2;
	KT_EQ_INT(ks_repo_read(&f, r, tip, &o), 0);
	KT_EQ_STR(f.path, "src/iter1_4/x_4.json");  /* any depth, none included */
	KT_EQ_STR(f.spec, "**/x_<N>.json");
	KT_EQ_STR(f.data, "[4]");
	ks_repo_file_clear(&f);
	KT_EQ_INT(ks_repo_read_file(&f.data, NULL, &f.path, r, tip, "{submit,src/a/**}/x_<N>.json", 1024), 0);
	KT_EQ_STR(f.path, "src/a/b/c/x_3.json");
	ks_repo_file_clear(&f);
	KT_EQ_INT(ks_repo_read_file(&f.data, NULL, &f.path, r, tip, "{,submit/}x_<N>.json", 1024), 0);
	KT_EQ_STR(f.path, "submit/x_2.json");
	ks_repo_file_clear(&f);
	KT_EQ_INT(ks_repo_list(&paths, &n, r, tip, "**/x_*.json", 10), 0);
	KT_EQ_INT(n, 4);
	KT_EQ_STR(paths[0], "src/a/b/c/x_3.json");
	KT_EQ_STR(paths[3], "x_1.json");
	ks_free_strv(paths, n);
	o.nspecs = 1;
	KT_EQ_INT(ks_repo_read(&f, r, tip, &o), KS_ENOTFOUND);
	KT_EQ_INT(f.status, KS_REPO_FILE_NO_MATCH);
	KT_CONTAINS(ks_error_msg(), "nothing_<N>.json");
	ks_repo_free(r);
	ks_free(tip);
}

/* A pull request's own history: the base is the default branch, or, once the pull request is
 * merged, the first parent of its merge; a fast-forwarded head cannot be told apart. Files the
 * team never changed since it left the base are left out. */
static void test_pull_request_base_and_own_files(void)
{
	ks_repo_read_options o = KS_REPO_READ_OPTIONS_INIT;
	const char *spec = "x_<N>.json";
	ks_repo_file f;
	ks_repo_pick p;
	ks_repo *r;
	char base[41], fork[41], *c1, *p1, *p2, *m1, *main_tip, *f1;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q pr");
	put("pr/x_1.json", "[example]");
	commit("pr", "2025-08-20T10:00:00Z", "organizer example");
	c1 = git_text("git -C pr rev-parse HEAD%s", "");
	sh("cd pr && git checkout -q -b team");
	put("pr/notes.txt", "notes");
	commit("pr", "2025-08-22T10:00:00Z", "team notes");
	p1 = git_text("git -C pr rev-parse HEAD%s", "");
	put("pr/x_2.json", "[team]");
	commit("pr", "2025-08-26T10:00:00Z", "team file, late");
	p2 = git_text("git -C pr rev-parse HEAD%s", "");
	sh("cd pr && git checkout -q main");  /* the source's HEAD: its default branch */
	r = open_fetch("pr");

	/* not merged: the base is main's tip, and only the team's commits are walked */
	KT_EQ_INT(ks_repo_base(base, r, p2, NULL), 0);
	KT_EQ_STR(base, c1);
	/* 2025-08-21T18:13:20Z: after the organizers' commit, before the team's */
	KT_EQ_INT(ks_repo_pick_commit(&p, r, p2, base, 1755800000LL, 50), 0);
	KT_ASSERT(!p.found);  /* late: the organizers' commit is not the team's */
	KT_EQ_INT(p.later_total, 2);
	ks_repo_pick_clear(&p);
	KT_EQ_INT(ks_repo_pick_commit(&p, r, p2, base, DEADLINE_EPOCH, 50), 0);
	KT_EQ_STR(p.chosen.id, p1);
	KT_EQ_INT(p.later_total, 1);
	ks_repo_pick_clear(&p);
	KT_EQ_INT(ks_repo_pick_commit(&p, r, p2, NULL, 1755800000LL, 50), 0);
	KT_EQ_STR(p.chosen.id, c1);  /* without a base, the walk goes into main */
	ks_repo_pick_clear(&p);
	/* the team's commit still holds the example: not its own file */
	KT_EQ_INT(ks_repo_merge_base(fork, r, p1, base), 1);
	KT_EQ_STR(fork, c1);
	o.specs = &spec;
	o.nspecs = 1;
	o.base = fork;
	KT_EQ_INT(ks_repo_read(&f, r, p1, &o), KS_ENOTFOUND);
	KT_EQ_INT(f.status, KS_REPO_FILE_BASE_ONLY);
	KT_EQ_INT(f.base_matches, 1);
	ks_repo_file_clear(&f);
	KT_EQ_INT(ks_repo_read(&f, r, p2, &o), 0);
	KT_EQ_STR(f.path, "x_2.json");
	ks_repo_file_clear(&f);
	ks_repo_free(r);

	/* merged (--no-ff): the base is the merge's first parent */
	sh("cd pr && echo more > more.txt && git add -A && "
	   "GIT_COMMITTER_DATE=2025-08-27T10:00:00Z git commit -q -m 'organizer more' && "
	   "GIT_COMMITTER_DATE=2025-08-28T10:00:00Z git merge -q --no-ff -m merge team");
	main_tip = git_text("git -C pr rev-parse HEAD~1%s", "");
	m1 = git_text("git -C pr rev-parse HEAD%s", "");
	r = open_fetch("pr");
	KT_EQ_INT(ks_repo_base(base, r, p2, NULL), 0);
	KT_EQ_STR(base, main_tip);
	KT_EQ_INT(ks_repo_pick_commit(&p, r, p2, base, DEADLINE_EPOCH, 50), 0);
	KT_EQ_STR(p.chosen.id, p1);
	ks_repo_pick_clear(&p);
	/* fast-forwarded: refused, saying what to do */
	sh("cd pr && git checkout -q -b ff && echo ff > ff.txt && git add -A && git commit -q -m ff && "
	   "git checkout -q main && git merge -q --ff-only ff");
	f1 = git_text("git -C pr rev-parse HEAD%s", "");
	ks_repo_free(r);
	r = open_fetch("pr");
	KT_EQ_INT(ks_repo_base(base, r, f1, NULL), 0);  /* the base's tip itself: nothing of its own */
	KT_EQ_STR(base, f1);
	ks_repo_free(r);
	sh("cd pr && echo after > after.txt && git add -A && git commit -q -m after");
	r = open_fetch("pr");
	KT_EQ_INT(ks_repo_base(base, r, f1, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "fast-forwarded");
	KT_EQ_INT(ks_repo_base(base, r, f1, m1), 0);  /* a base named by the manifest */
	KT_EQ_STR(base, m1);
	KT_EQ_INT(ks_repo_base(base, r, f1, "no-such-branch"), KS_ENOTFOUND);
	ks_repo_free(r);
	ks_free(c1);
	ks_free(p1);
	ks_free(p2);
	ks_free(m1);
	ks_free(main_tip);
	ks_free(f1);
}

/* holes/: one commit with s.json and gone.json, whose blob is then deleted (*tip, *blob: caller
 * frees). */
static void holes(char **tip, char **blob)
{
	sh("git -c init.defaultBranch=main init -q holes");
	put("holes/s.json", "[s]");
	put("holes/gone.json", "[gone]");
	commit("holes", "2025-08-20T10:00:00Z", "holes");
	*tip = git_text("git -C holes rev-parse HEAD%s", "");
	*blob = git_text("git -C holes rev-parse HEAD:gone.json%s", "");
	sh("rm holes/.git/objects/%.2s/%s", *blob, *blob + 2);
}

/* A local repository that lacks an object is copied object by object: what it has reads, what
 * it lacks is named with its cause. */
static void test_a_repository_that_lacks_an_object(void)
{
	ks_repo *r;
	char *tip, *blob, *data = NULL, *path = NULL;
	if (!have_git())
		KT_SKIP("git is not installed");
	holes(&tip, &blob);
	r = open_fetch("holes");
	KT_ASSERT(ks_repo_fetch_note(r) != NULL);
	KT_CONTAINS(ks_repo_fetch_note(r), blob);
	KT_CONTAINS(ks_repo_fetch_note(r), "gone.json");
	KT_EQ_INT(ks_repo_read_file(&data, NULL, &path, r, tip, "s.json", 1024), 0);
	KT_EQ_STR(data, "[s]");
	ks_free(data);
	ks_free(path);
	KT_EQ_INT(ks_repo_read_file(&data, NULL, &path, r, tip, "gone.json", 1024), KS_ENOTFOUND);
	KT_CONTAINS(ks_error_msg(), blob);
	KT_CONTAINS(ks_error_msg(), "lacked that object when it was fetched");
	ks_repo_free(r);
	ks_free(tip);
	ks_free(blob);
}

/* What the source lacks stays recorded across fetches of the same mirror (whichever way the later
 * fetch goes), the message keeps its cause, and once the source has the object again the next
 * fetch copies it and the record forgets it. */
static void test_what_a_source_lacks_is_remembered(void)
{
	ks_repo *r;
	char *tip, *blob, *meta, *data = NULL, *path = NULL;
	int i;
	if (!have_git())
		KT_SKIP("git is not installed");
	holes(&tip, &blob);
	for (i = 0; i < 3; i++) {
		/* the second fetch finds every ref up to date; the third follows a new commit (made
		 * without `git add`, which would write the missing blob again) */
		if (i == 2)
			sh("cd holes && GIT_COMMITTER_DATE=2025-08-21T10:00:00Z git commit -q --allow-empty -m more "
			   "&& ! git cat-file -e %s", blob);
		r = open_fetch("holes");
		KT_ASSERT_MSG(ks_repo_fetch_note(r) != NULL, "fetch %d forgot what the source lacks", i + 1);
		KT_CONTAINS(ks_repo_fetch_note(r), blob);
		KT_CONTAINS(ks_repo_fetch_note(r), "gone.json");
		meta = ks_path_join(ks_repo_path(r), "kscore-mirror.json");
		{
			char *text = NULL;
			size_t n;
			KT_EQ_INT(ks_fs_read(&text, &n, meta, 1 << 20), 0);
			KT_CONTAINS(text, "missing_objects");
			KT_CONTAINS(text, blob);
			ks_free(text);
		}
		ks_free(meta);
		KT_EQ_INT(ks_repo_read_file(&data, NULL, &path, r, tip, "gone.json", 1024), KS_ENOTFOUND);
		KT_CONTAINS(ks_error_msg(), "lacked that object when it was fetched");
		KT_NOT_CONTAINS(ks_error_msg(), "incomplete");
		ks_repo_free(r);
	}
	/* opened without a fetch (--no-fetch), the mirror still says what it lacks */
	{
		ks_repo_options o = KS_REPO_OPTIONS_INIT;
		char *cache = ks_asprintf("%s/cache", kt_tmpdir());
		o.cache_dir = cache;
		o.base_dir = kt_tmpdir();
		KT_EQ_INT(ks_repo_open(&r, "holes", &o), 0);
		KT_ASSERT(ks_repo_fetch_note(r) != NULL);
		KT_CONTAINS(ks_repo_fetch_note(r), blob);
		ks_repo_free(r);
		ks_free(cache);
	}
	/* the source has it again: copied, and no longer recorded */
	sh("cd holes && git hash-object -w gone.json");
	r = open_fetch("holes");
	KT_ASSERT(ks_repo_fetch_note(r) == NULL || !strstr(ks_repo_fetch_note(r), blob));
	KT_EQ_INT(ks_repo_read_file(&data, NULL, &path, r, tip, "gone.json", 1024), 0);
	KT_EQ_STR(data, "[gone]");
	ks_free(data);
	ks_free(path);
	ks_repo_free(r);
	ks_free(tip);
	ks_free(blob);
}

/* pulls/: a stand-in for the real hackathon repository: a base commit whose blob gone.json is then
 * deleted (so a fetch cannot pack it and the copy goes object by object) and NPULLS pull requests
 * of a few files each (refs/pull/N/head). */
#define NPULLS 40
/* kills spread over the time of one whole first fetch */
#define KILLS 8
static void pulls_repo(void)
{
	char *blob;
	sh("git -c init.defaultBranch=main init -q pulls");
	put("pulls/gone.json", "[gone]");
	put("pulls/README.md", "base");
	commit("pulls", "2025-08-20T10:00:00Z", "base");
	blob = git_text("git -C pulls rev-parse HEAD:gone.json%s", "");
	sh("cd pulls && for i in $(seq 1 %d); do git checkout -q -b pr$i main && mkdir -p t$i && "
	   "for f in 1 2 3 4 5 6 7 8; do echo \"[$i, $f]\" > t$i/f$f.json; done && git add t$i && "
	   "GIT_COMMITTER_DATE=2025-08-21T10:00:00Z git commit -q -m \"[Team T$i] x\" && "
	   "git update-ref refs/pull/$i/head HEAD; done && git checkout -q main", NPULLS);
	sh("rm pulls/.git/objects/%.2s/%s", blob, blob + 2);
	ks_free(blob);
}

static ks_repo *open_only(const char *location)
{
	ks_repo_options o = KS_REPO_OPTIONS_INIT;
	ks_repo *r = NULL;
	char *cache = ks_asprintf("%s/cache", kt_tmpdir());
	o.cache_dir = cache;
	o.base_dir = kt_tmpdir();
	if (ks_repo_open(&r, location, &o) < 0)
		KT_FAIL("open %s: %s", location, ks_error_msg());
	ks_free(cache);
	return r;
}

/* How many pull-request refs the folders of the cache hold (the mirror and any first copy): read
 * with readdir, fast enough to be polled while a fetch runs. */
static long cached_pull_refs(void)
{
	char *repos = tmp("cache/repos"), **dirs = NULL, **pulls = NULL;
	size_t nd = 0, np = 0, i, j;
	long v = 0;
	if (ks_fs_list(&dirs, &nd, repos, 1) < 0)
		nd = 0;
	for (i = 0; i < nd; i++) {
		char *d = ks_asprintf("%s/%s/refs/pull", repos, dirs[i]);
		if (ks_fs_list(&pulls, &np, d, 1) == 0) {
			for (j = 0; j < np; j++) {
				char *h = ks_asprintf("%s/%s/head", d, pulls[j]);
				v += ks_fs_exists(h);
				ks_free(h);
			}
			ks_free_strv(pulls, np);
		}
		ks_free(d);
	}
	ks_free_strv(dirs, nd);
	ks_free(repos);
	ks_error_clear();
	return v;
}

/* One first fetch of pulls/ in a child, killed after `delay_s` or, with refs > 0, once the cache
 * holds that many pull-request refs; then the state an open without a fetch finds. 1 when the
 * fetch had finished before the kill. *partial counts kills that left some refs, not all. */
static int kill_first_fetch(double delay_s, long refs, int *partial)
{
	ks_repo *r;
	ks_repo_pull *prs = NULL;
	size_t n = 0;
	long got;
	int st = 0, finished, reaped = 0;
	pid_t pid;
	sh("rm -rf cache");
	pid = fork();
	if (pid == 0) {
		ks_repo *c = open_only("pulls");
		_exit(ks_repo_fetch(c) == 0 ? 0 : 3);
	}
	KT_ASSERT(pid > 0);
	{
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((reaped = waitpid(pid, &st, WNOHANG) == pid) || (refs > 0 ? cached_pull_refs() >= refs :
			    (double)(t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) * 1e-9 >= delay_s))
				break;
			usleep(1000);
		}
	}
	if (!reaped) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	finished = WIFEXITED(st);
	if (finished)
		KT_EQ_INT(WEXITSTATUS(st), 0);
	got = cached_pull_refs();
	*partial += got > 0 && got < NPULLS;
	r = open_only("pulls");
	if (ks_repo_ready(r) == 0) {
		KT_EQ_INT(ks_repo_pull_requests(&prs, &n, r), 0);
		KT_ASSERT_MSG(n == NPULLS, "a mirror with %zu of %d pull requests is used (killed after %.3f s, "
			      "%ld refs)", n, NPULLS, delay_s, refs);
		ks_repo_pulls_free(prs, n);
	} else {
		KT_CONTAINS(ks_error_msg(), "not in the cache");
		KT_ASSERT(ks_repo_pull_requests(&prs, &n, r) < 0 && n == 0);
	}
	ks_repo_free(r);
	return finished;
}

/* A mirror is complete or it is not used: a first fetch (here the object-by-object copy of a
 * repository that lacks an object, after libgit2's fetch failed on it) killed at many points, by
 * time and as its pull-request refs appear, never leaves a mirror that an open without a fetch
 * (--no-fetch) takes, and a partial one's pull requests are never listed. */
static void test_a_killed_first_fetch_leaves_no_mirror_that_is_used(void)
{
	int kills = 0, partial = 0, i;
	double whole;
	long k;
	if (!have_git())
		KT_SKIP("git is not installed");
	pulls_repo();
	/* how long a whole first fetch takes here: the timed kills are spread over it */
	{
		struct timespec t0, t1;
		ks_repo *r;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = open_fetch("pulls");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ks_repo_free(r);
		whole = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	}
	for (i = 0; i < KILLS; i++)
		kills += !kill_first_fetch(whole * i / KILLS, 0, &partial);
	for (k = 1; k < NPULLS; k += 10)
		kills += !kill_first_fetch(0, k, &partial);
	/* the sweep reached the copy's middle */
	KT_ASSERT_MSG(partial > 0, "no kill of %d landed while pull requests were being copied", kills);
	fprintf(stderr, "  %d kills (a whole first fetch: %.2f s), %d while pull requests were being "
		"copied\n", kills, whole, partial);
	/* a fetch that is left to finish makes the mirror, and the open before it removed every dead
	 * first copy: only the mirror and its lock remain */
	{
		int finished_partial = 0;
		char **names = NULL, *repos = tmp("cache/repos");
		size_t n = 0, j;
		KT_ASSERT(kill_first_fetch(60, 0, &finished_partial));
		KT_EQ_INT(ks_fs_list(&names, &n, repos, 1), 0);
		for (j = 0; j < n; j++)
			KT_ASSERT_MSG(!strstr(names[j], ".tmp-"), "a first copy is left: %s", names[j]);
		KT_EQ_INT((int)n, 2);
		ks_free_strv(names, n);
		ks_free(repos);
	}
}

/* What a killed fetch leaves inside a mirror (libgit2's temporary object and pack files, a ref's
 * lock file, which would make the next write of that ref fail) is removed by the next fetch; a
 * mirror whose record has no fetch time (an earlier version's stopped fetch) is refused with its
 * state named, and a fetch that finishes completes it. */
static void test_a_killed_fetchs_leftovers_and_an_incomplete_mirror(void)
{
	ks_repo *r;
	ks_repo_pull *prs = NULL;
	size_t n = 0;
	char *dir, *meta;
	if (!have_git())
		KT_SKIP("git is not installed");
	pulls_repo();
	r = open_fetch("pulls");
	KT_EQ_INT(ks_repo_ready(r), 0);
	dir = ks_strdup(ks_repo_path(r));
	ks_repo_free(r);
	sh("cd '%s' && touch objects/tmp_object_git2_a1B2c3 objects/pack/pack_git2_Zz9 "
	   "refs/pull/1/head.lock HEAD.lock && git -C %s/pulls update-ref refs/pull/1/head pr2",
	   dir, kt_tmpdir());
	r = open_fetch("pulls");
	ks_repo_free(r);
	sh("cd '%s' && ! ls objects/tmp_object_git2_* objects/pack/pack_git2_* refs/pull/1/head.lock "
	   "HEAD.lock", dir);
	/* the refresh went through the ref whose lock was left */
	{
		char *a = git_text("git -C '%s' rev-parse refs/pull/1/head", dir);
		char *b = git_text("git -C pulls rev-parse pr2%s", "");
		KT_EQ_STR(a, b);
		ks_free(a);
		ks_free(b);
	}
	/* an incomplete mirror: refs, a record without a fetch time */
	meta = ks_path_join(dir, "kscore-mirror.json");
	KT_EQ_INT(ks_fs_write_atomic(meta, "{\"schema\": \"kscore.mirror/1\"}", 29), 0);
	sh("git -C '%s' update-ref -d refs/pull/7/head", dir);
	r = open_only("pulls");
	KT_EQ_INT(ks_repo_ready(r), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "incomplete");
	KT_CONTAINS(ks_error_msg(), dir);
	KT_EQ_INT(ks_repo_pull_requests(&prs, &n, r), KS_EINVALID);
	KT_EQ_INT(ks_repo_fetch(r), 0);
	KT_EQ_INT(ks_repo_ready(r), 0);
	KT_EQ_INT(ks_repo_pull_requests(&prs, &n, r), 0);
	KT_EQ_INT((int)n, NPULLS);
	ks_repo_pulls_free(prs, n);
	ks_repo_free(r);
	ks_free(meta);
	ks_free(dir);
}

/* One repository written two ways (relative with "..", absolute) is one location, one mirror. */
static void test_one_repository_two_spellings(void)
{
	char *a, *b, *abs, *sub;
	if (!have_git())
		KT_SKIP("git is not installed");
	sh("git -c init.defaultBranch=main init -q --bare x.git && mkdir -p sub");
	abs = ks_asprintf("%s/x.git", kt_tmpdir());
	sub = ks_asprintf("%s/sub", kt_tmpdir());
	a = ks_repo_locate("../x.git", sub);
	b = ks_repo_locate(abs, NULL);
	KT_EQ_STR(a, b);
	ks_free(a);
	a = ks_repo_locate("./sub/../x.git", kt_tmpdir());
	KT_EQ_STR(a, b);
	ks_free(a);
	/* a path that does not exist is folded by its letters */
	a = ks_repo_locate("/no/such/./dir/../x.git//", NULL);
	KT_EQ_STR(a, "/no/such/x.git");
	ks_free(a);
	a = ks_repo_locate("../../../..", "/a");
	KT_EQ_STR(a, "/");
	ks_free(a);
	/* URLs are kept as given */
	a = ks_repo_locate("https://tok@example.org/x.git", NULL);
	KT_EQ_STR(a, "https://tok@example.org/x.git");
	ks_free(a);
	ks_free(b);
	ks_free(abs);
	ks_free(sub);
}

static const kt_test tests[] = {
	KT(test_locations_are_redacted),
	KT(test_refs_deadline_and_later_commits), KT(test_files_and_patterns),
	KT(test_links_lfs_and_equal_iterations_are_refused), KT(test_forged_dates_are_reported),
	KT(test_pull_request_refs_in_a_bare_repository), KT(test_cache_is_reused_and_refreshed),
	KT(test_unreachable_locations_fail_without_leaking_credentials), KT(test_fetch_size_cap),
	KT(test_globstar_alternatives_and_pattern_lists), KT(test_pull_request_base_and_own_files),
	KT(test_a_repository_that_lacks_an_object), KT(test_what_a_source_lacks_is_remembered),
	KT(test_one_repository_two_spellings),
	KT(test_a_killed_first_fetch_leaves_no_mirror_that_is_used),
	KT(test_a_killed_fetchs_leftovers_and_an_incomplete_mirror), { 0 }
};
KT_MAIN("repos", tests)
