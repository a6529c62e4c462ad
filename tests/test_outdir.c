/* Tests of the output-path rule (outdir.h): what kscore may replace, what it must refuse, and the
 * swap that puts a new folder in place of an old one. */
#include "ktest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "report/outdir.h"

static char *tmp(const char *rel)
{
	return ks_asprintf("%s/%s", kt_tmpdir(), rel);
}

static void put(const char *rel, const char *text)
{
	char *path = tmp(rel), *dir = ks_path_dirname(path);
	if (ks_fs_mkdir_p(dir, 0755) < 0 || ks_fs_write_atomic(path, text, strlen(text)) < 0)
		KT_FAIL("cannot write %s", path);
	ks_free(dir);
	ks_free(path);
}

static void mkd(const char *rel)
{
	char *path = tmp(rel);
	if (ks_fs_mkdir_p(path, 0755) < 0)
		KT_FAIL("cannot create %s", path);
	ks_free(path);
}

static int exists(const char *rel)
{
	char *p = tmp(rel);
	int e = ks_fs_exists(p);
	ks_free(p);
	return e;
}

/* ks_outdir_check of tmp/rel with the given kind and inputs (relative to tmp too). */
static int check_in(const char *rel, ks_outdir_kind kind, const char *in0, const char *in1)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	char *p = tmp(rel), *i0 = in0 ? tmp(in0) : NULL, *i1 = in1 ? tmp(in1) : NULL;
	const char *in[2] = { i0, i1 };
	int rc;
	oo.kind = kind;
	oo.inputs = in;
	oo.ninputs = 2;
	rc = ks_outdir_check(p, &oo);
	ks_free(p);
	ks_free(i0);
	ks_free(i1);
	return rc;
}

static int check(const char *rel)
{
	return check_in(rel, KS_OUTDIR_RESULT, NULL, NULL);
}

static const char *const legacy_score = "{\n\t\"schema\":\t\"kscore.score/1\",\n\t\"team\":\tnull\n}\n";

static void test_absent_and_empty_folders_are_accepted(void)
{
	KT_EQ_INT(check("nothing"), 0);
	KT_EQ_INT(check("deep/er/nothing"), 0);
	mkd("empty");
	KT_EQ_INT(check("empty"), 0);
	KT_EQ_INT(check("empty/"), 0);
	/* a parent that is a file: the path cannot even be examined */
	put("file", "x");
	KT_EQ_INT(check("file/sub"), KS_EIO);
}

static void test_foreign_folders_and_files_are_refused(void)
{
	put("otest/important.txt", "keep me");
	mkd("otest/sub");
	KT_EQ_INT(check("otest"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "otest exists and is not a kscore result folder");
	KT_CONTAINS(ks_error_msg(), "remove it or choose another --out");
	put("precious.txt", "keep me");
	KT_EQ_INT(check("precious.txt"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "precious.txt exists and is not a kscore result folder");
	/* a mark that is garbage, a link, or of another kind does not make a folder kscore's */
	put("bad/.kscore-result", "not json");
	put("bad/x", "y");
	KT_EQ_INT(check("bad"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not a valid");
	put("other/.kscore-result", "{\"schema\": \"kscore.outdir/1\", \"kind\": \"batch\"}");
	KT_EQ_INT(check("other"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "\"batch\"");
	KT_EQ_INT(check_in("other", KS_OUTDIR_BATCH, NULL, NULL), 0);
	put("mark-target", "{\"schema\": \"kscore.outdir/1\", \"kind\": \"result\"}");
	mkd("linked");
	{
		char *t = tmp("mark-target"), *l = tmp("linked/.kscore-result");
		KT_EQ_INT(symlink(t, l), 0);
		ks_free(t);
		ks_free(l);
	}
	KT_EQ_INT(check("linked"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not a regular file");
}

static void test_marked_and_legacy_folders_are_accepted(void)
{
	char *d = tmp("res");
	mkd("res");
	put("res/anything.txt", "a user's file inside a marked folder goes with it");
	KT_EQ_INT(ks_outdir_mark(d, KS_OUTDIR_RESULT), 0);
	KT_EQ_INT(check("res"), 0);
	/* a batch results folder is not a result folder, and the other way round */
	KT_EQ_INT(check_in("res", KS_OUTDIR_BATCH, NULL, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not a kscore batch results folder");
	ks_free(d);

	/* written by a version before marks: kscore's files only, with its record */
	put("old/score.json", legacy_score);
	put("old/out.json", "log");
	put("old/out.json_results_0.json", "[]");
	put("old/out.json_perf_12.json", "{}");
	put("old/out.jsonpassk.txt", "x");
	put("old/exec/performance_analysis.txt", "x");
	put("old/exec/gen_perf/vadd.json", "{}");
	put("old/score.json.tmp.1234", "half");
	KT_EQ_INT(check("old"), 0);
	/* one file kscore does not write there, and it is not kscore's to remove */
	put("old/exec/notes.md", "mine");
	KT_EQ_INT(check("old"), KS_EINVALID);
	/* a failed batch team: batch.json only */
	put("team/batch.json", "{\"schema\": \"kscore.batch-team/1\", \"status\": \"failed\"}");
	KT_EQ_INT(check("team"), 0);
	/* the names without the record are not enough, nor a record of another schema */
	put("nameonly/out.json", "x");
	KT_EQ_INT(check("nameonly"), KS_EINVALID);
	put("wrong/score.json", "{\"schema\": \"mine/1\"}");
	KT_EQ_INT(check("wrong"), KS_EINVALID);
	/* a batch results folder written before marks: its leaderboard */
	put("results/leaderboard.json", "{\n\t\"schema\":\t\"kscore.leaderboard/1\"\n}\n");
	put("results/leaderboard.csv", "rank\r\n");
	mkd("results/Team_A");
	KT_EQ_INT(check_in("results", KS_OUTDIR_BATCH, NULL, NULL), 0);
	KT_EQ_INT(check("results"), KS_EINVALID);
	put("foreign/notes.txt", "x");
	KT_EQ_INT(check_in("foreign", KS_OUTDIR_BATCH, NULL, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not a kscore batch results folder");
}

static void test_inputs_are_never_replaced(void)
{
	char *d = tmp("res"), *alias;
	mkd("res");
	KT_EQ_INT(ks_outdir_mark(d, KS_OUTDIR_RESULT), 0);
	put("res/sub.json", "[]");
	/* a marked folder that holds the submission */
	KT_EQ_INT(check_in("res", KS_OUTDIR_RESULT, "res/sub.json", NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "holds the input");
	/* the same folder spelled another way is still the same folder */
	KT_EQ_INT(check_in("res/../res/.", KS_OUTDIR_RESULT, "res/sub.json", NULL), KS_EINVALID);
	KT_EQ_INT(check_in("res", KS_OUTDIR_RESULT, "res/./sub.json", NULL), KS_EINVALID);
	/* the input itself, and a folder above it */
	put("a/b/in.json", "[]");
	KT_EQ_INT(check_in("a/b/in.json", KS_OUTDIR_RESULT, "a/b/in.json", NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "is the input");
	KT_EQ_INT(check_in("a", KS_OUTDIR_RESULT, NULL, "a/b/in.json"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "holds the input");
	/* a submission reached through a link still counts where it lives, and where its link is */
	alias = tmp("res/link.json");
	{
		char *target = tmp("a/b/in.json");
		KT_EQ_INT(symlink(target, alias), 0);
		ks_free(target);
	}
	KT_EQ_INT(check_in("a", KS_OUTDIR_RESULT, "res/link.json", NULL), KS_EINVALID);
	ks_free(alias);
	/* nothing may be created inside an input folder (the reference problems, say) */
	mkd("refs/p1");
	KT_EQ_INT(check_in("refs/out", KS_OUTDIR_RESULT, "refs", NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "inside the input folder");
	KT_EQ_INT(check_in("refs/p1", KS_OUTDIR_RESULT, "refs", NULL), KS_EINVALID);
	KT_EQ_INT(check_in("elsewhere", KS_OUTDIR_RESULT, "refs", "a/b/in.json"), 0);
	ks_free(d);
}

static void test_links_and_the_working_directory_are_refused(void)
{
	char *d = tmp("res"), *l = tmp("lnk"), *cwd = getcwd(NULL, 0);
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	mkd("res");
	KT_EQ_INT(ks_outdir_mark(d, KS_OUTDIR_RESULT), 0);
	KT_EQ_INT(symlink(d, l), 0);
	KT_EQ_INT(check("lnk"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "symbolic link");
	KT_EQ_INT(check("lnk/"), KS_EINVALID);
	/* a marked folder that is, or holds, the working directory */
	mkd("res/inner");
	KT_EQ_INT(chdir(kt_tmpdir()), 0);
	KT_EQ_INT(ks_outdir_check("res", &oo), 0);
	KT_EQ_INT(chdir("res/inner"), 0);
	KT_EQ_INT(ks_outdir_check(d, &oo), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "holds the working directory");
	KT_EQ_INT(chdir(".."), 0);
	KT_EQ_INT(ks_outdir_check(".", &oo), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "is the working directory");
	KT_EQ_INT(chdir(cwd), 0);
	free(cwd);
	ks_free(d);
	ks_free(l);
}

static void test_begin_commit_replaces_a_kscore_folder_whole(void)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	char *d = tmp("out/res"), *t = NULL, *f, *names;
	char **v = NULL;
	size_t n = 0;

	/* a new folder, its parents created */
	KT_EQ_INT(ks_outdir_begin(&t, d, &oo), 0);
	f = ks_path_join(t, "score.json");
	KT_EQ_INT(ks_fs_write_atomic(f, "1", 1), 0);
	ks_free(f);
	KT_EQ_INT(ks_outdir_commit(t, d, &oo), 0);
	ks_free(t);
	KT_ASSERT(exists("out/res/score.json"));
	KT_ASSERT(exists("out/res/.kscore-result"));
	put("out/res/stale.txt", "from the last run");
	/* again: the old folder goes whole, nothing is left beside it */
	KT_EQ_INT(ks_outdir_begin(&t, d, &oo), 0);
	KT_EQ_INT(ks_outdir_commit(t, d, &oo), 0);
	ks_free(t);
	KT_ASSERT(!exists("out/res/stale.txt"));
	KT_ASSERT(!exists("out/res/score.json"));
	KT_ASSERT(exists("out/res/.kscore-result"));
	f = tmp("out");
	KT_EQ_INT(ks_fs_list(&v, &n, f, 1), 0);
	names = n == 1 ? v[0] : NULL;
	KT_EQ_STR(names, "res");
	ks_free_strv(v, n);
	ks_free(f);

	/* the target became someone else's between begin and commit: refused, left alone */
	KT_EQ_INT(ks_outdir_begin(&t, d, &oo), 0);
	put("out/res/.kscore-result", "gone");
	put("out/res/theirs.txt", "x");
	KT_EQ_INT(ks_outdir_commit(t, d, &oo), KS_EINVALID);
	KT_ASSERT(exists("out/res/theirs.txt"));
	ks_outdir_abort(t);
	KT_ASSERT(!ks_fs_exists(t));
	ks_free(t);
	/* a foreign folder is refused before anything is built */
	KT_EQ_INT(ks_outdir_begin(&t, d, &oo), KS_EINVALID);
	KT_ASSERT(t == NULL);
	ks_free(d);
}

static void test_probe_finds_a_folder_that_cannot_be_made(void)
{
	char *p = tmp("a/b/c"), *q = tmp("file/x"), *r = tmp("r"), *d = tmp(""), *ls;
	KT_EQ_INT(ks_outdir_probe(p), 0);
	KT_ASSERT(!exists("a")); /* nothing made is left */
	mkd("r");
	put("r/x", "mine");
	KT_EQ_INT(ks_outdir_probe(r), 0);
	put("file", "not a folder");
	KT_EQ_INT(ks_outdir_probe(q), KS_EIO);
	KT_CONTAINS(ks_error_msg(), "cannot create the result folder");
	KT_CONTAINS(ks_error_msg(), "file/x");
	KT_EQ_INT(ks_outdir_probe("/proc/kscore-probe/x"), KS_EIO);
	/* the folder holds what it held before: file and r/ (with r/x) */
	ls = ks_asprintf("test \"$(ls -A '%s' | tr '\\n' ' ')\" = \"file r \" && test \"$(ls -A '%s')\" = x", d, r);
	KT_EQ_INT(system(ls), 0);
	ks_free(ls);
	ks_free(d);
	ks_free(r);
	ks_free(q);
	ks_free(p);
}

static void test_files_are_replaced_only_with_their_schema(void)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	const char *schema = "kscore.baseline/1";
	char *p;
	const char *in[1];

	p = tmp("none.json");
	KT_EQ_INT(ks_outdir_check_file(p, schema, &oo), 0);
	ks_free(p);
	put("base.json", "{\"problems\": [], \"schema\": \"kscore.baseline/1\"}");
	p = tmp("base.json");
	KT_EQ_INT(ks_outdir_check_file(p, schema, &oo), 0);
	/* never an input, even one of the right schema */
	in[0] = p;
	oo.inputs = in;
	oo.ninputs = 1;
	KT_EQ_INT(ks_outdir_check_file(p, schema, &oo), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "is the input");
	oo.ninputs = 0;
	ks_free(p);
	put("precious.txt", "keep me");
	p = tmp("precious.txt");
	KT_EQ_INT(ks_outdir_check_file(p, schema, &oo), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "precious.txt exists and is not a kscore file");
	ks_free(p);
	put("other.json", "{\"schema\": \"kscore.score/1\"}");
	p = tmp("other.json");
	KT_EQ_INT(ks_outdir_check_file(p, schema, &oo), KS_EINVALID);
	ks_free(p);
	mkd("dir.json");
	p = tmp("dir.json");
	KT_EQ_INT(ks_outdir_check_file(p, schema, &oo), KS_EINVALID);
	ks_free(p);
	{
		char *t = tmp("base.json");
		p = tmp("link.json");
		KT_EQ_INT(symlink(t, p), 0);
		KT_EQ_INT(ks_outdir_check_file(p, schema, &oo), KS_EINVALID);
		KT_CONTAINS(ks_error_msg(), "symbolic link");
		ks_free(t);
		ks_free(p);
	}
}


static char *with_pid(const char *fmt, long pid)
{
	return ks_asprintf(fmt, pid, pid);
}

static void test_temporary_names_are_recognised(void)
{
	size_t len = 0;
	long pid = 0;
	KT_EQ_INT(ks_outdir_temp_parse("batch.json.tmp.4242", &len, &pid), KS_OUTDIR_TEMP_FILE);
	KT_EQ_INT(len, 10);
	KT_EQ_INT(pid, 4242);
	KT_EQ_INT(ks_outdir_temp_parse(".kscore-result.tmp.7", &len, &pid), KS_OUTDIR_TEMP_FILE);
	KT_EQ_INT(len, 14);
	KT_EQ_INT(ks_outdir_temp_parse("Team_A.tmp-99-3", &len, &pid), KS_OUTDIR_TEMP_BUILD);
	KT_EQ_INT(len, 6);
	KT_EQ_INT(pid, 99);
	KT_EQ_INT(ks_outdir_temp_parse("a.tmp.b.tmp-5", &len, &pid), KS_OUTDIR_TEMP_BUILD);
	KT_EQ_INT(len, 7);
	KT_EQ_INT(ks_outdir_temp_parse("site.old-12-0", &len, &pid), KS_OUTDIR_TEMP_OLD);
	KT_EQ_INT(len, 4);
	/* not kscore's names */
	KT_EQ_INT(ks_outdir_temp_parse("notes.txt", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_EQ_INT(ks_outdir_temp_parse("x.tmp.", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_EQ_INT(ks_outdir_temp_parse("x.tmp.12a", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_EQ_INT(ks_outdir_temp_parse("x.tmp.012", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_EQ_INT(ks_outdir_temp_parse("x.tmp.99999999999", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_EQ_INT(ks_outdir_temp_parse(".tmp.12", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_EQ_INT(ks_outdir_temp_parse("x.old-12", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_EQ_INT(ks_outdir_temp_parse("x.tmp.12-3", &len, &pid), KS_OUTDIR_TEMP_NONE);
	KT_ASSERT(!ks_outdir_writer_gone((long)getpid()));
	KT_ASSERT(ks_outdir_writer_gone(kt_dead_pid()));
}

/* A folder holding only the mark's temporary of a process that is gone (a kill while a new folder
 * was being marked) is accepted; the same name of a live process, or another name, is not. */
static void test_folders_holding_only_leftovers_are_accepted(void)
{
	long dead = kt_dead_pid(), live = (long)getpid();
	char *rel;
	rel = with_pid("a/.kscore-result.tmp.%ld", dead);
	put(rel, "");
	ks_free(rel);
	KT_EQ_INT(check("a"), 0);
	KT_EQ_INT(check_in("a", KS_OUTDIR_SITE, NULL, NULL), 0);
	rel = with_pid("b/.kscore-result.tmp.%ld", dead);
	put(rel, "{\"schema\": \"kscore.outdir/1\", \"kind\": \"batch\", \"scorer\": \"kscore 9.9\"}\n");
	ks_free(rel);
	put("b/.lock", "");
	put("b/.lock-shard-0-of-2", "");
	KT_EQ_INT(check_in("b", KS_OUTDIR_BATCH, NULL, NULL), 0);
	KT_EQ_INT(check_in("b", KS_OUTDIR_RESULT, NULL, NULL), KS_EINVALID);  /* the lock: a batch's */
	put("b/.lock", "x");  /* kscore never writes into its lock */
	KT_EQ_INT(check_in("b", KS_OUTDIR_BATCH, NULL, NULL), KS_EINVALID);
	rel = with_pid("c/.kscore-result.tmp.%ld", live);
	put(rel, "");
	ks_free(rel);
	KT_EQ_INT(check("c"), KS_EINVALID);
	rel = with_pid("d/notes.tmp.%ld", dead);
	put(rel, "");
	ks_free(rel);
	KT_EQ_INT(check("d"), KS_EINVALID);
	rel = with_pid("e/.kscore-result.tmp.%ld", dead);
	put(rel, "not a mark");
	ks_free(rel);
	KT_EQ_INT(check("e"), KS_EINVALID);
}

static int want_res(const char *name, size_t len, void *ud)
{
	(void)ud;
	return (len == 3 && !strncmp(name, "res", 3)) || (len == 8 && !strncmp(name, "res.json", 8)) ?
	       (int)KS_OUTDIR_RESULT : -1;
}

/* What killed runs left for a name: removed, or an old folder put back; never a live process's,
 * a foreign folder, or another name's. */
static void test_tidy_finishes_or_removes_leftovers(void)
{
	long dead = kt_dead_pid(), live = (long)getpid();
	char *dir = tmp("t"), *rel;
	struct {
		const char *fmt;
		long pid;
		const char *text;
		int stays;
	} items[] = {
		{ "t/res.tmp-%ld-0/.kscore-result", 0, "", 0 },            /* an empty mark */
		{ "t/res.tmp-%ld-1/.kscore-result.tmp.%ld", 0, "{\"sch", 0 }, /* a mark being written */
		{ "t/res.tmp-%ld-2/.kscore-result", 0, "{\"schema\": \"kscore.outdir/1\", \"kind\": \"result\"}", 0 },
		{ "t/res.json.tmp.%ld", 0, "[", 0 },
		{ "t/res.tmp-%ld-3/notes.txt", 0, "someone's", 1 },          /* not kscore's folder */
		{ "t/res.tmp-%ld-4/.kscore-result", 0, "x", 1 },             /* not a mark kscore writes */
		{ "t/res.tmp-%ld-5/.kscore-result", 1, "", 1 },              /* a live process's */
		{ "t/res.json.tmp.%ld", 1, "[", 1 },
		{ "t/other.tmp-%ld-0/.kscore-result", 0, "", 1 },           /* a name not asked for */
	};
	size_t i;
	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		rel = with_pid(items[i].fmt, items[i].pid ? live : dead);
		put(rel, items[i].text);
		ks_free(rel);
	}
	mkd("t/res.tmp-1-0");  /* a leftover of pid 1, which is alive */
	KT_EQ_INT(ks_outdir_tidy(dir, want_res, NULL), 4);
	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++) {
		rel = with_pid(items[i].fmt, items[i].pid ? live : dead);
		KT_ASSERT_MSG(exists(rel) == items[i].stays, "%s %s", rel, items[i].stays ? "was removed" : "stays");
		ks_free(rel);
	}
	KT_ASSERT(exists("t/res.tmp-1-0"));

	/* killed between the two renames of a swap: the old folder goes back in place... */
	for (i = 0; i < 2; i++) {
		char fmt[64];
		snprintf(fmt, sizeof(fmt), "t/res.old-%%ld-%zu/%s", i, i ? "out.json" : "score.json");
		rel = with_pid(fmt, dead);
		put(rel, "{}");
		ks_free(rel);
		snprintf(fmt, sizeof(fmt), "t/res.old-%%ld-%zu/" KS_OUTDIR_MARK, i);
		rel = with_pid(fmt, dead);
		put(rel, "{\"schema\": \"kscore.outdir/1\", \"kind\": \"result\", \"scorer\": \"kscore 0.1.0\"}\n");
		ks_free(rel);
	}
	KT_EQ_INT(ks_outdir_tidy(dir, want_res, NULL), 2);
	KT_ASSERT(exists("t/res/score.json"));  /* the first by name */
	KT_ASSERT(!exists("t/res/out.json"));
	rel = with_pid("t/res.old-%ld-0", dead);
	KT_ASSERT(!exists(rel));
	ks_free(rel);
	rel = with_pid("t/res.old-%ld-1", dead);  /* ...once: another old one is removed */
	KT_ASSERT(!exists(rel));
	ks_free(rel);
	/* ...and ks_outdir_begin does it before anything else */
	{
		ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
		char *t = NULL, *target = tmp("t/res");
		rel = with_pid("t/res.old-%ld-2", dead);
		char *old = tmp(rel);
		KT_EQ_INT(rename(target, old), 0);
		ks_free(old);
		KT_EQ_INT(ks_outdir_begin(&t, target, &oo), 0);
		KT_ASSERT(exists("t/res/score.json"));
		KT_ASSERT(!exists(rel));
		ks_outdir_abort(t);
		ks_free(t);
		ks_free(rel);
		ks_free(target);
	}
	ks_free(dir);
}

static const kt_test tests[] = {
	KT(test_absent_and_empty_folders_are_accepted), KT(test_foreign_folders_and_files_are_refused),
	KT(test_marked_and_legacy_folders_are_accepted), KT(test_inputs_are_never_replaced),
	KT(test_links_and_the_working_directory_are_refused),
	KT(test_begin_commit_replaces_a_kscore_folder_whole),
	KT(test_files_are_replaced_only_with_their_schema), KT(test_probe_finds_a_folder_that_cannot_be_made), KT(test_temporary_names_are_recognised),
	KT(test_folders_holding_only_leftovers_are_accepted), KT(test_tidy_finishes_or_removes_leftovers), { 0 }
};
KT_MAIN("outdir", tests)
