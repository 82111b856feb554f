// The compiled-object cache: SHA-256, the key's sensitivity to each of its
// inputs, and storing/finding objects.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>

#include "driver/cache.h"

namespace fs = std::filesystem;

namespace {

// A fresh directory under the test's temp dir, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "stap-cache-test-XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

stap::CacheInputs base_inputs(const std::string& tapsets) {
  stap::CacheInputs in;
  in.engine = "0.1/123/456";
  in.script_name = "<input>";
  in.script_text = "probe begin { exit() }";
  in.extra_scripts = {"probe end {}"};
  in.args = {"1", "two"};
  in.defines = {{"MAXSTRINGLEN", "256"}};
  in.tapset_dirs = {tapsets};
  in.global_settings = {"x=1"};
  in.kernel_release = "6.18.44";
  return in;
}

}  // namespace

TEST_CASE("sha256: FIPS 180-4 test vectors", "[cache]") {
  CHECK(stap::sha256_hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(stap::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(stap::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(stap::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Fed in pieces that straddle block boundaries, the digest is the same.
  stap::Sha256 s;
  std::string text(200, 'q');
  s.update(text.substr(0, 63));
  s.update(text.substr(63, 2));
  s.update(text.substr(65));
  std::array<uint8_t, 32> d = s.finish();
  std::string hex;
  for (uint8_t b : d) hex += "0123456789abcdef"[b >> 4], hex += "0123456789abcdef"[b & 15];
  CHECK(hex == stap::sha256_hex(text));
}

TEST_CASE("cache key: the same inputs give the same key", "[cache]") {
  TempDir dir;
  write(dir.path / "a.stp", "function f() { return 1 }");
  stap::CacheInputs in = base_inputs(dir.path.string());
  std::string key = stap::cache_key(in);
  CHECK(key.size() == 64);
  CHECK(stap::cache_key(base_inputs(dir.path.string())) == key);
}

TEST_CASE("cache key: every input changes the key", "[cache]") {
  TempDir dir;
  write(dir.path / "a.stp", "function f() { return 1 }");
  const std::string base = stap::cache_key(base_inputs(dir.path.string()));
  using Change = std::function<void(stap::CacheInputs&)>;
  std::vector<std::pair<const char*, Change>> changes = {
      {"engine", [](auto& i) { i.engine += "x"; }},
      {"script name", [](auto& i) { i.script_name = "t.stp"; }},
      {"script text", [](auto& i) { i.script_text += " "; }},
      {"-E script", [](auto& i) { i.extra_scripts.push_back("probe never {}"); }},
      {"argument", [](auto& i) { i.args[1] = "three"; }},
      {"argument count", [](auto& i) { i.args.push_back(""); }},
      {"-D value", [](auto& i) { i.defines["MAXSTRINGLEN"] = "512"; }},
      {"-D name", [](auto& i) { i.defines["MAXERRORS"] = "3"; }},
      {"-G", [](auto& i) { i.global_settings = {"x=2"}; }},
      {"-g", [](auto& i) { i.guru = true; }},
      {"-u", [](auto& i) { i.keep_unused = true; }},
      {"-w", [](auto& i) { i.suppress_warnings = true; }},
      {"--no-global-var-display", [](auto& i) { i.global_var_display = false; }},
      {"kernel release", [](auto& i) { i.kernel_release = "6.1.0"; }},
      {"-c/-x program", [](auto& i) { i.target_program = "ls"; }},
      {"-I directory", [&](auto& i) { i.tapset_dirs.push_back((dir.path / "none").string()); }},
      // Framing: moving text between fields is a different input.
      {"field boundaries", [](auto& i) {
         i.args = {"1two"};
       }},
  };
  for (auto& [what, change] : changes) {
    stap::CacheInputs in = base_inputs(dir.path.string());
    change(in);
    INFO(what);
    CHECK(stap::cache_key(in) != base);
  }
}

TEST_CASE("cache key: tapset files are hashed by content and name", "[cache]") {
  TempDir dir;
  write(dir.path / "a.stp", "function f() { return 1 }");
  write(dir.path / "sub/b.stpm", "@define x %( 1 %)");
  const std::string base = stap::cache_key(base_inputs(dir.path.string()));

  write(dir.path / "sub/b.stpm", "@define x %( 2 %)");
  std::string edited = stap::cache_key(base_inputs(dir.path.string()));
  CHECK(edited != base);

  fs::rename(dir.path / "a.stp", dir.path / "c.stp");
  std::string renamed = stap::cache_key(base_inputs(dir.path.string()));
  CHECK(renamed != edited);

  write(dir.path / "new.stp", "");
  CHECK(stap::cache_key(base_inputs(dir.path.string())) != renamed);
}

TEST_CASE("cache: paths under SYSTEMTAP_DIR", "[cache]") {
  const char* old = std::getenv("SYSTEMTAP_DIR");
  std::string saved = old ? old : "";
  setenv("SYSTEMTAP_DIR", "/var/tmp/stapdir", 1);
  CHECK(stap::cache_root() == "/var/tmp/stapdir/cache");
  std::string key(64, 'a');
  key[0] = '3';
  key[1] = 'f';
  CHECK(stap::cache_path("/r", key) == "/r/3f/stap_3f" + std::string(30, 'a') + ".bo");
  CHECK(stap::cache_module_name(key) == "stap_3f" + std::string(30, 'a'));
  if (old) setenv("SYSTEMTAP_DIR", saved.c_str(), 1);
  else unsetenv("SYSTEMTAP_DIR");
}

TEST_CASE("cache: a miss, then a store, then a hit with the same bytes", "[cache]") {
  TempDir dir;
  std::string key = stap::sha256_hex("some script");
  std::string path = stap::cache_path((dir.path / "cache").string(), key);
  CHECK_FALSE(stap::cache_load(path).has_value());

  std::string object("\x7f" "ELF\0\1\2", 7);
  std::string error;
  REQUIRE(stap::cache_store(path, object, error));
  std::optional<std::string> hit = stap::cache_load(path);
  REQUIRE(hit.has_value());
  CHECK(*hit == object);

  // Replaced atomically: no temporary file is left beside it.
  REQUIRE(stap::cache_store(path, "second", error));
  CHECK(*stap::cache_load(path) == "second");
  size_t files = 0;
  for (auto& e : fs::directory_iterator(fs::path(path).parent_path())) {
    (void)e;
    ++files;
  }
  CHECK(files == 1);
}

TEST_CASE("cache: a store that cannot be written says why", "[cache]") {
  TempDir dir;
  write(dir.path / "file", "x");
  std::string error;
  // A directory is needed where a file stands.
  CHECK_FALSE(stap::cache_store((dir.path / "file" / "ab" / "stap_x.bo").string(), "o", error));
  CHECK_FALSE(error.empty());
}

TEST_CASE("cache cleaning: least recently used objects go past the size limit", "[cache]") {
  TempDir dir;
  fs::path root = dir.path / "cache";
  std::string error;
  // Three 600 KiB objects, used in the order a, b, c.
  std::vector<std::string> paths;
  for (const char* name : {"a", "b", "c"}) {
    std::string path = stap::cache_path(root.string(), stap::sha256_hex(name));
    REQUIRE(stap::cache_store(path, std::string(600 << 10, 'x'), error));
    paths.push_back(path);
  }
  for (size_t i = 0; i < paths.size(); ++i) {
    timespec times[2] = {{static_cast<time_t>(1000 + i), 0}, {static_cast<time_t>(1000 + i), 0}};
    utimensat(AT_FDCWD, paths[i].c_str(), times, 0);
  }
  write(root / "cache_mb_limit", "1\n");
  write(root / "cache_clean_interval_s", "0\n");
  CHECK(stap::clean_cache(root.string()) == 2);
  CHECK_FALSE(fs::exists(paths[0]));
  CHECK_FALSE(fs::exists(paths[1]));
  CHECK(fs::exists(paths[2]));

  // Within the interval nothing is looked at again.
  write(root / "cache_clean_interval_s", "3600\n");
  write(root / "cache_mb_limit", "0\n");
  CHECK(stap::clean_cache(root.string()) == 0);
  CHECK(fs::exists(paths[2]));
}

TEST_CASE("cache cleaning: the settings files get stap's defaults", "[cache]") {
  TempDir dir;
  fs::create_directories(dir.path / "cache");
  CHECK(stap::clean_cache((dir.path / "cache").string()) == 0);
  std::ifstream limit(dir.path / "cache" / "cache_mb_limit"), interval(dir.path / "cache" / "cache_clean_interval_s");
  int mb = 0, seconds = 0;
  limit >> mb;
  interval >> seconds;
  CHECK(mb == 256);
  CHECK(seconds == 300);
}
