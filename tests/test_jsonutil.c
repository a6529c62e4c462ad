#include "ktest.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <math.h>

static cJSON *parse(const char *text)
{
	cJSON *j = NULL;
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 8, "test"), 0);
	return j;
}

/* Each typed getter: present and right (0), absent or null (1, *out kept, or the error when
 * required), the wrong type (an error naming the field and the type it must have). */
static void test_typed_getters(void)
{
	cJSON *j = parse("{\"s\": \"x\", \"n\": 2.5, \"b\": true, \"z\": null, \"o\": {}}");
	const char *s = "kept";
	double d = -1;
	int b = -1;

	KT_EQ_INT(ks_json_str(&s, j, "s", 1), 0);
	KT_EQ_STR(s, "x");
	KT_EQ_INT(ks_json_num(&d, j, "n", 1), 0);
	KT_NEAR(d, 2.5, 0);
	KT_EQ_INT(ks_json_bool(&b, j, "b", 1), 0);
	KT_EQ_INT(b, 1);

	s = "kept";
	d = -1;
	b = -1;
	KT_EQ_INT(ks_json_str(&s, j, "z", 0), 1);
	KT_EQ_INT(ks_json_num(&d, j, "absent", 0), 1);
	KT_EQ_INT(ks_json_bool(&b, j, "z", 0), 1);
	KT_EQ_STR(s, "kept");
	KT_NEAR(d, -1, 0);
	KT_EQ_INT(b, -1);

	KT_EQ_INT(ks_json_str(&s, j, "absent", 1), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "missing field \"absent\"");
	KT_EQ_INT(ks_json_num(&d, j, "z", 1), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "missing field \"z\"");

	KT_EQ_INT(ks_json_str(&s, j, "n", 0), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "field \"n\" must be a string");
	KT_EQ_INT(ks_json_num(&d, j, "s", 0), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "field \"s\" must be a number");
	KT_EQ_INT(ks_json_bool(&b, j, "o", 1), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "field \"o\" must be true or false");
	KT_EQ_STR(s, "kept");
	cJSON_Delete(j);
}

/* A NULL string and a non-finite number keep their key, as null. */
static void test_add_str_and_num(void)
{
	cJSON *o = cJSON_CreateObject();
	char *text;

	KT_ASSERT(ks_json_add_str(o, "a", "x") != NULL);
	KT_ASSERT(ks_json_add_str(o, "b", NULL) != NULL);
	KT_ASSERT(ks_json_add_num(o, "c", 1.5) != NULL);
	KT_ASSERT(ks_json_add_num(o, "d", NAN) != NULL);
	KT_ASSERT(ks_json_add_num(o, "e", -INFINITY) != NULL);
	text = ks_json_print(o, 0);
	KT_EQ_STR(text, "{\"a\":\"x\",\"b\":null,\"c\":1.5,\"d\":null,\"e\":null}");
	ks_free(text);
	cJSON_Delete(o);
}

/* The lenient reads: a value of the right type, anything else NaN or NULL, never an error. */
static void test_lenient_reads(void)
{
	cJSON *j = parse("{\"s\": \"x\", \"n\": 2.5, \"z\": null, \"b\": true}");
	char *s;

	KT_NEAR(ks_json_numval(j, "n"), 2.5, 0);
	KT_ASSERT(isnan(ks_json_numval(j, "s")));
	KT_ASSERT(isnan(ks_json_numval(j, "z")));
	KT_ASSERT(isnan(ks_json_numval(j, "absent")));
	KT_ASSERT(isnan(ks_json_numval(NULL, "n")));
	s = ks_json_strdup(j, "s");
	KT_EQ_STR(s, "x");
	ks_free(s);
	KT_ASSERT(ks_json_strdup(j, "n") == NULL);
	KT_ASSERT(ks_json_strdup(j, "b") == NULL);
	KT_ASSERT(ks_json_strdup(j, "z") == NULL);
	KT_ASSERT(ks_json_strdup(NULL, "s") == NULL);
	KT_NEAR(ks_json_num_or(j, "n", 7), 2.5, 0);
	KT_NEAR(ks_json_num_or(j, "s", 7), 7, 0);
	KT_NEAR(ks_json_num_or(NULL, "n", 0), 0, 0);
	cJSON_Delete(j);
}

/* A string into a fixed buffer: cut to fit; the buffer untouched where there is no string. */
static void test_str_copy(void)
{
	cJSON *j = parse("{\"s\": \"abcdef\", \"n\": 1}");
	char b[4] = "xy";

	KT_EQ_INT(ks_json_str_copy(b, sizeof(b), j, "n"), 0);
	KT_EQ_STR(b, "xy");
	KT_EQ_INT(ks_json_str_copy(b, sizeof(b), j, "absent"), 0);
	KT_EQ_STR(b, "xy");
	KT_EQ_INT(ks_json_str_copy(b, sizeof(b), j, "s"), 1);
	KT_EQ_STR(b, "abc");
	cJSON_Delete(j);
}

static const kt_test tests[] = { KT(test_typed_getters), KT(test_add_str_and_num), KT(test_lenient_reads),
				 KT(test_str_copy), { 0 } };
KT_MAIN("jsonutil", tests)
