// The chains by name (chains.h).
#include "augment/mmocr/chains.h"

#include <string>
#include <utility>

#include "augment/mmocr/fce_snake_chains.h"
#include "augment/mmocr/pse_pan_chains.h"

namespace textfeed::augment::mmocr {

Result<ChainKind> chain_kind(std::string_view name) {
  if (name == "psenet") return ChainKind::kPsenet;
  if (name == "panet") return ChainKind::kPanet;
  if (name == "fcenet") return ChainKind::kFcenet;
  if (name == "textsnake") return ChainKind::kTextsnake;
  return Status::invalid_argument("unknown mmocr chain '" + std::string(name) +
                                  "' (choose psenet, panet, fcenet or textsnake)");
}

Status run_chain(ChainKind kind, ChainState& state, ChainStreams& streams) {
  switch (kind) {
    case ChainKind::kPsenet:
      return run_psenet(state, streams);
    case ChainKind::kPanet:
      return run_panet(state, streams);
    case ChainKind::kFcenet:
      return run_fcenet(state, streams);
    case ChainKind::kTextsnake:
      return run_textsnake(state, streams);
  }
  return Status::invalid_argument("chain kind out of range");
}

Result<ChainReplay> replay_chain(ChainKind kind, const ChainInput& input, uint32_t seed) {
  auto state = load_chain_input(input);
  if (!state.ok()) return state.status();
  ChainStreams streams(seed);
  ChainReplay replay{std::move(*state), {}};
  Status s = run_chain(kind, replay.state, streams);
  if (!s.ok()) return s;
  replay.draws = streams.draws();
  return replay;
}

}  // namespace textfeed::augment::mmocr
