// Python bindings of the feeds behind textfeed.Loader: open_embedded / open_remote return a Feed;
// Feed.next() waits with the GIL released; Feed.lease(slot) gives a writable buffer over one ring
// slot whose destruction (when the last tensor over it dies) gives the slot back.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "augment/profile.h"
#include "client/embedded_feed.h"
#include "client/python/register.h"
#include "client/remote_feed.h"
#include "transport/curve.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

using namespace std::chrono_literals;

// What a Feed's Python object and its leases share. The feed goes at close(); the ring stays
// while any lease (any tensor) still points into it.
struct FeedState {
  std::mutex mu;
  std::shared_ptr<client::Feed> feed;         // guarded by mu; null once closed
  std::shared_ptr<const client::SlotRing> ring;
  bool defer = false;                         // guarded by mu: releases wait for take_pending()
  std::vector<uint32_t> pending;              // guarded by mu
  py::object ring_guard;                      // a Python object to keep while the ring lives

  ~FeedState() {
    if (ring_guard) {
      py::gil_scoped_acquire gil;
      ring_guard = py::object();  // e.g. unregisters CUDA pinning, before the ring is unmapped
    }
  }
  void release(uint32_t slot) {
    std::shared_ptr<client::Feed> f;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (defer) {
        pending.push_back(slot);
        return;
      }
      f = feed;
    }
    if (f) f->release(slot);
  }
};

// One delivered batch's slot, as a writable buffer. Gives the slot back when destroyed.
class SlotLease {
 public:
  SlotLease(std::shared_ptr<FeedState> state, uint32_t slot, size_t bytes)
      : state_(std::move(state)), slot_(slot), bytes_(bytes) {}
  ~SlotLease() { state_->release(slot_); }
  SlotLease(const SlotLease&) = delete;
  SlotLease& operator=(const SlotLease&) = delete;
  uint8_t* data() const { return state_->ring->slot(slot_); }
  size_t size() const { return bytes_; }
  uint32_t slot() const { return slot_; }

 private:
  std::shared_ptr<FeedState> state_;
  uint32_t slot_;
  size_t bytes_;
};

class PyFeed {
 public:
  explicit PyFeed(std::unique_ptr<client::Feed> feed) : state_(std::make_shared<FeedState>()) {
    state_->ring = feed->shared_ring();
    layout_ = feed->layout();
    state_->feed = std::move(feed);
  }

  std::shared_ptr<client::Feed> feed() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->feed) throw_status(Status::cancelled("this loader is closed"));
    return state_->feed;
  }

  // None when no batch came within `timeout_ms`; else (lease, epoch, batch, indices, errors): the
  // lease is made here, so that no interruption can leave a delivered slot without an owner.
  py::object next(int timeout_ms) {
    std::shared_ptr<client::Feed> f = feed();
    Result<std::optional<client::FeedBatch>> r = Status();
    {
      py::gil_scoped_release nogil;
      r = f->next(std::chrono::milliseconds(timeout_ms));
    }
    if (!r.has_value()) throw_status(r.error());
    if (!*r) return py::none();
    const client::FeedBatch& b = **r;
    py::list errors;
    for (const client::FeedSampleError& e : b.errors)
      errors.append(py::make_tuple(e.index, e.replaced_by, std::string(code_name(e.code)), e.message));
    return py::make_tuple(py::cast(std::make_unique<SlotLease>(state_, b.slot, layout_.slot_bytes)), b.epoch, b.batch,
                          b.indices, errors);
  }

  void seek(uint64_t epoch, uint64_t batch) {
    std::shared_ptr<client::Feed> f = feed();
    Status s;
    {
      py::gil_scoped_release nogil;
      s = f->seek(epoch, batch);
    }
    if (!s.ok()) throw_status(s);
  }

  py::dict layout() const {
    py::list tensors;
    for (const client::TensorInfo& t : layout_.tensors)
      tensors.append(py::make_tuple(t.name, t.dtype == DType::kU8 ? "uint8" : "float32",
                                    std::vector<int64_t>(t.shape.begin(), t.shape.end()), t.offset_bytes,
                                    t.sample_bytes));
    py::dict d;
    d["tensors"] = tensors;
    d["slot_bytes"] = layout_.slot_bytes;
    d["batches_per_epoch"] = layout_.batches_per_epoch;
    d["dataset_size"] = layout_.dataset_size;
    d["batch_size"] = layout_.batch_size;
    return d;
  }

  py::dict stats() const {
    const client::FeedStats s = feed()->stats();
    py::dict d;
    d["batches"] = s.batches;
    d["samples"] = s.samples;
    d["skipped_samples"] = s.skipped_samples;
    d["wait_seconds"] = s.wait_seconds;
    d["elapsed_seconds"] = s.elapsed_seconds;
    d["in_flight"] = s.in_flight;
    d["held_slots"] = s.held_slots;
    d["reconnects"] = s.reconnects;
    d["transport"] = s.transport;
    py::dict stages;
    for (size_t i = 0; i < s.stage_names.size() && i < s.stage_ms.size(); ++i) stages[py::str(s.stage_names[i])] = s.stage_ms[i];
    d["stage_ms_per_sample"] = stages;
    return d;
  }

  py::tuple position() const {
    std::shared_ptr<client::Feed> f = feed();
    return py::make_tuple(f->next_epoch(), f->next_batch());
  }

  void close() {
    std::shared_ptr<client::Feed> f;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      f = std::move(state_->feed);
      state_->pending.clear();
    }
    py::gil_scoped_release nogil;
    f.reset();  // a remote feed closes its stream and stops its thread here
  }
  bool closed() const {
    std::lock_guard<std::mutex> lock(state_->mu);
    return !state_->feed;
  }

  void defer_releases(bool on) {
    std::vector<uint32_t> flush;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      state_->defer = on;
      if (!on) flush.swap(state_->pending);
    }
    release_slots(flush);
  }
  std::vector<uint32_t> take_pending() {
    std::lock_guard<std::mutex> lock(state_->mu);
    std::vector<uint32_t> out;
    out.swap(state_->pending);
    return out;
  }
  void release_slots(const std::vector<uint32_t>& slots) {
    std::shared_ptr<client::Feed> f;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      f = state_->feed;
    }
    if (f)
      for (uint32_t s : slots) f->release(s);
  }

  uintptr_t ring_address() const { return reinterpret_cast<uintptr_t>(state_->ring->base()); }
  size_t ring_bytes() const { return state_->ring->total_bytes(); }
  void set_ring_guard(py::object guard) { state_->ring_guard = std::move(guard); }

 private:
  std::shared_ptr<FeedState> state_;
  client::FeedLayout layout_;
};

loader::PipelineOptions pipeline_options(const std::string& profile, const std::map<std::string, std::string>& overrides,
                                         uint64_t seed, int batch_size, int rank, int world_size, bool shuffle,
                                         bool drop_last, const std::string& dtype, const std::string& on_bad_sample) {
  auto bad = loader::parse_on_bad_sample(on_bad_sample);
  if (!bad.has_value()) throw_status(bad.error());
  std::vector<std::pair<std::string, std::string>> options = {{"dtype", dtype}};
  options.insert(options.end(), overrides.begin(), overrides.end());
  auto po = loader::make_pipeline_options(profile, options, {seed, batch_size, rank, world_size, shuffle, drop_last},
                                          *bad);
  if (!po.has_value()) throw_status(po.error());
  return *po;
}

std::unique_ptr<PyFeed> open_embedded(const std::string& dataset, const std::string& profile,
                                      const std::map<std::string, std::string>& overrides, uint64_t seed,
                                      int batch_size, int rank, int world_size, bool shuffle, bool drop_last,
                                      const std::string& dtype, const std::string& on_bad_sample, int threads,
                                      uint32_t prefetch, uint64_t epoch, uint64_t batch) {
  client::EmbeddedOptions o;
  o.pipeline = pipeline_options(profile, overrides, seed, batch_size, rank, world_size, shuffle, drop_last, dtype,
                                on_bad_sample);
  o.threads = threads;
  o.prefetch = prefetch;
  o.epoch = epoch;
  o.batch = batch;
  Result<std::unique_ptr<client::EmbeddedFeed>> f = Status();
  {
    py::gil_scoped_release nogil;
    auto source = loader::SampleSource::open(dataset, {});
    f = source.has_value() ? client::EmbeddedFeed::open(*source, o) : Result<std::unique_ptr<client::EmbeddedFeed>>(source.error());
  }
  if (!f.has_value()) throw_status(f.error());
  return std::make_unique<PyFeed>(std::move(*f));
}

std::unique_ptr<PyFeed> open_remote(const std::string& endpoint, const std::string& dataset, const std::string& profile,
                                    const std::map<std::string, std::string>& overrides, uint64_t seed, int batch_size,
                                    int rank, int world_size, bool shuffle, bool drop_last, const std::string& dtype,
                                    const std::string& on_bad_sample, uint32_t prefetch, uint64_t epoch, uint64_t batch,
                                    const std::string& transport, const std::string& client_name, double timeout_s,
                                    double daemon_timeout_s, double reconnect_timeout_s,
                                    const std::string& server_key_file, const std::string& client_key_file) {
  // Validated here too, so that a bad option fails before any connection is made.
  (void)pipeline_options(profile, overrides, seed, batch_size, rank, world_size, shuffle, drop_last, dtype,
                         on_bad_sample);
  client::RemoteOptions o;
  o.endpoint = endpoint;
  o.client_name = client_name;
  o.request.dataset = dataset;
  o.request.profile = profile;
  for (const auto& [name, value] : overrides) o.request.overrides.emplace_back(name, value);
  o.request.seed = seed;
  o.request.epoch = epoch;
  o.request.start_batch = batch;
  o.request.batch_size = static_cast<uint32_t>(batch_size);
  o.request.rank = static_cast<uint32_t>(rank);
  o.request.world_size = static_cast<uint32_t>(world_size);
  o.request.shuffle = shuffle;
  o.request.drop_last = drop_last;
  o.request.dtype = dtype == "uint8" ? DType::kU8 : DType::kF32;
  o.request.on_bad_sample = on_bad_sample == "fail" ? transport::WireOnBadSample::kFail
                                                    : transport::WireOnBadSample::kSkip;
  auto how = client::parse_remote_transport(transport);
  if (!how.has_value()) throw_status(how.error());
  o.transport = *how;
  o.prefetch = prefetch;
  o.connect.timeout = std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  o.daemon_timeout = std::chrono::milliseconds(static_cast<int64_t>(daemon_timeout_s * 1000));
  o.reconnect_timeout = std::chrono::milliseconds(static_cast<int64_t>(reconnect_timeout_s * 1000));
  if (!server_key_file.empty() || !client_key_file.empty()) {
    if (server_key_file.empty() || client_key_file.empty())
      throw_status(Status::invalid_argument("CURVE needs both curve_server_key and curve_client_key"));
    auto server = transport::read_curve_public_file(server_key_file);
    if (!server.has_value()) throw_status(server.error());
    auto client = transport::read_curve_secret_file(client_key_file);
    if (!client.has_value()) throw_status(client.error());
    o.connect.curve = {*server, *client};
  }
  Result<std::unique_ptr<client::RemoteFeed>> f = Status();
  {
    py::gil_scoped_release nogil;
    f = client::RemoteFeed::open(o);
  }
  if (!f.has_value()) throw_status(f.error());
  return std::make_unique<PyFeed>(std::move(*f));
}

}  // namespace

void register_loader(py::module_& m) {
  py::class_<SlotLease>(m, "SlotLease", py::buffer_protocol(),
                        "One batch slot of a loader's ring, as a writable buffer. The slot goes back to the ring "
                        "when this object (and every tensor made over it) is gone.")
      .def_buffer([](SlotLease& l) {
        return py::buffer_info(l.data(), 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(l.size())}, {static_cast<py::ssize_t>(1)}, false);
      })
      .def_property_readonly("slot", &SlotLease::slot)
      .def("__len__", &SlotLease::size);

  py::class_<PyFeed>(m, "Feed", "Batches from the embedded pipeline or a daemon; see textfeed.Loader.")
      .def("next", &PyFeed::next, py::arg("timeout_ms"),
           "(lease, epoch, batch, indices, errors) of the next batch, or None after timeout_ms")
      .def("seek", &PyFeed::seek, py::arg("epoch"), py::arg("batch"))
      .def("layout", &PyFeed::layout)
      .def("stats", &PyFeed::stats)
      .def("position", &PyFeed::position)
      .def("close", &PyFeed::close)
      .def_property_readonly("closed", &PyFeed::closed)
      .def("defer_releases", &PyFeed::defer_releases, py::arg("on"))
      .def("take_pending", &PyFeed::take_pending)
      .def("release_slots", &PyFeed::release_slots, py::arg("slots"))
      .def("ring_address", &PyFeed::ring_address)
      .def("ring_bytes", &PyFeed::ring_bytes)
      .def("set_ring_guard", &PyFeed::set_ring_guard, py::arg("guard"));

  m.def("open_embedded", &open_embedded, py::arg("dataset"), py::arg("profile"), py::arg("overrides"),
        py::arg("seed"), py::arg("batch_size"), py::arg("rank"), py::arg("world_size"), py::arg("shuffle"),
        py::arg("drop_last"), py::arg("dtype"), py::arg("on_bad_sample"), py::arg("threads"), py::arg("prefetch"),
        py::arg("epoch"), py::arg("batch"), "The pipeline in this process (no daemon).");
  m.def("open_remote", &open_remote, py::arg("endpoint"), py::arg("dataset"), py::arg("profile"), py::arg("overrides"),
        py::arg("seed"), py::arg("batch_size"), py::arg("rank"), py::arg("world_size"), py::arg("shuffle"),
        py::arg("drop_last"), py::arg("dtype"), py::arg("on_bad_sample"), py::arg("prefetch"), py::arg("epoch"),
        py::arg("batch"), py::arg("transport"), py::arg("client_name"), py::arg("timeout_s"),
        py::arg("daemon_timeout_s"), py::arg("reconnect_timeout_s"), py::arg("curve_server_key"),
        py::arg("curve_client_key"), "A stream from `textfeed serve` at `endpoint`.");
  m.def("option_names", [] { return std::string(augment::option_names()); },
        "The augmentation options a Loader accepts as keywords, comma-separated.");
}

}  // namespace textfeed::python
