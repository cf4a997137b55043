// mmocr 1.x's four text-detection training chains, reduced to geometry (docs/targets.md §9.4), by
// name: what the profiles psenet, panet, fcenet and textsnake plan with, and what
// textfeed.reference.replay_mmocr_chain replays.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "augment/mmocr/chain_state.h"
#include "base/status.h"

namespace textfeed::augment::mmocr {

enum class ChainKind { kPsenet, kPanet, kFcenet, kTextsnake };

// The chain called `name` ("psenet", "panet", "fcenet", "textsnake"). Errors: kInvalidArgument
// naming the chains.
Result<ChainKind> chain_kind(std::string_view name);

// The name of `kind` ("psenet", ...), as chain_kind takes it.
std::string_view chain_name(ChainKind kind);

// Runs chain `kind` on `state` drawing from `streams`. A sample the reference drops sets
// state.dropped and returns OK. Errors: kInternal (GEOS failed).
Status run_chain(ChainKind kind, ChainState& state, ChainStreams& streams);

// The goldens' protocol: load `input`, seed the streams with `seed`, run the chain. Errors: those
// of load_chain_input and run_chain.
struct ChainReplay {
  ChainState state;
  std::vector<ChainDraw> draws;
};
Result<ChainReplay> replay_chain(ChainKind kind, const ChainInput& input, uint32_t seed);

}  // namespace textfeed::augment::mmocr
