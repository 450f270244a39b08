/* fuzz_nccl_log.c: the NCCL log reader (nccl_log.c) on any bytes, as ingest_file() would call it. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	if (!r)
		r = fuzz_reader("nccl-log");
	fuzz_read(r, data, size, 0);
	return 0;
}
