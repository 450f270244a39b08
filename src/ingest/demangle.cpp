/* demangle.cpp: the one call into the C++ runtime's demangler (see demangle.h). */
#include "ingest/demangle.h"

#include <cstdlib>
#include <cxxabi.h>

extern "C" char *demangle(const char *name)
{
	if (!name || name[0] != '_' || name[1] != 'Z')
		return nullptr;
	int status = 0;
	char *out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
	if (status != 0) {
		std::free(out);
		return nullptr;
	}
	return out; /* malloc'd by __cxa_demangle: the caller's free() releases it */
}
