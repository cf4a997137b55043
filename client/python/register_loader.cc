// Python bindings of the feeds behind textfeed.Loader: open_embedded / open_multi (open_remote: a
// list of one) return a Feed; Feed.next() waits with the GIL released and returns a
// DeliveredBatch: its metadata by name (base/batch_info.h) and a SlotLease, a writable buffer over
// one ring slot whose destruction (when the last tensor over it dies) gives the slot back: at
// once, or, once Feed.set_release_event() named an event factory (pinned memory, CUDA), after an
// event recorded then (client::Feed::release_after keeps the slot until the event completes).
// The first feed opened in the process makes its thread settings (process_thread_settings()).
// The batch's types (DeliveredBatch, SampleMeta, ...) are bound in register_batch.cc.
// Past the 500-line soft cap: the feed's shared state, its leases and its openers share the fork
// and GIL rules written down here, in one anonymous namespace.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "base/printable.h"
#include "client/embedded_feed.h"
#include "client/multi_feed.h"
#include "client/python/batch_types.h"
#include "client/python/register.h"
#include "loader/pipeline/worker_pool.h"
#include "loader/sources/mixture_source.h"
#include "transport/curve.h"

namespace py = pybind11;

namespace textfeed::python {
namespace {

using namespace std::chrono_literals;

// A Loader's seconds (timeout, daemon_timeout, reconnect_timeout) are at most a day: a daemon
// silent that long is gone, and a bigger number is a unit mistake (ms given as s) that would hang
// a job for weeks. A day in milliseconds fits every clock arithmetic the feeds do.
constexpr double kMaxTimeoutSeconds = 86400;

// Whether this process's thread settings were made (process_thread_settings()), for the test that
// importing textfeed changes no process-wide setting.
std::atomic<bool> g_thread_settings_made{false};

// The process's thread settings (loader::ProcessThreadSettings: OpenCV's own threads off, oneTBB's
// worker limit raised), made by the first feed opened in this process, before it starts a thread,
// and kept until the process exits: `import textfeed` changes no process-wide setting, and a
// Python process is its own composition root only once a Loader runs. Called with the GIL held;
// the function-local static is made once however many threads call it.
void process_thread_settings() {
  static const loader::ProcessThreadSettings kSettings;
  g_thread_settings_made.store(true, std::memory_order_relaxed);
}

// In a child made by fork(), a feed's threads (its arena's workers, a daemon session's thread) do
// not exist, and its mutexes may be held forever by threads that were mid-call at the fork;
// destroying it there would wait for them, and destroying a shared ring would remove the parent's
// shared-memory object. What a child drops is kept here instead and never destroyed: one
// deliberate leak per feed inherited across a fork (the object is never deleted, on purpose).
void abandon(std::shared_ptr<const void> what) {
  static auto& kept = *new std::vector<std::shared_ptr<const void>>();
  if (what) kept.push_back(std::move(what));
}

// What a Feed's Python object and its leases share. The feed goes at close(); the ring stays
// while any lease (any tensor) still points into it.
struct FeedState {
  const pid_t owner = ::getpid();
  std::mutex mu;
  std::mutex consumer;                 // held (without the GIL) around the feed's consumer
                                       // calls: next, seek, stats, position
  std::shared_ptr<client::Feed> feed;  // guarded by mu; null once closed
  std::shared_ptr<const client::SlotRing> ring;
  py::object event_factory;  // with the GIL: None, or makes a release's fence
  py::object ring_guard;     // a Python object to keep while the ring lives

  bool forked() const { return ::getpid() != owner; }
  Status forked_status() const {
    return Status::cancelled("this Loader was created in process " + std::to_string(owner) +
                             "; this is process " + std::to_string(::getpid()) +
                             ", a fork of it, where its worker threads do not exist: "
                             "create a new Loader after the fork");
  }

  ~FeedState() {
    if (forked()) {
      abandon(std::move(feed));
      abandon(std::move(ring));
      if (ring_guard) (void)ring_guard.release();  // no CUDA call in a forked child
      if (event_factory) (void)event_factory.release();
      return;
    }
    if (feed) {  // dropped without close(): end the feed without holding the GIL
      feed->cancel();
      if (PyGILState_Check()) {
        py::gil_scoped_release nogil;
        feed.reset();
      }
      feed.reset();
    }
    if (ring_guard || event_factory) {
      py::gil_scoped_acquire gil;
      event_factory = py::object();
      ring_guard = py::object();  // e.g. unregisters CUDA pinning, before the ring is unmapped
    }
  }
  // With the GIL (a lease dies where its last tensor does).
  void release(uint32_t slot) {
    if (forked()) return;  // the slots are the parent's
    std::shared_ptr<client::Feed> f;
    {
      std::lock_guard<std::mutex> lock(mu);
      f = feed;
    }
    if (!f) return;  // closed: the feed and its slots are gone
    if (std::unique_ptr<client::Fence> fence = record_fence())
      f->release_after(slot, std::move(fence));
    else
      f->release(slot);
    if (f.use_count() == 1) {  // close() came meanwhile: end the feed without the GIL
      py::gil_scoped_release nogil;
      f.reset();
    }
  }
  std::unique_ptr<client::Fence> record_fence();
};

// A fence over a Python event object (torch.cuda.Event, recorded): done() is its query(), wait()
// its synchronize(), each with the GIL taken. An event that raises counts as done (the error goes
// to sys.unraisablehook): a slot must not stay out of the ring for ever.
class EventFence final : public client::Fence {
 public:
  explicit EventFence(py::object event) : event_(std::move(event)) {}
  ~EventFence() override {
    if (!Py_IsInitialized()) {  // at exit: nothing left to give the reference to
      (void)event_.release();
      return;
    }
    py::gil_scoped_acquire gil;
    event_ = py::object();
  }
  bool done() override {
    py::gil_scoped_acquire gil;
    try {
      return event_.attr("query")().cast<bool>();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("textfeed: querying the CUDA event of a released batch slot");
    } catch (const py::cast_error&) {
    }
    return true;
  }
  void wait() override {
    py::gil_scoped_acquire gil;
    try {
      event_.attr("synchronize")();
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable("textfeed: waiting for the CUDA event of a released batch slot");
    }
  }

 private:
  py::object event_;
};

std::unique_ptr<client::Fence> FeedState::record_fence() {
  if (!event_factory || event_factory.is_none()) return nullptr;
  try {
    return std::make_unique<EventFence>(event_factory());
  } catch (py::error_already_set& e) {
    // Raised in a destructor: nowhere to raise it to. The slot goes back unfenced.
    e.discard_as_unraisable("textfeed: recording a CUDA event for a released batch slot");
    return nullptr;
  }
}

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
    if (state_->forked()) throw_status(state_->forked_status());
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->feed) throw_status(closed_status());
    return state_->feed;
  }

  // None when no batch came within `timeout_ms`; else the batch with its slot's lease.
  py::object next(int64_t timeout_ms) {
    if (timeout_ms < 0 || timeout_ms > static_cast<int64_t>(kMaxTimeoutSeconds * 1000))
      throw_status(Status::invalid_argument("timeout_ms " + std::to_string(timeout_ms) +
                                            " is not in 0..86400000"));
    Result<std::optional<client::FeedBatch>> r =
        call([&](client::Feed& f) { return f.next(std::chrono::milliseconds(timeout_ms)); });
    if (!r.has_value())
      throw_status(closed() && r.error().code() == Code::kCancelled ? closed_status() : r.error());
    if (!*r) return py::none();
    client::FeedBatch& b = **r;
    // The lease owns the slot from here on: whatever raises below (a conversion, a full memory)
    // drops it, and dropping it gives the slot back.
    std::unique_ptr<SlotLease> owner;
    try {
      owner = std::make_unique<SlotLease>(state_, b.slot, layout_.slot_bytes);
    } catch (...) {  // not even the lease could be made: give the slot back here
      state_->release(b.slot);
      throw;
    }
    py::object lease = py::cast(std::move(owner));
    return py::cast(DeliveredBatch{std::move(lease), std::move(static_cast<BatchInfo&>(b))});
  }

  // Waits without the GIL, but Ctrl-C still ends the wait (a remote feed's seek lasts as long as a
  // reconnect may): the signal's exception (KeyboardInterrupt) is raised.
  void seek(uint64_t epoch, uint64_t batch) {
    const auto interrupted = [] {
      py::gil_scoped_acquire gil;
      return PyErr_CheckSignals() != 0;  // the handler's exception stays set until we return
    };
    const Status s = call([&](client::Feed& f) { return f.seek(epoch, batch, interrupted); });
    if (PyErr_Occurred()) throw py::error_already_set();
    if (!s.ok()) throw_status(s);
  }

  py::dict layout() const {
    py::dict d;
    d["tensors"] = layout_.tensors;  // a list of TensorDesc
    d["slot_bytes"] = layout_.slot_bytes;
    d["batches_per_epoch"] = layout_.epochs.per_epoch;
    d["resumed_batches"] = layout_.epochs.resumed
                               ? py::object(py::int_(layout_.epochs.resumed_batches))
                               : py::object(py::none());
    d["source_sizes"] = layout_.source_sizes;
    d["dataset_size"] = layout_.dataset_size;
    d["batch_size"] = layout_.batch_size;
    d["dataset_fingerprint"] = layout_.dataset_fingerprint
                                   ? py::object(py::int_(*layout_.dataset_fingerprint))
                                   : py::object(py::none());
    return d;
  }

  py::dict stats() {
    const client::FeedStats s = call([](client::Feed& f) { return f.stats(); });
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
    if (!s.producers.empty()) {
      py::list producers;
      for (const client::ProducerStats& p : s.producers) {
        py::dict e;
        e["name"] = text(p.name);
        e["state"] = p.state;
        e["transport"] = p.transport;
        e["delivered"] = p.delivered;
        e["reissued"] = p.reissued;
        e["in_flight"] = p.in_flight;
        e["wait_seconds"] = p.wait_seconds;
        e["reconnects"] = p.reconnects;
        e["last_error"] = text(p.last_error);
        producers.append(e);
      }
      d["producers"] = producers;
      d["remade"] = s.remade;
    }
    py::dict stages;
    for (size_t i = 0; i < s.stage_names.size() && i < s.stage_ms.size(); ++i)
      stages[text(s.stage_names[i])] = s.stage_ms[i];
    d["stage_ms_per_sample"] = stages;
    return d;
  }

  py::tuple position() {
    const auto p = call([](client::Feed& f) { return std::pair(f.next_epoch(), f.next_batch()); });
    return py::make_tuple(p.first, p.second);
  }

  // Cancels what the feed is filling (another thread waiting in next() then raises
  // CancelledError) and ends it without the GIL, waiting only for the sample each worker is on.
  // In a forked child it touches nothing of the parent's feed (see abandon()).
  void close() {
    if (state_->forked()) return;
    std::shared_ptr<client::Feed> f;
    {
      std::lock_guard<std::mutex> lock(state_->mu);
      f = std::move(state_->feed);
    }
    if (!f) return;
    py::gil_scoped_release nogil;
    f->cancel();
    f.reset();  // unless a next() still holds it: then it ends there, also without the GIL
  }
  bool closed() const {
    if (state_->forked()) return true;
    std::lock_guard<std::mutex> lock(state_->mu);
    return !state_->feed;
  }
  bool forked() const { return state_->forked(); }

  // From now on each slot given back waits for an event from factory() (None: not any more).
  void set_release_event(py::object factory) {
    if (!factory.is_none() && !PyCallable_Check(factory.ptr()))
      throw_status(Status::invalid_argument("the release event factory must be callable or None"));
    state_->event_factory = std::move(factory);
  }
  size_t fenced_slots() { return feed()->fenced_slots(); }

  uintptr_t ring_address() const { return reinterpret_cast<uintptr_t>(state_->ring->base()); }
  size_t ring_bytes() const { return state_->ring->total_bytes(); }
  void set_ring_guard(py::object guard) { state_->ring_guard = std::move(guard); }

 private:
  static Status closed_status() { return Status::cancelled("this Loader is closed"); }

  // Runs fn(feed) without the GIL and under the consumer lock, so that Python threads never call
  // the feed's consumer side at once; this call's reference is dropped there too, so that a feed
  // closed meanwhile ends without the GIL.
  template <class Fn>
  std::invoke_result_t<Fn&, client::Feed&> call(Fn&& fn) {
    std::shared_ptr<client::Feed> f = feed();
    py::gil_scoped_release nogil;
    std::lock_guard<std::mutex> lock(state_->consumer);
    auto result = fn(*f);
    f.reset();
    return result;
  }

  std::shared_ptr<FeedState> state_;
  client::FeedLayout layout_;
};

// A path, name or key file given as text must hold no NUL byte: C++ would stop reading it there
// and open another file than the one named.
void check_text(const char* name, const std::string& value) {
  if (value.find('\0') != std::string::npos)
    throw_status(Status::invalid_argument(std::string(name) + " contains a NUL byte"));
}

std::chrono::milliseconds timeout_ms(const char* name, double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > kMaxTimeoutSeconds)
    throw_status(Status::invalid_argument(std::string(name) +
                                          " must be a finite number of seconds in (0, " +
                                          std::to_string(static_cast<int>(kMaxTimeoutSeconds)) +
                                          "], got " + std::to_string(seconds)));
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(seconds * 1000)));
}

// A spec from Python: valid as a whole, its dataset or name free of NUL bytes.
loader::PipelineSpec checked_spec(const loader::PipelineSpec& spec, const char* what) {
  if (Status s = loader::validate(spec); !s.ok()) throw_status(s);
  for (const loader::SourceSpec& source : spec.sources) check_text(what, source.path);
  return spec;
}

std::unique_ptr<PyFeed> open_embedded(const loader::PipelineSpec& spec, int threads,
                                      uint32_t prefetch, uint64_t epoch, uint64_t batch) {
  // Before the dataset is read (which may take a while), so that a bad count fails at once.
  if (Status s = loader::check_worker_threads(threads); !s.ok()) throw_status(s);
  process_thread_settings();
  client::EmbeddedOptions o;
  o.pipeline = checked_spec(spec, "dataset");
  o.threads = threads;
  o.prefetch = prefetch;
  o.epoch = epoch;
  o.batch = batch;
  Result<std::unique_ptr<client::EmbeddedFeed>> f = Status();
  {
    py::gil_scoped_release nogil;
    auto opened = loader::open_sources(o.pipeline.sources);
    f = opened.has_value() ? client::EmbeddedFeed::open(*opened, o)
                           : Result<std::unique_ptr<client::EmbeddedFeed>>(opened.error());
  }
  if (!f.has_value()) throw_status(f.error());
  return std::make_unique<PyFeed>(std::move(*f));
}

// The CURVE key pair from its two files, or none when neither is named.
std::optional<transport::CurveClientOptions> curve_keys(const std::string& server_key_file,
                                                        const std::string& client_key_file) {
  check_text("curve_server_key", server_key_file);
  check_text("curve_client_key", client_key_file);
  auto keys = transport::load_curve_client_keys(server_key_file, client_key_file,
                                                "curve_server_key", "curve_client_key");
  if (!keys.has_value()) throw_status(keys.error());
  if (!keys->enabled()) return std::nullopt;
  return *keys;
}

// The daemons' options: one producer per endpoint. `server_keys`: one file per endpoint ("" where
// that daemon takes no CURVE), or none at all (then `client_key_file` alone is no CURVE).
std::vector<client::DaemonProducer> daemon_producers(const std::vector<std::string>& endpoints,
                                                     transport::Transport how,
                                                     const std::vector<std::string>& server_keys,
                                                     const std::string& client_key_file) {
  if (!server_keys.empty() && server_keys.size() != endpoints.size())
    throw_status(Status::invalid_argument("curve_server_key lists " +
                                          std::to_string(server_keys.size()) + " key files for " +
                                          std::to_string(endpoints.size()) + " endpoints"));
  std::vector<client::DaemonProducer> out;
  for (size_t i = 0; i < endpoints.size(); ++i) {
    check_text("endpoint", endpoints[i]);
    client::DaemonProducer d;
    d.endpoint = endpoints[i];
    d.transport = how;
    const std::string server_key = server_keys.empty() ? std::string() : server_keys[i];
    if (!server_key.empty() || (!client_key_file.empty() && endpoints[i].rfind("tcp://", 0) == 0))
      if (auto keys = curve_keys(server_key, client_key_file)) d.curve = *keys;
    out.push_back(std::move(d));
  }
  return out;
}

// A feed of daemons (and this process's threads): one producer each (client::MultiFeed); one
// endpoint is a list of one.
std::unique_ptr<PyFeed> open_multi(
    const std::vector<std::string>& endpoints, const loader::PipelineSpec& spec,
    transport::Transport how, uint32_t prefetch, uint64_t epoch, uint64_t batch,
    const std::string& client_name, double timeout_s, double daemon_timeout_s,
    double reconnect_timeout_s, double stall_timeout_s, const std::vector<std::string>& server_keys,
    const std::string& client_key_file, int local_threads,
    const std::optional<loader::PipelineSpec>& local_spec, const std::string& payload) {
  client::MultiOptions o;
  auto parsed = transport::parse_payload(payload);
  if (!parsed.has_value()) throw_status(parsed.error());
  o.payload = *parsed;
  o.client_name = client_name;
  o.spec = checked_spec(spec, "dataset");
  o.prefetch = prefetch;
  o.held_slots = 1;  // the batch a `for` loop holds while it asks for the next
  o.epoch = epoch;
  o.batch = batch;
  o.client.connect_timeout = timeout_ms("timeout", timeout_s);
  o.client.daemon_timeout = timeout_ms("daemon_timeout", daemon_timeout_s);
  o.client.reconnect_timeout = timeout_ms("reconnect_timeout", reconnect_timeout_s);
  o.client.stall_timeout = timeout_ms("stall_timeout", stall_timeout_s);
  o.daemons = daemon_producers(endpoints, how, server_keys, client_key_file);
  if (local_threads < 0 || (local_threads > 0 && !local_spec))
    throw_status(Status::invalid_argument("local_threads needs a local dataset"));
  process_thread_settings();  // a daemon session's thread, and the local producer's pool
  if (local_threads > 0) {
    if (Status s = loader::check_worker_threads(local_threads); !s.ok())
      throw_status(s.with_context("local_threads"));
    o.local_threads = local_threads;
    o.local_spec = checked_spec(*local_spec, "local_dataset");
  }
  Result<std::unique_ptr<client::MultiFeed>> f = Status();
  {
    py::gil_scoped_release nogil;
    Status local;
    if (o.local_threads > 0) {
      auto opened = loader::open_sources(o.local_spec.sources);
      if (opened.has_value())
        o.local_source = *opened;
      else
        local = opened.error().with_context("local_dataset");
    }
    f = local.ok() ? client::MultiFeed::open(o) : Result<std::unique_ptr<client::MultiFeed>>(local);
  }
  if (!f.has_value()) throw_status(f.error());
  return std::make_unique<PyFeed>(std::move(*f));
}

// One daemon: open_multi() of a list of one (its key file applies whatever its endpoint), with
// the defaults of the options it lacks.
std::unique_ptr<PyFeed> open_remote(const std::string& endpoint, const loader::PipelineSpec& spec,
                                    transport::Transport how, uint32_t prefetch, uint64_t epoch,
                                    uint64_t batch, const std::string& client_name,
                                    double timeout_s, double daemon_timeout_s,
                                    double reconnect_timeout_s, const std::string& server_key_file,
                                    const std::string& client_key_file) {
  const double stall_s =
      std::chrono::duration<double>(client::ClientOptions().stall_timeout).count();
  return open_multi({endpoint}, spec, how, prefetch, epoch, batch, client_name, timeout_s,
                    daemon_timeout_s, reconnect_timeout_s, stall_s, {server_key_file},
                    client_key_file, 0, std::nullopt, "full");
}

// The stats' enums, bound once: stats() gives them, textfeed.Loader.stats() their text.
void bind_stats_enums(py::module_& m) {
  py::enum_<client::ProducerState>(m, "ProducerState",
                                   "Where a producer of a feed of daemons stands.")
      .value("UP", client::ProducerState::kUp)
      .value("LOST", client::ProducerState::kLost)
      .value("OUT", client::ProducerState::kOut)
      .def_property_readonly(
          "text", [](client::ProducerState v) { return std::string(producer_state_name(v)); },
          "its name in stats and messages: up, lost, out");
  py::enum_<client::FeedTransport>(m, "FeedTransport",
                                   "How a feed's, or one producer's, batches reach this process.")
      .value("EMBEDDED", client::FeedTransport::kEmbedded)
      .value("SHM", client::FeedTransport::kSharedMemory)
      .value("FRAMES", client::FeedTransport::kFrames)
      .value("FRAMES_COMPACT", client::FeedTransport::kCompactFrames)
      .value("MULTI", client::FeedTransport::kMulti)
      .def_property_readonly(
          "text", [](client::FeedTransport v) { return std::string(feed_transport_name(v)); },
          "its name in stats and messages: embedded, shm, frames, \"frames, compact\", multi");
}

// The feeds' openers: embedded, a list of daemons, one daemon (a list of one).
void bind_openers(py::module_& m) {
  m.def("open_embedded", &open_embedded, py::arg("spec"), py::arg("threads"), py::arg("prefetch"),
        py::arg("epoch"), py::arg("batch"),
        "The pipeline in this process (no daemon), reading spec.sources (several: a mixture).");
  m.def("open_remote", &open_remote, py::arg("endpoint"), py::arg("spec"), py::kw_only(),
        py::arg("transport"), py::arg("prefetch"), py::arg("epoch"), py::arg("batch"),
        py::arg("client_name"), py::arg("timeout_s"), py::arg("daemon_timeout_s"),
        py::arg("reconnect_timeout_s"), py::arg("curve_server_key"), py::arg("curve_client_key"),
        "A stream from `textfeed serve` at `endpoint` (spec.sources[0].path: the name of a dataset "
        "it serves): open_multi of [endpoint].");
  m.def("open_multi", &open_multi, py::arg("endpoints"), py::arg("spec"), py::kw_only(),
        py::arg("transport"), py::arg("prefetch"), py::arg("epoch"), py::arg("batch"),
        py::arg("client_name"), py::arg("timeout_s"), py::arg("daemon_timeout_s"),
        py::arg("reconnect_timeout_s"), py::arg("stall_timeout_s"), py::arg("curve_server_keys"),
        py::arg("curve_client_key"), py::arg("local_threads"), py::arg("local_spec"),
        py::arg("payload"),
        "One stream fed by one or more daemons (and, with local_threads, this process's own "
        "threads over local_spec), delivered in order.");
}

}  // namespace

void register_loader(py::module_& m) {
  bind_stats_enums(m);
  register_batch_types(m);
  py::class_<SlotLease>(
      m, "SlotLease", py::buffer_protocol(),
      "One batch slot of a loader's ring, as a writable buffer. The slot goes back to the ring "
      "when this object (and every tensor made over it) is gone.")
      .def_buffer([](SlotLease& l) {
        return py::buffer_info(l.data(), 1, py::format_descriptor<uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(l.size())}, {static_cast<py::ssize_t>(1)},
                               false);
      })
      .def_property_readonly("slot", &SlotLease::slot)
      .def("__len__", &SlotLease::size);

  py::class_<PyFeed>(m, "Feed",
                     "Batches from the embedded pipeline or a daemon; see textfeed.Loader.")
      .def("next", &PyFeed::next, py::arg("timeout_ms"),
           "the next batch (a DeliveredBatch), or None after timeout_ms")
      .def("seek", &PyFeed::seek, py::arg("epoch"), py::arg("batch"))
      .def("layout", &PyFeed::layout)
      .def("stats", &PyFeed::stats)
      .def("position", &PyFeed::position)
      .def("close", &PyFeed::close)
      .def_property_readonly("closed", &PyFeed::closed)
      .def_property_readonly("forked", &PyFeed::forked,
                             "whether this process is a fork of the one that opened it")
      .def("set_release_event", &PyFeed::set_release_event, py::arg("factory"),
           "each slot given back from now on returns to the ring once an event made by factory() "
           "at that "
           "moment (query(), synchronize(): a recorded torch.cuda.Event) completes; None: at once")
      .def("fenced_slots", &PyFeed::fenced_slots,
           "slots given back whose event has not completed yet")
      .def("ring_address", &PyFeed::ring_address)
      .def("ring_bytes", &PyFeed::ring_bytes)
      .def("set_ring_guard", &PyFeed::set_ring_guard, py::arg("guard"));

  bind_openers(m);
  m.attr("MAX_PRODUCERS") = client::kMaxProducers;
  m.attr("MAX_WORKER_THREADS") = loader::kMaxWorkerThreads;
  m.attr("MAX_TIMEOUT_SECONDS") = kMaxTimeoutSeconds;
  m.def(
      "check_worker_threads",
      [](const py::int_& threads) {
        // Any Python int: one beyond 64 bits is out of range all the same.
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(threads.ptr(), &overflow);
        if (overflow != 0)
          throw_status(loader::worker_threads_error(py::str(threads.ptr()).cast<std::string>()));
        if (Status s = loader::check_worker_threads(v); !s.ok()) throw_status(s);
      },
      py::arg("threads"),
      "Raises InvalidArgumentError unless threads is 0 (one per core) or 1..MAX_WORKER_THREADS.");
  m.def(
      "_thread_settings_made_for_testing",
      [] { return g_thread_settings_made.load(std::memory_order_relaxed); },
      "Whether a feed made this process's thread settings (OpenCV's threads off) yet.");
}

}  // namespace textfeed::python
