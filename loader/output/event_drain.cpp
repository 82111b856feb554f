#include "loader/output/event_drain.h"

#include "ir/key_codes.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "bpf_runtime/stap_layout.h"
#include "loader/output/printf_output.h"
#include "loader/symbols/stack_symbols.h"

namespace stap {

namespace {

// A cursor over a record's payload that refuses to read past its end.
class Reader {
 public:
  Reader(const char* p, size_t n) : p_(p), n_(n) {}
  bool long_value(int64_t& v) {
    if (n_ - at_ < 8) return false;
    std::memcpy(&v, p_ + at_, 8);
    at_ += 8;
    return true;
  }
  bool bytes(size_t count, std::string& out) {
    if (n_ - at_ < count) return false;
    out.assign(p_ + at_, count);
    at_ += count;
    return true;
  }
  // A fixed-size string slot: the text up to the first NUL.
  bool string_slot(size_t slot, std::string& out) {
    if (!bytes(slot, out)) return false;
    size_t nul = out.find('\0');
    if (nul != std::string::npos) out.resize(nul);
    return true;
  }
  // A printf string slot, which may hold a stack code instead of text
  // (stap_layout.h STAP_CODED_STRING_MARK): the text the code stands for.
  bool printf_string_slot(size_t slot, std::string& out) {
    if (!bytes(slot, out)) return false;
    constexpr size_t mark = STAP_CODED_STRING_MARK_SIZE;
    if (out.size() >= mark + 8 && out.compare(0, mark, STAP_CODED_STRING_MARK, mark) == 0) {
      int64_t code = 0;
      std::memcpy(&code, out.data() + mark, 8);
      out = stack_symbols().text(code);
      return true;
    }
    if (out.size() >= mark + 8 && out.compare(0, mark, STAP_CODED_USTACK_MARK, mark) == 0) {
      int64_t code = 0;
      std::memcpy(&code, out.data() + mark, 8);
      StackSymbols& symbols = stack_symbols();
      out = StackSymbols::whole_lines(symbols.stack_lines(symbols.text(code), code, true, 0), slot);
      return true;
    }
    if (out.size() >= mark + 8 && out.compare(0, mark, STAP_CODED_USTACK_TEXT_MARK, mark) == 0) {
      int64_t tgid = 0;
      std::memcpy(&tgid, out.data() + mark, 8);
      std::string text = out.substr(mark + 8);
      text.resize(std::min(text.size(), text.find('\0')));
      out = StackSymbols::whole_lines(stack_symbols().stack_lines(text, true, uint32_t(tgid)), slot);
      return true;
    }
    if (out.size() >= mark + 24 && out.compare(0, mark, STAP_CODED_SYMBOL_MARK, mark) == 0) {
      int64_t how = 0, tgid = 0;
      uint64_t address = 0;
      std::memcpy(&how, out.data() + mark, 8);
      std::memcpy(&tgid, out.data() + mark + 8, 8);
      std::memcpy(&address, out.data() + mark + 16, 8);
      StackSymbols& symbols = stack_symbols();
      out = how == STAP_CODED_USYMNAME ? symbols.symname(address, true, uint32_t(tgid))
                                       : symbols.symdata(address, true, uint32_t(tgid));
      if (out.size() > slot - 1) out.resize(slot - 1);
      return true;
    }
    size_t nul = out.find('\0');
    if (nul != std::string::npos) out.resize(nul);
    return true;
  }
  bool at_end() const { return at_ == n_; }

 private:
  const char* p_;
  size_t n_;
  size_t at_ = 0;
};

DecodedRecord malformed(std::string why) {
  return DecodedRecord{DecodedRecord::Kind::malformed, std::move(why)};
}

// The values one printf record carries, in the order format_printf takes them.
bool read_printf_args(const std::vector<PrintfPiece>& pieces, size_t maxstringlen,
                      Reader& in, std::vector<PrintfValue>& args) {
  for (const PrintfPiece& piece : pieces) {
    if (piece.kind != PrintfPiece::Kind::conversion) continue;
    int64_t v = 0;
    if (piece.width == PrintfPiece::kFromArg) {
      if (!in.long_value(v)) return false;
      args.push_back(PrintfValue::of(v));
    }
    int64_t precision = piece.precision;
    if (piece.precision == PrintfPiece::kFromArg) {
      if (!in.long_value(precision)) return false;
      args.push_back(PrintfValue::of(precision));
    }
    std::string text;
    if (piece.conversion == 's') {
      if (!in.printf_string_slot(maxstringlen, text)) return false;
      args.push_back(PrintfValue::of(std::move(text)));
    } else if (piece.conversion == 'm' || piece.conversion == 'M') {
      int64_t length = memory_dump_length(precision);
      if (!in.long_value(v) || length < 0 || !in.bytes(static_cast<size_t>(length), text))
        return false;
      args.push_back(PrintfValue::memory(v, std::move(text)));
    } else {
      if (!in.long_value(v)) return false;
      args.push_back(PrintfValue::of(v));
    }
  }
  return in.at_end();
}

}  // namespace

RecordDecoder::RecordDecoder(const ir::Module& module, StatReader stats)
    : module_(module), stats_(std::move(stats)) {
  for (const std::string& format : module.formats) {
    std::vector<PrintfPiece> pieces;
    std::string error;
    if (!parse_printf_format(format, pieces, error))
      throw std::runtime_error("bad format \"" + format + "\" in the object: " + error);
    formats_.push_back(std::move(pieces));
  }
}

DecodedRecord RecordDecoder::decode(const void* data, size_t size) const {
  stap_record header;
  if (size < sizeof header) return malformed("record shorter than its header");
  std::memcpy(&header, data, sizeof header);
  const char* payload = static_cast<const char*>(data) + sizeof header;
  size_t n = size - sizeof header;
  switch (header.kind) {
    case STAP_REC_PRINTF: return decode_printf(header.id, payload, n);
    case STAP_REC_EXIT: return DecodedRecord{DecodedRecord::Kind::exit, {}};
    case STAP_REC_ERROR: return decode_error(header.id, payload, n);
    case STAP_REC_PRINT_HIST: return decode_hist(header.id, payload, n);
    case STAP_REC_WARN:
    case STAP_REC_LOG:
    case STAP_REC_SYSTEM: {
      std::string message;
      Reader(payload, n).printf_string_slot(n, message);
      if (header.kind == STAP_REC_LOG) return DecodedRecord{DecodedRecord::Kind::print, message + "\n"};
      if (header.kind == STAP_REC_SYSTEM) return DecodedRecord{DecodedRecord::Kind::system, std::move(message)};
      return DecodedRecord{DecodedRecord::Kind::warn, std::move(message)};
    }
    case STAP_REC_ABORT: return DecodedRecord{DecodedRecord::Kind::abort, {}};
    case STAP_REC_STACK:  // print_backtrace() & co (stack_symbols.h)
      return DecodedRecord{DecodedRecord::Kind::print, stack_symbols().record_text(header.id, payload, n)};
  }
  return malformed("unknown record kind " + std::to_string(header.kind));
}

DecodedRecord RecordDecoder::decode_printf(uint32_t id, const char* p, size_t n) const {
  if (id >= formats_.size()) return malformed("printf record with format " + std::to_string(id));
  std::vector<PrintfValue> args;
  Reader in(p, n);
  if (!read_printf_args(formats_[id], static_cast<size_t>(module_.limits.maxstringlen), in, args))
    return malformed("printf record of " + std::to_string(n) + " bytes does not match \"" +
                     module_.formats[id] + "\"");
  try {
    return DecodedRecord{DecodedRecord::Kind::print, format_printf(formats_[id], args)};
  } catch (const std::invalid_argument& e) {
    return malformed(e.what());
  }
}

DecodedRecord RecordDecoder::decode_error(uint32_t id, const char* p, size_t n) const {
  Reader in(p, n);
  std::string message;
  // The message slot may be cut short by the writer; take what is there.
  in.string_slot(n, message);
  if (id != 0 && id < module_.locations.size())
    message += " near " + module_.locations[id].text;
  return DecodedRecord{DecodedRecord::Kind::error, std::move(message)};
}

DecodedRecord RecordDecoder::decode_hist(uint32_t id, const char* p, size_t n) const {
  if (id >= module_.globals.size() || module_.globals[id].type != ir::Type::stats ||
      module_.globals[id].hist.kind == ir::HistShape::Kind::none)
    return malformed("histogram record for global " + std::to_string(id));
  const ir::Global& g = module_.globals[id];
  std::optional<Key> key = unpack_key(module_, g, p, n);
  if (!key) return malformed("histogram record with a key of " + std::to_string(n) + " bytes");
  std::optional<StatValue> value = stats_ ? stats_(id, *key) : std::nullopt;
  // An empty statistic prints nothing, as stap prints nothing for it.
  if (!value) value = StatValue{0, 0, 0, 0, 0, std::vector<int64_t>(size_t(g.hist.buckets()), 0)};
  try {
    Histogram h = histogram_of(g.hist, *value);
    std::optional<std::string> text = format_histogram(h);
    DecodedRecord r{DecodedRecord::Kind::print, text.value_or(""), {}};
    r.hist = DecodedRecord::Hist{id, std::move(*key), std::move(h)};
    return r;
  } catch (const std::invalid_argument& e) {
    return malformed(e.what());
  }
}

std::optional<Key> unpack_key(const ir::Module& module, const ir::Global& global,
                              const char* data, size_t size) {
  Reader in(data, size);
  Key key;
  for (size_t k = 0; k < global.keys.size(); ++k) {
    if (global.key_coded(k)) {
      int64_t code = 0;
      if (!in.long_value(code)) return std::nullopt;
      key.push_back(Value::of(ir::key_string(module, code)));
    } else if (global.keys[k] == ir::Type::string) {
      std::string s;
      if (!in.string_slot(global.key_width(k, uint32_t(module.limits.maxstringlen)), s)) return std::nullopt;
      key.push_back(Value::of(std::move(s)));
    } else {
      int64_t v = 0;
      if (!in.long_value(v)) return std::nullopt;
      key.push_back(Value::of(v));
    }
  }
  if (!in.at_end()) return std::nullopt;
  return key;
}

Histogram histogram_of(const ir::HistShape& shape, const StatValue& value) {
  Histogram h;
  if (shape.kind == ir::HistShape::Kind::linear) {
    h.kind = Histogram::Kind::linear;
    h.low = shape.low;
    h.high = shape.high;
    h.step = shape.step;
  }
  h.buckets = value.buckets;
  return h;
}

}  // namespace stap
