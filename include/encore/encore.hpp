// encore/encore.hpp — header-first C++20 SDK for GPU runtime callback tracing.
//
// Quickstart (a tool that traces two HSA calls):
//
//   #include <encore/encore.hpp>
//   #include <encore/domains/hsa.hpp>
//   using encore::domains::hsa_core;
//
//   static int init(void*) {
//       encore::context ctx;
//       encore::context::create(ctx);
//       ctx.trace<hsa_core>(encore::ops<hsa_core, "hsa_queue_create", "hsa_signal_create">(),
//           [](const encore::record& r, rocprofiler_user_data_t&) {
//               encore::tracing::for_each_arg<hsa_core>(r.operation, r.payload, 1,
//                   [](const encore::tracing::arg_info& a) { std::printf("%s=%s\n", a.name, a.value); });
//           });
//       return ctx.start();
//   }
//   static encore::tool_registration reg{"my-tool", &init};
//
// Layers:
//   encore/api/        declare an API once (op, fn, domain); ids, names, dispatch derived
//   encore/domains/    one declaration per traced API (HSA tables, HIP runtime, event kinds)
//   encore/tracing/    wrappers, payloads, argument formatting, contexts and tools
//   rocprofiler-sdk/   the reference SDK's C API, same names (C tools compile unchanged)
//   libencore          the compiled core: contexts, correlation ids, tool discovery
#pragma once

#include <encore/api/domain.hpp>
#include <encore/api/kind.hpp>
#include <encore/api/type_name.hpp>
#include <encore/tracing/format.hpp>
#include <encore/tracing/payload.hpp>
#include <encore/tracing/tool.hpp>
#include <rocprofiler-sdk/rocprofiler.h>
