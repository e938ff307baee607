// test/libs/buffered_api.hpp — the buffer side of a library API kind in the tests of test/libs:
// a buffer of API records (RCCL_API, ROCJPEG_API) in a context of its own, delivered at flush,
// and what a test checks of them: one record per traced call, in call order, well formed.
//
//   buffered_api b{ROCPROFILER_BUFFER_TRACING_RCCL_API};   // in the tool's initialization
//   ... calls ...
//   b.flush();  expect(b.ok && b.ops == exit_ops_in_order, "...");
#pragma once

#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/context.h>

#include <cstddef>
#include <mutex>
#include <vector>

struct buffered_api {
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_context_id_t ctx{};
    rocprofiler_buffer_id_t buffer{};
    std::mutex mutex;
    std::vector<int> ops;  // the records' operation ids, in delivery order
    bool ok = true;        // every record of `kind`, well formed, none dropped

    explicit buffered_api(rocprofiler_buffer_tracing_kind_t k) : kind(k) {}

    /// In the tool's initialization: the context, its buffer (watermark = size: delivered at
    /// flush), the service, started. Returns the number of calls that failed.
    int configure() {
        int bad = rocprofiler_create_context(&ctx) != ROCPROFILER_STATUS_SUCCESS;
        bad += rocprofiler_create_buffer(ctx, 1 << 16, 1 << 16, ROCPROFILER_BUFFER_POLICY_LOSSLESS, &deliver, this,
                                         &buffer) != ROCPROFILER_STATUS_SUCCESS;
        bad += rocprofiler_configure_buffer_tracing_service(ctx, kind, nullptr, 0, buffer) != ROCPROFILER_STATUS_SUCCESS;
        return bad + (rocprofiler_start_context(ctx) != ROCPROFILER_STATUS_SUCCESS);
    }
    bool flush() { return rocprofiler_flush_buffer(buffer) == ROCPROFILER_STATUS_SUCCESS; }

private:
    // Every API buffer record has the HSA record's layout (kind, operation, correlation, times,
    // thread): read here as the RCCL one.
    static void deliver(rocprofiler_context_id_t, rocprofiler_buffer_id_t, rocprofiler_record_header_t** headers,
                        std::size_t n, void* data, uint64_t drops) {
        auto* self = static_cast<buffered_api*>(data);
        std::lock_guard lk(self->mutex);
        self->ok = self->ok && drops == 0;
        for (std::size_t i = 0; i < n; ++i) {
            const auto* r = static_cast<const rocprofiler_buffer_tracing_rccl_api_record_t*>(headers[i]->payload);
            self->ok = self->ok && headers[i]->category == ROCPROFILER_BUFFER_CATEGORY_TRACING &&
                       headers[i]->kind == static_cast<uint32_t>(self->kind) && r->size == sizeof(*r) &&
                       r->kind == self->kind && r->end_timestamp >= r->start_timestamp &&
                       r->correlation_id.internal != 0;
            self->ops.push_back(static_cast<int>(r->operation));
        }
    }
};
