/* fuzz_submission: one submission file's bytes (JSON array, JSON Lines, either gzip-compressed)
 * through ks_pass_parse, the loader `score` and `score batch` share, then every entry's launch
 * field through the launch-plan parser, as the checking stage does. */
#include "fuzz.h"
#include "load/launch.h"
#include "load/submission.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ks_submission_limits lim = KS_SUBMISSION_LIMITS_INIT;
	ks_pass pass;
	size_t i;

	/* a 64 KiB input may inflate to 1 MiB: enough for every path, small enough for many runs */
	lim.max_decompressed_bytes = 1u << 20;
	ks_pass_parse(&pass, "dir/team.json", data, size, &lim);
	FZ_CHECK(pass.path && !strcmp(pass.path, "dir/team.json"), "path %s", pass.path);
	FZ_CHECK(pass.name && !strcmp(pass.name, "team.json"), "name %s", pass.name);
	FZ_CHECK(strlen(pass.sha256) == 64, "sha256 \"%s\"", pass.sha256);
	FZ_CHECK(pass.gzip == (size >= 2 && data[0] == 0x1f && data[1] == 0x8b), "gzip %d", pass.gzip);
	if (pass.error) {
		FZ_CHECK(*pass.error, "empty file error");
		FZ_CHECK(!pass.entries && !pass.nentries, "%zu entries with a file error", pass.nentries);
	}
	FZ_CHECK(pass.nentries <= lim.max_entries, "%zu entries", pass.nentries);
	for (i = 0; i < pass.nentries; i++) {
		const ks_entry *e = &pass.entries[i];
		FZ_CHECK(e->index == i, "entry %zu has index %zu", i, e->index);
		FZ_CHECK(e->predict != NULL, "entry %zu: predict NULL", i);
		FZ_CHECK(strlen(e->sha256) == 64, "entry %zu: sha256 \"%s\"", i, e->sha256);
		if (e->error) {
			FZ_CHECK(*e->error && !e->code, "entry %zu: error \"%s\"", i, e->error);
			continue;
		}
		FZ_CHECK(e->file && *e->file && e->problem && *e->problem, "entry %zu: no file", i);
		FZ_CHECK(e->extract_note && *e->extract_note, "entry %zu: no extraction note", i);
		FZ_CHECK(!e->code || strstr(e->code, e->language == KS_LANG_TRITON ? "triton.jit" : "__global__"),
			 "entry %zu: code without a kernel", i);
		FZ_CHECK(!e->code == (e->language == KS_LANG_NONE), "entry %zu: code and language disagree", i);
		FZ_CHECK(strlen(e->predict) <= lim.max_code_bytes, "entry %zu: predict too long", i);
		if (e->launch_json) {
			ks_launch l;
			fz_check_error(ks_launch_parse_text(&l, e->launch_json, "entry launch plan"));
			ks_launch_clear(&l);
		}
	}
	ks_pass_clear(&pass);
	ks_error_clear();
	return 0;
}
