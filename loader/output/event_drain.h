// Ring-buffer records (bpf_runtime/stap_layout.h) turned into what the
// session does with them: bytes to print, an error to report, an exit.
//
// Kept apart from libbpf and the maps so that it can be tested over plain
// byte buffers: the only outside input is how to read a statistic, for
// print(@hist_*) records.
//
// Payload of a STAP_REC_PRINTF record, per piece of the format in order:
//  - a '*' width, then a '*' precision: 8 bytes each (host order);
//  - %s: MAXSTRINGLEN bytes, the string NUL-terminated within them;
//  - %m / %M: the address (8 bytes), then the memory_dump_length() bytes
//    read there (precision: the literal one, or the '*' value just read);
//  - every other conversion: 8 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/format_string.h"
#include "loader/interp/global_store.h"
#include "loader/output/histogram_output.h"
#include "ir/ir.h"

namespace stap {

struct DecodedRecord {
  enum class Kind { print, exit, error, malformed, warn, abort, system } kind = Kind::malformed;
  std::string text;  // print: the bytes to write; error: the ERROR line's
                     // message; warn: the WARNING's; system: the command
                     // to start; malformed: what was wrong
  // A print(@hist_*(G[key])): which statistic, and its histogram (the
  // JSON output's; text holds stap's text for it).
  struct Hist {
    size_t global = 0;
    Key key;
    Histogram histogram;
  };
  std::optional<Hist> hist;
};

// Reads a statistic (global, key) merged over CPUs; nullopt when absent.
using StatReader = std::function<std::optional<StatValue>(size_t, const Key&)>;

class RecordDecoder {
 public:
  // Parses every format of the module once.  Throws std::runtime_error
  // when a format does not parse (the compiler checked them: the object is
  // damaged).
  RecordDecoder(const ir::Module& module, StatReader stats);

  DecodedRecord decode(const void* data, size_t size) const;

 private:
  DecodedRecord decode_printf(uint32_t id, const char* p, size_t n) const;
  DecodedRecord decode_error(uint32_t id, const char* p, size_t n) const;
  DecodedRecord decode_hist(uint32_t id, const char* p, size_t n) const;

  const ir::Module& module_;
  StatReader stats_;
  std::vector<std::vector<PrintfPiece>> formats_;
};

// A global's packed key (8 bytes per long or coded string, the key's
// width per string) as values; nullopt when `size` is not the global's key
// size.
std::optional<Key> unpack_key(const ir::Module& module, const ir::Global& global,
                              const char* data, size_t size);

// The histogram of a statistic in histogram_output.h's terms.
Histogram histogram_of(const ir::HistShape& shape, const StatValue& value);

}  // namespace stap
