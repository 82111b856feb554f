#include "driver/cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace stap {

namespace {

constexpr std::array<uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

std::string to_hex(const uint8_t* p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

// Fields are framed (tag, length, bytes) so that no two different inputs
// concatenate to the same stream.
class KeyBuilder {
 public:
  void field(std::string_view tag, std::string_view value) {
    sha_.update(tag);
    uint64_t n = value.size();
    sha_.update(&n, sizeof n);
    sha_.update(value);
  }
  void flag(std::string_view tag, bool v) { field(tag, v ? "1" : "0"); }
  std::string hex() {
    std::array<uint8_t, 32> d = sha_.finish();
    return to_hex(d.data(), d.size());
  }

 private:
  Sha256 sha_;
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Every regular file under `dir`, by relative path, with its content.
void add_tapset_dir(KeyBuilder& key, const std::string& dir) {
  namespace fs = std::filesystem;
  key.field("tapset-dir", dir);
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    key.field("tapset-file", fs::relative(f, dir, ec).string());
    key.field("tapset-text", read_file(f));
  }
}

}  // namespace

Sha256::Sha256()
    : h_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
         0x5be0cd19} {}

void Sha256::block(const uint8_t* p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 |
           uint32_t(p[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
  for (int i = 0; i < 64; ++i) {
    uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                  kRound[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h_[0] += a; h_[1] += b; h_[2] += c; h_[3] += d;
  h_[4] += e; h_[5] += f; h_[6] += g; h_[7] += h;
}

void Sha256::update(const void* data, size_t size) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  length_ += size;
  while (size > 0) {
    size_t take = std::min(size, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ == buffer_.size()) {
      block(buffer_.data());
      buffered_ = 0;
    }
  }
}

std::array<uint8_t, 32> Sha256::finish() {
  uint64_t bits = length_ * 8;
  uint8_t pad = 0x80;
  update(&pad, 1);
  uint8_t zero = 0;
  while (buffered_ != 56) update(&zero, 1);
  uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(bits >> (56 - 8 * i));
  update(len, 8);
  std::array<uint8_t, 32> out;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(h_[i] >> (24 - 8 * j));
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 s;
  s.update(data);
  std::array<uint8_t, 32> d = s.finish();
  return to_hex(d.data(), d.size());
}

std::string cache_key(const CacheInputs& in) {
  KeyBuilder key;
  key.field("engine", in.engine);
  key.field("script-name", in.script_name);
  key.field("script", in.script_text);
  for (const std::string& s : in.extra_scripts) key.field("extra-script", s);
  for (const std::string& a : in.args) key.field("arg", a);
  for (const auto& [name, value] : in.defines) key.field("define", name + "=" + value);
  for (const std::string& g : in.global_settings) key.field("global-setting", g);
  for (const std::string& dir : in.tapset_dirs) add_tapset_dir(key, dir);
  key.flag("guru", in.guru);
  key.flag("keep-unused", in.keep_unused);
  key.flag("no-warnings", in.suppress_warnings);
  key.flag("global-display", in.global_var_display);
  key.flag("timing", in.timing);
  key.field("kernel", in.kernel_release);
  key.field("compatible", in.compatible);
  key.field("prologue-searching", in.prologue_searching);
  if (!in.target_program.empty()) key.field("target-program", in.target_program);
  return key.hex();
}

std::string engine_identity(const std::string& version) {
  struct stat st{};
  std::string id = version;
  if (stat("/proc/self/exe", &st) == 0)
    id += "/" + std::to_string(st.st_size) + "/" + std::to_string(st.st_mtim.tv_sec) + "." +
          std::to_string(st.st_mtim.tv_nsec);
  return id;
}

std::string cache_module_name(const std::string& key) { return "stap_" + key.substr(0, 32); }

std::string cache_root() {
  if (const char* d = std::getenv("SYSTEMTAP_DIR"); d && *d) return std::string(d) + "/cache";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.systemtap/cache";
  return {};
}

std::string cache_path(const std::string& root, const std::string& key) {
  return root + "/" + key.substr(0, 2) + "/" + cache_module_name(key) + ".bo";
}

std::optional<std::string> cache_load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data(std::istreambuf_iterator<char>(in), {});
  if (in.bad() || data.empty()) return std::nullopt;
  return data;
}

bool write_file_atomically(const std::string& path, std::string_view data, std::string& error) {
  namespace fs = std::filesystem;
  fs::path target(path);
  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
  if (target.parent_path().empty()) tmp = "." + target.filename().string() + ".XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    error = "cannot create a file next to " + path + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  // mkstemp makes the file 0600; an object is as readable as stap's .ko.
  fchmod(fd, 0644);
  bool wrote = done == data.size();
  bool closed = close(fd) == 0;
  if (wrote && closed && rename(tmp.c_str(), path.c_str()) == 0) return true;
  error = "cannot write " + path + ": " + std::strerror(errno);
  unlink(tmp.c_str());
  return false;
}

namespace {

// A number from a one-line settings file, written with `fallback` when absent.
uint64_t cache_setting(const std::filesystem::path& file, uint64_t fallback) {
  std::ifstream in(file);
  uint64_t v = 0;
  if (in >> v) return v;
  std::ofstream(file) << fallback << "\n";
  return fallback;
}

struct CachedObject {
  std::filesystem::path path;
  uint64_t size = 0;
  int64_t used_ns = 0;  // last access
};

std::vector<CachedObject> cached_objects(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  std::vector<CachedObject> objects;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".bo") continue;
    struct stat st{};
    if (stat(it->path().c_str(), &st) != 0) continue;
    int64_t used = std::max<int64_t>(st.st_atim.tv_sec * 1000000000LL + st.st_atim.tv_nsec,
                                     st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec);
    objects.push_back({it->path(), static_cast<uint64_t>(st.st_size), used});
  }
  return objects;
}

}  // namespace

size_t clean_cache(const std::string& root) {
  namespace fs = std::filesystem;
  const fs::path dir(root);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return 0;
  uint64_t limit_mb = cache_setting(dir / "cache_mb_limit", 256);
  uint64_t interval_s = cache_setting(dir / "cache_clean_interval_s", 300);
  // The mtime of .last_clean says when the cache was last cleaned.
  fs::path stamp = dir / ".last_clean";
  struct stat st{};
  if (stat(stamp.c_str(), &st) == 0 &&
      st.st_mtime + static_cast<time_t>(interval_s) > time(nullptr))
    return 0;
  std::ofstream(stamp).close();
  utimensat(AT_FDCWD, stamp.c_str(), nullptr, 0);

  std::vector<CachedObject> objects = cached_objects(dir);
  uint64_t total = 0;
  for (const CachedObject& o : objects) total += o.size;
  std::sort(objects.begin(), objects.end(),
            [](const CachedObject& a, const CachedObject& b) { return a.used_ns < b.used_ns; });
  size_t removed = 0;
  for (const CachedObject& o : objects) {
    if (total <= limit_mb << 20) break;
    if (fs::remove(o.path, ec)) {
      total -= o.size;
      ++removed;
    }
  }
  return removed;
}

bool cache_store(const std::string& path, std::string_view object, std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  if (ec) {
    error = "cannot create " + std::filesystem::path(path).parent_path().string() + ": " +
            ec.message();
    return false;
  }
  return write_file_atomically(path, object, error);
}

}  // namespace stap
