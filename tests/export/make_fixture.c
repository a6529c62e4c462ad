/* Writes the standard fixture batch (export_test.h) into the folder given: `make export-fixture`
 * refreshes web_export/fixtures/batch/ with it. */
#include "export_test.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_fixture RESULTS_DIR\n");
		return 64;
	}
	if (ks_fs_exists(argv[1])) {
		fprintf(stderr, "make_fixture: %s exists; remove it first\n", argv[1]);
		return 74;
	}
	fx_standard_batch(argv[1]);
	fx_mark_generated(argv[1]);
	return 0;
}
