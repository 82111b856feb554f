#include "loader/output/pprof_profile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "ir/key_codes.h"
#include "profile.pb.h"  // generated from pprof's profile.proto (loader/CMakeLists.txt)

namespace stap {

namespace {

namespace pb = perftools::profiles;

// profile.proto keeps every string once, in string_table, and refers to
// it by index; index 0 must be "".
class Strings {
 public:
  explicit Strings(pb::Profile& p) : p_(p) { index(""); }
  int64_t index(const std::string& s) {
    auto [it, added] = at_.try_emplace(s, int64_t(at_.size()));
    if (added) p_.add_string_table(s);
    return it->second;
  }

 private:
  pb::Profile& p_;
  std::unordered_map<std::string, int64_t> at_;
};

// A frame's address space: user addresses only mean something in their
// process, so the same address in two processes is two Locations.
using Space = std::tuple<bool, uint32_t>;

struct MappingRange {
  uint64_t low = UINT64_MAX, high = 0;
  bool all_named = true;
  size_t roots = 0;  // samples whose outermost frame is in it
};

void add_value_type(pb::Profile& p, Strings& s, const char* type, const char* unit) {
  pb::ValueType* v = p.add_sample_type();
  v->set_type(s.index(type));
  v->set_unit(s.index(unit));
}

}  // namespace

std::string pprof_encode(const PprofInput& in) {
  pb::Profile p;
  Strings s(p);
  add_value_type(p, s, "samples", "count");
  if (in.with_sum) add_value_type(p, s, "sum", "units");
  // pprof shows the last sample type unless told: the samples are what a
  // profile of stacks is read for first.
  p.set_default_sample_type(s.index("samples"));
  p.set_time_nanos(in.time_nanos);
  p.set_duration_nanos(in.duration_nanos);

  // Mappings first, over every frame, so that each Location can name its
  // Mapping by id: one per binary per address space, spanning the
  // addresses seen in it (the real extent is not known here, and pprof
  // needs only a range that holds its locations).
  using MappingKey = std::tuple<bool, uint32_t, std::string>;
  std::map<MappingKey, MappingRange> ranges;
  for (const PprofSample& sample : in.samples) {
    for (const PprofFrame& f : sample.frames) {
      if (f.binary.empty()) continue;
      MappingRange& r = ranges[{f.user, f.user ? f.tgid : 0, f.binary}];
      r.low = std::min(r.low, f.address);
      r.high = std::max(r.high, f.address);
      r.all_named = r.all_named && !f.function.empty();
    }
    if (!sample.frames.empty() && !sample.frames.back().binary.empty()) {
      const PprofFrame& root = sample.frames.back();
      ++ranges[{root.user, root.user ? root.tgid : 0, root.binary}].roots;
    }
  }
  // pprof takes the first mapping for the main binary (its "File:" line,
  // and where it looks for symbols): the one most stacks start in, which
  // is the program's own (_start, main) rather than libc.
  std::vector<std::pair<MappingKey, MappingRange>> order(ranges.begin(), ranges.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second.roots > b.second.roots; });
  std::map<MappingKey, uint64_t> mapping_ids;
  for (const auto& [key, r] : order) {
    pb::Mapping* m = p.add_mapping();
    m->set_id(uint64_t(p.mapping_size()));
    m->set_memory_start(r.low);
    m->set_memory_limit(r.high + 1);
    m->set_filename(s.index(std::get<2>(key)));
    // Symbolized here: pprof need not look for the binary (it may be
    // gone, or on another host) unless some frame had no name.
    m->set_has_functions(r.all_named);
    mapping_ids[key] = m->id();
  }

  std::map<std::pair<std::string, std::string>, uint64_t> function_ids;  // (name, binary)
  std::map<std::tuple<bool, uint32_t, uint64_t>, uint64_t> location_ids;
  auto location = [&](const PprofFrame& f) -> uint64_t {
    auto [it, added] = location_ids.try_emplace({f.user, f.user ? f.tgid : 0, f.address}, 0);
    if (!added) return it->second;
    pb::Location* loc = p.add_location();
    loc->set_id(uint64_t(p.location_size()));
    loc->set_address(f.address);
    if (!f.binary.empty()) loc->set_mapping_id(mapping_ids[{f.user, f.user ? f.tgid : 0, f.binary}]);
    if (!f.function.empty()) {
      auto [fit, fadded] = function_ids.try_emplace({f.function, f.binary}, 0);
      if (fadded) {
        pb::Function* fn = p.add_function();
        fn->set_id(uint64_t(p.function_size()));
        fn->set_name(s.index(f.function));
        fn->set_system_name(s.index(f.function));
        fit->second = fn->id();
      }
      loc->add_line()->set_function_id(fit->second);
    }
    return it->second = loc->id();
  };

  for (const PprofSample& sample : in.samples) {
    pb::Sample* out = p.add_sample();
    for (const PprofFrame& f : sample.frames) out->add_location_id(location(f));
    out->add_value(sample.count);
    if (in.with_sum) out->add_value(sample.sum);
    for (const PprofLabel& l : sample.labels) {
      pb::Label* label = out->add_label();
      label->set_key(s.index(l.key));
      if (l.numeric) label->set_num(l.num);
      else label->set_str(s.index(l.str));
    }
  }
  return p.SerializeAsString();
}

namespace {

bool gzip(const std::string& in, std::string& out) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer, not zlib's.
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return false;
  out.resize(deflateBound(&z, uLong(in.size())) + 32);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END;
}

bool write_all(int fd, const std::string& bytes) {
  for (size_t at = 0; at < bytes.size();) {
    ssize_t n = write(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += size_t(n);
  }
  return true;
}

}  // namespace

bool write_gzipped(const std::string& path, const std::string& bytes, std::string& error) {
  auto fail = [&](int err) {
    error = "cannot write the pprof profile to " + path + ": " + std::strerror(err);
    return false;
  };
  std::string packed;
  if (!gzip(bytes, packed)) {
    error = "cannot compress the pprof profile for " + path;
    return false;
  }
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A pipe, a terminal, /dev/stdout: written in place (a rename would
    // replace the device node or the symlink).
    int fd = open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) return fail(errno);
    bool ok = write_all(fd, packed);
    int err = errno;
    if (close(fd) != 0 && ok) ok = false, err = errno;
    return ok || fail(err);
  }
  std::string tmp = path + ".XXXXXX";
  int fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) return fail(errno);
  // mkstemp makes the file 0600; the profile gets what open(2) would give.
  mode_t mask = umask(0);
  umask(mask);
  bool ok = fchmod(fd, 0666 & ~mask) == 0 && write_all(fd, packed);
  int err = errno;
  if (close(fd) != 0 && ok) ok = false, err = errno;
  if (ok && rename(tmp.c_str(), path.c_str()) != 0) ok = false, err = errno;
  if (!ok) {
    unlink(tmp.c_str());
    return fail(err);
  }
  return true;
}

PprofInput pprof_samples(const ir::Module& m, const GlobalStore& store, StackSymbols& stacks,
                         size_t& aggregates) {
  PprofInput in;
  aggregates = 0;
  for (size_t gi = 0; gi < m.globals.size(); ++gi) {
    const ir::Global& g = m.globals[gi];
    // As --folded: stacks are only ever in coded columns, and a string
    // value is nothing to add up.
    if (!g.is_array() || g.coded_keys.empty() || g.type == ir::Type::string) continue;
    ++aggregates;
    bool stats = g.type == ir::Type::stats;
    in.with_sum = in.with_sum || stats;
    for (const Key& key : store.keys(gi)) {
      PprofSample sample;
      sample.labels.push_back({"global", false, g.name, 0});
      // Root first while reading the columns, as --folded's lines: user
      // frames below kernel frames, each column's frames root first.
      std::vector<PprofFrame> user, kernel;
      for (size_t k = 0; k < key.size(); ++k) {
        const Value& v = key[k];
        if (g.key_coded(k) && ir::is_stack_code(v.num)) {
          ir::StackCode c = ir::split_stack_code(v.num);
          std::vector<uint64_t> ips = stacks.frames(v.num);  // innermost first
          auto& side = c.user ? user : kernel;
          for (auto it = ips.rbegin(); it != ips.rend(); ++it) {
            NamedAddress n = stacks.name(*it, c.user, c.tgid);
            std::string binary = n.module == "kernel" ? "[kernel.kallsyms]" : n.module;
            side.push_back({*it, n.name, binary, c.user, c.tgid});
          }
        } else {
          std::string label = g.key_label(k);
          if (v.is_string) sample.labels.push_back({label, false, v.str, 0});
          else sample.labels.push_back({label, true, {}, v.num});
        }
      }
      if (user.empty() && kernel.empty()) continue;  // no stack in this key
      sample.frames = user;
      sample.frames.insert(sample.frames.end(), kernel.begin(), kernel.end());
      std::reverse(sample.frames.begin(), sample.frames.end());  // leaf first
      if (stats) {
        std::optional<StatValue> st = store.stat_get(gi, key);
        if (!st) continue;
        sample.count = st->count;
        sample.sum = st->sum;
      } else {
        std::optional<Value> value = store.get(gi, key);
        if (!value) continue;
        sample.count = sample.sum = value->num;
      }
      // Elements of nothing (a deleted statistic, a counter back at 0)
      // would be empty rows in every view.
      if (sample.count == 0 && sample.sum == 0) continue;
      in.samples.push_back(std::move(sample));
    }
  }
  return in;
}

bool write_pprof_profile(const std::string& path, const ir::Module& m, const GlobalStore& store,
                         StackSymbols& stacks, std::string& error, std::string& warning) {
  size_t aggregates = 0;
  PprofInput in = pprof_samples(m, store, stacks, aggregates);
  in.time_nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  if (aggregates == 0)
    warning = "--pprof: the script has no array or statistic keyed by a stack (backtrace(), "
              "ubacktrace() ...): " + path + " holds an empty profile";
  else if (in.samples.empty())
    warning = "--pprof: no stack-keyed element was recorded: " + path + " holds an empty profile";
  return write_gzipped(path, pprof_encode(in), error);
}

}  // namespace stap
