// A test program for the debuginfo library (tests/unit/test_debuginfo_*):
// structs with bit fields and arrays, pointer parameters, locals in nested
// blocks, a static function, a library call through the PLT, a call into
// libdisample.so, and USDT marks with and without a semaphore.
// Built with -g at -O0 and -O2 by tests/CMakeLists.txt.  The line numbers
// of the markers below are looked up by the tests, not hard-coded.
#define _SDT_HAS_SEMAPHORES 1
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include "sample_lib.h"

// With _SDT_HAS_SEMAPHORES every mark of this file has a semaphore.
unsigned short sample_summed_semaphore __attribute__((section(".probes"))) = 0;
unsigned short sample_three_semaphore __attribute__((section(".probes"))) = 0;
unsigned short sample_counted_semaphore __attribute__((section(".probes"))) = 0;

struct point {
  long x;
  long y;
};

struct record {
  int id;
  char name[16];
  unsigned flags : 3;
  unsigned level : 5;
  struct point where;
  struct record *next;
  union {
    int as_int;
    float as_float;
  };
};

long sample_global = 7;

__attribute__((noinline)) int sample_sum(struct record *r, int scale, const char *label) {
  static int calls = 41;  // a DW_OP_addr location: moves with the load bias
  int total = r->id * scale + calls++ - 41;  // LINE:sum_body
  for (int i = 0; i < 16 && r->name[i]; ++i) {
    int weight = r->name[i] - 'a';
    total += weight;  // LINE:sum_loop
  }
  if (label) total += (int)strlen(label);
  DTRACE_PROBE2(sample, summed, total, r->id);
  return total + (int)r->where.x;
}

__attribute__((noinline)) static double sample_scale(double value, unsigned char factor) {
  return value * factor;
}

__attribute__((noinline)) void sample_marks(long a, int b, const char *s) {
  STAP_PROBE3(sample, three, a, b, s);
  if (sample_counted_semaphore) STAP_PROBE1(sample, counted, a + b);
}

// `sample_c_O0 --layout`: the struct layout as the compiler sees it, for
// the tests to compare with what the DWARF says: member offsets, and the
// bytes of a record whose bit fields are flags=5, level=17.
static void print_layout(void) {
  printf("sizeof %zu\n", sizeof(struct record));
  printf("id %zu\nname %zu\nwhere %zu\nnext %zu\nas_int %zu\n", offsetof(struct record, id),
         offsetof(struct record, name), offsetof(struct record, where),
         offsetof(struct record, next), offsetof(struct record, as_int));
  struct record r;
  memset(&r, 0, sizeof r);
  r.flags = 5;
  r.level = 17;
  printf("bytes");
  for (size_t i = 0; i < sizeof r; ++i) printf(" %02x", ((unsigned char *)&r)[i]);
  printf("\n");
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--layout") == 0) {
    print_layout();
    return 0;
  }
  struct record *r = calloc(1, sizeof *r);
  r->id = argc;
  strcpy(r->name, "abc");
  r->flags = 5;
  r->level = 17;
  r->where.x = 40;
  int sum = sample_sum(r, 3, argc > 1 ? argv[1] : NULL);
  sample_marks(sum, argc, "marked");
  printf("%d %g %ld\n", sum, sample_scale(1.5, (unsigned char)argc), sample_lib_twice(sum));
  free(r);
  return 0;
}
