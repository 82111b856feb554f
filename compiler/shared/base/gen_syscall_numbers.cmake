# Turns <asm/unistd_64.h> into syscall_numbers.inc for syscall_table.cpp:
# one `{"NAME", NR},` line per `#define __NR_NAME NR`.
file(STRINGS "${HEADER}" lines REGEX "^#define __NR_[a-z0-9_]+ [0-9]+$")
set(out "// Generated from ${HEADER}; do not edit.\n")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^#define __NR_([a-z0-9_]+) ([0-9]+)$" "{\"\\1\", \\2}," entry "${line}")
  string(APPEND out "${entry}\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${out}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
