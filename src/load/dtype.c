#include "load/dtype.h"
#include "util/errors.h"

#include <math.h>
#include <string.h>

static const struct {
	const char *name;
	size_t size;
	int is_float;
} g_types[KS_DT_COUNT] = {
	[KS_DT_F32] = { "f32", 4, 1 },  [KS_DT_F16] = { "f16", 2, 1 }, [KS_DT_BF16] = { "bf16", 2, 1 },
	[KS_DT_F64] = { "f64", 8, 1 },  [KS_DT_I8] = { "i8", 1, 0 },   [KS_DT_U8] = { "u8", 1, 0 },
	[KS_DT_I32] = { "i32", 4, 0 },  [KS_DT_U32] = { "u32", 4, 0 }, [KS_DT_I64] = { "i64", 8, 0 },
};

static const struct {
	const char *alias;
	ks_dtype t;
} g_alias[] = {
	{ "float32", KS_DT_F32 }, { "float", KS_DT_F32 },   { "fp32", KS_DT_F32 },
	{ "float16", KS_DT_F16 }, { "half", KS_DT_F16 },    { "fp16", KS_DT_F16 },
	{ "bfloat16", KS_DT_BF16 }, { "float64", KS_DT_F64 }, { "double", KS_DT_F64 },
	{ "fp64", KS_DT_F64 },    { "int8", KS_DT_I8 },     { "uint8", KS_DT_U8 },
	{ "int32", KS_DT_I32 },   { "int", KS_DT_I32 },     { "uint32", KS_DT_U32 },
	{ "int64", KS_DT_I64 },
};

int ks_dtype_parse(ks_dtype *out, const char *name)
{
	size_t i;
	for (i = 0; i < KS_DT_COUNT; i++) {
		if (!strcmp(name, g_types[i].name)) {
			*out = (ks_dtype)i;
			return 0;
		}
	}
	for (i = 0; i < sizeof(g_alias) / sizeof(g_alias[0]); i++) {
		if (!strcmp(name, g_alias[i].alias)) {
			*out = g_alias[i].t;
			return 0;
		}
	}
	return ks_error_set(KS_EINVALID, "unknown dtype \"%s\"", name);
}

const char *ks_dtype_name(ks_dtype t)
{
	return t < KS_DT_COUNT ? g_types[t].name : "?";
}

size_t ks_dtype_size(ks_dtype t)
{
	return t < KS_DT_COUNT ? g_types[t].size : 0;
}

int ks_dtype_is_float(ks_dtype t)
{
	return t < KS_DT_COUNT && g_types[t].is_float;
}

float ks_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
	float f;
	if (exp == 0) {
		/* zero or subnormal: value = mant * 2^-24 */
		f = (float)mant * 5.9604644775390625e-08f;
		return sign ? -f : f;
	}
	if (exp == 31)
		bits = sign | 0x7f800000u | (mant << 13);
	else
		bits = sign | ((exp + 112) << 23) | (mant << 13);
	memcpy(&f, &bits, 4);
	return f;
}

float ks_bf16_to_float(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;
	memcpy(&f, &bits, 4);
	return f;
}

uint16_t ks_float_to_bf16(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, 4);
	if (isnan(f))
		return (uint16_t)((bits >> 16) | 0x40);
	bits += 0x7fff + ((bits >> 16) & 1); /* round to nearest even */
	return (uint16_t)(bits >> 16);
}

uint16_t ks_float_to_half(float f)
{
	uint32_t bits, sign, mant;
	int exp;
	memcpy(&bits, &f, 4);
	sign = (bits >> 16) & 0x8000;
	exp = (int)((bits >> 23) & 0xff) - 127 + 15;
	mant = bits & 0x7fffff;
	if (((bits >> 23) & 0xff) == 0xff)
		return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
	if (exp >= 31)
		return (uint16_t)(sign | 0x7c00);
	if (exp <= 0) {
		uint32_t m, shift, r;
		if (exp < -10)
			return (uint16_t)sign;
		m = mant | 0x800000;
		shift = (uint32_t)(14 - exp);
		r = m >> shift;
		if ((m >> (shift - 1)) & 1 && ((m & ((1u << (shift - 1)) - 1)) || (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	} else {
		uint32_t r = (uint32_t)(exp << 10) | (mant >> 13);
		uint32_t rest = mant & 0x1fff;
		if (rest > 0x1000 || (rest == 0x1000 && (r & 1)))
			r++;
		return (uint16_t)(sign | r);
	}
}

double ks_dtype_get(ks_dtype t, const void *base, size_t i)
{
	const unsigned char *p = base;
	switch (t) {
	case KS_DT_F32: {
		float v;
		memcpy(&v, p + 4 * i, 4);
		return v;
	}
	case KS_DT_F16: {
		uint16_t v;
		memcpy(&v, p + 2 * i, 2);
		return ks_half_to_float(v);
	}
	case KS_DT_BF16: {
		uint16_t v;
		memcpy(&v, p + 2 * i, 2);
		return ks_bf16_to_float(v);
	}
	case KS_DT_F64: {
		double v;
		memcpy(&v, p + 8 * i, 8);
		return v;
	}
	case KS_DT_I8:
		return (double)(int8_t)p[i];
	case KS_DT_U8:
		return (double)p[i];
	case KS_DT_I32: {
		int32_t v;
		memcpy(&v, p + 4 * i, 4);
		return v;
	}
	case KS_DT_U32: {
		uint32_t v;
		memcpy(&v, p + 4 * i, 4);
		return v;
	}
	case KS_DT_I64: {
		int64_t v;
		memcpy(&v, p + 8 * i, 8);
		return (double)v;
	}
	default:
		return NAN;
	}
}

void ks_dtype_poison(ks_dtype t, int variant, unsigned char out[8])
{
	/* NaNs with payloads no arithmetic produces (canonical NaNs are 0x7fc00000 / 0x7e00 / 0x7fc0),
	 * so "still holds the poison" reliably means "never written". */
	uint32_t f32 = variant ? 0x7fa5a5a5u : 0x7fdeadbfu;
	uint16_t f16 = variant ? 0x7d5au : 0x7e5bu, bf16 = variant ? 0x7fa5u : 0x7fdbu;
	uint64_t f64 = variant ? 0x7ff5a5a5a5a5a5a5ull : 0x7ffdeadbeefdeadbull;
	memset(out, 0, 8);
	switch (t) {
	case KS_DT_F32:
		memcpy(out, &f32, 4);
		break;
	case KS_DT_F16:
		memcpy(out, &f16, 2);
		break;
	case KS_DT_BF16:
		memcpy(out, &bf16, 2);
		break;
	case KS_DT_F64:
		memcpy(out, &f64, 8);
		break;
	default:
		memset(out, variant ? 0xa5 : 0x5a, ks_dtype_size(t));
		break;
	}
}
