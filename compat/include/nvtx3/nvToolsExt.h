/* kscore compatibility header <nvtx3/nvToolsExt.h>, a stand-in: NVTX ranges are marked from the host; nothing is declared. */
