// The cache of compiled objects: a rerun of the same script with the same
// inputs skips passes 1-4 and runs the stored object.
//
// The key is a SHA-256 over everything that changes the object: this
// engine (version and binary), every script's text, the $N arguments,
// the options that reach compilation (-D -I -g -u -w and the global
// display), the content of every tapset file, and the kernel release.
// Objects live in $SYSTEMTAP_DIR/cache (default ~/.systemtap/cache) as
// <2 hex>/stap_<32 hex>.bo, written atomically (temporary file + rename),
// so a crash or a concurrent run never leaves half an object behind.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stap {

// SHA-256 (FIPS 180-4), small and self-contained.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<uint8_t, 32> finish();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t length_ = 0;
};

std::string sha256_hex(std::string_view data);

struct CacheInputs {
  std::string engine;                      // version and binary identity
  std::string script_name, script_text;
  std::vector<std::string> extra_scripts;  // -E
  std::vector<std::string> args;           // $1 ...
  std::map<std::string, std::string> defines;  // -D
  std::vector<std::string> tapset_dirs;    // default, then -I: contents hashed
  bool guru = false, keep_unused = false, suppress_warnings = false;
  bool global_var_display = true;
  bool timing = false;  // -t
  std::vector<std::string> global_settings;  // -G
  std::string kernel_release;
  std::string compatible;  // systemtap_v: --compatible changes what %( %) keeps
  std::string prologue_searching;  // where process .function probes go
  // A bare process.function's program comes from -c/-x (Program::
  // target_program), so objects differ by it.
  std::string target_program;
};

// 64 hex digits.
std::string cache_key(const CacheInputs& inputs);

// This binary's identity for CacheInputs::engine: the version and the
// executable's size and modification time, so a rebuilt engine never
// reuses objects of the old one.
std::string engine_identity(const std::string& version);

// The module name stap gives an object of this key: "stap_" + 32 hex.
std::string cache_module_name(const std::string& key);

// $SYSTEMTAP_DIR/cache, or ~/.systemtap/cache; empty when neither is known.
std::string cache_root();
// <root>/<first 2 hex>/stap_<32 hex>.bo
std::string cache_path(const std::string& root, const std::string& key);

// The object stored at `path`, if any.
std::optional<std::string> cache_load(const std::string& path);
// Stores `object` at `path` (creating directories); false with `error`.
bool cache_store(const std::string& path, std::string_view object, std::string& error);

// Keeps the cache under its size limit, as stap does: at most every
// <root>/cache_clean_interval_s seconds (default 300; <root>/.last_clean
// says when it last ran), the least recently used objects go until the
// total is under <root>/cache_mb_limit MB (default 256).  Both files are
// created with their defaults when missing.  Returns how many were removed.
size_t clean_cache(const std::string& root);

// Writes `data` to `path` through a temporary file in the same directory
// and a rename.
bool write_file_atomically(const std::string& path, std::string_view data, std::string& error);

}  // namespace stap
