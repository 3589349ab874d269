// A fuzz target's oracle: a property that must hold for every input. A violation prints what
// broke and aborts, which both libFuzzer (it keeps the input as crash-*) and the corpus
// replayer under CTest (the test fails) report.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace parlor::fuzz {

inline void require(bool holds, const std::string& what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz oracle broken: %s\n", what.c_str());
  std::abort();
}

}  // namespace parlor::fuzz
