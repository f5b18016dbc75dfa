// Applies batches of work on a thread of its own while the caller fills the next batch (the leaks
// scan, leaks_scan.h: reading and parsing on one core, the live table on the other).
// One batch is in hand at a time; the caller waits when the worker is behind.
//
// Failure: the first exception thrown while applying a batch (of any type: a thrown exception
// must never reach the thread's top and terminate the tool) is kept, and no later batch is
// applied, as the state it works on may be half updated. hand_over() then answers false, so
// that the caller stops early, and finish() answers false. A thread that cannot be started
// (std::system_error, out of threads or memory) is no failure: the batches are applied on the
// caller's thread instead, in the same order.
//
// Every member the two threads share is read and written under the mutex; the batch itself is
// handed over by swapping under it, so the worker reads what the caller wrote before.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

namespace rtrace {

template <typename Batch>
class BatchWorker {
 public:
  // Without `own_thread`, every batch is applied on the caller's thread by hand_over() (the
  // leaks scan when each of its two threads applies its own half's batches).
  explicit BatchWorker(std::function<void(Batch&)> apply, bool own_thread = true)
      : apply_(std::move(apply)) {
    if (!own_thread) {
      return;
    }
    try {
      thread_.emplace([this] { run(); });
    } catch (const std::system_error&) {
      thread_.reset();  // applied inline by hand_over()
    }
  }
  BatchWorker(const BatchWorker&) = delete;
  BatchWorker& operator=(const BatchWorker&) = delete;
  ~BatchWorker() { finish(); }

  // Hands `batch` over and gives back an empty one (with its capacity); false once applying a
  // batch has failed (nothing more is applied).
  bool hand_over(Batch& batch) {
    if (!thread_) {
      apply_guarded(batch);
      batch.clear();
      return !error_;
    }
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !full_; });
    if (error_) {
      batch.clear();
      return false;
    }
    std::swap(batch, in_hand_);
    batch.clear();
    full_ = true;
    changed_.notify_all();
    return true;
  }

  // Waits for the batches handed over and stops the thread; false when applying one failed.
  bool finish() {
    if (thread_ && thread_->joinable()) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return !full_; });
        done_ = true;
        changed_.notify_all();
      }
      thread_->join();
    }
    return !error_;  // the thread, if any, is joined
  }

  // What applying a batch threw, or nothing; read it after finish().
  std::exception_ptr error() const { return error_; }

 private:
  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [this] { return full_ || done_; });
      if (!full_) {
        return;
      }
      if (!error_) {
        lock.unlock();  // the caller fills its own batch meanwhile; in_hand_ is the worker's
        std::exception_ptr error = apply_guarded_unlocked(in_hand_);
        lock.lock();
        error_ = std::move(error);
      }
      full_ = false;
      changed_.notify_all();
    }
  }

  std::exception_ptr apply_guarded_unlocked(Batch& batch) {
    try {
      apply_(batch);
    } catch (...) {
      return std::current_exception();
    }
    return nullptr;
  }

  // Without a thread.
  void apply_guarded(Batch& batch) {
    if (!error_) {
      error_ = apply_guarded_unlocked(batch);
    }
  }

  std::function<void(Batch&)> apply_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Batch in_hand_;
  bool full_ = false;
  bool done_ = false;
  std::exception_ptr error_;
  std::optional<std::thread> thread_;  // last: starts once the members it uses exist
};

}  // namespace rtrace
