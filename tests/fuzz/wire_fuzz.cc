// Fuzz target: the wire decoder (transport/wire.h). The input is one Envelope frame. Beyond "no
// crash", it checks that what decodes re-encodes, and that the re-encoding is a fixed point:
// decoding and encoding it again gives the same bytes (nothing is lost or invented on the way).
#include <algorithm>

#include "base/log.h"
#include "tests/fuzz/fuzz_targets.h"
#include "transport/wire.h"

namespace textfeed::fuzz {

void wire_one_input(std::span<const uint8_t> input) {
  const Result<transport::Message> message = transport::decode(input);
  if (!message.has_value()) {
    const Code code = message.error().code();
    // kInvalidArgument: an enumerant this build does not know (refused, never defaulted).
    TF_CHECK(code == Code::kCorrupt || code == Code::kUnimplemented ||
             code == Code::kInvalidArgument)
        << message.error().to_string();
    return;
  }
  // Shared sub-objects (legal in Cap'n Proto) can make the re-encoding larger than the frame,
  // past the limit; encode() then refuses it, which is its documented answer.
  const Result<std::vector<uint8_t>> encoded = transport::encode(*message);
  if (!encoded.has_value()) {
    TF_CHECK(encoded.error().code() == Code::kInvalidArgument) << encoded.error().to_string();
    return;
  }
  const Result<transport::Message> again = transport::decode(*encoded);
  TF_CHECK(again.has_value()) << "a re-encoded message does not decode: "
                              << again.error().to_string();
  TF_CHECK(again->index() == message->index()) << "the message kind changed in a round trip";
  const Result<std::vector<uint8_t>> encoded_again = transport::encode(*again);
  TF_CHECK(encoded_again.has_value()) << encoded_again.error().to_string();
  TF_CHECK(*encoded_again == *encoded) << "encode(decode(encode(m))) differs from encode(m)";
}

}  // namespace textfeed::fuzz
