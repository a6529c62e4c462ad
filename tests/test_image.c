/* Tests of lang/image.c: the bundle of CUBINs a Triton answer's image is, written and read back,
 * and refused when its table does not fit its blob. */
#include "ktest.h"
#include "lang/image.h"
#include "util/errors.h"
#include "util/mem.h"

#include <string.h>

static void test_a_bundle_reads_back_its_parts(void)
{
	static const char a[] = "first cubin", b[] = "second, longer cubin bytes";
	ks_image_part in[2] = { { a, sizeof(a), 1 }, { b, sizeof(b), 2 } }, out[KS_IMAGE_MAX_PARTS];
	void *blob = NULL;
	size_t len = 0, n = 0;
	KT_EQ_INT(ks_image_bundle(&blob, &len, in, 2), 0);
	KT_ASSERT(ks_image_is_bundle(blob, len));
	KT_EQ_INT(ks_image_parts(out, &n, blob, len, 3), 0);
	KT_EQ_INT(n, 2);
	KT_EQ_INT(out[0].len, sizeof(a));
	KT_ASSERT(memcmp(out[0].data, a, sizeof(a)) == 0);
	KT_EQ_INT(out[1].nnames, 2);
	KT_ASSERT(memcmp(out[1].data, b, sizeof(b)) == 0);
	KT_EQ_INT((size_t)((const char *)out[1].data - (const char *)blob) % 16, 0); /* aligned for the loader */
	/* the names must add up */
	KT_EQ_INT(ks_image_parts(out, &n, blob, len, 2), KS_EINVALID);
	/* a part that runs past a shortened blob */
	KT_EQ_INT(ks_image_parts(out, &n, blob, len - 20, 3), KS_EINVALID);
	KT_ASSERT(strstr(ks_error_msg(), "leaves its blob"));
	/* a part count the table cannot hold */
	((unsigned char *)blob)[8] = 200;
	KT_EQ_INT(ks_image_parts(out, &n, blob, len, 3), KS_EINVALID);
	ks_free(blob);
}

static void test_a_plain_cubin_is_one_part(void)
{
	static const char elf[] = "\177ELF plain";
	ks_image_part out[KS_IMAGE_MAX_PARTS];
	size_t n = 0;
	KT_ASSERT(!ks_image_is_bundle(elf, sizeof(elf)));
	KT_EQ_INT(ks_image_parts(out, &n, elf, sizeof(elf), 4), 0);
	KT_EQ_INT(n, 1);
	KT_EQ_INT(out[0].nnames, 4);
	KT_ASSERT(out[0].data == elf);
}

static void test_too_many_parts_are_refused(void)
{
	ks_image_part in[KS_IMAGE_MAX_PARTS + 1];
	void *blob = NULL;
	size_t len = 0, i;
	for (i = 0; i < KS_IMAGE_MAX_PARTS + 1; i++) {
		in[i].data = "x";
		in[i].len = 1;
		in[i].nnames = 1;
	}
	KT_EQ_INT(ks_image_bundle(&blob, &len, in, KS_IMAGE_MAX_PARTS + 1), KS_ELIMIT);
	KT_EQ_INT(ks_image_bundle(&blob, &len, in, 0), KS_ELIMIT);
	KT_ASSERT(blob == NULL);
}

static const kt_test tests[] = {
	KT(test_a_bundle_reads_back_its_parts),
	KT(test_a_plain_cubin_is_one_part),
	KT(test_too_many_parts_are_refused),
	{ 0 }
};

KT_MAIN("image", tests)
