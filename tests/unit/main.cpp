// Catch2's main for the unit-test binary; the tests live beside it, one
// file per module.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
