/* fuzz_nvtx_csv.c: the nsys stats NVTX CSV reader (nvtx_csv.c) on any bytes, as ingest_file() would call it. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct reader *r;
	if (!r)
		r = fuzz_reader("nsys-nvtx-csv");
	fuzz_read(r, data, size, 0);
	return 0;
}
