#!/usr/bin/env bash
# Builds the debuginfo test programs (tests/unit/test_debuginfo_*.cpp):
#   build.sh CC CXX SOURCE_DIR OUT_DIR
# sample_c_O0/O2       C, -g, PIE, linked with libdisample.so.1 (RUNPATH $ORIGIN)
# sample_c_nopie       C, -g -O0, a fixed-address executable
# sample_cpp_O0/O2     C++, -g
# sample_c_debuglink   sample_c_O2 without DWARF, .gnu_debuglink to sample_c_debuglink.debug
# sample_c_buildid     sample_c_O2 without DWARF; its DWARF in debugroot/.build-id/xx/yyyy.debug
# sample_c_nodebug     sample_c_O2 without DWARF and without any separate debuginfo
# sample_c_mini        sample_c_O2 stripped of .symtab too, with MiniDebugInfo (.gnu_debugdata)
set -euo pipefail
cc=$1 cxx=$2 src=$3 out=$4
mkdir -p "$out"
cd "$out"
$cc -g -O0 -fPIC -shared -Wl,-soname,libdisample.so.1 -o libdisample.so.1 "$src/sample_lib.c"
for opt in O0 O2; do
  $cc -g -$opt -fPIE -pie -I"$src" -o sample_c_$opt "$src/sample.c" \
    ./libdisample.so.1 -Wl,-rpath,'$ORIGIN'
  $cxx -g -$opt -o sample_cpp_$opt "$src/sample_cpp.cpp"
done
$cc -g -O0 -fno-pie -no-pie -I"$src" -o sample_c_nopie "$src/sample.c" \
  ./libdisample.so.1 -Wl,-rpath,'$ORIGIN'

objcopy --only-keep-debug sample_c_O2 sample_c_debuglink.debug
objcopy --strip-debug --add-gnu-debuglink=sample_c_debuglink.debug sample_c_O2 sample_c_debuglink

objcopy --strip-debug sample_c_O2 sample_c_buildid
id=$(readelf -n sample_c_O2 | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
rm -rf debugroot
mkdir -p "debugroot/.build-id/${id:0:2}"
objcopy --only-keep-debug sample_c_O2 "debugroot/.build-id/${id:0:2}/${id:2}.debug"

objcopy --strip-debug sample_c_O2 sample_c_nodebug

# MiniDebugInfo as Fedora makes it: the .symtab in an xz-compressed ELF
# inside .gnu_debugdata of a fully stripped binary.
objcopy --only-keep-debug --remove-section='.debug_*' sample_c_O2 mini.elf
rm -f mini.elf.xz
xz -k mini.elf
objcopy --strip-all sample_c_O2 sample_c_mini
objcopy --add-section .gnu_debugdata=mini.elf.xz sample_c_mini
rm -f mini.elf mini.elf.xz
touch build.stamp
