// LocalParts: what a MultiFeed gets from textfeed::client_embedded besides its daemons (the remote
// client links neither): this process's threads as one more producer, and the compact payload's
// finishers. MultiFeed::open() fills it (client/multi_feed_local.cc); open_daemons() leaves it
// empty.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "base/status.h"
#include "client/detail/daemon_session.h"
#include "client/detail/producer.h"
#include "client/feed.h"
#include "client/multi_feed.h"

namespace textfeed::client::internal {

struct LocalParts {
  // The local threads' batches' layout, and their producer (index `id` of the feed); both set or
  // neither.
  std::optional<FeedLayout> local_layout;
  std::function<Result<std::unique_ptr<Producer>>(ProducerHost& host, size_t id)> make_local;
  // Payload compact: one finisher per daemon session.
  std::function<Result<std::unique_ptr<CompactFinisher>>()> make_finisher;
};

// What every feed of daemons checks before it connects (open() checks the local threads' and the
// compact payload's own bounds next): producers, prefetch, the ClientOptions, endpoints named
// twice, compact over shm. Errors: kInvalidArgument saying which.
Status check_multi_options(const MultiOptions& options);

}  // namespace textfeed::client::internal
