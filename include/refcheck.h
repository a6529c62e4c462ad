/* refcheck: `score check-refs` — validates every reference problem before a hackathon relies on
 * it: the spec loads, the golden kernel compiles, and on a GPU the golden passes its own cases (it
 * runs, keeps its guard bands, writes every output, leaves its inputs alone, gives bit-identical
 * outputs on a repeat run), its outputs carry signal (they change with the inputs and are not
 * near-constant or within tolerance of zero), its perf cases are long enough to time, and it is
 * not faster than the measured roofline (which would mean the spec's bytes or FLOPs are wrong). */
#ifndef KS_REFCHECK_H
#define KS_REFCHECK_H

/* argv[0] is "check-refs". Returns the exit status: 0 every problem passes, 1 some fail,
 * 65 no problem loads, 69 no GPU (without --compile-only). */
int ks_refcheck_main(int argc, char **argv);

#endif
