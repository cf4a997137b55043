// The chains by name (chains.h).
#include "augment/mmocr/chains.h"

#include <string>
#include <utility>

#include "augment/mmocr/fce_snake_chains.h"
#include "augment/mmocr/pse_pan_chains.h"

namespace textfeed::augment::mmocr {

namespace {

constexpr ChainKind kKinds[] = {ChainKind::kPsenet, ChainKind::kPanet, ChainKind::kFcenet,
                                ChainKind::kTextsnake};

}  // namespace

std::string_view chain_name(ChainKind kind) {
  switch (kind) {
    case ChainKind::kPsenet:
      return "psenet";
    case ChainKind::kPanet:
      return "panet";
    case ChainKind::kFcenet:
      return "fcenet";
    case ChainKind::kTextsnake:
      return "textsnake";
  }
  return "?";
}

Result<ChainKind> chain_kind(std::string_view name) {
  for (ChainKind kind : kKinds)
    if (chain_name(kind) == name) return kind;
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
