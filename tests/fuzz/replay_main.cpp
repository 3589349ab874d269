// The main() of a fuzz target in the ordinary (GCC) build, where there is no libFuzzer: it
// feeds LLVMFuzzerTestOneInput every file of the target's seed corpus, then a bounded number
// of inputs made from them by seeded random edits. So every `make test` runs each target's
// oracle over real inputs and their near misses, and any crash input committed to the corpus
// stays a regression test. The long, coverage-guided runs are `make fuzz` (clang, libFuzzer).
//
//   <target> [FILE_OR_DIR...]   default: the corpus directory compiled in
//   PARLOR_SEED=N               the seed of the edits (printed; a failure replays with it)
//   PARLOR_FUZZ_MUTATIONS=N     how many edited inputs to run after the corpus
//   PARLOR_FUZZ_KEEP=FILE       each edited input is written to FILE before it runs, so after
//                               a crash FILE holds the input that crashed
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// Bytes the edits insert: JSON's and HTTP's punctuation, digits, letters and the extremes of
// a byte, so that edits reach the parsers' branches as well as their refusals.
constexpr std::string_view kAlphabet =
    "{}[]\":,.-+0123456789eEtrufalsn \\/\r\n\t=?&#%abcxyz\x00\x7f\xff";

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): single-threaded
  return text != nullptr ? std::strtoull(text, nullptr, 10) : fallback;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void collect(const fs::path& path, std::vector<fs::path>& files) {
  if (fs::is_directory(path)) {
    for (const auto& entry : fs::directory_iterator(path)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  } else {
    files.push_back(path);
  }
}

// One random edit: a byte replaced, inserted or deleted, a run duplicated, or a piece of
// another input spliced in (which carries whole tokens from one valid input into another).
void edit(std::string& input, const std::vector<std::string>& corpus, std::mt19937_64& rng) {
  const auto pick = [&](std::size_t bound) { return bound == 0 ? 0 : rng() % bound; };
  const std::size_t at = pick(input.size() + 1);
  switch (rng() % 5) {
    case 0:
      if (at < input.size()) input[at] = kAlphabet[pick(kAlphabet.size())];
      break;
    case 1:
      input.insert(at, 1, kAlphabet[pick(kAlphabet.size())]);
      break;
    case 2:
      if (at < input.size()) input.erase(at, 1 + pick(8));
      break;
    case 3: {
      const std::size_t length = pick(16) + 1;
      if (at < input.size()) input.insert(at, input.substr(at, length));
      break;
    }
    default: {
      const std::string& other = corpus[pick(corpus.size())];
      const std::size_t from = pick(other.size() + 1);
      input.insert(at, other.substr(from, pick(64) + 1));
      break;
    }
  }
}

void run(const std::string& input) {
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): libFuzzer's signature
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  if (argc > 1) {
    for (int i = 1; i < argc; ++i) collect(argv[i], files);
  } else {
    collect(PARLOR_FUZZ_CORPUS, files);
  }
  std::vector<std::string> corpus;
  for (const auto& file : files) corpus.push_back(read_file(file));
  if (corpus.empty()) {
    std::cerr << "no corpus: " << (argc > 1 ? argv[1] : PARLOR_FUZZ_CORPUS) << "\n";
    return 1;
  }

  const std::uint64_t seed = env_number("PARLOR_SEED", 22);
  const std::uint64_t mutations = env_number("PARLOR_FUZZ_MUTATIONS", PARLOR_FUZZ_MUTATIONS);
  std::cout << "PARLOR_SEED=" << seed << " PARLOR_FUZZ_MUTATIONS=" << mutations << ": "
            << corpus.size() << " corpus inputs" << std::endl;

  for (std::size_t i = 0; i < corpus.size(); ++i) {
    std::cout << "  " << files[i].filename().string() << std::endl;  // names a crashing file
    run(corpus[i]);
  }
  const char* keep = std::getenv("PARLOR_FUZZ_KEEP");  // NOLINT(concurrency-mt-unsafe)
  std::mt19937_64 rng(seed);
  for (std::uint64_t m = 0; m < mutations; ++m) {
    std::string input = corpus[rng() % corpus.size()];
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits; ++e) edit(input, corpus, rng);
    if (keep != nullptr) std::ofstream(keep, std::ios::binary | std::ios::trunc) << input;
    run(input);
  }
  std::cout << "ran " << corpus.size() << " corpus inputs and " << mutations
            << " edited ones: no failure" << std::endl;
  return 0;
}
