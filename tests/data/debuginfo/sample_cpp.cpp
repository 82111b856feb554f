// C++ test program for the debuginfo library: namespaces, a class with
// out-of-line methods, an overload, a template and an anonymous namespace.
#include <cstdio>

namespace outer {
namespace inner {

struct Widget {
  int size;
  explicit Widget(int s) : size(s) {}
  int grow(int by);
  static long count(const Widget* w, long n);
};

__attribute__((noinline)) int Widget::grow(int by) {
  size += by;
  return size;
}

__attribute__((noinline)) long Widget::count(const Widget* w, long n) { return w->size * n; }

}  // namespace inner

__attribute__((noinline)) int twice(int v) { return v * 2; }
__attribute__((noinline)) double twice(double v) { return v * 2; }

template <typename T>
__attribute__((noinline)) T biggest(T a, T b) {
  return a > b ? a : b;
}

}  // namespace outer

namespace {
__attribute__((noinline)) int hidden(int v) { return v + 1; }
}  // namespace

int main(int argc, char**) {
  outer::inner::Widget w(argc);
  int g = w.grow(3);
  long c = outer::inner::Widget::count(&w, 4);
  std::printf("%d %ld %d %g %d %d\n", g, c, outer::twice(argc), outer::twice(1.5),
              outer::biggest(argc, 2), hidden(argc));
  return 0;
}
