/* kscore compatibility header <nvToolsExt.h>, a stand-in: NVTX ranges are marked from the host; nothing is declared. */
