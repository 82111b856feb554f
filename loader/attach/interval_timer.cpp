#include "loader/attach/interval_timer.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>

namespace stap {

IntervalTimer::IntervalTimer(int64_t period_ns, int64_t randomize_ns)
    : period_ns_(period_ns), randomize_ns_(randomize_ns), random_(std::random_device{}()) {}

IntervalTimer::~IntervalTimer() {
  if (fd_ >= 0) close(fd_);
}

IntervalTimer::IntervalTimer(IntervalTimer&& other) noexcept
    : period_ns_(other.period_ns_),
      randomize_ns_(other.randomize_ns_),
      fd_(other.fd_),
      random_(other.random_) {
  other.fd_ = -1;
}

int64_t IntervalTimer::next_period() {
  int64_t period = period_ns_;
  if (randomize_ns_ > 0) {
    std::uniform_int_distribution<int64_t> offset(-randomize_ns_, randomize_ns_);
    period += offset(random_);
  }
  return period < 1 ? 1 : period;
}

bool IntervalTimer::arm(int64_t first_ns, int64_t interval_ns) {
  itimerspec spec{};
  spec.it_value.tv_sec = first_ns / 1000000000;
  spec.it_value.tv_nsec = first_ns % 1000000000;
  spec.it_interval.tv_sec = interval_ns / 1000000000;
  spec.it_interval.tv_nsec = interval_ns % 1000000000;
  return timerfd_settime(fd_, 0, &spec, nullptr) == 0;
}

bool IntervalTimer::start() {
  fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd_ < 0) return false;
  // Without randomization the kernel re-arms; with it, each expiry arms
  // the next one-shot period.
  int64_t first = next_period();
  return arm(first, randomize_ns_ > 0 ? 0 : first);
}

uint64_t IntervalTimer::acknowledge() {
  uint64_t expirations = 0;
  if (read(fd_, &expirations, sizeof expirations) != sizeof expirations) return 0;
  if (randomize_ns_ > 0) arm(next_period(), 0);
  return expirations;
}

}  // namespace stap
