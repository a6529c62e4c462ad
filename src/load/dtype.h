/* dtype: the element types kernels exchange with the harness, their sizes, names, poison patterns
 * and conversion to double for comparison. */
#ifndef KS_DTYPE_H
#define KS_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
	KS_DT_F32 = 0,
	KS_DT_F16,
	KS_DT_BF16,
	KS_DT_F64,
	KS_DT_I8,
	KS_DT_U8,
	KS_DT_I32,
	KS_DT_U32,
	KS_DT_I64,
	KS_DT_COUNT
} ks_dtype;

/* Parses "f32", "float32", "float", "f16", "half", "fp16", "bf16", "bfloat16", "f64", "double",
 * "i8", "u8", "i32", "int32", "int", "u32", "i64", "int64". Returns 0 or KS_EINVALID. */
int ks_dtype_parse(ks_dtype *out, const char *name);
const char *ks_dtype_name(ks_dtype t);
size_t ks_dtype_size(ks_dtype t);
int ks_dtype_is_float(ks_dtype t);

/* The value of element i of a buffer of type t, as a double. */
double ks_dtype_get(ks_dtype t, const void *base, size_t i);

/* Writes the poison pattern `variant` (0 or 1) for type t into one element's bytes (at most 8).
 * Floating poisons are NaNs with a distinctive payload; integer poisons are 0x5A.. / 0xA5.. bytes. */
void ks_dtype_poison(ks_dtype t, int variant, unsigned char out[8]);

/* Converters used by tests and comparisons. */
float ks_half_to_float(uint16_t h);
float ks_bf16_to_float(uint16_t b);
uint16_t ks_float_to_half(float f);
uint16_t ks_float_to_bf16(float f);

#endif
