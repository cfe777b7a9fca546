#pragma once
/// \file
/// A snapshot series written by a background thread, so that writing overlaps the next steps:
/// submit() copies the pieces and returns (it waits only when `max_queued` steps are already
/// waiting: memory stays bounded when the disk is slower than the run), the thread writes the
/// steps in order. A failure is kept and rethrown, naming the file and the HDF5 call, by the
/// next submit(), flush() or close(); the steps after it are not written. For serial HDF5 only
/// (parallel HDF5 is not thread-safe, and its MPI calls from this thread would need
/// MPI_THREAD_MULTIPLE). Debian's serial HDF5 is thread-safe (H5_HAVE_THREADSAFE); with one
/// that is not, no other thread may call HDF5 while a writer is open.

#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "stepgen/exec/io/snapshot.hpp"

namespace stepgen::rt::io {

class SnapshotWriter {
 public:
  /// Takes the series (created, and its creation's errors reported, by the caller).
  explicit SnapshotWriter(std::unique_ptr<SnapshotSeries> series, std::size_t max_queued = 2)
      : series_(std::move(series)), max_queued_(max_queued ? max_queued : 1) {
    if (!series_) throw std::invalid_argument("SnapshotWriter without a series");
    thread_ = std::thread([this] { run(); });
  }
  SnapshotWriter(const SnapshotWriter&) = delete;
  SnapshotWriter& operator=(const SnapshotWriter&) = delete;
  /// Joins the thread after the queued steps; an error not yet reported is printed to stderr
  /// (a destructor cannot throw: call close() to have it thrown).
  ~SnapshotWriter() {
    try {
      close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
    }
  }

  const SnapshotSeries& series() const { return *series_; }

  /// Queues `arrays` at `step` (their values copied now: the caller may change its buffers as
  /// soon as this returns). With `borrow`, nothing is copied: the thread writes from the
  /// caller's buffers, which must stay unchanged until flush() (or close()) returns (an in-core
  /// run's host copies, which only the next fetch changes: no copy in the time loop at all).
  /// Rethrows an earlier failure of the thread.
  void submit(std::int64_t step, const std::vector<SnapshotArray>& arrays, bool borrow = false) {
    Job job;
    job.step = step;
    series_->check(arrays);
    for (const SnapshotArray& a : arrays) {
      const std::size_t eb = element_type(a.type).bytes;
      job.copies.emplace_back();
      if (borrow) {
        job.arrays.push_back(a);
        continue;
      }
      for (const Piece& p : a.pieces) job.copies.back().emplace_back(p, eb);
      job.arrays.push_back({a.name, a.type, {}});
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) throw std::logic_error("SnapshotWriter::submit after close");
    changed_.wait(lock, [&] { return error_ || queue_.size() < max_queued_; });
    rethrow(lock);
    queue_.push_back(std::move(job));
    changed_.notify_all();
  }

  /// Waits until every queued step is written; rethrows a failure.
  void flush() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return error_ || (queue_.empty() && !busy_); });
    rethrow(lock);
  }

  /// On an error path: waits until the thread no longer reads the caller's buffers; a failure
  /// not reported yet is printed to stderr, one already reported (the error on its way out)
  /// is not printed again.
  void wait_quietly() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !busy_ && (error_ || queue_.empty()); });
    if (!error_ || reported_) return;
    reported_ = true;
    try {
      std::rethrow_exception(error_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
    } catch (...) {
    }
  }

  /// Writes what is queued, stops the thread; rethrows a failure. Idempotent.
  void close() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      closed_ = true;
      changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    std::unique_lock<std::mutex> lock(mutex_);
    if (error_ && !reported_) rethrow(lock);
  }

 private:
  struct Job {
    std::int64_t step = 0;
    std::vector<SnapshotArray> arrays;
    std::vector<std::vector<OwnedPiece>> copies;  ///< per array
  };

  void rethrow(std::unique_lock<std::mutex>&) {
    if (error_ && !reported_) {
      reported_ = true;
      std::rethrow_exception(error_);
    }
    if (error_) throw std::runtime_error("the snapshot writer stopped after an earlier error");
  }

  void run() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        changed_.wait(lock, [&] { return closed_ || !queue_.empty(); });
        if (queue_.empty() || error_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        changed_.notify_all();  // a submit waiting for room
      }
      std::exception_ptr failure;
      try {
        for (std::size_t i = 0; i < job.arrays.size(); ++i)
          for (const OwnedPiece& p : job.copies[i]) job.arrays[i].pieces.push_back(p.view());
        series_->write(job.step, job.arrays);
      } catch (...) {
        failure = std::current_exception();
      }
      std::unique_lock<std::mutex> lock(mutex_);
      busy_ = false;
      if (failure) {
        error_ = failure;
        queue_.clear();
      }
      changed_.notify_all();
      if (error_) return;
    }
  }

  std::unique_ptr<SnapshotSeries> series_;
  std::size_t max_queued_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;
  bool busy_ = false, closed_ = false, reported_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace stepgen::rt::io
