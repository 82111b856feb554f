// The shared library the debuginfo test program links (libdisample.so).
#pragma once
long sample_lib_twice(long value);
