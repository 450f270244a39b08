/* fuzz_kineto.c: the Kineto JSON reader (kineto.c and the simdjson walk) on any bytes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	if (!r)
		r = fuzz_reader("kineto");
	fuzz_read(r, data, size, 0);
	return 0;
}
