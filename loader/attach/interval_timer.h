// A timer.*(N)[.randomize(M)] probe in user space: a timerfd that expires
// every N, or, randomized, after N plus a fresh offset in [-M, M] each
// period, as stap draws one per period.
#pragma once

#include <cstdint>
#include <random>

namespace stap {

class IntervalTimer {
 public:
  IntervalTimer(int64_t period_ns, int64_t randomize_ns);
  ~IntervalTimer();
  IntervalTimer(IntervalTimer&& other) noexcept;
  IntervalTimer(const IntervalTimer&) = delete;

  // Arms the first period; false when no timerfd could be made.
  bool start();
  // Readable at each expiry.
  int fd() const { return fd_; }
  // Consumes the expiry and arms the next (randomized) period.  Returns
  // how many periods passed (0 on a spurious wake-up).
  uint64_t acknowledge();

  // The next period: period_ns + an offset in [-randomize_ns, randomize_ns],
  // at least 1 ns.
  int64_t next_period();

 private:
  bool arm(int64_t first_ns, int64_t interval_ns);
  int64_t period_ns_;
  int64_t randomize_ns_;
  int fd_ = -1;
  std::mt19937_64 random_;
};

}  // namespace stap
