/* fuzz_jax_trace.c: the JAX trace JSON reader (jax.c, jax_model.c and the simdjson walk) on any bytes. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	if (!r)
		r = fuzz_reader("jax-trace");
	fuzz_read(r, data, size, 0);
	return 0;
}
