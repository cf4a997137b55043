// Prints the installed version, then calls into the remote client and the embedded pipeline's
// loader, so that linking pulls in both and their third-party libraries.
#include <cstdio>

#include "base/version.h"
#include "client/embedded_feed.h"
#include "client/remote_feed.h"
#include "loader/sources/source.h"

int main(int argc, char** argv) {
  std::printf("textfeed %s\n", textfeed::kVersion);
  const auto transport = textfeed::transport::parse_transport("frames");
  if (!transport.has_value()) return 1;
  const auto source = textfeed::loader::SampleSource::open(argc > 1 ? argv[1] : "/nonexistent", {});
  std::printf("%s\n", source.has_value() ? "opened" : source.error().to_string().c_str());
  return 0;
}
