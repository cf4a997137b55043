// Findings of the fuzzers that wait for a fix outside tests/fuzz (their reproducers are in
// tests/fuzz/pending/<target>/, which the replay test skips). Each entry lets the fuzzer
// tolerate exactly that one outcome so that it keeps looking for others, and so that the CI fuzz
// run stays meaningful meanwhile. When the fix lands: clear the entry (flag false), move the
// reproducer to tests/fuzz/regressions/<target>/, and once the replay passes, delete the flag.
#pragma once

namespace textfeed::fuzz::known {

// None at present: every finding so far is fixed and replayed from tests/fuzz/regressions/.

}  // namespace textfeed::fuzz::known
