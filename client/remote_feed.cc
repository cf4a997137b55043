// A feed of one daemon, as a MultiFeed.
#include "client/remote_feed.h"

namespace textfeed::client {

MultiOptions multi_options(const RemoteOptions& r) {
  MultiOptions o;
  o.client_name = r.client_name;
  o.spec = r.spec;
  DaemonProducer d;
  d.endpoint = r.endpoint;
  d.transport = r.transport;
  d.curve = r.curve;
  o.daemons.push_back(std::move(d));
  o.prefetch = r.prefetch;
  o.held_slots = r.held_slots;
  o.client = r.client;
  o.epoch = r.epoch;
  o.batch = r.batch;
  return o;
}

Result<std::unique_ptr<MultiFeed>> open_remote_feed(const RemoteOptions& options) {
  return MultiFeed::open_daemons(multi_options(options));
}

}  // namespace textfeed::client
