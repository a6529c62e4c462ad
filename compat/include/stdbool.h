/* kscore compatibility header <stdbool.h>: bool, true and false are C++ keywords. */
