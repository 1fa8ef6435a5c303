// Runs a kernel of the reduce, scan or sort families on the CPU (sort_emulation.h): `source` is
// the text launch_named was given (recognised by address among the emulated dtypes), `args` the
// cudaLaunchKernel argument block. False when that source or kernel is not emulated.
#pragma once

#include <string>

bool emu_reduce_dispatch(const std::string& source, const std::string& name, unsigned block,
                         void** args);
bool emu_scan_dispatch(const std::string& source, const std::string& name, unsigned block,
                       void** args);
bool emu_sort_dispatch(const std::string& source, const std::string& name, unsigned block,
                       void** args);
