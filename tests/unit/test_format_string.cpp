// printf formats (base/format_string.h).  Acceptance, wording and the
// arguments consumed were compared with stap 4.8 (ostap -p2) on 500 random
// formats; the cases below pin the rules down one by one.
#include <catch2/catch.hpp>

#include <climits>

#include "base/format_string.h"

using stap::parse_printf_format;
using stap::PrintfPiece;

namespace {

// "OK <one letter per argument: l long, s string>" or "ERR <message>".
std::string check(const std::string& format) {
  std::vector<PrintfPiece> pieces;
  std::string error;
  if (!parse_printf_format(format, pieces, error)) return "ERR " + error;
  std::string args;
  size_t counted = 0;
  for (const PrintfPiece& p : pieces) {
    counted += static_cast<size_t>(p.argument_count());
    if (p.kind != PrintfPiece::Kind::conversion) continue;
    if (p.width == PrintfPiece::kFromArg) args += 'l';
    if (p.precision == PrintfPiece::kFromArg) args += 'l';
    args += p.takes_string() ? 's' : 'l';
  }
  CHECK(counted == args.size());
  return "OK " + args;
}

const std::string kBad = "ERR invalid or missing conversion specifier";
const std::string kTrailing = "ERR trailing incomplete print format conversion";

}  // namespace

TEST_CASE("format: conversions", "[format]") {
  for (char c : std::string("bcdiouxXpmM")) {
    INFO(c);
    CHECK(check(std::string("%") + c) == "OK l");
  }
  CHECK(check("%s") == "OK s");
  CHECK(check("a %d b %s c\n") == "OK ls");
  CHECK(check("") == "OK ");
  CHECK(check("no conversion") == "OK ");
  for (const char* bad : {"%q", "%e", "%f", "%g", "%n", "%C", "%hd", "%zd", "%Ld", "%1$d"}) {
    INFO(bad);
    CHECK(check(bad) == kBad);
  }
}

TEST_CASE("format: %% and a lone %", "[format]") {
  CHECK(check("100%%") == "OK ");
  CHECK(check("%%d") == "OK ");
  CHECK(check("%") == kBad);
  CHECK(check("%d%") == kBad);
  CHECK(check("%%%") == kBad);
}

TEST_CASE("format: one flag only", "[format]") {
  for (const char* ok : {"%-5d", "%+d", "% d", "%#x", "%05d", "%00d", "%-0d", "%+0d", "%#0d"}) {
    INFO(ok);
    CHECK(check(ok) == "OK l");
  }
  for (const char* bad : {"%--d", "%-+d", "%0-d", "%+ d", "%#-d", "%0-+ #5d"}) {
    INFO(bad);
    CHECK(check(bad) == kBad);
  }
}

TEST_CASE("format: width, precision, '*' and 'l'", "[format]") {
  CHECK(check("%*d") == "OK ll");
  CHECK(check("%.*s") == "OK ls");
  CHECK(check("%*.*s") == "OK lls");
  CHECK(check("%5.3s") == "OK s");
  CHECK(check("%.d") == "OK l");
  CHECK(check("%ld %lu %lx %ls") == "OK llls");
  CHECK(check("%5*d") == kBad);
  CHECK(check("%*5d") == kBad);
  CHECK(check("%.5*d") == kBad);
  CHECK(check("%5.5.5d") == kBad);
  CHECK(check("%lld") == kBad);
  CHECK(check("%l.") == kBad);
  std::vector<PrintfPiece> pieces;
  std::string error;
  REQUIRE(parse_printf_format("x%-12.4lsy", pieces, error));
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].text == "x");
  CHECK(pieces[1].flag == '-');
  CHECK(pieces[1].width == 12);
  CHECK(pieces[1].precision == 4);
  CHECK(pieces[1].long_modifier);
  CHECK(pieces[1].conversion == 's');
  CHECK(pieces[2].text == "y");
  REQUIRE(parse_printf_format("%99999999999d%.d", pieces, error));
  CHECK(pieces[0].width == INT_MAX);
  CHECK(pieces[1].precision == 0);
  CHECK(pieces[1].width == PrintfPiece::kNone);
}

TEST_CASE("format: a conversion cut short by the end", "[format]") {
  // Given a flag, width or precision: an error ...
  for (const char* bad : {"%5", "%-", "%#", "%0", "% ", "%*", "%-5", "%5.", "%5.3", "%.3",
                          "%.*", "%5l", "%.3l", "%-l", "abc%5"}) {
    INFO(bad);
    CHECK(check(bad) == kTrailing);
  }
  // ... otherwise dropped, consuming nothing.
  CHECK(check("%l") == "OK ");
  CHECK(check("%.") == "OK ");
  CHECK(check("%.l") == "OK ");
  CHECK(check("%lx%l") == "OK l");
  std::vector<PrintfPiece> pieces;
  std::string error;
  REQUIRE(parse_printf_format("ab%l", pieces, error));
  REQUIRE(pieces.size() == 1);
  CHECK(pieces[0].text == "ab");
}
