/* Tests of pyentry: the syntax of a problem's `python` section, its trace-request form and its call
 * as Python text. How a section is checked against the spec is in test_problem.c. */
#include "ktest.h"
#include "load/pyentry.h"
#include "util/errors.h"
#include "util/mem.h"

/* Parses text as a section; returns the parse status, *e filled on success. */
static int parse(ks_python_entry *e, const char *text)
{
	cJSON *v = cJSON_Parse(text);
	int rc;
	KT_ASSERT_MSG(v != NULL, "test JSON does not parse: %s", text);
	rc = ks_pyentry_parse(e, v);
	cJSON_Delete(v);
	return rc;
}

static void test_call_text_and_literals(void)
{
	ks_python_entry e;
	char *t;
	KT_EQ_INT(parse(&e, "{\"entry\": \"apply_rotary\", \"args\": [\"x\", \"cos\", \"sin\"], \"kwargs\": "
			    "{\"seqlen_offsets\": \"seqlen_offset\", \"interleaved\": {\"const\": false}, "
			    "\"cu_seqlens\": {\"const\": null}, \"scale\": {\"const\": 0.5}, \"mode\": {\"const\": "
			    "\"a\\\"b\"}, \"on\": {\"const\": true}, \"k\": {\"const\": 128}}, \"returns\": \"out\"}"),
		  0);
	t = ks_pyentry_call_text(&e);
	KT_EQ_STR(t, "apply_rotary(x, cos, sin, seqlen_offsets=seqlen_offset, interleaved=False, "
		     "cu_seqlens=None, scale=0.5, mode=\"a\\\"b\", on=True, k=128)");
	ks_free(t);
	ks_pyentry_clear(&e);
	KT_ASSERT(e.entry == NULL && e.nkwargs == 0);
	KT_ASSERT(ks_pyentry_call_text(&e) == NULL);
	KT_ASSERT(ks_pyentry_json(&e) == NULL);
	KT_EQ_INT(parse(&e, "{\"entry\": \"wrapper\", \"args\": [], \"returns\": null}"), 0);
	t = ks_pyentry_call_text(&e);
	KT_EQ_STR(t, "wrapper()");
	ks_free(t);
	ks_pyentry_clear(&e);
}

/* Every syntax error is refused with the field it is in; nothing is left allocated (ASan). */
static void test_bad_sections_are_refused(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "[1]", "python: must be an object" },
		{ "{\"args\": [], \"returns\": null}", "python.entry: must be" },
		{ "{\"entry\": \"1st\", \"args\": [], \"returns\": null}", "python.entry: must be" },
		{ "{\"entry\": \"lambda\", \"args\": [], \"returns\": null}", "python.entry: must be" },
		{ "{\"entry\": \"f-g\", \"args\": [], \"returns\": null}", "python.entry: must be" },
		{ "{\"entry\": \"f\", \"returns\": null}", "python.args: must be a list" },
		{ "{\"entry\": \"f\", \"args\": {\"x\": 1}, \"returns\": null}", "python.args: must be a list" },
		{ "{\"entry\": \"f\", \"args\": [\"x\", 3], \"returns\": null}", "python.args[1]: must be the name" },
		{ "{\"entry\": \"f\", \"args\": [\"x y\"], \"returns\": null}", "python.args[0]: \"x y\" is not" },
		{ "{\"entry\": \"f\", \"args\": [{\"const\": [1]}], \"returns\": null}",
		  "python.args[0]: a constant is a bool, null, number or string" },
		{ "{\"entry\": \"f\", \"args\": [{\"const\": {\"a\": 1}}], \"returns\": null}",
		  "python.args[0]: a constant is" },
		{ "{\"entry\": \"f\", \"args\": [{\"const\": 1, \"x\": 2}], \"returns\": null}",
		  "python.args[0]: an object must be {\"const\": value}" },
		{ "{\"entry\": \"f\", \"args\": [{\"value\": 1}], \"returns\": null}",
		  "python.args[0]: an object must be" },
		{ "{\"entry\": \"f\", \"args\": [{\"const\": 1e999}], \"returns\": null}", "not a finite number" },
		{ "{\"entry\": \"f\", \"args\": [], \"kwargs\": [\"x\"], \"returns\": null}",
		  "python.kwargs: must be an object" },
		{ "{\"entry\": \"f\", \"args\": [], \"kwargs\": {\"in\": \"x\"}, \"returns\": null}",
		  "python.kwargs: \"in\" is not a Python identifier" },
		{ "{\"entry\": \"f\", \"args\": [], \"kwargs\": {\"a.b\": \"x\"}, \"returns\": null}",
		  "python.kwargs: \"a.b\" is not" },
		{ "{\"entry\": \"f\", \"args\": [], \"kwargs\": {\"a\": \"x\", \"a\": \"y\"}, \"returns\": null}",
		  "python.kwargs: keyword a is given twice" },
		{ "{\"entry\": \"f\", \"args\": [], \"kwargs\": {\"a\": true}, \"returns\": null}",
		  "python.kwargs.a: must be the name" },
		{ "{\"entry\": \"f\", \"args\": []}", "python.returns: missing" },
		{ "{\"entry\": \"f\", \"args\": [], \"returns\": 3}", "python.returns: must be the name" },
		{ "{\"entry\": \"f\", \"args\": [], \"returns\": \"\"}", "python.returns: must be the name" },
		{ "{\"entry\": \"f\", \"args\": [], \"returns\": null, \"made_by_entry\": \"x\"}",
		  "python.made_by_entry: must be a list" },
		{ "{\"entry\": \"f\", \"args\": [], \"returns\": null, \"made_by_entry\": [\"x\", 2]}",
		  "python.made_by_entry[1]: must be the name" },
		{ "{\"entry\": \"f\", \"args\": [], \"returns\": null, \"made_by_entry\": [\"x\", \"x\"]}",
		  "python.made_by_entry: x is listed twice" },
		{ "{\"entry\": \"f\", \"args\": [], \"returns\": null, \"note\": 5}", "python.note: must be a string" },
		{ "{\"entry\": \"f\", \"args\": [], \"returns\": null, \"entry_point\": 1}",
		  "python: unknown field \"entry_point\"" },
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ks_python_entry e;
		KT_ASSERT_MSG(parse(&e, bad[i].text) < 0, "accepted: %s", bad[i].text);
		KT_ASSERT(e.entry == NULL && e.args == NULL && e.kwargs == NULL);
		KT_ASSERT_MSG(strstr(ks_error_msg(), bad[i].want), "%s: got \"%s\", want \"%s\"", bad[i].text,
			      ks_error_msg(), bad[i].want);
	}
}

/* The caps: argument counts, a literal's length, the note's length. */
static void test_caps(void)
{
	char *text, *args = ks_calloc(1, 8192), *note = ks_calloc(1, KS_PYENTRY_MAX_NOTE + 2);
	ks_python_entry e;
	size_t i;
	for (i = 0; i < KS_PYENTRY_MAX_ARGS; i++)
		strcat(args, i ? ", \"x\"" : "\"x\"");
	text = ks_asprintf("{\"entry\": \"f\", \"args\": [%s], \"returns\": null}", args);
	KT_EQ_INT(parse(&e, text), 0); /* the cap itself is allowed */
	KT_EQ_INT(e.nargs, KS_PYENTRY_MAX_ARGS);
	ks_pyentry_clear(&e);
	ks_free(text);
	text = ks_asprintf("{\"entry\": \"f\", \"args\": [%s, \"x\"], \"returns\": null}", args);
	KT_EQ_INT(parse(&e, text), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "python.args: at most 32 arguments");
	ks_free(text);
	memset(note, 'a', KS_PYENTRY_MAX_NOTE + 1);
	text = ks_asprintf("{\"entry\": \"f\", \"args\": [], \"returns\": null, \"note\": \"%s\"}", note);
	KT_EQ_INT(parse(&e, text), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "python.note: longer than 4096 bytes");
	ks_free(text);
	note[KS_PYENTRY_MAX_CONST] = '\0'; /* with its quotes, two characters over */
	text = ks_asprintf("{\"entry\": \"f\", \"args\": [{\"const\": \"%s\"}], \"returns\": null}", note);
	KT_EQ_INT(parse(&e, text), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "python.args[0]: the constant is longer than 256 characters");
	ks_free(text);
	memset(note, 0, KS_PYENTRY_MAX_NOTE + 2);
	memset(note, 'k', KS_PYENTRY_MAX_NAME + 1);
	text = ks_asprintf("{\"entry\": \"%s\", \"args\": [], \"returns\": null}", note);
	KT_ASSERT(parse(&e, text) < 0);
	KT_CONTAINS(ks_error_msg(), "python.entry: must be");
	ks_free(text);
	ks_free(note);
	ks_free(args);
}

static const kt_test tests[] = {
	KT(test_call_text_and_literals),
	KT(test_bad_sections_are_refused),
	KT(test_caps),
	{ NULL, NULL }
};

KT_MAIN("pyentry", tests)
