/* fuzz_memory_timeline.c: the PyTorch memory timeline recogniser (pytorch_other.c) on any bytes, as ingest_file() would call it. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	if (!r)
		r = fuzz_reader("memory-timeline");
	fuzz_read(r, data, size, 0);
	return 0;
}
