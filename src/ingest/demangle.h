/*
 * demangle.h: C++ symbol names to their readable form, through the C++
 * runtime's abi::__cxa_demangle (demangle.cpp). nvprof's .nvvp stores kernel
 * names mangled ("_Z22trmm_right_kernel..."); Kineto and nsys give them
 * demangled, and classification and reports want the readable form.
 */
#ifndef PERFSTUDY_DEMANGLE_H
#define PERFSTUDY_DEMANGLE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The demangled name (caller frees), or NULL when name is not a mangled C++ symbol. */
char *demangle(const char *name);

#ifdef __cplusplus
}
#endif

#endif
