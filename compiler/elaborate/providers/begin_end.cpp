// begin, end, error and never, each but never with an optional sequence
// number ("begin(-5)" runs before "begin"): they run in user space, once,
// in the runtime, so everything about them is known in pass 2.
#include "elaborate/providers/provider.h"

namespace stap {

namespace {

class BeginEndProvider : public ProbeProvider {
 public:
  BeginEndProvider()
      : ProbeProvider("begin/end",
                      {"begin", "begin(number)", "end", "end(number)", "error", "error(number)",
                       "never"},
                      /*resolved_later=*/false) {}
  // Any 64-bit sequence number is valid (stap's init uses INT64_MIN), and
  // the parser only lets literals through, so the shape is the whole check.
};

}  // namespace

const ProbeProvider& begin_end_provider() {
  static const BeginEndProvider provider;
  return provider;
}

}  // namespace stap
