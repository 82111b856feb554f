// ERE -> syntax tree -> Thompson NFA -> DFA by subset construction.
// regcomp() itself judges validity first, so the parser here only has to
// read patterns glibc accepts, the same way glibc reads them.
#include "ir/regex_dfa.h"

#include <regex.h>

#include <algorithm>
#include <bitset>
#include <map>
#include <stdexcept>

namespace stap::ir {

namespace {

using ByteSet = std::bitset<256>;

// Thrown for a construct the DFA cannot express, or a size limit.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------- syntax

struct Re {
  enum Kind { chars, bol, eol, cat, alt, rep, empty } kind;
  ByteSet set;
  std::vector<int> kids;
  int min = 0, max = -1;  // rep: max -1 is unbounded
};

// The C locale's classes (the compiler never calls setlocale, nor does the
// runtime): ASCII only, bytes >= 0x80 in none.
bool in_class(const std::string& name, int c) {
  bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z', digit = c >= '0' && c <= '9';
  bool print = c >= 0x20 && c < 0x7f;
  if (name == "alpha") return upper || lower;
  if (name == "upper") return upper;
  if (name == "lower") return lower;
  if (name == "digit") return digit;
  if (name == "alnum") return upper || lower || digit;
  if (name == "xdigit") return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  if (name == "space") return c == ' ' || (c >= '\t' && c <= '\r');
  if (name == "blank") return c == ' ' || c == '\t';
  if (name == "print") return print;
  if (name == "graph") return print && c != ' ';
  if (name == "punct") return print && c != ' ' && !(upper || lower || digit);
  if (name == "cntrl") return c < 0x20 || c == 0x7f;
  throw Unsupported("uses the unknown class [:" + name + ":]");
}

ByteSet class_set(const std::string& name) {
  ByteSet s;
  for (int c = 1; c < 256; ++c) s[size_t(c)] = in_class(name, c);
  return s;
}

ByteSet complement(ByteSet s) {
  s.flip();
  s[0] = false;  // NUL ends the string: nothing matches it
  return s;
}

class Parser {
 public:
  Parser(const std::string& p, std::vector<Re>& nodes) : p_(p), nodes_(nodes) {}

  int parse() {
    int root = alternation(0);
    if (i_ != p_.size()) throw Unsupported("has text the parser did not read");
    return root;
  }

 private:
  int add(Re r) {
    nodes_.push_back(std::move(r));
    return int(nodes_.size() - 1);
  }
  int add_set(const ByteSet& s) { return add(Re{Re::chars, s, {}}); }
  bool more() const { return i_ < p_.size(); }
  unsigned char peek() const { return static_cast<unsigned char>(p_[i_]); }
  unsigned char take() {
    if (!more()) throw Unsupported("ends early");
    return static_cast<unsigned char>(p_[i_++]);
  }

  int alternation(int depth) {
    std::vector<int> kids{branch(depth)};
    while (more() && peek() == '|') {
      ++i_;
      kids.push_back(branch(depth));
    }
    return kids.size() == 1 ? kids[0] : add(Re{Re::alt, {}, kids});
  }

  // An unmatched ')' is an ordinary character (RE_UNMATCHED_RIGHT_PAREN_ORD).
  int branch(int depth) {
    std::vector<int> kids;
    while (more() && peek() != '|' && !(peek() == ')' && depth > 0)) kids.push_back(piece(depth));
    if (kids.empty()) return add(Re{Re::empty, {}, {}});
    return kids.size() == 1 ? kids[0] : add(Re{Re::cat, {}, kids});
  }

  int piece(int depth) {
    int r = atom(depth);
    while (more()) {
      unsigned char c = peek();
      if (c == '*') r = repeat(r, 0, -1);
      else if (c == '+') r = repeat(r, 1, -1);
      else if (c == '?') r = repeat(r, 0, 1);
      else if (c == '{') r = interval(r);
      else break;
      if (c != '{') ++i_;
    }
    return r;
  }

  int repeat(int kid, int min, int max) { return add(Re{Re::rep, {}, {kid}, min, max}); }

  int number() {
    int v = -1;
    while (more() && peek() >= '0' && peek() <= '9') v = (v < 0 ? 0 : v * 10) + (take() - '0');
    return v;
  }

  // {m} {m,} {,n} {m,n} {,}: a missing minimum is 0 (glibc's reading).
  int interval(int kid) {
    ++i_;
    int min = number(), max = min;
    if (more() && peek() == ',') {
      ++i_;
      max = number();
    }
    if (take() != '}') throw Unsupported("has an interval the parser did not read");
    return repeat(kid, min < 0 ? 0 : min, max);
  }

  int atom(int depth) {
    unsigned char c = take();
    switch (c) {
      case '(': {
        int r = alternation(depth + 1);
        if (take() != ')') throw Unsupported("has an unclosed group");
        return r;
      }
      case '.': return add_set(complement(ByteSet()));
      case '[': return add_set(bracket());
      case '^': return add(Re{Re::bol, {}, {}});
      case '$': return add(Re{Re::eol, {}, {}});
      case '\\': return escape();
      default: return literal(c);
    }
  }

  int literal(unsigned char c) {
    ByteSet s;
    s[c] = true;
    return add_set(s);
  }

  // glibc's GNU escapes outside brackets; any other escaped byte is itself.
  int escape() {
    unsigned char c = take();
    ByteSet word = class_set("alnum");
    word['_'] = true;
    switch (c) {
      case 'w': return add_set(word);
      case 'W': return add_set(complement(word));
      case 's': return add_set(class_set("space"));
      case 'S': return add_set(complement(class_set("space")));
      case '`': return add(Re{Re::bol, {}, {}});
      case '\'': return add(Re{Re::eol, {}, {}});
      case 'b': case 'B': case '<': case '>':
        throw Unsupported(std::string("uses the word assertion '\\") + char(c) + "'");
      default:
        if (c >= '1' && c <= '9') throw Unsupported("uses a back-reference");
        return literal(c);
    }
  }

  // [x] [.x.] [=x=]: one byte (the C locale has no multi-byte elements).
  unsigned char element() {
    if (peek() == '[' && i_ + 1 < p_.size() && (p_[i_ + 1] == '.' || p_[i_ + 1] == '=')) {
      char kind = p_[i_ + 1];
      i_ += 2;
      unsigned char c = take();
      if (take() != static_cast<unsigned char>(kind) || take() != ']')
        throw Unsupported("has a collating element the parser did not read");
      return c;
    }
    return take();
  }

  ByteSet bracket() {
    bool negate = more() && peek() == '^';
    if (negate) ++i_;
    ByteSet s;
    for (bool first = true;; first = false) {
      if (!more()) throw Unsupported("has an unclosed bracket");
      if (peek() == ']' && !first) {
        ++i_;
        break;
      }
      if (peek() == '[' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') {
        size_t end = p_.find(":]", i_ + 2);
        if (end == std::string::npos) throw Unsupported("has an unclosed class");
        s |= class_set(p_.substr(i_ + 2, end - i_ - 2));
        i_ = end + 2;
        continue;
      }
      unsigned char lo = element(), hi = lo;
      if (more() && peek() == '-' && i_ + 1 < p_.size() && p_[i_ + 1] != ']') {
        ++i_;
        hi = element();
      }
      for (int c = lo; c <= hi; ++c) s[size_t(c)] = true;  // C locale: byte order
    }
    s[0] = false;
    return negate ? complement(s) : s;
  }

  const std::string& p_;
  std::vector<Re>& nodes_;
  size_t i_ = 0;
};

// ---------------------------------------------------------------- NFA

struct NfaNode {
  enum Kind { chars, eps, bol, eol, match } kind;
  int set = -1;          // chars: index into Nfa::sets
  std::vector<int> out;  // chars/bol/eol: one; eps: any number
};

struct Nfa {
  std::vector<NfaNode> nodes;
  std::vector<ByteSet> sets;
  int start = 0;
};

// Built backwards: compile(r, next) returns the entry of r followed by next.
class NfaBuilder {
 public:
  NfaBuilder(const std::vector<Re>& re, Nfa& nfa) : re_(re), nfa_(nfa) {}

  void build(int root) {
    int match = add(NfaNode{NfaNode::match, -1, {}});
    nfa_.start = compile(root, match);
  }

 private:
  int add(NfaNode n) {
    if (nfa_.nodes.size() >= kRegexMaxNfaNodes)
      throw Unsupported("is too large for kernel context (its NFA passes " +
                        std::to_string(kRegexMaxNfaNodes) + " states)");
    nfa_.nodes.push_back(std::move(n));
    return int(nfa_.nodes.size() - 1);
  }

  int set_index(const ByteSet& s) {
    for (size_t i = 0; i < nfa_.sets.size(); ++i)
      if (nfa_.sets[i] == s) return int(i);
    nfa_.sets.push_back(s);
    return int(nfa_.sets.size() - 1);
  }

  int compile(int id, int next) {
    const Re& r = re_[size_t(id)];
    switch (r.kind) {
      case Re::chars: return add(NfaNode{NfaNode::chars, set_index(r.set), {next}});
      case Re::bol: return add(NfaNode{NfaNode::bol, -1, {next}});
      case Re::eol: return add(NfaNode{NfaNode::eol, -1, {next}});
      case Re::empty: return next;
      case Re::cat:
        for (auto k = r.kids.rbegin(); k != r.kids.rend(); ++k) next = compile(*k, next);
        return next;
      case Re::alt: {
        std::vector<int> outs;
        for (int k : r.kids) outs.push_back(compile(k, next));
        return add(NfaNode{NfaNode::eps, -1, outs});
      }
      case Re::rep: return repetition(r, next);
    }
    throw Unsupported("has a node the NFA builder does not know");
  }

  int repetition(const Re& r, int next) {
    int kid = r.kids[0];
    int cur = next;
    if (r.max < 0) {
      int loop = add(NfaNode{NfaNode::eps, -1, {}});
      int body = compile(kid, loop);
      nfa_.nodes[size_t(loop)].out = {body, next};
      cur = loop;
    } else {
      for (int k = r.min; k < r.max; ++k) cur = add(NfaNode{NfaNode::eps, -1, {compile(kid, cur), next}});
    }
    for (int k = 0; k < r.min; ++k) cur = compile(kid, cur);
    return cur;
  }

  const std::vector<Re>& re_;
  Nfa& nfa_;
};

// ---------------------------------------------------------------- DFA
//
// Anchors as glibc's matcher reads them without REG_NEWLINE: `^` holds
// where the text starts and right after a newline this match consumed;
// `$` holds where the text ends and right before a newline this match
// goes on to consume (glibc's transition table gives '\n' the
// newline context either way; measured: `.^b` and `a$.` match "a\nb",
// `^b` and `a$` do not).  So a DFA item is an NFA node plus whether `^`
// holds for that thread here; a `$` node stays in the set, blocked, and
// resumes on a '\n' or at the end.
//
// The `$` half holds only for patterns without groups: with groups the
// runtime asks regexec for them, and glibc then re-checks what follows
// each `$` with the real context, where a newline is no anchor (measured:
// `a$\s` matches "a\nb", `(a)$\s` does not, `(.)^b` does).

// An item: node * 2 + (1 if `^` holds).  Sorted vectors of them are states.
using Item = int;
using StateSet = std::vector<Item>;

class DfaBuilder {
 public:
  DfaBuilder(const Nfa& nfa, RegexDfa& dfa, bool eol_before_newline)
      : nfa_(nfa), dfa_(dfa), eol_before_newline_(eol_before_newline), seen_(2 * nfa.nodes.size()) {}

  void build() {
    byte_classes();
    StateSet init = closure({nfa_.start * 2 + 1}, false);
    sets_.push_back(init);
    if (has_match(init)) sink_ = 0;
    for (size_t s = 0; s < sets_.size(); ++s) {
      if (int(s) == sink_) {
        for (uint32_t c = 0; c < dfa_.classes; ++c) dfa_.next.push_back(uint16_t(s));
        dfa_.accept_end.push_back(1);
        continue;
      }
      dfa_.accept_end.push_back(has_match(closure(sets_[s], true)));
      for (uint32_t c = 0; c < dfa_.classes; ++c) dfa_.next.push_back(uint16_t(target(s, c)));
    }
  }

 private:
  const NfaNode& node(Item i) const { return nfa_.nodes[size_t(i / 2)]; }
  bool has_match(const StateSet& s) const {
    return std::any_of(s.begin(), s.end(), [&](Item i) { return node(i).kind == NfaNode::match; });
  }
  bool accepts(Item i, int byte) const {
    return node(i).kind == NfaNode::chars && nfa_.sets[size_t(node(i).set)][size_t(byte)];
  }

  // Columns: bytes in the same pattern sets are one class; '\n' alone
  // when there are anchors, since it moves them.
  void byte_classes() {
    std::vector<ByteSet> sets = nfa_.sets;
    bool anchors = std::any_of(nfa_.nodes.begin(), nfa_.nodes.end(), [](const NfaNode& n) {
      return n.kind == NfaNode::bol || n.kind == NfaNode::eol;
    });
    if (anchors) sets.push_back(ByteSet().set('\n'));
    std::map<std::vector<bool>, uint8_t> ids;
    for (int c = 0; c < 256; ++c) {
      std::vector<bool> sig;
      for (const ByteSet& s : sets) sig.push_back(s[size_t(c)]);
      auto [it, fresh] = ids.emplace(sig, uint8_t(ids.size()));
      dfa_.byte_class[size_t(c)] = it->second;
      if (fresh) representative_.push_back(c);
    }
    dfa_.classes = uint32_t(ids.size());
  }

  // Everything reachable by empty moves at one position.  Kept: consuming
  // nodes and the match (flag dropped: the next byte decides it), and
  // blocked `$` nodes with their flag (eol: the text ends here, so they
  // pass).  A `^` without its flag is dropped: it cannot hold later.
  StateSet closure(const StateSet& from, bool eol) {
    StateSet out, stack = from;
    std::vector<Item> touched;
    while (!stack.empty()) {
      Item i = stack.back();
      stack.pop_back();
      if (seen_[size_t(i)]) continue;
      seen_[size_t(i)] = 1;
      touched.push_back(i);
      const NfaNode& n = node(i);
      bool bol = i & 1;
      bool pass = n.kind == NfaNode::eps || (n.kind == NfaNode::bol && bol) ||
                  (n.kind == NfaNode::eol && eol);
      if (pass) {
        for (int o : n.out) stack.push_back(o * 2 + bol);
      } else if (n.kind == NfaNode::eol) {
        out.push_back(i);
      } else if (n.kind != NfaNode::bol) {
        out.push_back(i & ~1);
      }
    }
    for (Item i : touched) seen_[size_t(i)] = 0;
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  int target(size_t s, uint32_t cls) {
    int byte = representative_[cls];
    bool newline = byte == '\n';
    StateSet blocked, seeds{nfa_.start * 2};  // the search restarts at every position
    for (Item i : sets_[s]) {
      if (accepts(i, byte)) seeds.push_back(node(i).out[0] * 2 + newline);
      else if (node(i).kind == NfaNode::eol && newline && eol_before_newline_) blocked.push_back(i);
    }
    // `$` holds before a newline the thread consumes next.
    if (!blocked.empty())
      for (Item i : closure(blocked, true))
        if (accepts(i, byte)) seeds.push_back(node(i).out[0] * 2 + 1);
    StateSet next = closure(seeds, false);
    if (has_match(next)) next = {-1};  // every matched state is the one sink
    auto [it, fresh] = index_.emplace(next, int(sets_.size()));
    if (fresh) {
      if (next == StateSet{-1}) sink_ = it->second;
      sets_.push_back(next);
      if (sets_.size() > 65535 || sets_.size() * dfa_.classes > kRegexMaxTableEntries)
        throw Unsupported("is too large for kernel context (its DFA passes " +
                          std::to_string(kRegexMaxTableEntries) + " table entries)");
    }
    return it->second;
  }

  const Nfa& nfa_;
  RegexDfa& dfa_;
  bool eol_before_newline_;
  std::vector<char> seen_;
  std::vector<int> representative_;  // a byte of each class
  std::vector<StateSet> sets_;       // index 0: the start, never a target key
  std::map<StateSet, int> index_;
  int sink_ = -1;
};

std::string regcomp_error(const std::string& pattern, size_t& groups) {
  regex_t re;
  int rc = regcomp(&re, pattern.c_str(), REG_EXTENDED);
  if (rc == 0) {
    groups = re.re_nsub;
    regfree(&re);
    return "";
  }
  char text[256];
  regerror(rc, &re, text, sizeof text);
  return text;
}

}  // namespace

bool RegexDfa::matches(std::string_view text) const {
  uint32_t state = 0;
  for (char ch : text) {
    if (ch == '\0') break;
    state = next[state * classes + byte_class[static_cast<unsigned char>(ch)]];
  }
  return accept_end[state] != 0;
}

namespace {
uint32_t power_of_two(size_t n) {
  uint32_t p = 8;
  while (p < n) p *= 2;
  return p;
}
}  // namespace

uint32_t RegexDfa::accept_span() const { return power_of_two(states()); }
uint32_t RegexDfa::next_span() const { return power_of_two(next.size()); }

std::string RegexDfa::table_bytes() const {
  std::string out(next_offset(), '\0');
  for (size_t c = 0; c < 256; ++c) out[c] = char(byte_class[c]);
  for (size_t s = 0; s < accept_end.size(); ++s) out[accept_offset() + s] = char(accept_end[s]);
  for (uint16_t v : next) {
    out.push_back(char(v & 0xff));
    out.push_back(char(v >> 8));
  }
  out.resize(next_offset() + 2 * size_t(next_span()), '\0');
  return out;
}

RegexBuild build_regex_dfa(const std::string& pattern) {
  RegexBuild r;
  size_t groups = 0;
  if (std::string e = regcomp_error(pattern, groups); !e.empty()) {
    r.status = RegexStatus::invalid;
    r.reason = e;
    return r;
  }
  try {
    std::vector<Re> syntax;
    Parser parser(pattern, syntax);
    int root = parser.parse();
    Nfa nfa;
    NfaBuilder(syntax, nfa).build(root);
    DfaBuilder(nfa, r.dfa, groups == 0).build();
    r.dfa.groups = groups;
  } catch (const Unsupported& e) {
    r = RegexBuild{RegexStatus::unsupported, e.what(), {}};
  }
  return r;
}

}  // namespace stap::ir
