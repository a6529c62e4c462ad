#include "lang/cubin.h"
#include "lang/image.h"
#include "util/errors.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>

/* ELF64 header and section header fields used here (offsets from the ELF specification). */
#define EH_SIZE 64
#define EH_SHOFF 0x28
#define EH_SHENTSIZE 0x3a
#define EH_SHNUM 0x3c
#define EH_SHSTRNDX 0x3e
#define SH_SIZE 64
#define SH_NAME 0x00
#define SH_TYPE 0x04
#define SH_OFFSET 0x18
#define SH_SIZE_F 0x20
#define SHT_NOBITS 8
#define SHN_LORESERVE 0xff00

/* .nv.info record formats: a 4-byte header (format, attribute, 16-bit value); EIFMT_SVAL's value is
 * the byte length of the data that follows. */
#define EIFMT_NVAL 0x01
#define EIFMT_BVAL 0x02
#define EIFMT_HVAL 0x03
#define EIFMT_SVAL 0x04
#define EIATTR_KPARAM_INFO 0x17      /* SVAL, 12 bytes: u32 index, u16 ordinal, u16 offset, u32 flags */
#define EIATTR_CBANK_PARAM_SIZE 0x19 /* HVAL: the parameters' bytes */

#define INFO_PREFIX ".nv.info."

static uint32_t rd16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const unsigned char *p)
{
	return rd16(p) | rd16(p + 2) << 16;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

typedef struct {
	const unsigned char *b;
	size_t len;
} image;

/* The contents of the section whose header is sh: 0 with data and size, -1 when out of bounds. */
static int section(const image *im, const unsigned char *sh, const unsigned char **data, uint64_t *size)
{
	uint64_t off = rd64(sh + SH_OFFSET), n = rd64(sh + SH_SIZE_F), end;
	if (rd32(sh + SH_TYPE) == SHT_NOBITS) {
		*data = im->b;
		*size = 0;
		return 0;
	}
	if (__builtin_add_overflow(off, n, &end) || end > im->len)
		return -1;
	*data = im->b + off;
	*size = n;
	return 0;
}

/* Parses the records of one .nv.info.<kernel> section. */
static int parse_info(ks_cubin_params *out, const unsigned char *d, uint64_t n, const char *name)
{
	uint64_t off = 0;
	size_t nrec = 0;
	while (n - off >= 4) {
		unsigned fmt = d[off], attr = d[off + 1];
		uint32_t val = rd16(d + off + 2);
		if (fmt == EIFMT_NVAL || fmt == EIFMT_BVAL || fmt == EIFMT_HVAL) {
			if (attr == EIATTR_CBANK_PARAM_SIZE && fmt == EIFMT_HVAL)
				out->total = val;
			off += 4;
			continue;
		}
		if (fmt != EIFMT_SVAL)
			return 1; /* a format this reader does not know: the rest cannot be framed */
		if (val > n - off - 4)
			return ks_error_set(KS_EINVALID, "CUBIN: a record of kernel %.200s runs past its "
					    "section", name);
		if (attr == EIATTR_KPARAM_INFO) {
			const unsigned char *r = d + off + 4;
			uint32_t ordinal, size;
			if (val < 12)
				return ks_error_set(KS_EINVALID, "CUBIN: a parameter record of kernel %.200s is "
						    "%u bytes", name, val);
			ordinal = rd16(r + 4);
			size = (rd32(r + 8) >> 18) & 0x3fff;
			if ((size_t)ordinal + 1 > out->nparams)
				out->nparams = (size_t)ordinal + 1;
			if (ordinal < KS_CUBIN_MAX_PARAMS)
				out->size[ordinal] = size;
			nrec++;
		}
		off += 4 + (uint64_t)val;
	}
	/* parameters but no record of them: a layout this reader does not know */
	if (nrec == 0 && out->total > 0)
		return 1;
	return 0;
}

int ks_cubin_kernel_params(ks_cubin_params *out, const void *data, size_t len, const char *lowered)
{
	image im = { data, len };
	const unsigned char *shdrs, *strtab, *d;
	uint64_t shoff, shbytes, shend, strsize, dsize;
	uint32_t shentsize, shnum, shstrndx, i;
	size_t plen = strlen(INFO_PREFIX);

	memset(out, 0, sizeof(*out));
	out->total = -1;
	if (!data || len < EH_SIZE || memcmp(im.b, "\177ELF", 4) != 0 || im.b[4] != 2 || im.b[5] != 1)
		return ks_error_set(KS_EINVALID, "CUBIN: not a little-endian ELF64 image");
	shoff = rd64(im.b + EH_SHOFF);
	shentsize = rd16(im.b + EH_SHENTSIZE);
	shnum = rd16(im.b + EH_SHNUM);
	shstrndx = rd16(im.b + EH_SHSTRNDX);
	if (shnum == 0 || shstrndx >= SHN_LORESERVE)
		return 1; /* extended numbering, which NVRTC's images never need */
	if (shentsize < SH_SIZE || __builtin_mul_overflow((uint64_t)shentsize, (uint64_t)shnum, &shbytes) ||
	    __builtin_add_overflow(shoff, shbytes, &shend) || shend > len)
		return ks_error_set(KS_EINVALID, "CUBIN: section headers out of bounds");
	if (shstrndx >= shnum)
		return ks_error_set(KS_EINVALID, "CUBIN: bad section name table index");
	shdrs = im.b + shoff;
	if (section(&im, shdrs + (size_t)shstrndx * shentsize, &strtab, &strsize) < 0)
		return ks_error_set(KS_EINVALID, "CUBIN: section name table out of bounds");
	for (i = 0; i < shnum; i++) {
		const unsigned char *sh = shdrs + (size_t)i * shentsize;
		const char *name;
		uint32_t at = rd32(sh + SH_NAME);
		const unsigned char *nul;
		if (at >= strsize)
			continue;
		name = (const char *)strtab + at;
		nul = memchr(name, '\0', strsize - at);
		if (!nul || (size_t)((const char *)nul - name) != plen + strlen(lowered) ||
		    memcmp(name, INFO_PREFIX, plen) != 0 || strcmp(name + plen, lowered) != 0)
			continue;
		if (section(&im, sh, &d, &dsize) < 0)
			return ks_error_set(KS_EINVALID, "CUBIN: section %.200s out of bounds", name);
		return parse_info(out, d, dsize, lowered);
	}
	return 1;
}

static uint32_t param_bytes(ks_param_kind k)
{
	return (uint32_t)ks_plan_param_size(k);
}

/* The CUBIN that holds function `func` of an image (a bundle's part, lang/image.h), or NULL. */
static const void *part_of(size_t *plen, const void *img, size_t len, size_t nlowered, uint32_t func)
{
	ks_image_part parts[KS_IMAGE_MAX_PARTS];
	size_t n = 0, i;
	uint32_t first = 0;
	if (ks_image_parts(parts, &n, img, len, (uint32_t)nlowered) < 0) {
		ks_error_clear();
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (func < first + parts[i].nnames) {
			*plen = parts[i].len;
			return parts[i].data;
		}
		first += parts[i].nnames;
	}
	return NULL;
}

/* "8, 8, 4" into buf (truncated with "..." when long). */
static void list(char *buf, size_t cap, const uint32_t *v, size_t n)
{
	size_t i, o = 0;
	buf[0] = '\0';
	for (i = 0; i < n && o + 16 < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s%u", i ? ", " : "", v[i]);
	if (i < n)
		snprintf(buf + o, cap - o, ", ...");
}

int ks_cubin_check_plan(char **detail, const void *img, size_t len, char *const *lowered,
			size_t nlowered, const ks_plan *plan)
{
	ks_cubin_params *cp = ks_calloc(1, sizeof(*cp));
	uint32_t want[KS_LAUNCH_MAX_ARGS + 1];
	size_t k, i;
	int rc = 0;

	*detail = NULL;
	for (k = 0; k < plan->nkernels && rc == 0; k++) {
		const ks_plan_kernel *pk = &plan->kernels[k];
		size_t n = pk->nparams < KS_LAUNCH_MAX_ARGS ? pk->nparams : KS_LAUNCH_MAX_ARGS;
		char have_s[512], want_s[512];
		int same;
		const void *part;
		size_t plen = 0;
		if (pk->func >= nlowered || !(part = part_of(&plen, img, len, nlowered, pk->func)) ||
		    ks_cubin_kernel_params(cp, part, plen, lowered[pk->func]) != 0)
			continue; /* cannot tell: the GPU path checks again */
		for (i = 0; i < n; i++)
			want[i] = param_bytes(pk->params[i].kind);
		same = cp->nparams == pk->nparams;
		for (i = 0; same && i < n; i++)
			same = cp->size[i] == want[i];
		if (same)
			continue;
		list(have_s, sizeof(have_s), cp->size,
		     cp->nparams < KS_CUBIN_MAX_PARAMS ? cp->nparams : KS_CUBIN_MAX_PARAMS);
		list(want_s, sizeof(want_s), want, n);
		*detail = ks_asprintf("kernel %s takes %zu parameters (%s bytes) but the launch plan passes "
				      "%zu (%s bytes)", pk->name, cp->nparams, have_s, pk->nparams, want_s);
		rc = 1;
	}
	ks_free(cp);
	return rc;
}

int ks_cubin_check_launch(char **detail, const void *img, size_t len, char *const *lowered,
			  size_t nlowered, const ks_problem *p, const ks_launch *l)
{
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	int rc = 0;

	*detail = NULL;
	if (p->ncorrectness == 0)
		return 0;
	if (ks_problem_env(&env, p, &p->correctness[0]) == 0 &&
	    ks_plan_build(&plan, p, l, &p->correctness[0], &env, 1, 0, NULL) == 0) {
		rc = ks_cubin_check_plan(detail, img, len, lowered, nlowered, &plan);
		ks_plan_clear(&plan);
	}
	ks_env_free(&env);
	return rc;
}
