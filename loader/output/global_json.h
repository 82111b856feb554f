// --format=json's records of the script's globals at exit, in place of the
// text stap prints for globals written but never read (global_display in
// the compiler makes those probes; Probe::displays_global names the
// global each prints).  Records are described in output_sink.h.
#pragma once


#include "ir/ir.h"
#include "loader/interp/global_store.h"
#include "loader/output/output_sink.h"

namespace stap {

// A map (scalar or array of longs or strings) or stats record of global
// `g`, its entries sorted by key.
Json global_json(const ir::Module& m, const GlobalStore& store, size_t g);

// One statistic's figures (and its buckets, when it has a histogram).
Json stat_json(const ir::HistShape& shape, const StatValue& value);

}  // namespace stap
