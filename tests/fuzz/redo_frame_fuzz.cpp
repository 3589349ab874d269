// Fuzz target: the SQLite store's redo log records (server/store/redo_records.h). The input is
// a frame's payload as recovery reads it from disk after a crash: a CRC guards against torn
// writes, not against a file damaged or edited otherwise, so the decoder must refuse anything
// that is not a whole, valid encoding with a StoreError (which stops the server with the
// file's name) and never crash, hang or read past the input. The oracle: decoding either
// throws StoreError or gives writes whose encoding decodes to the same writes again.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "server/store/redo_records.h"
#include "tests/fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace parlor::server;
  const std::string_view payload(reinterpret_cast<const char*>(data), size);
  std::vector<StoredWrite> writes;
  try {
    writes = decode_writes(payload);
  } catch (const StoreError&) {
    return 0;  // refused, as recovery reports it
  }
  std::string again;
  for (const auto& write : writes) encode_write(write, again);
  std::vector<StoredWrite> decoded;
  try {
    decoded = decode_writes(again);
  } catch (const StoreError& error) {
    parlor::fuzz::require(
        false, std::string("an encoding of decoded writes does not decode: ") + error.what());
  }
  std::string twice;
  for (const auto& write : decoded) encode_write(write, twice);
  parlor::fuzz::require(decoded.size() == writes.size() && twice == again,
                        "decoding an encoding gives other writes");
  return 0;
}
