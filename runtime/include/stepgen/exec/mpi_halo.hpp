#pragma once
/// \file
/// The MPI halo exchange, written once (BasicHaloExchange: the message plan between ranks,
/// Irecv/Isend/Waitall, tags, bytes, errors) over a staging where packed boxes live
/// (HostStaging: host arrays, the out-of-core pass boundaries). MpiMessenger: the messages
/// of the in-core exchange executors (exchange_opencl.hpp, exchange_cuda.hpp) between ranks.

#include <mpi.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stepgen/description/init.hpp"
#include "stepgen/description/reduce.hpp"
#include "stepgen/exec/mpi.hpp"
#include "stepgen/exec/ooc.hpp"
#include "stepgen/exec/program.hpp"
#include "stepgen/plan/box.hpp"
#include "stepgen/plan/exchange.hpp"

namespace stepgen::mpi {

/// The arrays of one halo exchange, by id: a braced list (`{0, 1}`) or a vector. A view: the
/// list it names must outlive it (a call's argument does).
class ArrayIds {
 public:
  ArrayIds(std::initializer_list<int> ids) : list_(ids) {}
  ArrayIds(const std::vector<int>& ids) : vector_(&ids) {}
  const int* begin() const { return vector_ ? vector_->data() : list_.begin(); }
  const int* end() const { return vector_ ? vector_->data() + vector_->size() : list_.end(); }

 private:
  std::initializer_list<int> list_;
  const std::vector<int>* vector_ = nullptr;
};

/// Where the halo exchange keeps a packed box: its backend. A staging has `Buffer` (one packed
/// box, contiguous, exactly the box's bytes), `make(peer, name, element_bytes, box, direction)`
/// that allocates one for a message to ("to") or from ("from") rank `peer`, and `data(buffer)`,
/// the address MPI sends from or receives into. This one keeps boxes in host memory, as
/// rt::HostArray over the box (global coordinates): the OpenCL programs (the device's
/// rectangular reads and writes pack and unpack) and the out-of-core pass boundaries
/// (rt::copy_host_box between a rank's host arrays and the messages). mpi_cuda.hpp has the
/// CUDA one (pinned host memory, or device memory for a CUDA-aware MPI).
struct HostStaging {
  using Buffer = rt::HostArray;
  Buffer make(int /*peer*/, const std::string& name, std::size_t element_bytes, const rt::Box& box,
              const char* /*direction*/) const {
    return rt::HostArray(name, element_bytes, box);
  }
  static void* data(Buffer& b) { return b.bytes.data(); }
};

/// The halo exchange of one rank, written once for every backend (`Staging`, above, packs
/// nothing itself: it says where packed boxes live). For each exchanged array, the boxes of
/// the plan this rank sends (it owns them) and receives (it reads them), each a message with
/// its own buffer holding exactly that box, sent as MPI_BYTE. Every rank computes the same
/// plans, so both sides of a message agree on its size and order; the message tag is the
/// array's id, and MPI keeps messages of one tag between two ranks in order. Errors name the
/// MPI call, the array and the peer rank ("MPI_Irecv(A from rank 2) failed: ..."); the
/// session's failure policy adds this rank.
///
/// One exchange: start() posts every receive and calls `pack(id, buffer)` for every box sent
/// (the backend enqueues or does the copy of buffer's box into it); the caller waits for the
/// packs, computing meanwhile if it overlaps; send() sends the packed boxes and returns their
/// bytes (the volume in the reports); receive() waits for every receive and calls
/// `unpack(id, buffer)` for each; complete() waits for the sends, after which the send buffers
/// may be packed again. finish() is receive() then complete(); exchange() all of them in a row.
/// The receive buffers are the backend's again once its unpacking has run (a later start()
/// reuses them).
template <class Staging>
class BasicHaloExchange {
 public:
  using Buffer = typename Staging::Buffer;

  /// Duplicates `comm` so that halo messages never meet the program's other messages.
  BasicHaloExchange(MPI_Comm comm, int rank, int arrays, Staging staging = Staging())
      : rank_(rank),
        staging_(std::move(staging)),
        sends_(static_cast<std::size_t>(arrays)),
        receives_(static_cast<std::size_t>(arrays)) {
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
  }
  BasicHaloExchange(const BasicHaloExchange&) = delete;
  BasicHaloExchange& operator=(const BasicHaloExchange&) = delete;
  ~BasicHaloExchange() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }

  /// Adds array `id`'s transfers (its exchange plan, part ids = ranks) that involve this rank.
  void add(int id, const std::string& name, std::size_t element_bytes,
           const std::vector<rt::Transfer>& plan) {
    for (const rt::Transfer& t : plan)
      for (const rt::Box& box : t.boxes) {
        if (static_cast<double>(box.volume()) * static_cast<double>(element_bytes) > INT_MAX)
          throw rt::RunError("a halo box of array " + name + " (" + box.str() +
                             ") is larger than one MPI message can be (2 GiB)");
        if (t.src == rank_)
          at(sends_, id).push_back(message(t.dst, name, element_bytes, box, "to"));
        if (t.dst == rank_)
          at(receives_, id).push_back(message(t.src, name, element_bytes, box, "from"));
      }
  }

  /// True when this rank neither sends nor receives anything for any array.
  bool idle() const {
    for (std::size_t i = 0; i < sends_.size(); ++i)
      if (!sends_[i].empty() || !receives_[i].empty()) return false;
    return true;
  }

  /// The exchange in one call: start(ids, pack), `packed()` (waits for the packs), send(),
  /// finish(ids, unpack). Returns the bytes this rank sent.
  template <typename Pack, typename Packed, typename Unpack>
  std::size_t exchange(ArrayIds ids, Pack&& pack, Packed&& packed, Unpack&& unpack) {
    start(ids, pack);
    packed();
    const std::size_t bytes = send(ids);
    finish(ids, unpack);
    return bytes;
  }

  /// Posts every receive of `ids`, then calls `pack(id, buffer)` for every box sent.
  template <typename Pack>
  void start(ArrayIds ids, Pack&& pack) {
    if (in_flight_ || !receive_requests_.empty() || !send_requests_.empty())
      throw rt::RunError("internal error: a halo exchange started before the last one finished");
    for (int id : ids)
      for (Message& r : at(receives_, id)) {
        MPI_Request request = MPI_REQUEST_NULL;
        check(MPI_Irecv(Staging::data(r.buffer), static_cast<int>(r.bytes), MPI_BYTE, r.peer, id,
                        comm_, &request),
              "MPI_Irecv(" + r.name + " from rank " + std::to_string(r.peer) + ")");
        receive_requests_.push_back(request);
      }
    for (int id : ids)
      for (Message& s : at(sends_, id)) pack(id, s.buffer);
    in_flight_ = true;
  }

  /// Sends the packed boxes of `ids`; returns their bytes.
  std::size_t send(ArrayIds ids) {
    std::size_t bytes = 0;
    for (int id : ids)
      for (Message& s : at(sends_, id)) {
        MPI_Request request = MPI_REQUEST_NULL;
        check(MPI_Isend(Staging::data(s.buffer), static_cast<int>(s.bytes), MPI_BYTE, s.peer, id,
                        comm_, &request),
              "MPI_Isend(" + s.name + " to rank " + std::to_string(s.peer) + ")");
        send_requests_.push_back(request);
        bytes += s.bytes;
      }
    return bytes;
  }

  /// Waits for every receive posted by start(), then calls `unpack(id, buffer)` for each box
  /// of `ids` received.
  template <typename Unpack>
  void receive(ArrayIds ids, Unpack&& unpack) {
    wait(receive_requests_, "MPI_Waitall(halo receives)");
    for (int id : ids)
      for (Message& r : at(receives_, id)) unpack(id, r.buffer);
  }

  /// Waits for the sends: their buffers may be packed again.
  void complete() {
    wait(send_requests_, "MPI_Waitall(halo sends)");
    in_flight_ = false;
  }

  template <typename Unpack>
  void finish(ArrayIds ids, Unpack&& unpack) {
    receive(ids, unpack);
    complete();
  }

 private:
  struct Message {
    int peer = 0;           ///< the rank sent to or received from
    std::string name;       ///< the array's
    std::size_t bytes = 0;  ///< the packed box's
    Buffer buffer;          ///< the packed box, from the staging
  };

  Message message(int peer, const std::string& name, std::size_t element_bytes, const rt::Box& box,
                  const char* direction) {
    return Message{peer, name, static_cast<std::size_t>(box.volume()) * element_bytes,
                   staging_.make(peer, name, element_bytes, box, direction)};
  }

  static std::vector<Message>& at(std::vector<std::vector<Message>>& messages, int id) {
    if (id < 0 || static_cast<std::size_t>(id) >= messages.size())
      throw rt::RunError("internal error: halo exchange of array id " + std::to_string(id) +
                         ", not below " + std::to_string(messages.size()));
    return messages[static_cast<std::size_t>(id)];
  }

  static void wait(std::vector<MPI_Request>& requests, const char* call) {
    const int rc =
        MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
    requests.clear();
    check(rc, call);
  }

  int rank_;
  Staging staging_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<std::vector<Message>> sends_;                    ///< per array id
  std::vector<std::vector<Message>> receives_;                 ///< per array id
  std::vector<MPI_Request> receive_requests_, send_requests_;  ///< of the exchange under way
  bool in_flight_ = false;                                     ///< from start() to complete()
};

/// The halo exchange through host buffers (rt::HostArray over each box).
using HaloExchange = BasicHaloExchange<HostStaging>;

/// The messages of one exchange of a rank (the backends' ExchangeState's Messenger,
/// rank_parts.hpp) on a duplicate of `comm`: receives posted, sends made, then wait() for all of
/// them. The tag is the array's id; both sides list their messages in the plan's order.
class MpiMessenger {
 public:
  /// The ranks it sends to (MPI_COMM_SELF for --verify's one-part run).
  struct Config {
    MPI_Comm comm = MPI_COMM_WORLD;
  };
  static constexpr bool kRanks = true;
  explicit MpiMessenger(MPI_Comm comm) { check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup"); }
  explicit MpiMessenger(const Config& config) : MpiMessenger(config.comm) {}
  /// The ranks' communicator (its duplicate: the halo messages meet no other message).
  MPI_Comm comm() const { return comm_; }
  MpiMessenger(const MpiMessenger&) = delete;
  MpiMessenger& operator=(const MpiMessenger&) = delete;
  ~MpiMessenger() {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  void post_receive(int peer, int tag, void* data, std::size_t bytes, const std::string& what) {
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Irecv(data, count(bytes, what), MPI_BYTE, peer, tag, comm_, &request),
          "MPI_Irecv(" + what + ")");
    requests_.push_back(request);
  }
  void send(int peer, int tag, const void* data, std::size_t bytes, const std::string& what) {
    MPI_Request request = MPI_REQUEST_NULL;
    check(MPI_Isend(const_cast<void*>(data), count(bytes, what), MPI_BYTE, peer, tag, comm_,
                    &request),
          "MPI_Isend(" + what + ")");
    requests_.push_back(request);
  }
  void wait() {
    const int rc =
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
    check(rc, "MPI_Waitall(halo messages)");
  }

 private:
  static int count(std::size_t bytes, const std::string& what) {
    if (bytes > static_cast<std::size_t>(INT_MAX))
      throw rt::RunError("a halo box (" + what + ") is larger than one MPI message can be (2 GiB)");
    return static_cast<int>(bytes);
  }
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<MPI_Request> requests_;
};

}  // namespace stepgen::mpi
