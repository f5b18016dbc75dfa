// The exports of src/exports, one function per file, for the export table.
#pragma once

#include "exports/export_registry.h"

namespace rtrace::exporters {

ExportInfo folded_export();      // folded_export.cpp
ExportInfo flamegraph_export();  // flamegraph_export.cpp
ExportInfo callgraph_export();   // callgraph_export.cpp
ExportInfo massif_export();      // massif_export.cpp
ExportInfo chrome_export();      // chrome_export.cpp
ExportInfo pprof_export();       // pprof_export.cpp

}  // namespace rtrace::exporters
