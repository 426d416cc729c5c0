// When a piece of work must end: a steady-clock time point, or none. The
// worker polls passed(); any other thread may set it or expire() it at any
// time (one atomic, so polling from a search while a front end stops it is
// safe without a lock). Work that finds it passed gives up as it does when
// its node budget runs out.
#ifndef POPUCOM_CORE_DEADLINE_H_
#define POPUCOM_CORE_DEADLINE_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

namespace popucom {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline() = default;
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  // The work must end at `when`.
  void set(Clock::time_point when) { ticks_.store(when.time_since_epoch().count(), std::memory_order_relaxed); }
  // The work must end `seconds` from now (<= 0 or NaN: at once; at most
  // MAX_SECONDS_AHEAD, so the clock arithmetic cannot overflow).
  void set_from_now(double seconds) { set(from_now(seconds)); }
  // The time point `seconds` from now, clamped as set_from_now() clamps it.
  static Clock::time_point from_now(double seconds) {
    seconds = seconds > 0 ? std::min(seconds, MAX_SECONDS_AHEAD) : 0.0;
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  }
  static constexpr double MAX_SECONDS_AHEAD = 1e8;  // about three years
  // No deadline: the work ends by its own budgets only.
  void clear() { ticks_.store(NONE, std::memory_order_relaxed); }
  // The work must end now: it stops at its next poll.
  void expire() { ticks_.store(std::numeric_limits<Clock::rep>::min(), std::memory_order_relaxed); }

  bool is_set() const { return ticks_.load(std::memory_order_relaxed) != NONE; }
  // One atomic load, and a clock read only when a deadline is set.
  bool passed() const {
    const Clock::rep ticks = ticks_.load(std::memory_order_relaxed);
    return ticks != NONE && Clock::now().time_since_epoch().count() >= ticks;
  }

 private:
  static constexpr Clock::rep NONE = std::numeric_limits<Clock::rep>::max();
  std::atomic<Clock::rep> ticks_{NONE};
};

}  // namespace popucom

#endif  // POPUCOM_CORE_DEADLINE_H_
