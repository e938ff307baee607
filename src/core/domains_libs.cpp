// src/core/domains_libs.cpp — the one translation unit that instantiates the library API domains
// (RCCL, rocDecode, rocJPEG, rocSHMEM, hipFile; names and argument printers), kept apart from the HSA and HIP domains so they compile
// in parallel. Their names and arguments are libencore's, so a tool can query them in a process
// where the library's interposer (libencore-rccl, ...) is not loaded.
#include "kinds.hpp"

#include <encore/domains/hipfile.hpp>
#include <encore/domains/rccl.hpp>
#include <encore/domains/rocdecode.hpp>
#include <encore/domains/rocjpeg.hpp>
#include <encore/domains/rocshmem.hpp>

namespace encore::core {
namespace {
const kind_registration<domains::rccl, domains::rocdecode, domains::rocjpeg, domains::rocshmem, domains::hipfile> registered;
}  // namespace
}  // namespace encore::core
