// Lists BPF programs, maps and links of ours that outlive a stap session.
//
//   bpf_leftovers available         exit 0 when this process can create a
//                                   BPF map (root, BPF in the kernel)
//   bpf_leftovers snapshot          prints the highest prog/map/link ids now
//   bpf_leftovers check P M L       prints each object of ours with an id
//                                   above P/M/L (a snapshot's output) that
//                                   no live process holds; exit 1 if any
//
// "Ours" is by name: maps and programs whose names start with one of the
// prefixes below, links whose program is ours.  Objects a live process
// holds open belong to a session still running (another test, another
// user of the machine): the session under test has exited when we look,
// so whatever it left behind is held by nothing but the kernel.
#include <bpf/bpf.h>
#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace {

// Maps: the layout's names (bpf_runtime/stap_layout.h) and libbpf's
// internal maps of an object (".rodata", ".data", ".bss" after a prefix of
// the object name).  Programs: codegen names each probe's program.
const char* const kMapPrefixes[] = {"stap_"};
const char* const kMapSuffixes[] = {".rodata", ".data", ".bss", ".kconfig"};
const char* const kProgPrefixes[] = {"stap_", "probe_", "kfunc_", "uprobe_", "perf_", "tp_btf_", "lsm_", "netfilter_"};

bool starts_with(const char* s, const char* prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

bool ends_with(const char* s, const char* suffix) {
  size_t n = std::strlen(s), m = std::strlen(suffix);
  return n >= m && std::strcmp(s + n - m, suffix) == 0;
}

bool our_map_name(const char* name) {
  for (const char* p : kMapPrefixes)
    if (starts_with(name, p)) return true;
  for (const char* s : kMapSuffixes)
    if (ends_with(name, s)) return true;
  return false;
}

bool our_prog_name(const char* name) {
  for (const char* p : kProgPrefixes)
    if (starts_with(name, p)) return true;
  return false;
}

// Ids held open by some live process, from /proc/*/fdinfo ("prog_id:",
// "map_id:", "link_id:" lines of BPF fds).
struct Held {
  std::set<__u32> progs, maps, links;
};

void scan_fdinfo(const std::string& path, Held& held) {
  std::ifstream in(path);
  std::string key;
  __u32 value;
  std::string line;
  while (std::getline(in, line)) {
    char name[32];
    if (std::sscanf(line.c_str(), "%31[a-z_]:\t%u", name, &value) != 2) continue;
    key = name;
    if (key == "prog_id") held.progs.insert(value);
    else if (key == "map_id") held.maps.insert(value);
    else if (key == "link_id") held.links.insert(value);
  }
}

Held held_by_processes() {
  Held held;
  DIR* proc = opendir("/proc");
  if (!proc) return held;
  while (dirent* p = readdir(proc)) {
    if (p->d_name[0] < '0' || p->d_name[0] > '9') continue;
    std::string fd_dir = std::string("/proc/") + p->d_name + "/fd";
    DIR* fds = opendir(fd_dir.c_str());
    if (!fds) continue;
    while (dirent* f = readdir(fds)) {
      if (f->d_name[0] == '.') continue;
      char target[64] = {};
      std::string link = fd_dir + "/" + f->d_name;
      if (readlink(link.c_str(), target, sizeof target - 1) < 0) continue;
      if (!starts_with(target, "anon_inode:bpf")) continue;
      scan_fdinfo(std::string("/proc/") + p->d_name + "/fdinfo/" + f->d_name, held);
    }
    closedir(fds);
  }
  closedir(proc);
  return held;
}

using NextId = int (*)(__u32, __u32*);

__u32 max_id(NextId next) {
  __u32 id = 0, last = 0;
  while (next(id, &id) == 0) last = id;
  return last;
}

struct Report {
  int count = 0;
  std::set<__u32> our_progs;
};

void check_progs(__u32 above, const Held& held, Report& report) {
  __u32 id = 0;
  while (bpf_prog_get_next_id(id, &id) == 0) {
    int fd = bpf_prog_get_fd_by_id(id);
    if (fd < 0) continue;  // freed meanwhile
    bpf_prog_info info = {};
    __u32 len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && our_prog_name(info.name)) {
      report.our_progs.insert(id);
      if (id > above && !held.progs.count(id)) {
        std::printf("prog %u %s\n", id, info.name);
        ++report.count;
      }
    }
    close(fd);
  }
}

void check_maps(__u32 above, const Held& held, Report& report) {
  __u32 id = above;
  while (bpf_map_get_next_id(id, &id) == 0) {
    if (held.maps.count(id)) continue;
    int fd = bpf_map_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_map_info info = {};
    __u32 len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && our_map_name(info.name)) {
      std::printf("map %u %s\n", id, info.name);
      ++report.count;
    }
    close(fd);
  }
}

void check_links(__u32 above, const Held& held, Report& report) {
  __u32 id = above;
  while (bpf_link_get_next_id(id, &id) == 0) {
    if (held.links.count(id)) continue;
    int fd = bpf_link_get_fd_by_id(id);
    if (fd < 0) continue;
    bpf_link_info info = {};
    __u32 len = sizeof info;
    if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && report.our_progs.count(info.prog_id)) {
      std::printf("link %u (type %u, prog %u)\n", id, info.type, info.prog_id);
      ++report.count;
    }
    close(fd);
  }
}

int usage() {
  std::fprintf(stderr, "usage: bpf_leftovers available | snapshot | check PROG_ID MAP_ID LINK_ID\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "available") == 0) {
    int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "live_probe", 4, 8, 1, nullptr);
    if (fd < 0) {
      std::printf("cannot create a BPF map: %s\n", std::strerror(errno));
      return 1;
    }
    close(fd);
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "snapshot") == 0) {
    std::printf("%u %u %u\n", max_id(bpf_prog_get_next_id), max_id(bpf_map_get_next_id),
                max_id(bpf_link_get_next_id));
    return 0;
  }
  if (argc != 5 || std::strcmp(argv[1], "check") != 0) return usage();
  __u32 prog_above = std::strtoul(argv[2], nullptr, 10);
  __u32 map_above = std::strtoul(argv[3], nullptr, 10);
  __u32 link_above = std::strtoul(argv[4], nullptr, 10);
  if (geteuid() != 0) {
    std::fprintf(stderr, "bpf_leftovers: needs root\n");
    return 2;
  }
  Held held = held_by_processes();
  Report report;
  check_progs(prog_above, held, report);  // also collects our programs for links
  check_maps(map_above, held, report);
  check_links(link_above, held, report);
  return report.count ? 1 : 0;
}
