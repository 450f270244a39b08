/* fuzz_xplane.c: the XSpace reader (xplane.c, jax_model.c and protobuf-c) on any bytes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	if (!r)
		r = fuzz_reader("xplane");
	fuzz_read(r, data, size, 0);
	return 0;
}
