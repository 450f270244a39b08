/*
 * reader_harness.c: the fuzz harness of one reader of the ingest table
 * (src/ingest/ingest.c) on any bytes, as ingest_file() would call it:
 * detect, then read when detected (fuzz_read()).
 *
 * One file for every reader that needs nothing more: the Makefile compiles
 * it once per entry of FUZZ_READERS (harness=reader, e.g. nvsmi=nvidia-smi)
 * with -DREADER='"reader"' into build/fuzz/reader_<harness>.o, which links
 * into regress_<harness> and fuzz_<harness> as a fuzz/fuzz_<harness>.c
 * would. A reader named nowhere in the table aborts on the first input.
 */
#include "fuzz.h"

#ifndef READER
#error "compile with -DREADER='\"<reader name>\"' (the Makefile's FUZZ_READERS)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	if (!r)
		r = fuzz_reader(READER);
	fuzz_read(r, data, size, 0);
	return 0;
}
