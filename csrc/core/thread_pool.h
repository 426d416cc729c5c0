// A fixed pool of worker threads that runs "task i for i in 0..n" and waits.
// run() must be called from one thread at a time (the owner); the calling
// thread works too, so a pool of size 1 has no extra thread at all.
#ifndef POPUCOM_CORE_THREAD_POOL_H_
#define POPUCOM_CORE_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace popucom {

class ThreadPool {
 public:
  explicit ThreadPool(int threads) {
    for (int i = 1; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs task(i) for every i in [0, tasks) across the pool and returns when
  // all are done. The first exception thrown by a task is rethrown here.
  void run(int tasks, const std::function<void(int)>& task) {
    if (tasks <= 0) return;
    if (workers_.empty() || tasks == 1) {
      for (int i = 0; i < tasks; ++i) task(i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      num_tasks_ = tasks;
      next_task_.store(0);
      unfinished_ = tasks;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    drain();
    std::unique_lock<std::mutex> lock(mutex_);
    // Wait for the workers to leave drain() too, so none can touch this
    // generation's task after run() returns.
    done_.wait(lock, [&] { return unfinished_ == 0 && active_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void drain() {
    for (;;) {
      const int i = next_task_.fetch_add(1);
      if (i >= num_tasks_) return;
      try {
        (*task_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex_);
      if (--unfinished_ == 0) done_.notify_all();
    }
  }

  void work() {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && task_ != nullptr); });
        if (stopping_) return;
        seen = generation_;
        ++active_;
      }
      drain();
      std::lock_guard<std::mutex> lock(mutex_);
      if (--active_ == 0) done_.notify_all();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* task_ = nullptr;
  int num_tasks_ = 0;
  std::atomic<int> next_task_{0};
  int unfinished_ = 0;
  int active_ = 0;  // workers inside drain()
  uint64_t generation_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace popucom

#endif  // POPUCOM_CORE_THREAD_POOL_H_
