/* fuzz_extract: an LLM answer through code extraction (fences, chat tokens, the __global__ rule),
 * then the structured launch comment of the extracted code through the launch-plan parser, as the
 * checking stage does for an entry without a "launch" field. */
#include "load/extract.h"
#include "fuzz.h"
#include "load/launch.h"

static void launch_comment(const char *code)
{
	char *json = ks_extract_launch_comment(code);
	ks_launch l;
	int rc;

	if (!json)
		return;
	FZ_CHECK(strstr(code, "kscore-launch") != NULL, "a launch comment without its marker");
	rc = ks_launch_parse_text(&l, json, "code comment");
	fz_check_error(rc);
	if (rc == 0) {
		fz_check_launch_roundtrip(&l);
		ks_launch_clear(&l);
	}
	ks_free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fz_cstr(data, size), *code = NULL, *note = NULL;
	int rc;

	rc = ks_extract_code(&code, &note, text);
	FZ_CHECK(rc == 0, "extraction failed: %s", ks_error_msg());
	FZ_CHECK(note && *note, "no note");
	/* notes are for people: extract.c caps them at 4 KiB */
	FZ_CHECK(strlen(note) <= 4096, "a note of %zu bytes", strlen(note));
	if (code) {
		FZ_CHECK(strstr(code, "__global__") != NULL, "code without a kernel");
		launch_comment(code);
	}
	launch_comment(text);
	ks_free(code);
	ks_free(note);
	/* the same text as a Triton answer */
	code = note = NULL;
	FZ_CHECK(ks_extract_triton(&code, &note, text) == 0, "Triton extraction failed: %s", ks_error_msg());
	FZ_CHECK(note && *note && strlen(note) <= 4096, "a Triton note of %zu bytes", note ? strlen(note) : 0);
	FZ_CHECK(!code || strstr(code, "triton.jit") != NULL, "Triton code without a kernel");
	ks_free(code);
	ks_free(note);
	ks_free(text);
	ks_error_clear();
	return 0;
}
