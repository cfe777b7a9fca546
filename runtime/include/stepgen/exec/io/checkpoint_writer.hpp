#pragma once
/// \file
/// Checkpoints written in the background (one process, in core; docs/io.md): a writer thread
/// runs write_checkpoint (checkpoint.hpp: temporary file, fsync, rename, the same bytes) from
/// the caller's buffers, which it borrows, while the caller goes on. At most one checkpoint is
/// in flight: submit() waits for the previous one first (ordering, and nothing queued behind
/// it). The caller learns that a checkpoint is complete, or why it failed, from poll(), wait()
/// or close(), on its own thread: a failure (a RunError naming the file and the cause) is
/// rethrown there, never lost. Standard library only.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "stepgen/exec/io/checkpoint.hpp"

namespace stepgen::rt::io {

class CheckpointWriter {
 public:
  /// A checkpoint the thread has completed (renamed over its path).
  struct Done {
    std::string path;
    std::int64_t step = 0;
    std::uint64_t bytes = 0;  ///< the arrays' bytes
    double seconds = 0;       ///< from the start of its write to its rename
  };

  /// `threads`: write_checkpoint's (0: checkpoint_threads()).
  explicit CheckpointWriter(unsigned threads = 0) : threads_(threads) {
    thread_ = std::thread([this] { run(); });
  }
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;
  /// Waits for the checkpoint in flight (it completes, or its temporary file is removed); a
  /// failure not yet reported is printed to stderr (call close() to have it thrown).
  ~CheckpointWriter() {
    try {
      close();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
    }
  }

  /// Waits for the checkpoint in flight (rethrowing its failure; its Done is kept for the next
  /// poll()/wait()), then starts writing `arrays` at `step` to `path` and returns. The
  /// pieces are borrowed: their buffers must stay unchanged until the next wait() or close()
  /// returns.
  void submit(const std::string& path, const std::string& spec_hash, std::int64_t step,
              const Box& grid, std::vector<CheckpointSource> arrays,
              CheckpointReductions reductions = {}) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (closed_) throw std::logic_error("CheckpointWriter::submit after close");
    idle(lock);
    job_ = Job{path, spec_hash, step, grid, std::move(arrays), std::move(reductions)};
    has_job_ = true;
    changed_.notify_all();
  }

  /// The checkpoints completed since the last call, without waiting; rethrows a failure.
  std::vector<Done> poll() {
    std::unique_lock<std::mutex> lock(mutex_);
    rethrow();
    return take();
  }

  /// Waits until no checkpoint is in flight (the borrowed buffers are free again); returns the
  /// checkpoints completed since the last call; rethrows a failure.
  std::vector<Done> wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle(lock);
    return take();
  }

  /// Waits for the checkpoint in flight (timed as wait() is) without reporting anything (its
  /// failure or Done stays for the next call): before the caller's buffers may go away, e.g.
  /// while unwinding from another error.
  void wait_quietly() noexcept {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!has_job_) return;
    const auto t0 = std::chrono::steady_clock::now();
    changed_.wait(lock, [&] { return !has_job_; });
    waited_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  /// Waits for the checkpoint in flight, stops the thread; rethrows a failure not yet
  /// reported. Idempotent. done() then gives the checkpoints completed and not yet taken.
  void close() {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      closed_ = true;
      changed_.notify_all();
    }
    if (thread_.joinable()) thread_.join();
    std::unique_lock<std::mutex> lock(mutex_);
    rethrow();
  }

  /// The checkpoints completed and not yet taken (after close(): all the rest).
  std::vector<Done> done() {
    std::unique_lock<std::mutex> lock(mutex_);
    return take();
  }

  /// The seconds callers waited in submit(), wait() and wait_quietly() for the thread.
  double waited_s() const { return waited_s_; }

 private:
  struct Job {
    std::string path, spec_hash;
    std::int64_t step = 0;
    Box grid;
    std::vector<CheckpointSource> arrays;
    CheckpointReductions reductions;
  };

  /// Waits until the thread has no job (timed as the caller's wait), rethrows its failure.
  void idle(std::unique_lock<std::mutex>& lock) {
    if (has_job_) {
      const auto t0 = std::chrono::steady_clock::now();
      changed_.wait(lock, [&] { return !has_job_; });
      waited_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    rethrow();
  }
  void rethrow() {
    if (error_) {
      std::exception_ptr e = error_;
      error_ = nullptr;
      std::rethrow_exception(e);
    }
  }
  std::vector<Done> take() {
    std::vector<Done> d;
    d.swap(done_);
    return d;
  }

  void run() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [&] { return closed_ || has_job_; });
      if (!has_job_) return;
      const Job& job = job_;
      lock.unlock();
      Done d;
      d.path = job.path;
      d.step = job.step;
      for (const CheckpointSource& s : job.arrays)
        d.bytes += static_cast<std::uint64_t>(job.grid.volume()) * element_type(s.type).bytes;
      std::exception_ptr failure;
      const auto t0 = std::chrono::steady_clock::now();
      try {
        write_checkpoint(job.path, job.spec_hash, job.step, job.grid, job.arrays, threads_,
                         job.reductions);
      } catch (...) {
        failure = std::current_exception();
      }
      d.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      lock.lock();
      if (failure)
        error_ = failure;
      else
        done_.push_back(std::move(d));
      job_ = Job{};
      has_job_ = false;
      changed_.notify_all();
    }
  }

  unsigned threads_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Job job_;
  bool has_job_ = false, closed_ = false;
  std::vector<Done> done_;
  std::exception_ptr error_;
  double waited_s_ = 0;
  std::thread thread_;
};

}  // namespace stepgen::rt::io
