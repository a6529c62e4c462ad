/* extract: turns LLM output into CUDA source the way an organizer would expect (DESIGN §2).
 *
 * Rules, in order:
 *  1. Chat-template tokens (<|im_end|>, <|EOT|>, <|endoftext|>, <|eot_id|>) are removed; CRLF
 *     becomes LF.
 *  2. If the text has fenced blocks (``` or ~~~, any length >= 3, indented by at most 3 spaces;
 *     closed by a fence of the same character at least as long), the blocks tagged cuda, cu, cuh,
 *     c++, cpp, cxx, c, h, hpp, or untagged are candidates; blocks tagged with another language
 *     (python, bash, json, text...) are ignored and counted in the note. If several candidate blocks
 *     exist they are joined in order (a kernel file split across blocks); an unclosed final fence
 *     runs to the end of the text.
 *  3. Without fences the whole text is the code.
 *  4. The result must contain a __global__ function; otherwise no code is returned.
 *
 * Text that is not UTF-8 yields no code: a stray byte would reach the compiler as garbage (NVRTC
 * then reports the kernel missing, hiding the real problem), and the code is quoted in reports.
 */
#ifndef KS_EXTRACT_H
#define KS_EXTRACT_H

#include <stddef.h>

/* The language of an answer's code: what its front-end (lang/) is. */
typedef enum { KS_LANG_NONE = 0, KS_LANG_CUDA, KS_LANG_TRITON } ks_language;

/* "cuda", "triton", or "none": the names score.json and the site use. */
const char *ks_language_name(ks_language l);

/* Checks that text[0..len) is text that code can hold: valid UTF-8 without NUL characters.
 * Returns 0, or KS_EINVALID with a message naming the first bad byte, its byte offset and its
 * line and column (in characters). */
int ks_extract_check_text(const char *text, size_t len);

/* On success *code is the extracted source and *note says what was taken ("2 ```cuda blocks joined;
 * 1 ```python block ignored", "whole text"). When nothing usable is found, *code is NULL and *note
 * says why ("no __global__ function in any C/C++/CUDA block; 1 ```python block ignored", or where
 * the text stops being UTF-8). Both are
 * caller-owned. Always returns 0 except on invalid arguments (KS_EINVALID). */
int ks_extract_code(char **code, char **note, const char *text);

/* The Triton answer in text (a Triton front-end's source, lang/triton/): the rules above with the
 * blocks tagged python, py, python3, triton or untagged as candidates, and a `triton.jit` kernel
 * (`@triton.jit` or `@triton.autotune` over one) required instead of a __global__ function. Same
 * contract as ks_extract_code. */
int ks_extract_triton(char **code, char **note, const char *text);

/* For text in which no CUDA code was found: names the language it is written in when that is
 * recognisably Python ("Triton (Python)" for Triton kernels, "Python" otherwise), so the entry can
 * be told that kscore scores CUDA C++; NULL when the text looks like neither. The string is static. */
const char *ks_extract_foreign_language(const char *text);

/* Finds a structured launch comment (a block comment whose text starts with `kscore-launch`
 * followed by JSON, or a line comment `// kscore-launch: {json}`) and returns its JSON text,
 * trimmed (caller frees), or NULL if there is none. Only the first such comment counts; markers
 * inside string literals are not comments. */
char *ks_extract_launch_comment(const char *code);

#endif
