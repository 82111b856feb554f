// The kernel's tracefs: where it is, which trace events it offers, and the
// record layout of each (its `format` file).
//
// Pass 3 reads it to expand kernel.trace("sys:na*") and to turn $field
// into record reads; the runtime reads it to attach.  So it knows nothing
// of the front end: plain strings and numbers in, plain structs out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stap::tracefs {

struct Event {
  std::string system;
  std::string name;
  bool operator==(const Event&) const = default;
};

// One line of a format file:
//   field:const char * filename;  offset:24;  size:8;  signed:0;
//   field:char prev_comm[16];     offset:8;   size:16; signed:0;
//   field:__data_loc char[] name; offset:8;   size:4;  signed:0;
struct Field {
  std::string name;       // "filename"
  std::string type;       // the C type as written, without the name: "const char *"
  uint32_t offset = 0;
  uint32_t size = 0;
  bool is_signed = false;
  // For `type name[N]`: N; 0 for a flexible `name[]`; -1 when not an array.
  int64_t array_length = -1;
  // `__data_loc T[] name`: a u32 at offset, (length << 16) | offset of the
  // data within the record.
  bool is_data_loc = false;
  // A char array or a __data_loc char[]: the field reads as a string.
  bool is_string = false;
  // The element type of an array or __data_loc field ("char", "u64").
  std::string element_type;
  bool is_common() const { return name.starts_with("common_"); }
};

struct Format {
  std::string system;
  std::string name;
  int64_t id = -1;
  std::vector<Field> fields;  // in record order, common_* included
  const Field* find(std::string_view field) const;
};

// The directory tracefs is mounted on: /sys/kernel/tracing, else the old
// /sys/kernel/debug/tracing.  When neither is mounted it mounts tracefs at
// /sys/kernel/tracing (root only).  Empty, with `error` set, on failure.
std::string find_root(std::string& error);

// Every event of <root>/available_events, in its order.
bool list_events(const std::string& root, std::vector<Event>& out, std::string& error);

// The events whose system and name match the globs (fnmatch).  An empty
// system glob means any system.
std::vector<Event> match_events(const std::vector<Event>& all, const std::string& system_glob,
                                const std::string& name_glob);

// Reads and parses <root>/events/<system>/<name>/format.
bool read_format(const std::string& root, const Event& event, Format& out, std::string& error);

// Parses the text of a format file.
bool parse_format(std::string_view text, Format& out, std::string& error);

// Parses one "field:...;" line's declaration part: "char prev_comm[16]",
// "__data_loc char[] name", "const char * filename".  Offset, size and
// signedness are left to the caller.  False when no name can be found.
bool parse_declaration(std::string_view decl, Field& out);

}  // namespace stap::tracefs
